/* SPDX-License-Identifier: MIT */
/*
 * x86len.h - an x86-64 instruction length decoder: where each instruction
 * starts and ends, with enough of its shape (opcode map, ModRM, REX/VEX
 * register bits, displacement, immediate) to follow calls and constant
 * register loads.  No disassembly into text.
 */
#ifndef RB_DYN_X86LEN_H
#define RB_DYN_X86LEN_H

#include <stddef.h>
#include <stdint.h>

/* Opcode maps (rb_x86_insn.map). */
#define RB_X86_MAP_1B		0	/* one-byte opcodes */
#define RB_X86_MAP_0F		1
#define RB_X86_MAP_0F38		2
#define RB_X86_MAP_0F3A		3
#define RB_X86_MAP_EVEX5	5	/* EVEX maps 5 and 6 (FP16) */
#define RB_X86_MAP_EVEX6	6
#define RB_X86_MAP_XOP8		8	/* AMD XOP maps 8, 9, 10 */
#define RB_X86_MAP_XOP9		9
#define RB_X86_MAP_XOPA		10

/* Prefixes seen (rb_x86_insn.pfx). */
#define RB_X86_P_66		0x01
#define RB_X86_P_67		0x02
#define RB_X86_P_F2		0x04
#define RB_X86_P_F3		0x08
#define RB_X86_P_LOCK		0x10
#define RB_X86_P_SEG		0x20

/* Encodings (rb_x86_insn.enc). */
#define RB_X86_ENC_LEGACY	0
#define RB_X86_ENC_VEX		1
#define RB_X86_ENC_EVEX		2
#define RB_X86_ENC_XOP		3

struct rb_x86_insn {
	uint8_t		len;
	uint8_t		map;
	uint8_t		op;		/* the opcode byte in its map */
	uint8_t		enc;
	uint8_t		pfx;
	uint8_t		rex;		/* the REX byte, 0 if none */
	uint8_t		w;		/* REX.W / VEX.W */
	uint8_t		has_modrm;
	uint8_t		modrm;
	uint8_t		sib;
	uint8_t		reg;		/* ModRM.reg with REX.R / VEX.R */
	uint8_t		rm;		/* ModRM.rm with REX.B (mod == 3) */
	uint8_t		vvvv;		/* VEX/EVEX/XOP extra register */
	uint8_t		disp_off;	/* where the displacement starts */
	uint8_t		disp_size;
	uint8_t		imm_off;
	uint8_t		imm_size;
	uint8_t		riprel;		/* disp is relative to the next ip */
	int64_t		disp;
	uint64_t	imm;		/* zero-extended raw immediate */
};

int	rb_x86_decode(const uint8_t *, size_t, struct rb_x86_insn *);

#endif
