/* SPDX-License-Identifier: MIT */
/*
 * x86len.c - x86-64 (64-bit mode) instruction length decoder.
 *
 * Legacy prefixes, REX, VEX2/VEX3, EVEX and XOP; the one-byte, 0F, 0F38
 * and 0F3A maps (EVEX maps 5 and 6, XOP maps 8-10); ModRM, SIB,
 * displacement and immediates, with the odd cases: F6/F7 /0 and /1 take an
 * immediate, A0-A3 a 64-bit moffs (32-bit with 67), C8 enter imm16+imm8,
 * 66 shrinks imm32 to imm16 (not for near branches), B8+r imm64 with
 * REX.W, 3DNow! 0F 0F's trailing opcode byte, 0F 20-23 whose ModRM never
 * addresses memory.  Opcodes invalid in 64-bit mode are refused (-1), so a
 * caller never walks through bytes that are not code.
 */
#include "config.h"

#include <string.h>

#include "lib/dyn/x86len.h"

#define X86_MAXLEN	15

/* One-byte map: bit set when the opcode has a ModRM byte. */
static const uint32_t x86_modrm_1b[8] = {
	0x0f0f0f0f,	/* 00-1f: ALU r/m forms */
	0x0f0f0f0f,	/* 20-3f */
	0x00000000,	/* 40-5f: REX (handled before), push/pop */
	0x00000a08,	/* 60-7f: 63 movsxd, 69, 6b imul */
	0x0000ffff,	/* 80-9f: 80-8f */
	0x00000000,	/* a0-bf */
	0xff0f00f3,	/* c0-df: c0 c1 c4 c5 c6 c7, d0-d3, d8-df */
	0xc0c00000,	/* e0-ff: f6 f7 fe ff */
};

/* One-byte opcodes invalid in 64-bit mode. */
static const uint32_t x86_bad_1b[8] = {
	0xc0c040c0,	/* 06 07 0e 16 17 1e 1f */
	0x80808080,	/* 27 2f 37 3f */
	0x00000000,
	0x00000003,	/* 60 61 */
	0x04000004,	/* 82 9a */
	0x00000000,
	0x00704000,	/* ce, d4 d5 d6 */
	0x00000400,	/* ea */
};

#define BIT(t, o)	(((t)[(o) >> 5] >> ((o) & 31)) & 1)

static int
x86_imm_1b(uint8_t op, uint8_t pfx, uint8_t w, uint8_t modrm)
{
	int	z = (pfx & RB_X86_P_66) ? 2 : 4;

	if (op < 0x40 && (op & 7) == 4)
		return 1;
	if (op < 0x40 && (op & 7) == 5)
		return z;
	switch (op) {
	case 0x6a: case 0x6b: case 0x80: case 0x83: case 0xa8:
	case 0xc0: case 0xc1: case 0xc6: case 0xcd: case 0xeb:
	case 0xe0: case 0xe1: case 0xe2: case 0xe3:
	case 0xe4: case 0xe5: case 0xe6: case 0xe7:
		return 1;
	case 0x68: case 0x69: case 0x81: case 0xa9: case 0xc7:
		return z;
	case 0xe8: case 0xe9:
		return 4;
	case 0xc2: case 0xca:
		return 2;
	case 0xc8:
		return 3;
	case 0xa0: case 0xa1: case 0xa2: case 0xa3:
		return (pfx & RB_X86_P_67) ? 4 : 8;
	case 0xf6:
		return ((modrm >> 3) & 7) < 2 ? 1 : 0;
	case 0xf7:
		return ((modrm >> 3) & 7) < 2 ? z : 0;
	}
	if (op >= 0x70 && op <= 0x7f)
		return 1;
	if (op >= 0xb0 && op <= 0xb7)
		return 1;
	if (op >= 0xb8 && op <= 0xbf)
		return w ? 8 : z;
	return 0;
}

/* An fwait (9b) before fnstcw, fnstsw, fnclex, fninit, fnstenv, fnsave. */
static int
x86_fwait_folds(const uint8_t *p, size_t n)
{
	uint8_t	m;

	if (n < 2)
		return 0;
	m = p[1];
	switch (p[0]) {
	case 0xd9:
	case 0xdd:
		return (m >> 6) != 3 && ((m >> 3) & 7) >= 6;
	case 0xdb:
		return m == 0xe2 || m == 0xe3;
	case 0xdf:
		return m == 0xe0;
	}
	return 0;
}

/* 0F map: -1 invalid, else bit 0 ModRM, bits 4.. immediate size. */
static int
x86_shape_0f(uint8_t op, uint8_t pfx)
{
	switch (op) {
	case 0x04: case 0x0a: case 0x0c: case 0x24: case 0x25: case 0x26:
	case 0x27: case 0x36: case 0x39: case 0x3b: case 0x3c: case 0x3d:
	case 0x3e: case 0x3f: case 0x7a: case 0x7b:
		return -1;
	case 0x05: case 0x06: case 0x07: case 0x08: case 0x09: case 0x0b:
	case 0x0e: case 0x30: case 0x31: case 0x32: case 0x33: case 0x34:
	case 0x35: case 0x37: case 0x77: case 0xa0: case 0xa1: case 0xa2:
	case 0xa8: case 0xa9: case 0xaa:
		return 0;
	case 0x0f: case 0x70: case 0x71: case 0x72: case 0x73: case 0xa4:
	case 0xac: case 0xba: case 0xc2: case 0xc4: case 0xc5: case 0xc6:
		return 1 | (1 << 4);
	case 0x78:
		if (pfx & (RB_X86_P_66 | RB_X86_P_F2))
			return 1 | (2 << 4);
		return 1;
	}
	if (op >= 0x80 && op <= 0x8f)
		return 4 << 4;
	if (op >= 0xc8 && op <= 0xcf)
		return 0;
	return 1;
}

static int
x86_modrm(const uint8_t *p, size_t n, size_t i, struct rb_x86_insn *d,
    int nomem)
{
	uint8_t	m, mod, rm;

	if (i >= n)
		return -1;
	m = p[i++];
	d->has_modrm = 1;
	d->modrm = m;
	mod = m >> 6;
	rm = m & 7;
	d->reg = ((m >> 3) & 7) | ((d->rex & 4) << 1);
	d->rm = rm | ((d->rex & 1) << 3);
	if (mod == 3 || nomem)
		return (int)i;
	if (rm == 4) {
		if (i >= n)
			return -1;
		d->sib = p[i++];
		if (mod == 0 && (d->sib & 7) == 5)
			d->disp_size = 4;
	} else if (mod == 0 && rm == 5) {
		d->disp_size = 4;
		d->riprel = 1;
	}
	if (mod == 1)
		d->disp_size = 1;
	else if (mod == 2)
		d->disp_size = 4;
	d->disp_off = (uint8_t)i;
	return (int)i + d->disp_size;
}

static int64_t
x86_sext(const uint8_t *p, int size)
{
	switch (size) {
	case 1:
		return (int8_t)p[0];
	case 2:
		return (int16_t)(p[0] | p[1] << 8);
	case 4:
		return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 |
		    (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
	}
	return 0;
}

/*
 * rb_x86_decode - decode the instruction at @p (at most @n bytes readable)
 * into @d.  Return: its length (1-15), or -1 if it is not a valid 64-bit
 * mode instruction or runs past @n.
 */
int
rb_x86_decode(const uint8_t *p, size_t n, struct rb_x86_insn *d)
{
	size_t	i = 0, end;
	uint8_t	b, op;
	int	imm = 0, r, shape;

	memset(d, 0, sizeof(*d));
	if (n > X86_MAXLEN)
		n = X86_MAXLEN;
	for (;;) {
		if (i >= n)
			return -1;
		b = p[i];
		switch (b) {
		case 0x66:
			d->pfx |= RB_X86_P_66;
			break;
		case 0x67:
			d->pfx |= RB_X86_P_67;
			break;
		case 0xf2:
			d->pfx = (d->pfx & ~RB_X86_P_F3) | RB_X86_P_F2;
			break;
		case 0xf3:
			d->pfx = (d->pfx & ~RB_X86_P_F2) | RB_X86_P_F3;
			break;
		case 0xf0:
			d->pfx |= RB_X86_P_LOCK;
			break;
		case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64:
		case 0x65:
			d->pfx |= RB_X86_P_SEG;
			break;
		default:
			goto prefixes_done;
		}
		d->rex = 0;
		i++;
	}
prefixes_done:
	/* A REX followed by another is an instruction alone, as objdump. */
	if (i < n && (p[i] & 0xf0) == 0x40) {
		d->rex = p[i++];
		if (i < n && (p[i] & 0xf0) == 0x40) {
			d->len = (uint8_t)i;
			return (int)i;
		}
	}
	if (i >= n)
		return -1;
	d->w = (d->rex >> 3) & 1;
	op = p[i];

	if (op == 0xc4 || op == 0xc5 || op == 0x62 ||
	    (op == 0x8f && i + 1 < n && (p[i + 1] & 0x38) != 0)) {
		uint8_t	b1, b2, b3, mmmmm;

		if (d->rex || (d->pfx & (RB_X86_P_66 | RB_X86_P_F2 |
		    RB_X86_P_F3 | RB_X86_P_LOCK)))
			return -1;
		if (i + 1 >= n)
			return -1;
		b1 = p[i + 1];
		if (op == 0xc5) {
			d->enc = RB_X86_ENC_VEX;
			d->rex = 0x40 | ((~b1 >> 5) & 4);
			d->vvvv = (~b1 >> 3) & 15;
			mmmmm = 1;
			b2 = b1;
			i += 2;
		} else if (op == 0x62) {
			if (i + 3 >= n)
				return -1;
			b2 = p[i + 2];
			b3 = p[i + 3];
			if ((b2 & 4) == 0)
				return -1;
			d->enc = RB_X86_ENC_EVEX;
			d->rex = 0x40 | ((~b1 >> 5) & 7);
			d->w = b2 >> 7;
			d->vvvv = ((~b2 >> 3) & 15) | ((~b3 & 8) << 1);
			mmmmm = b1 & 7;
			if (mmmmm == 0 || mmmmm == 4 || mmmmm == 7)
				return -1;
			i += 4;
		} else {
			if (i + 2 >= n)
				return -1;
			b2 = p[i + 2];
			d->enc = op == 0xc4 ? RB_X86_ENC_VEX : RB_X86_ENC_XOP;
			d->rex = 0x40 | ((~b1 >> 5) & 7);
			d->w = b2 >> 7;
			d->vvvv = (~b2 >> 3) & 15;
			mmmmm = b1 & 31;
			if (d->enc == RB_X86_ENC_VEX && (mmmmm < 1 || mmmmm > 3))
				return -1;
			if (d->enc == RB_X86_ENC_XOP && (mmmmm < 8 || mmmmm > 10))
				return -1;
			i += 3;
		}
		switch ((b2 & 3)) {
		case 1:
			d->pfx |= RB_X86_P_66;
			break;
		case 2:
			d->pfx |= RB_X86_P_F3;
			break;
		case 3:
			d->pfx |= RB_X86_P_F2;
			break;
		}
		d->map = mmmmm;
		if (i >= n)
			return -1;
		d->op = p[i++];
		if (d->map == RB_X86_MAP_0F && d->op == 0x77 &&
		    d->enc == RB_X86_ENC_VEX) {
			d->len = (uint8_t)i;
			return (int)i;	/* vzeroupper, vzeroall */
		}
		r = x86_modrm(p, n, i, d, 0);
		if (r < 0)
			return -1;
		i = (size_t)r;
		switch (d->map) {
		case RB_X86_MAP_0F3A:
		case RB_X86_MAP_XOP8:
			imm = 1;
			break;
		case RB_X86_MAP_XOPA:
			imm = 4;
			break;
		case RB_X86_MAP_0F:
			shape = x86_shape_0f(d->op, d->pfx);
			imm = shape < 0 ? 0 : shape >> 4;
			break;
		}
		goto immediates;
	}

	i++;
	if (op == 0x0f) {
		if (i >= n)
			return -1;
		op = p[i++];
		if (op == 0x38 || op == 0x3a) {
			d->map = op == 0x38 ? RB_X86_MAP_0F38 : RB_X86_MAP_0F3A;
			if (i >= n)
				return -1;
			d->op = p[i++];
			r = x86_modrm(p, n, i, d, 0);
			if (r < 0)
				return -1;
			i = (size_t)r;
			imm = d->map == RB_X86_MAP_0F3A;
			goto immediates;
		}
		d->map = RB_X86_MAP_0F;
		d->op = op;
		shape = x86_shape_0f(op, d->pfx);
		if (shape < 0)
			return -1;
		if (shape & 1) {
			r = x86_modrm(p, n, i, d, op >= 0x20 && op <= 0x23);
			if (r < 0)
				return -1;
			i = (size_t)r;
		}
		imm = shape >> 4;
		goto immediates;
	}

	d->map = RB_X86_MAP_1B;
	d->op = op;
	if (BIT(x86_bad_1b, op))
		return -1;
	if (op == 0x9b && i < n && x86_fwait_folds(p + i, n - i)) {
		/* fwait and the x87 instruction it guards: one, as objdump. */
		i++;
		op = p[i - 1];
		d->op = op;
	}
	if (BIT(x86_modrm_1b, op)) {
		r = x86_modrm(p, n, i, d, 0);
		if (r < 0)
			return -1;
		i = (size_t)r;
		if ((op == 0xff && (d->modrm & 0x38) == 0x38) ||
		    (op == 0xff && d->modrm >= 0xc0 &&
		    ((d->modrm & 0x38) == 0x18 || (d->modrm & 0x38) == 0x28)) ||
		    (op == 0x8d && d->modrm >= 0xc0) ||
		    (op == 0xfe && (d->modrm & 0x38) >= 0x10))
			return -1;
	}
	imm = x86_imm_1b(op, d->pfx, d->w, d->modrm);

immediates:
	end = i + (size_t)imm;
	if (end > n)
		return -1;
	if (d->disp_size)
		d->disp = x86_sext(p + d->disp_off, d->disp_size);
	d->imm_off = (uint8_t)i;
	d->imm_size = (uint8_t)imm;
	for (r = 0; r < imm; r++)
		d->imm |= (uint64_t)p[i + (size_t)r] << (8 * r);
	d->len = (uint8_t)end;
	return (int)end;
}
