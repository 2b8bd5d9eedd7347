/* SPDX-License-Identifier: MIT */
/*
 * sites.c - build the site table of one loaded object from its image in
 * memory (rbtrace(5), "Dynamic tracing").
 *
 * Code ranges come from PT_GNU_EH_FRAME: the .eh_frame_hdr search table
 * gives every FDE's start, the FDE its length.  An object without that
 * table is not scanned (-ENOENT): nothing else in memory gives function
 * ranges, and a site is never taken from bytes that only look like a call.
 * Which PLT stub or GOT slot is a hook comes from PT_DYNAMIC's relocations
 * (DT_JMPREL, DT_RELA) and their symbols (DT_SYMTAB, DT_STRTAB).
 *
 * Each range is decoded linearly from its start (lib/dyn/x86len.c); a range
 * whose decode fails or runs past its end keeps no site.  The value of
 * %rdi at each site (this_fn) comes from a forward data flow of constant
 * register values over the range: lea disp(%rip), mov $imm, movabs and
 * register copies make a constant, a load from a GOT slot (read-only after
 * relocation: in PT_GNU_RELRO) a function of another object, named by its
 * slot, anything else that may write a register
 * makes it unknown, calls clobber the caller-saved ones, and a join keeps a
 * value only if every way in agrees.  Code reached only from an indirect
 * jump or an unwinder (jump tables, landing pads) starts from what all
 * indirect jumps and calls agree on, since callee-saved registers survive
 * both.
 *
 * Cold path, run once per object: memory is mmap'ed, never malloc'ed, so
 * it is safe before the program's allocator is up and cannot recurse into
 * an instrumented one.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/dyn/sites.h"
#include "lib/dyn/x86len.h"

#define SITES_MAX_SLOTS		8
#define SITES_MAX_PASSES	32
#define SITES_MEMO		64

static const char *const sites_hook_names[2] = {
	"__cyg_profile_func_enter",
	"__cyg_profile_func_exit",
};

/* Registers %rax..%r15 as numbered by ModRM. */
#define R_AX	0
#define R_CX	1
#define R_DX	2
#define R_BX	3
#define R_SP	4
#define R_BP	5
#define R_SI	6
#define R_DI	7
#define CALLER_SAVED	0x0fc7	/* ax cx dx si di r8-r11 */

/* One decoded instruction, as the data flow needs it. */
struct step {
	uint64_t	val;		/* STEP_CONST: the value */
	uint32_t	off;
	int32_t		to;		/* branch target offset, -1 if none */
	uint16_t	kill;		/* STEP_KILL: registers written */
	uint8_t		len;
	uint8_t		flow;
	uint8_t		kind;
	uint8_t		reg;
	uint8_t		src;
	uint8_t		nop;
};
#define STEP_KILL	0
#define STEP_CONST	1
#define STEP_COPY64	2
#define STEP_COPY32	3
#define STEP_LOAD	4	/* from the GOT slot at val */

/* Constant register values at a point; a register is TOP until reached. */
struct regs {
	uint64_t	v[16];
	uint16_t	known;
	uint16_t	top;
	uint16_t	slot;	/* v[r] is the address of a GOT slot holding it */
};

struct scan {
	const struct rb_sites_obj *o;
	struct rb_sites	*t;
	uintptr_t	slots[SITES_MAX_SLOTS];
	uint8_t		slot_hook[SITES_MAX_SLOTS];
	int		nslots;
	uintptr_t	stubs[SITES_MAX_SLOTS]; /* PLT stubs called (runtime) */
	uintptr_t	memo_t[SITES_MEMO];	/* call targets seen, */
	int8_t		memo_h[SITES_MEMO];	/* their hook or -1 */
	unsigned	memo_next;
	int		nstubs;
	uintptr_t	direct[4];
	uint8_t		direct_hook[4];
	int		ndirect;
	/* scratch for one range */
	uint8_t		*bits;		/* leader bitmap, one bit per byte */
	uint8_t		*tbits;		/* direct branch targets, the same */
	uint8_t		*fbits;		/* entries from other ranges */
	struct step	*steps;		/* the range's instructions */
	size_t		nsteps, stepsmapped;
	uint64_t	*ext;		/* targets of jumps out of a range */
	size_t		next, extmapped;
	bool		force;		/* make ext targets unknown entries */
	uint32_t	*lead;		/* leader offsets, sorted */
	struct regs	*in;		/* state at each leader */
	size_t		scratch;
	size_t		inmapped;
};

static void *
sites_map(size_t len)
{
	void	*p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static size_t
sites_round(size_t n)
{
	long	pg = sysconf(_SC_PAGESIZE);

	if (pg <= 0)
		pg = 4096;
	return (n + (size_t)pg - 1) & ~((size_t)pg - 1);
}

/* Link address @va as a readable pointer to @len bytes, or NULL. */
static const uint8_t *
obj_ptr(const struct rb_sites_obj *o, uint64_t va, size_t len, bool code)
{
	unsigned	i;

	for (i = 0; i < o->phnum; i++) {
		const Elf64_Phdr *ph = &o->phdr[i];

		if (ph->p_type != PT_LOAD || (code && !(ph->p_flags & PF_X)))
			continue;
		if (va >= ph->p_vaddr && len <= ph->p_filesz &&
		    va - ph->p_vaddr <= ph->p_filesz - len)
			return (const uint8_t *)(uintptr_t)(va + o->bias);
	}
	return NULL;
}

/* Whether the 8 bytes at link address @va are read-only after relocation. */
static bool
obj_relro(const struct rb_sites_obj *o, uint64_t va)
{
	unsigned	i;

	for (i = 0; i < o->phnum; i++) {
		const Elf64_Phdr *ph = &o->phdr[i];

		if (ph->p_type == PT_GNU_RELRO && va >= ph->p_vaddr &&
		    ph->p_memsz >= 8 && va - ph->p_vaddr <= ph->p_memsz - 8)
			return obj_ptr(o, va, 8, false) != NULL;
	}
	return false;
}

/* Bytes of code readable from link address @va, 0 if none. */
static size_t
obj_code_avail(const struct rb_sites_obj *o, uint64_t va)
{
	unsigned	i;

	for (i = 0; i < o->phnum; i++) {
		const Elf64_Phdr *ph = &o->phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
		    va >= ph->p_vaddr && va - ph->p_vaddr < ph->p_filesz)
			return ph->p_filesz - (va - ph->p_vaddr);
	}
	return 0;
}

/*
 * A dynamic entry's address: ld.so rewrites some in place to runtime
 * addresses, a file mapped by hand keeps link addresses.  Return the link
 * address.
 */
static uint64_t
obj_dyn_addr(const struct rb_sites_obj *o, uint64_t v)
{
	if (o->bias != 0 && v >= o->bias &&
	    obj_ptr(o, v - o->bias, 1, false) != NULL)
		return v - o->bias;
	return v;
}

static uint32_t
rd32(const uint8_t *p)
{
	uint32_t	v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t
rd64(const uint8_t *p)
{
	uint64_t	v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * rb_sites_build_id - the object's NT_GNU_BUILD_ID into @id (at most
 * RB_SITES_BUILD_ID_MAX bytes), its length into @len.  Return: 0 or -ENOENT.
 */
int
rb_sites_build_id(const struct rb_sites_obj *o, uint8_t *id, uint32_t *len)
{
	unsigned	i;

	for (i = 0; i < o->phnum; i++) {
		const Elf64_Phdr *ph = &o->phdr[i];
		const uint8_t	*p;
		uint64_t	 off = 0;

		if (ph->p_type != PT_NOTE)
			continue;
		p = obj_ptr(o, ph->p_vaddr, ph->p_filesz, false);
		if (p == NULL)
			continue;
		while (off + 12 <= ph->p_filesz) {
			uint32_t namesz = rd32(p + off);
			uint32_t descsz = rd32(p + off + 4);
			uint32_t type = rd32(p + off + 8);
			uint64_t name = off + 12;
			uint64_t desc = name + (((uint64_t)namesz + 3) & ~3ULL);
			uint64_t next = desc + (((uint64_t)descsz + 3) & ~3ULL);

			if (next > ph->p_filesz)
				break;
			if (type == NT_GNU_BUILD_ID && namesz == 4 &&
			    memcmp(p + name, "GNU", 4) == 0 && descsz > 0 &&
			    descsz <= RB_SITES_BUILD_ID_MAX) {
				memcpy(id, p + desc, descsz);
				*len = descsz;
				return 0;
			}
			off = next;
		}
	}
	return -ENOENT;
}

/* The GOT slots and defined addresses that are the hooks. */
static void
sites_find_hooks(struct scan *s)
{
	const struct rb_sites_obj *o = s->o;
	uint64_t	 symtab = 0, strtab = 0, strsz = 0, rel[2] = { 0, 0 };
	uint64_t	 relsz[2] = { 0, 0 }, relent = sizeof(Elf64_Rela);
	const uint8_t	*dyn = NULL;
	uint64_t	 dynsz = 0, i, k;
	unsigned	 p;
	int		 h;

	for (h = 0; h < 2; h++) {
		if (o->hooks[h] != 0 && s->ndirect < 4) {
			s->direct[s->ndirect] = o->hooks[h];
			s->direct_hook[s->ndirect++] = (uint8_t)h;
		}
	}
	for (p = 0; p < o->phnum; p++) {
		if (o->phdr[p].p_type == PT_DYNAMIC) {
			dynsz = o->phdr[p].p_filesz;
			dyn = obj_ptr(o, o->phdr[p].p_vaddr, dynsz, false);
		}
	}
	if (dyn == NULL)
		return;
	for (i = 0; i + sizeof(Elf64_Dyn) <= dynsz; i += sizeof(Elf64_Dyn)) {
		Elf64_Dyn	d;

		memcpy(&d, dyn + i, sizeof(d));
		if (d.d_tag == DT_NULL)
			break;
		switch (d.d_tag) {
		case DT_SYMTAB:
			symtab = obj_dyn_addr(o, d.d_un.d_ptr);
			break;
		case DT_STRTAB:
			strtab = obj_dyn_addr(o, d.d_un.d_ptr);
			break;
		case DT_STRSZ:
			strsz = d.d_un.d_val;
			break;
		case DT_JMPREL:
			rel[0] = obj_dyn_addr(o, d.d_un.d_ptr);
			break;
		case DT_PLTRELSZ:
			relsz[0] = d.d_un.d_val;
			break;
		case DT_RELA:
			rel[1] = obj_dyn_addr(o, d.d_un.d_ptr);
			break;
		case DT_RELASZ:
			relsz[1] = d.d_un.d_val;
			break;
		case DT_RELAENT:
			relent = d.d_un.d_val;
			break;
		}
	}
	if (symtab == 0 || strtab == 0 || relent < sizeof(Elf64_Rela) ||
	    obj_ptr(o, strtab, strsz, false) == NULL)
		return;
	for (k = 0; k < 2; k++) {
		const uint8_t	*r = obj_ptr(o, rel[k], relsz[k], false);

		if (r == NULL || rel[k] == 0)
			continue;
		for (i = 0; i + relent <= relsz[k]; i += relent) {
			Elf64_Rela	 ra;
			Elf64_Sym	 sym;
			const uint8_t	*sp, *name;
			uint32_t	 type;

			memcpy(&ra, r + i, sizeof(ra));
			type = ELF64_R_TYPE(ra.r_info);
			if (type != R_X86_64_JUMP_SLOT &&
			    type != R_X86_64_GLOB_DAT)
				continue;
			sp = obj_ptr(o, symtab + ELF64_R_SYM(ra.r_info) *
			    sizeof(Elf64_Sym), sizeof(Elf64_Sym), false);
			if (sp == NULL)
				continue;
			memcpy(&sym, sp, sizeof(sym));
			if (sym.st_name >= strsz)
				continue;
			name = obj_ptr(o, strtab + sym.st_name, 1, false);
			for (h = 0; h < 2; h++) {
				size_t	len = strlen(sites_hook_names[h]) + 1;

				if (strsz - sym.st_name < len ||
				    memcmp(name, sites_hook_names[h], len) != 0)
					continue;
				if (s->nslots < SITES_MAX_SLOTS) {
					s->slots[s->nslots] = ra.r_offset +
					    o->bias;
					s->slot_hook[s->nslots++] = (uint8_t)h;
				}
				if (sym.st_shndx != SHN_UNDEF &&
				    sym.st_value != 0 && s->ndirect < 4) {
					s->direct[s->ndirect] = sym.st_value +
					    o->bias;
					s->direct_hook[s->ndirect++] =
					    (uint8_t)h;
				}
			}
		}
	}
}

static int
sites_slot_hook(const struct scan *s, uintptr_t slot)
{
	int	i;

	for (i = 0; i < s->nslots; i++)
		if (s->slots[i] == slot)
			return s->slot_hook[i];
	return -1;
}

static int sites_plt_decode(const struct scan *, uintptr_t);

/* The hook a PLT stub at runtime address @t jumps through, or -1. */
static int
sites_plt_hook(struct scan *s, uintptr_t t)
{
	unsigned	i;
	int		h;

	for (i = 0; i < SITES_MEMO; i++)
		if (s->memo_t[i] == t && t != 0)
			return s->memo_h[i];
	h = sites_plt_decode(s, t);
	i = s->memo_next++ % SITES_MEMO;
	s->memo_t[i] = t;
	s->memo_h[i] = (int8_t)h;
	return h;
}

static int
sites_plt_decode(const struct scan *s, uintptr_t t)
{
	const struct rb_sites_obj *o = s->o;
	struct rb_x86_insn d;
	uint64_t	va = t - o->bias;
	size_t		avail;
	int		len, i;

	for (i = 0; i < 2; i++) {
		avail = obj_code_avail(o, va);
		if (avail == 0)
			return -1;
		len = rb_x86_decode((const uint8_t *)(uintptr_t)(va + o->bias),
		    avail, &d);
		if (len < 0)
			return -1;
		if (i == 0 && len == 4 && d.map == RB_X86_MAP_0F &&
		    d.op == 0x1e && d.modrm == 0xfa &&
		    (d.pfx & RB_X86_P_F3)) {
			va += (uint64_t)len;	/* endbr64 */
			continue;
		}
		if (d.map == RB_X86_MAP_1B && d.op == 0xff &&
		    (d.modrm & 0x38) == 0x20 && d.riprel)
			return sites_slot_hook(s, (uintptr_t)(va + o->bias +
			    (uint64_t)len + (uint64_t)d.disp));
		return -1;
	}
	return -1;
}

/*
 * Whether the decoded instruction at runtime address @ip calls (or jumps
 * to) a hook: its hook, and *@via, *@tail; -1 if not.
 */
static int
sites_classify(struct scan *s, const struct rb_x86_insn *d,
    uintptr_t ip, uint8_t *via, uint8_t *tail)
{
	uintptr_t	next = ip + d->len, t;
	int		i, h;

	if (d->map != RB_X86_MAP_1B || d->enc != RB_X86_ENC_LEGACY)
		return -1;
	if ((d->op == 0xe8 || d->op == 0xe9) && d->imm_size == 4) {
		t = next + (uintptr_t)(int64_t)(int32_t)d->imm;
		*tail = d->op == 0xe9;
		for (i = 0; i < s->ndirect; i++) {
			if (s->direct[i] == t) {
				*via = RB_SITE_DIRECT;
				return s->direct_hook[i];
			}
		}
		*via = RB_SITE_PLT;
		h = sites_plt_hook(s, t);
		if (h >= 0 && s->nstubs < SITES_MAX_SLOTS) {
			for (i = 0; i < s->nstubs && s->stubs[i] != t; i++)
				;
			if (i == s->nstubs)
				s->stubs[s->nstubs++] = t;
		}
		return h;
	}
	if (d->op == 0xff && ((d->modrm & 0x38) == 0x10 ||
	    (d->modrm & 0x38) == 0x20) && (d->modrm >> 6) == 0) {
		*tail = (d->modrm & 0x38) == 0x20;
		*via = RB_SITE_GOT;
		if (d->riprel)
			h = sites_slot_hook(s, next + (uintptr_t)d->disp);
		else if ((d->modrm & 7) == 4 && d->sib == 0x25)
			h = sites_slot_hook(s, (uintptr_t)d->disp);
		else
			h = -1;
		return h;
	}
	return -1;
}

/* Make the mapping at *@v (*@mapped bytes, or none) hold @need bytes. */
static int
sites_grow(void **v, size_t *mapped, size_t need)
{
	size_t	 sz;
	void	*p;

	if (need <= *mapped)
		return 0;
	sz = sites_round(*mapped ? *mapped * 2 : 65536);
	if (*v == NULL)
		p = sites_map(sz);
	else {
		p = mremap(*v, *mapped, sz, MREMAP_MAYMOVE);
		if (p == MAP_FAILED)
			p = NULL;
	}
	if (p == NULL)
		return -ENOMEM;
	*v = p;
	*mapped = sz;
	return 0;
}

/* Grow the site array to hold one more. */
static int
sites_push(struct rb_sites *t, const struct rb_site *st)
{
	void	*v = t->v;

	if (sites_grow(&v, &t->mapped, (t->n + 1) * sizeof(*t->v)) != 0)
		return -ENOMEM;
	t->v = v;
	t->v[t->n++] = *st;
	return 0;
}

/* Scratch for a range of @size bytes and up to @size leaders. */
static int
sites_scratch(struct scan *s, size_t size)
{
	size_t	need;

	need = 3 * sites_round((size + 7) / 8) + sites_round(size * 4);
	if (need > s->scratch) {
		if (s->bits != NULL)
			munmap(s->bits, s->scratch);
		s->bits = sites_map(need);
		if (s->bits == NULL) {
			s->scratch = 0;
			return -ENOMEM;
		}
		s->scratch = need;
		if (need > s->t->peak_scratch)
			s->t->peak_scratch = need;
	}
	s->tbits = s->bits + sites_round((size + 7) / 8);
	s->fbits = s->tbits + sites_round((size + 7) / 8);
	s->lead = (uint32_t *)(void *)(s->fbits + sites_round((size + 7) / 8));
	memset(s->bits, 0, (size + 7) / 8);
	memset(s->tbits, 0, (size + 7) / 8);
	memset(s->fbits, 0, (size + 7) / 8);
	return 0;
}

/* States for @n leaders. */
static int
sites_scratch_regs(struct scan *s, size_t n)
{
	size_t	need = sites_round(n * sizeof(struct regs));

	if (need > s->inmapped) {
		if (s->in != NULL)
			munmap(s->in, s->inmapped);
		s->in = sites_map(need);
		if (s->in == NULL) {
			s->inmapped = 0;
			return -ENOMEM;
		}
		s->inmapped = need;
		if (need + s->scratch > s->t->peak_scratch)
			s->t->peak_scratch = need + s->scratch;
	}
	return 0;
}

#define LEADER_SET(s, o)	((s)->bits[(o) >> 3] |= 1 << ((o) & 7))
#define LEADER_IS(s, o)		(((s)->bits[(o) >> 3] >> ((o) & 7)) & 1)
#define TARGET_SET(s, o)	((s)->tbits[(o) >> 3] |= 1 << ((o) & 7))
#define TARGET_IS(s, o)		(((s)->tbits[(o) >> 3] >> ((o) & 7)) & 1)
#define ENTRY_SET(s, o)		((s)->fbits[(o) >> 3] |= 1 << ((o) & 7))
#define ENTRY_IS(s, o)		(((s)->fbits[(o) >> 3] >> ((o) & 7)) & 1)

/* Remember @va, the target of a jump out of its range. */
static int
sites_ext_push(struct scan *s, uint64_t va)
{
	void	*v = s->ext;

	if (sites_grow(&v, &s->extmapped, (s->next + 1) * sizeof(*s->ext)) != 0)
		return -ENOMEM;
	s->ext = v;
	s->ext[s->next++] = va;
	return 0;
}

/* The first of the sorted ext[] at or after @va. */
static size_t
sites_ext_find(const struct scan *s, uint64_t va)
{
	size_t	lo = 0, hi = s->next;

	while (lo < hi) {
		size_t	mid = lo + (hi - lo) / 2;

		if (s->ext[mid] < va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void
u64_sift(uint64_t *v, size_t i, size_t n)
{
	uint64_t	tmp;
	size_t		c;

	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && v[c] < v[c + 1])
			c++;
		if (v[i] >= v[c])
			break;
		tmp = v[i];
		v[i] = v[c];
		v[c] = tmp;
		i = c;
	}
}

static void
u64_sort(uint64_t *v, size_t n)
{
	uint64_t	tmp;
	size_t		i;

	for (i = n / 2; i-- > 0;)
		u64_sift(v, i, n);
	while (n > 1) {
		n--;
		tmp = v[0];
		v[0] = v[n];
		v[n] = tmp;
		u64_sift(v, 0, n);
	}
}

/* Control transfer of @d: 0 none, 1 conditional, 2 unconditional jump,
   3 call, 4 indirect jump, 5 return or stop. */
static int
insn_flow(const struct rb_x86_insn *d, int64_t *rel)
{
	*rel = 0;
	if (d->enc != RB_X86_ENC_LEGACY)
		return 0;
	if (d->map == RB_X86_MAP_0F) {
		if (d->op >= 0x80 && d->op <= 0x8f) {
			*rel = (int32_t)d->imm;
			return 1;
		}
		if (d->op == 0x0b || d->op == 0xb9 || d->op == 0xff)
			return 5;	/* ud2, ud1, ud0 */
		return 0;
	}
	if (d->map != RB_X86_MAP_1B)
		return 0;
	switch (d->op) {
	case 0x70: case 0x71: case 0x72: case 0x73: case 0x74: case 0x75:
	case 0x76: case 0x77: case 0x78: case 0x79: case 0x7a: case 0x7b:
	case 0x7c: case 0x7d: case 0x7e: case 0x7f:
	case 0xe0: case 0xe1: case 0xe2: case 0xe3:
		*rel = (int8_t)d->imm;
		return 1;
	case 0xeb:
		*rel = (int8_t)d->imm;
		return 2;
	case 0xe9:
		*rel = (int32_t)d->imm;
		return 2;
	case 0xe8:
		return 3;
	case 0xc2: case 0xc3: case 0xca: case 0xcb: case 0xcf: case 0xf4:
		return 5;
	case 0xff:
		switch ((d->modrm >> 3) & 7) {
		case 2: case 3:
			return 3;
		case 4: case 5:
			return 4;
		}
		return 0;
	}
	return 0;
}

static bool
insn_nop(const struct rb_x86_insn *d)
{
	return d->enc == RB_X86_ENC_LEGACY &&
	    ((d->map == RB_X86_MAP_1B && d->op == 0x90 && !(d->rex & 1)) ||
	    (d->map == RB_X86_MAP_0F && d->op == 0x1f));
}

#define RKILL(st, m)		((st)->known &= (uint16_t)~(m))
#define RSET(sp, r, x)		do { (sp)->kind = STEP_CONST; \
	(sp)->reg = (uint8_t)(r); (sp)->val = (x); } while (0)

/* Registers an instruction may write, beyond the tracked moves. */
static void
insn_effect(const struct rb_x86_insn *d, uintptr_t next, struct step *st)
{
	uint16_t	kill = 0;
	uint8_t		op = d->op, sub = (d->modrm >> 3) & 7;
	bool		mod3 = d->has_modrm && (d->modrm >> 6) == 3;
	int		dst = 3;	/* 1 rm, 2 reg, 3 both, 0 none */

	if (d->enc == RB_X86_ENC_LEGACY && d->map == RB_X86_MAP_1B) {
		/* lea disp(%rip), %reg */
		if (op == 0x8d && d->riprel && d->w) {
			RSET(st, d->reg, next + (uintptr_t)d->disp);
			return;
		}
		if (op == 0x8d && d->riprel && !(d->pfx & RB_X86_P_66)) {
			RSET(st, d->reg, (uint32_t)(next + (uintptr_t)d->disp));
			return;
		}
		/* mov disp(%rip), %reg: a GOT slot if in RELRO (the caller) */
		if (op == 0x8b && d->riprel && d->w &&
		    !(d->pfx & (RB_X86_P_66 | RB_X86_P_SEG))) {
			RSET(st, d->reg, next + (uintptr_t)d->disp);
			st->kind = STEP_LOAD;
			return;
		}
		if (op >= 0xb8 && op <= 0xbf && !(d->pfx & RB_X86_P_66)) {
			RSET(st, (op & 7) | ((d->rex & 1) << 3),
			    d->w ? d->imm : (uint32_t)d->imm);
			return;
		}
		if (op == 0xc7 && mod3 && sub == 0 &&
		    !(d->pfx & RB_X86_P_66)) {
			RSET(st, d->rm, d->w ? (uint64_t)(int64_t)(int32_t)
			    d->imm : (uint32_t)d->imm);
			return;
		}
		if ((op == 0x89 || op == 0x8b) && mod3 &&
		    !(d->pfx & RB_X86_P_66)) {
			int	from = op == 0x89 ? d->reg : d->rm;
			int	to = op == 0x89 ? d->rm : d->reg;

			st->kind = d->w ? STEP_COPY64 : STEP_COPY32;
			st->src = (uint8_t)from;
			st->reg = (uint8_t)to;
			return;
		}
		if (op < 0x40) {
			if ((op & 7) <= 1)
				dst = (op & 0x38) == 0x38 ? 0 : 1;
			else if ((op & 7) <= 3)
				dst = (op & 0x38) == 0x38 ? 0 : 2;
			else
				kill |= 1 << R_AX;
		} else if (op >= 0x50 && op <= 0x57) {
			dst = 0;
		} else if (op >= 0x58 && op <= 0x5f) {
			dst = 0;
			kill |= 1 << ((op & 7) | ((d->rex & 1) << 3));
		} else if (op >= 0x90 && op <= 0x97) {
			dst = 0;
			kill |= 1 << R_AX | 1 << ((op & 7) | ((d->rex & 1) << 3));
			if (op == 0x90 && !(d->rex & 1))
				kill = 0;
		} else if (op >= 0xb0 && op <= 0xbf) {
			dst = 0;
			kill |= 1 << ((op & 7) | ((d->rex & 1) << 3));
		} else {
			switch (op) {
			case 0x84: case 0x85: case 0x8e:
				dst = 0;
				break;
			case 0x88: case 0x89: case 0x8c: case 0x8f:
			case 0xc0: case 0xc1: case 0xc6: case 0xc7:
			case 0xd0: case 0xd1: case 0xd2: case 0xd3:
				dst = 1;
				break;
			case 0x80: case 0x81: case 0x83:
				dst = sub == 7 ? 0 : 1;
				break;
			case 0x8a: case 0x8b: case 0x8d: case 0x63:
			case 0x69: case 0x6b:
				dst = 2;
				break;
			case 0xf6: case 0xf7:
				dst = sub >= 2 && sub <= 3 ? 1 : 0;
				if (sub >= 4)
					kill |= 1 << R_AX | 1 << R_DX;
				break;
			case 0xfe: case 0xff:
				dst = sub <= 1 ? 1 : 0;
				break;
			case 0xd8: case 0xd9: case 0xda: case 0xdb:
			case 0xdc: case 0xdd: case 0xde: case 0xdf:
				dst = 0;
				if (op == 0xdf && d->modrm == 0xe0)
					kill |= 1 << R_AX;
				break;
			case 0x98: case 0x99:
				kill |= 1 << R_AX | 1 << R_DX;
				break;
			case 0xc8: case 0xc9:
				kill |= 1 << R_BP;
				break;
			case 0xcc: case 0xcd: case 0xce: case 0xf1:
				kill |= CALLER_SAVED;
				break;
			case 0xa4: case 0xa5: case 0xa6: case 0xa7:
			case 0xaa: case 0xab: case 0xac: case 0xad:
			case 0xae: case 0xaf: case 0x6c: case 0x6d:
			case 0x6e: case 0x6f:
				kill |= 1 << R_AX | 1 << R_CX | 1 << R_SI |
				    1 << R_DI;
				break;
			case 0xd7: case 0x9e: case 0x9f: case 0xe4:
			case 0xe5: case 0xec: case 0xed: case 0xa0:
			case 0xa1:
				kill |= 1 << R_AX;
				break;
			case 0xe0: case 0xe1: case 0xe2: case 0xe3:
				kill |= 1 << R_CX;
				break;
			}
		}
	} else if (d->enc == RB_X86_ENC_LEGACY && d->map == RB_X86_MAP_0F) {
		switch (op) {
		case 0x11: case 0x13: case 0x17: case 0x29: case 0x2b:
		case 0x7f: case 0xc3: case 0xd6: case 0xe7: case 0xa3:
		case 0xab: case 0xb3: case 0xbb: case 0xa4: case 0xa5:
		case 0xac: case 0xad: case 0x90: case 0x91: case 0x92:
		case 0x93: case 0x94: case 0x95: case 0x96: case 0x97:
		case 0x98: case 0x99: case 0x9a: case 0x9b: case 0x9c:
		case 0x9d: case 0x9e: case 0x9f: case 0x7e:
			dst = 1;
			break;
		case 0x18: case 0x19: case 0x1a: case 0x1b: case 0x1c:
		case 0x1d: case 0x1e: case 0x1f: case 0x0d: case 0xae:
			dst = 0;
			break;
		case 0x05: case 0x07: case 0x34: case 0x35:
			kill |= CALLER_SAVED;
			break;
		case 0xa2: case 0x31: case 0x32: case 0x33: case 0x01:
		case 0x30: case 0x37:
			kill |= 1 << R_AX | 1 << R_BX | 1 << R_CX | 1 << R_DX;
			break;
		case 0xb0: case 0xb1: case 0xc7:
			kill |= 1 << R_AX | 1 << R_DX;
			break;
		}
		if (op >= 0xc8 && op <= 0xcf)
			kill |= 1 << ((op & 7) | ((d->rex & 1) << 3));
	} else {
		/* 0F38, 0F3A, VEX, EVEX, XOP: ModRM both ways, vvvv, and
		   the implicit ones (pcmp[ei]str[im], mulx) at worst. */
		kill |= 1 << R_AX | 1 << R_CX | 1 << R_DX;
		if (d->enc != RB_X86_ENC_LEGACY)
			kill |= 1 << (d->vvvv & 15);
	}
	if (d->has_modrm) {
		if ((dst & 1) && mod3)
			kill |= 1 << d->rm;
		if (dst & 2)
			kill |= 1 << d->reg;
	}
	st->kill = kill;
}

/* Apply the effect of step @sp to @st. */
static void
step_apply(const struct step *sp, struct regs *st)
{
	switch (sp->kind) {
	case STEP_CONST:
	case STEP_LOAD:
		st->v[sp->reg] = sp->val;
		st->known |= 1 << sp->reg;
		if (sp->kind == STEP_LOAD)
			st->slot |= 1 << sp->reg;
		else
			st->slot &= (uint16_t)~(1 << sp->reg);
		break;
	case STEP_COPY64:
	case STEP_COPY32:
		if ((st->known & (1 << sp->src)) && (sp->kind == STEP_COPY64 ||
		    !(st->slot & (1 << sp->src)))) {
			st->v[sp->reg] = sp->kind == STEP_COPY64 ?
			    st->v[sp->src] : (uint32_t)st->v[sp->src];
			st->known |= 1 << sp->reg;
			st->slot = (uint16_t)((st->slot & ~(1 << sp->reg)) |
			    (((st->slot >> sp->src) & 1) << sp->reg));
		} else
			RKILL(st, 1 << sp->reg);
		break;
	default:
		RKILL(st, sp->kill);
	}
}

/* Meet @b into @a; return whether @a changed. */
static bool
regs_meet(struct regs *a, const struct regs *b)
{
	uint16_t	known, top;
	int		r;

	if (b->top == 0xffff)
		return false;
	if (a->top == 0xffff) {
		*a = *b;
		return true;
	}
	known = a->known & b->known & (uint16_t)~(a->slot ^ b->slot);
	for (r = 0; r < 16; r++)
		if ((known & (1 << r)) && a->v[r] != b->v[r])
			known &= (uint16_t)~(1 << r);
	top = a->top & b->top;
	if (known == a->known && top == a->top)
		return false;
	a->known = known;
	a->slot &= known;
	a->top = top;
	return true;
}

static long
lead_index(const struct scan *s, uint32_t n, uint32_t off)
{
	uint32_t	lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->lead[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && s->lead[lo] == off ? (long)lo : -1;
}

/* Record the step of instruction @d at offset @off of a range of @size. */
static int
sites_step(struct scan *s, const struct rb_x86_insn *d, int flow,
    int64_t rel, uint32_t off, uint64_t size, uintptr_t next)
{
	struct step	*sp;
	int64_t		 to = rel + off + d->len;

	if ((s->nsteps + 1) * sizeof(*s->steps) > s->stepsmapped) {
		size_t	 sz = sites_round(s->stepsmapped ? s->stepsmapped * 2 :
		    65536);
		void	*p;

		if (s->steps == NULL)
			p = sites_map(sz);
		else {
			p = mremap(s->steps, s->stepsmapped, sz,
			    MREMAP_MAYMOVE);
			if (p == MAP_FAILED)
				p = NULL;
		}
		if (p == NULL)
			return -ENOMEM;
		s->steps = p;
		s->stepsmapped = sz;
		if (s->stepsmapped + s->scratch + s->inmapped >
		    s->t->peak_scratch)
			s->t->peak_scratch = s->stepsmapped + s->scratch +
			    s->inmapped;
	}
	sp = &s->steps[s->nsteps++];
	memset(sp, 0, sizeof(*sp));
	sp->off = off;
	sp->len = d->len;
	sp->flow = (uint8_t)flow;
	sp->nop = insn_nop(d);
	sp->to = (flow == 1 || flow == 2) && to >= 0 && (uint64_t)to < size ?
	    (int32_t)to : -1;
	if (flow == 3)
		sp->kill = CALLER_SAVED;
	else
		insn_effect(d, next, sp);
	if (sp->kind == STEP_LOAD && !obj_relro(s->o, sp->val - s->o->bias)) {
		sp->kind = STEP_KILL;
		sp->kill = 1 << sp->reg;
	}
	return 0;
}

/* Scan the range [@start, @start + @size) at link addresses. */
static int
sites_range(struct scan *s, uint64_t start, uint64_t size)
{
	const struct rb_sites_obj *o = s->o;
	struct rb_sites	*t = s->t;
	const uint8_t	*code;
	struct rb_x86_insn d;
	struct regs	 cur, any;
	uint32_t	 off, nlead = 0, pass;
	size_t		 nsite0 = t->n, k;
	bool		 reach, changed, pad;
	size_t		 fi;
	int		 len, flow, h, err;
	int64_t		 rel;
	uint8_t		 via, tail;

	t->nfuncs++;
	code = obj_ptr(o, start, size, true);
	if (code == NULL || size == 0 || size > UINT32_MAX / 2)
		goto fail;
	t->text_bytes += size;
	if ((err = sites_scratch(s, size)) != 0)
		return err;

	/* Pass 1: decode, find the sites and the block leaders. */
	s->nsteps = 0;
	LEADER_SET(s, 0);
	if (s->force) {
		for (fi = sites_ext_find(s, start + 1); fi < s->next &&
		    s->ext[fi] < start + size; fi++) {
			LEADER_SET(s, (uint32_t)(s->ext[fi] - start));
			ENTRY_SET(s, (uint32_t)(s->ext[fi] - start));
		}
	}
	for (off = 0; off < size; off += (uint32_t)len) {
		len = rb_x86_decode(code + off, size - off, &d);
		if (len < 0)
			goto fail;
		flow = insn_flow(&d, &rel);
		if ((err = sites_step(s, &d, flow, rel, off, size,
		    (uintptr_t)(start + o->bias + off + (uint32_t)len))) != 0)
			return err;
		if ((flow == 1 || flow == 2) && rel + off + len >= 0 &&
		    (uint64_t)(rel + off + len) < size) {
			LEADER_SET(s, (uint32_t)(rel + off + len));
			TARGET_SET(s, (uint32_t)(rel + off + len));
		} else if ((flow == 1 || flow == 2) && !s->force &&
		    (err = sites_ext_push(s, start + (uint64_t)(rel + off +
		    len))) != 0)
			return err;

		if ((flow == 2 || flow == 4 || flow == 5) &&
		    off + (uint32_t)len < size)
			LEADER_SET(s, off + (uint32_t)len);
		h = sites_classify(s, &d, (uintptr_t)(start + o->bias + off),
		    &via, &tail);
		if (h >= 0) {
			struct rb_site	st = {
				.addr = start + off,
				.this_fn = RB_SITE_FN_UNKNOWN,
				.func = start,
				.hook = (uint8_t)h,
				.via = via,
				.len = (uint8_t)len,
				.flags = tail ? RB_SITE_TAIL : 0,
			};

			if ((err = sites_push(t, &st)) != 0)
				return err;
		}
	}
	if (off != size)
		goto fail;
	if (t->n == nsite0)
		return 0;
	/* Every branch target must be an instruction start, or the linear
	   decode is not the code that runs (overlapping instructions). */
	for (off = 0, k = 0; off < size; off++) {
		if (!LEADER_IS(s, off))
			continue;
		while (k < s->nsteps && s->steps[k].off < off)
			k++;
		if (k == s->nsteps || s->steps[k].off != off)
			goto fail;
		s->lead[nlead++] = off;
	}
	if ((err = sites_scratch_regs(s, nlead)) != 0)
		return err;
	for (k = 0; k < nlead; k++) {
		s->in[k].known = 0;
		s->in[k].top = 0xffff;
	}
	s->in[0].top = 0;	/* the entry: nothing known */
	for (k = 1; k < nlead; k++)
		if (ENTRY_IS(s, s->lead[k]))
			s->in[k].top = 0;	/* entered from outside */

	/* Passes over the range until the leaders' states settle. */
	memset(&any, 0, sizeof(any));
	any.top = 0xffff;
	for (pass = 0; pass < SITES_MAX_PASSES; pass++) {
		struct regs	any_next;
		size_t		si = nsite0;
		long		li = 0;

		any_next.known = 0;
		any_next.top = 0xffff;
		changed = false;
		reach = false;
		pad = false;
		for (k = 0; k < s->nsteps; k++) {
			const struct step *sp = &s->steps[k];

			off = sp->off;
			if (li < (long)nlead && s->lead[li] == off) {
				/* Not reached by a direct way: padding (nops),
				   else a jump table's target or a landing pad. */
				pad = off != 0 && !reach &&
				    !TARGET_IS(s, off) && !ENTRY_IS(s, off);
				if (reach)
					regs_meet(&s->in[li], &cur);
				cur = s->in[li];
				li++;
				reach = cur.top != 0xffff;
			}
			if (pad && !sp->nop) {
				pad = false;
				cur = any;
				reach = cur.top != 0xffff;
			}
			if (si < t->n && t->v[si].addr == start + off) {
				t->v[si].this_fn = reach && (cur.known &
				    (1 << R_DI)) ? cur.v[R_DI] - o->bias :
				    RB_SITE_FN_UNKNOWN;
				t->v[si].flags &= (uint8_t)~RB_SITE_FN_SLOT;
				if (reach && (cur.known & cur.slot &
				    (1 << R_DI)))
					t->v[si].flags |= RB_SITE_FN_SLOT;
				si++;
			}
			if (!reach)
				continue;
			flow = sp->flow;
			if (flow == 3 || flow == 4)
				regs_meet(&any_next, &cur);
			step_apply(sp, &cur);
			if (sp->to >= 0) {
				long	ti;

				if ((ti = lead_index(s, nlead,
				    (uint32_t)sp->to)) >= 0 &&
				    regs_meet(&s->in[ti], &cur) &&
				    (uint32_t)sp->to <= off)
					changed = true;
			}
			if (flow == 2 || flow == 4 || flow == 5)
				reach = false;
		}
		if (regs_meet(&any, &any_next))
			changed = true;
		if (!changed)
			break;
	}
	if (pass == SITES_MAX_PASSES)
		for (k = nsite0; k < t->n; k++)
			t->v[k].this_fn = RB_SITE_FN_UNKNOWN;
	return 0;

fail:
	if (t->nfail < RB_SITES_FAILS_KEPT)
		t->fails[t->nfail] = start;
	t->nfail++;
	t->n = nsite0;
	return 0;
}

static bool
site_before(const struct rb_site *a, const struct rb_site *b)
{
	if (a->this_fn != b->this_fn)
		return a->this_fn < b->this_fn;
	return a->addr < b->addr;
}

static void
site_sift(struct rb_site *v, size_t i, size_t n)
{
	struct rb_site	tmp;
	size_t		c;

	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && site_before(&v[c], &v[c + 1]))
			c++;
		if (!site_before(&v[i], &v[c]))
			break;
		tmp = v[i];
		v[i] = v[c];
		v[c] = tmp;
		i = c;
	}
}

/* Heapsort by (this_fn, addr): no allocation, as qsort may. */
static void
sites_sort(struct rb_site *v, size_t n)
{
	struct rb_site	tmp;
	size_t		i;

	for (i = n / 2; i-- > 0;)
		site_sift(v, i, n);
	while (n > 1) {
		n--;
		tmp = v[0];
		v[0] = v[n];
		v[n] = tmp;
		site_sift(v, 0, n);
	}
}

/*
 * rb_sites_of - the sites passing @this_fn (a link address) in @t, their
 * count in *@n.  Return: the first, or NULL if none.
 */
const struct rb_site *
rb_sites_of(const struct rb_sites *t, uint64_t this_fn, size_t *n)
{
	size_t	lo = 0, hi = t->n, e;

	while (lo < hi) {
		size_t	mid = lo + (hi - lo) / 2;

		if (t->v[mid].this_fn < this_fn)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (e = lo; e < t->n && t->v[e].this_fn == this_fn; e++)
		;
	*n = e - lo;
	return e > lo ? &t->v[lo] : NULL;
}

/* A value encoded as DWARF EH pointer format @enc's size; -1 if odd. */
static int
eh_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case 0x00: case 0x04: case 0x0c:
		return 8;
	case 0x02: case 0x0a:
		return 2;
	case 0x03: case 0x0b:
		return 4;
	}
	return -1;
}

static int
uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	int	shift = 0;

	*v = 0;
	while (*p < end) {
		uint8_t	b = *(*p)++;

		if (shift < 64)
			*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return 0;
	}
	return -1;
}

/* The FDE pointer encoding of the CIE at link address @cie; -1 if bad. */
static int
cie_encoding(const struct rb_sites_obj *o, uint64_t cie)
{
	const uint8_t	*p = obj_ptr(o, cie, 8, false), *end, *aug;
	uint64_t	 len, v;
	uint8_t		 ver;

	if (p == NULL)
		return -1;
	len = rd32(p);
	if (len == 0xffffffff || len < 8 ||
	    obj_ptr(o, cie, 4 + len, false) == NULL)
		return -1;
	end = p + 4 + len;
	if (rd32(p + 4) != 0)
		return -1;
	p += 8;
	ver = *p++;
	aug = p;
	while (p < end && *p)
		p++;
	if (p >= end)
		return -1;
	p++;
	if (aug[0] != 'z')
		return 0;	/* absptr */
	if (uleb(&p, end, &v))			/* code align */
		return -1;
	if (uleb(&p, end, &v))			/* data align (sleb) */
		return -1;
	if (ver == 1)
		p++;
	else if (uleb(&p, end, &v))
		return -1;
	if (uleb(&p, end, &v))			/* augmentation length */
		return -1;
	for (aug++; *aug && p < end; aug++) {
		switch (*aug) {
		case 'R':
			return *p;
		case 'L':
			p++;
			break;
		case 'P': {
			int	sz = eh_size(*p);

			if (sz < 0)
				return -1;
			p += 1 + sz;
			break;
		}
		case 'S': case 'B':
			break;
		default:
			return -1;
		}
	}
	return 0;
}

/*
 * The PLT stubs' own jumps through the hooks' slots are not sites: drop a
 * jmp through a slot that lies in a stub some call enters (its start, or
 * after its endbr64), or that is followed by a lazy stub's push $index.
 */
static void
sites_drop_stubs(const struct scan *s, struct rb_sites *t)
{
	size_t	i, k = 0;
	int	j;

	for (i = 0; i < t->n; i++) {
		const struct rb_site *st = &t->v[i];
		uintptr_t	 ip = st->addr + s->o->bias;
		const uint8_t	*next;
		bool		 stub = false;

		if (st->via == RB_SITE_GOT && (st->flags & RB_SITE_TAIL)) {
			for (j = 0; j < s->nstubs; j++)
				if (ip >= s->stubs[j] && ip - s->stubs[j] < 16)
					stub = true;
			next = obj_ptr(s->o, st->addr + st->len, 5, true);
			if (next != NULL && next[0] == 0x68)
				stub = true;
		}
		if (!stub)
			t->v[k++] = *st;
	}
	t->n = k;
}

/*
 * rb_sites_build - scan the object @o into @t (zeroed by the caller or
 * freed with rb_sites_free).  Return: 0, -ENOENT without a usable
 * .eh_frame_hdr search table, -ENOMEM.
 */
int
rb_sites_build(const struct rb_sites_obj *o, struct rb_sites *t)
{
	struct scan	 s;
	const uint8_t	*hdr = NULL, *tab;
	uint64_t	 hva = 0, hsz = 0, count, i, cie_last = 0;
	size_t		 e, j, k;
	int		 round;
	int		 cie_enc = -1, err = 0, sz;
	unsigned	 p;

	memset(t, 0, sizeof(*t));
	memset(&s, 0, sizeof(s));
	s.o = o;
	s.t = t;
	rb_sites_build_id(o, t->build_id, &t->build_id_len);
	for (p = 0; p < o->phnum; p++) {
		if (o->phdr[p].p_type == PT_GNU_EH_FRAME) {
			hva = o->phdr[p].p_vaddr;
			hsz = o->phdr[p].p_filesz;
			hdr = obj_ptr(o, hva, hsz, false);
		}
	}
	/* version 1, table sdata4 relative to the header */
	if (hdr == NULL || hsz < 4 || hdr[0] != 1 || hdr[3] != 0x3b)
		return -ENOENT;
	sz = eh_size(hdr[1]);
	if (sz < 0 || eh_size(hdr[2]) != 4 || 4 + (uint64_t)sz + 4 > hsz)
		return -ENOENT;
	count = rd32(hdr + 4 + sz);
	tab = hdr + 4 + sz + 4;
	if (count > (hsz - 8 - (uint64_t)sz) / 8)
		return -ENOENT;
	sites_find_hooks(&s);
	if (s.nslots == 0 && s.ndirect == 0)
		goto done;
	for (round = 0; round < 2 && err == 0; round++) {
	if (round == 1) {
		if (s.next == 0)
			break;
		u64_sort(s.ext, s.next);
		s.force = true;
	}
	for (i = 0; i < count && err == 0; i++) {
		uint64_t	 start = hva + (uint64_t)(int64_t)(int32_t)
		    rd32(tab + i * 8);
		uint64_t	 fde = hva + (uint64_t)(int64_t)(int32_t)
		    rd32(tab + i * 8 + 4);
		const uint8_t	*f = obj_ptr(o, fde, 8, false);
		uint64_t	 cie, range;
		int		 rsz;

		if (f == NULL || rd32(f) == 0xffffffff || rd32(f) < 4)
			continue;
		cie = fde + 4 - rd32(f + 4);
		if (cie != cie_last || cie_enc < 0) {
			cie_last = cie;
			cie_enc = cie_encoding(o, cie);
		}
		if (cie_enc < 0 || (rsz = eh_size((uint8_t)cie_enc)) < 0)
			continue;
		f = obj_ptr(o, fde + 8 + rsz, (size_t)rsz, false);
		if (f == NULL)
			continue;
		range = rsz == 8 ? rd64(f) : rsz == 4 ? rd32(f) :
		    (uint64_t)(f[0] | f[1] << 8);
		if (round == 0) {
			err = sites_range(&s, start, range);
			continue;
		}
		/* Entered from another range (a .cold part jumping back):
		   again, with those entries knowing nothing. */
		e = sites_ext_find(&s, start + 1);
		if (e >= s.next || s.ext[e] >= start + range)
			continue;
		for (j = 0, k = 0; j < t->n; j++)
			if (t->v[j].func != start)
				t->v[k++] = t->v[j];
		if (k == t->n)
			continue;
		t->n = k;
		t->nfuncs--;
		t->text_bytes -= range;
		err = sites_range(&s, start, range);
	}
	}
done:
	if (s.bits != NULL)
		munmap(s.bits, s.scratch);
	if (s.in != NULL)
		munmap(s.in, s.inmapped);
	if (s.ext != NULL)
		munmap(s.ext, s.extmapped);
	if (s.steps != NULL)
		munmap(s.steps, s.stepsmapped);
	if (err != 0) {
		rb_sites_free(t);
		return err;
	}
	sites_drop_stubs(&s, t);
	for (i = 0; i < t->n; i++) {
		if (t->v[i].this_fn == RB_SITE_FN_UNKNOWN)
			t->nunknown++;
		if (t->v[i].flags & RB_SITE_TAIL)
			t->ntail++;
	}
	sites_sort(t->v, t->n);
	return 0;
}

void
rb_sites_free(struct rb_sites *t)
{
	if (t->v != NULL)
		munmap(t->v, t->mapped);
	t->v = NULL;
	t->n = t->mapped = 0;
}

/*
 * The cache: one file per build id, "sites-<hex id>", in @dir or else
 * $XDG_CACHE_HOME/rbtrace or ~/.cache/rbtrace.  A header, then the sites
 * as struct rb_site in native byte order.  Never trusted: its size, magic,
 * version, record size, build id and checksum must match, and every site
 * must still decode, in an executable segment of the object, as a call of
 * the hook it claims, or the file is ignored and the table rebuilt.
 */
#define SITES_MAGIC	"RBSITES\n"
#define SITES_VERSION	1

struct sites_file {
	char		magic[8];
	uint32_t	version;
	uint32_t	hdr_size;
	uint32_t	site_size;
	uint32_t	build_id_len;
	uint8_t		build_id[RB_SITES_BUILD_ID_MAX];
	uint64_t	text_bytes;
	uint64_t	nsites;
	uint32_t	nfuncs;
	uint32_t	nfail;
	uint64_t	sum;		/* FNV-1a of the sites */
};

static uint64_t
sites_sum(const void *p, size_t n)
{
	const uint8_t	*b = p;
	uint64_t	 h = 0xcbf29ce484222325ULL;

	while (n-- > 0)
		h = (h ^ *b++) * 0x100000001b3ULL;
	return h;
}

/*
 * rb_sites_cache_path - the cache file of @t's build id under @dir (NULL:
 * the default) into @buf.  Return: 0, -ENOENT (no build id, no home) or
 * -ENAMETOOLONG.
 */
int
rb_sites_cache_path(const struct rb_sites *t, const char *dir, char *buf,
    size_t size)
{
	const char	*base;
	char		 hex[2 * RB_SITES_BUILD_ID_MAX + 1];
	uint32_t	 i;
	int		 n;

	if (t->build_id_len == 0)
		return -ENOENT;
	for (i = 0; i < t->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", t->build_id[i]);
	if (dir != NULL)
		n = snprintf(buf, size, "%s/sites-%s", dir, hex);
	else if ((base = getenv("XDG_CACHE_HOME")) != NULL && *base == '/')
		n = snprintf(buf, size, "%s/rbtrace/sites-%s", base, hex);
	else if ((base = getenv("HOME")) != NULL && *base == '/')
		n = snprintf(buf, size, "%s/.cache/rbtrace/sites-%s", base,
		    hex);
	else
		return -ENOENT;
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

/* mkdir -p of @path's directory. */
static void
sites_mkdirs(const char *path)
{
	char	 tmp[4096];
	char	*p;

	if (strlen(path) >= sizeof(tmp))
		return;
	strcpy(tmp, path);
	for (p = tmp + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		mkdir(tmp, 0700);
		*p = '/';
	}
}

static int
sites_write_all(int fd, const void *p, size_t n)
{
	const uint8_t	*b = p;

	while (n > 0) {
		ssize_t	w = write(fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * rb_sites_save - write @t to its cache file under @dir (NULL: the
 * default), atomically.  Return: 0 or -errno.
 */
int
rb_sites_save(const struct rb_sites *t, const char *dir)
{
	struct sites_file h;
	char		 path[4096], tmp[4096 + 32];
	int		 fd, err;

	if ((err = rb_sites_cache_path(t, dir, path, sizeof(path))) != 0)
		return err;
	sites_mkdirs(path);
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, SITES_MAGIC, sizeof(h.magic));
	h.version = SITES_VERSION;
	h.hdr_size = sizeof(h);
	h.site_size = sizeof(struct rb_site);
	h.build_id_len = t->build_id_len;
	memcpy(h.build_id, t->build_id, sizeof(h.build_id));
	h.text_bytes = t->text_bytes;
	h.nsites = t->n;
	h.nfuncs = t->nfuncs;
	h.nfail = t->nfail;
	h.sum = sites_sum(t->v, t->n * sizeof(*t->v));
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (sites_write_all(fd, &h, sizeof(h)) != 0 ||
	    sites_write_all(fd, t->v, t->n * sizeof(*t->v)) != 0) {
		err = errno ? -errno : -EIO;
		close(fd);
		unlink(tmp);
		return err;
	}
	close(fd);
	if (rename(tmp, path) != 0) {
		err = -errno;
		unlink(tmp);
		return err;
	}
	return 0;
}

/* Whether site @st still is what it claims in the object. */
static bool
sites_check(struct scan *s, const struct rb_site *st)
{
	const struct rb_sites_obj *o = s->o;
	struct rb_x86_insn d;
	size_t		avail;
	uint8_t		via, tail;

	if (st->hook > RB_SITE_EXIT || st->via > RB_SITE_DIRECT ||
	    (st->flags & ~(RB_SITE_TAIL | RB_SITE_FN_SLOT)) || st->pad != 0 ||
	    st->len < 5 || st->len > 7 || st->func > st->addr)
		return false;
	avail = obj_code_avail(o, st->addr);
	if (avail < st->len ||
	    rb_x86_decode((const uint8_t *)(uintptr_t)(st->addr + o->bias),
	    avail, &d) != st->len)
		return false;
	return sites_classify(s, &d, (uintptr_t)(st->addr + o->bias), &via,
	    &tail) == st->hook && via == st->via &&
	    tail == !!(st->flags & RB_SITE_TAIL);
}

/*
 * rb_sites_load - read the cached table of @o from @dir (NULL: the
 * default) into @t.  Return: 0, -ENOENT (none), -EINVAL (corrupt or
 * stale: ignored), -ENOMEM.
 */
int
rb_sites_load(const struct rb_sites_obj *o, const char *dir,
    struct rb_sites *t)
{
	struct sites_file h;
	struct scan	 s;
	struct stat	 sb;
	char		 path[4096];
	size_t		 bytes, i;
	ssize_t		 r;
	int		 fd, err;

	memset(t, 0, sizeof(*t));
	if (rb_sites_build_id(o, t->build_id, &t->build_id_len) != 0)
		return -ENOENT;
	if ((err = rb_sites_cache_path(t, dir, path, sizeof(path))) != 0)
		return err;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ENOENT;
	err = -EINVAL;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    (size_t)sb.st_size < sizeof(h) ||
	    read(fd, &h, sizeof(h)) != (ssize_t)sizeof(h))
		goto out;
	if (memcmp(h.magic, SITES_MAGIC, sizeof(h.magic)) != 0 ||
	    h.version != SITES_VERSION || h.hdr_size != sizeof(h) ||
	    h.site_size != sizeof(struct rb_site) ||
	    h.build_id_len != t->build_id_len ||
	    memcmp(h.build_id, t->build_id, h.build_id_len) != 0 ||
	    h.nsites > ((size_t)sb.st_size - sizeof(h)) /
	    sizeof(struct rb_site) ||
	    (size_t)sb.st_size != sizeof(h) + h.nsites *
	    sizeof(struct rb_site))
		goto out;
	bytes = h.nsites * sizeof(struct rb_site);
	t->mapped = sites_round(bytes ? bytes : 1);
	t->v = sites_map(t->mapped);
	if (t->v == NULL) {
		t->mapped = 0;
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < bytes; i += (size_t)r) {
		r = read(fd, (uint8_t *)t->v + i, bytes - i);
		if (r <= 0)
			goto out;
	}
	if (sites_sum(t->v, bytes) != h.sum)
		goto out;
	memset(&s, 0, sizeof(s));
	s.o = o;
	s.t = t;
	sites_find_hooks(&s);
	t->n = h.nsites;
	for (i = 0; i < t->n; i++) {
		if (!sites_check(&s, &t->v[i]) || (i > 0 &&
		    site_before(&t->v[i], &t->v[i - 1]))) {
			t->n = 0;
			goto out;
		}
		if (t->v[i].this_fn == RB_SITE_FN_UNKNOWN)
			t->nunknown++;
		if (t->v[i].flags & RB_SITE_TAIL)
			t->ntail++;
	}
	t->text_bytes = h.text_bytes;
	t->nfuncs = h.nfuncs;
	t->nfail = h.nfail;
	t->cached = 1;
	err = 0;
out:
	close(fd);
	if (err != 0)
		rb_sites_free(t);
	return err;
}

/*
 * rb_sites_get - the table of @o: from the cache under @dir (NULL: the
 * default) if valid, else built and saved there.  Return: as
 * rb_sites_build.
 */
int
rb_sites_get(const struct rb_sites_obj *o, const char *dir,
    struct rb_sites *t)
{
	int	err;

	if (rb_sites_load(o, dir, t) == 0)
		return 0;
	if ((err = rb_sites_build(o, t)) != 0)
		return err;
	if (t->build_id_len != 0)
		rb_sites_save(t, dir);
	return 0;
}
