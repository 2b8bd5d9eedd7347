/* SPDX-License-Identifier: MIT */
/*
 * seed.c - the frames a thread had entered before an attach, unwound once
 * (rbtrace(5), "ATTACH").
 *
 * A thread that ran before the attach gets its ring at its first hook,
 * deep in a stack the hooks never saw.  There, once, it unwinds its own
 * stack with the C++ runtime's unwinder (libgcc_s's _Unwind_Backtrace,
 * the call tables every x86-64 object carries) and pushes what it finds:
 * each frame in an object that calls the hooks, with its function's start
 * (the unwind table's region start, which is what the hooks are given),
 * the return address into its caller and its caller's stack pointer at
 * the call, as a hook would have.  Such frames carry RB_SLOT_SEEDED and no
 * entry time.  Frames of objects that do not call the hooks are left out,
 * as they are from a preloaded program's stacks; so is the program's entry
 * point (_start).
 *
 * The unwind is complete when it reaches the frame whose return address
 * the tables mark undefined (the thread's start, _start): then the stack is
 * exact.  Otherwise (code without unwind tables, more than RB_SEED_MAX
 * frames) the frames found stand over the before-attach frame, as before.
 *
 * The unwinder is loaded and run once at the attach, by the thread that
 * rbtrace stopped in a system call, so that a thread's first hook (in a
 * signal handler, perhaps) never loads anything.  The unwinder finds the
 * tables through the loader's _dl_find_object (glibc 2.35, GCC 12 and
 * later), which takes no lock.
 */
#include "config.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>
#include <unwind.h>

#include "internal.h"

/* The deepest stack seeded whole. */
#define RB_SEED_MAX	512

/* Executable segments of the objects that call the hooks. */
#define RB_SPANS	512

struct rb_span {
	uintptr_t	lo, hi;
};

static struct rb_span rb_spans[RB_SPANS];
static unsigned rb_nspans;		/* published with release */
static uintptr_t rb_entry;		/* _start: AT_ENTRY */

typedef _Unwind_Reason_Code (*rb_backtrace_fn)(_Unwind_Trace_Fn, void *);
typedef _Unwind_Ptr (*rb_getip_fn)(struct _Unwind_Context *);
typedef _Unwind_Word (*rb_getcfa_fn)(struct _Unwind_Context *);
typedef _Unwind_Ptr (*rb_getstart_fn)(struct _Unwind_Context *);

static struct {
	rb_backtrace_fn	backtrace;
	rb_getip_fn	ip;
	rb_getcfa_fn	cfa;
	rb_getstart_fn	start;
} rb_uw;
static bool rb_uw_ready;		/* set once, before any thread seeds */

/* An unwind table's bases, as _Unwind_Find_FDE() gives them. */
struct rb_eh_bases {
	void	*tbase;
	void	*dbase;
	void	*func;
};
typedef const void *(*rb_findfde_fn)(void *, struct rb_eh_bases *);
static rb_findfde_fn rb_find_fde;
static int rb_self_span(struct dl_phdr_info *info, size_t size, void *arg);

/* One frame found, innermost first. */
struct rb_seen {
	uintptr_t	ip;
	uintptr_t	start;
	uint64_t	cfa;
};

struct rb_walk {
	struct rb_seen	f[RB_SEED_MAX + 2];
	unsigned	n;
	bool		full;		/* more frames than f holds */
};

static _Unwind_Reason_Code rb_walk_frame(struct _Unwind_Context *ctx,
					 void *arg)
{
	struct rb_walk *w = arg;

	if (w->n == sizeof(w->f) / sizeof(w->f[0])) {
		w->full = true;
		return _URC_END_OF_STACK;
	}
	w->f[w->n].ip = (uintptr_t)rb_uw.ip(ctx);
	w->f[w->n].start = (uintptr_t)rb_uw.start(ctx);
	w->f[w->n].cfa = (uint64_t)rb_uw.cfa(ctx);
	w->n++;
	return _URC_NO_REASON;
}

/**
 * rb_seed_init - load the unwinder (at the attach, in the stopped thread)
 *
 * Return: true if threads can seed their stacks; else they begin with the
 * before-attach frame alone.
 */
bool rb_seed_init(void)
{
	struct rb_walk *w;
	void *h;

	if (rb_uw_ready)
		return true;
	h = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_LOCAL);
	if (h == NULL)
		return false;
	rb_uw.backtrace = (rb_backtrace_fn)dlsym(h, "_Unwind_Backtrace");
	rb_uw.ip = (rb_getip_fn)dlsym(h, "_Unwind_GetIP");
	rb_uw.cfa = (rb_getcfa_fn)dlsym(h, "_Unwind_GetCFA");
	rb_uw.start = (rb_getstart_fn)dlsym(h, "_Unwind_GetRegionStart");
	/* For the threads asleep (rb_seed_thread()); they do without it. */
	rb_find_fde = (rb_findfde_fn)dlsym(h, "_Unwind_Find_FDE");
	dl_iterate_phdr(rb_self_span, (void *)(uintptr_t)rb_seed_init);
	if (rb_uw.backtrace == NULL || rb_uw.ip == NULL || rb_uw.cfa == NULL ||
	    rb_uw.start == NULL)
		return false;
	rb_entry = (uintptr_t)getauxval(AT_ENTRY);
	/* Once here, so that whatever it sets up on first use is set up. */
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return false;
	rb_uw.backtrace(rb_walk_frame, w);
	free(w);
	__atomic_store_n(&rb_uw_ready, true, __ATOMIC_RELEASE);
	return true;
}

/**
 * rb_seed_object - an object that calls the hooks: its frames are seeded
 * @info: as dl_iterate_phdr() gives it
 *
 * Called under attach.c's lock; read without one.
 */
void rb_seed_object(const struct dl_phdr_info *info)
{
	unsigned n = rb_nspans, i, k;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo, hi;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		lo = info->dlpi_addr + ph->p_vaddr;
		hi = lo + ph->p_memsz;
		for (k = 0; k < n; k++)
			if (rb_spans[k].lo == lo && rb_spans[k].hi == hi)
				break;
		if (k < n || n == RB_SPANS)
			continue;
		rb_spans[n].lo = lo;
		rb_spans[n].hi = hi;
		n++;
		/* The span before the count that shows it. */
		__atomic_store_n(&rb_nspans, n, __ATOMIC_RELEASE);
	}
}

/* Is @ip in an object that calls the hooks? */
static bool rb_seed_ours(uintptr_t ip)
{
	unsigned n = __atomic_load_n(&rb_nspans, __ATOMIC_ACQUIRE), k;

	for (k = 0; k < n; k++)
		if (ip >= rb_spans[k].lo && ip < rb_spans[k].hi)
			return true;
	return false;
}

/*
 * Push frames @from (innermost) to @to (outermost, exclusive) of @w, the
 * outermost first.  Frame i's return address into its caller is frame
 * i+1's ip; its stack pointer at the call it made is what the unwinder
 * gives as its CFA (the callee's), as the entry hook takes it.
 */
static void rb_seed_push(struct rb_thread *t, const struct rb_walk *w,
			 unsigned from, unsigned to)
{
	unsigned i;

	for (i = to; i-- > from;) {
		const struct rb_seen *f = &w->f[i];

		if (!rb_seed_ours(f->ip - 1) || f->start == 0 ||
		    f->start == rb_entry)
			continue;
		rb_push_seeded(t, f->start, i + 1 < w->n ? w->f[i + 1].ip : 0,
			       f->cfa);
	}
}

/**
 * rb_seed_stack - the calling thread's first hook after an attach, entering
 * @fn from @site: push the frames it is in
 * @t: the thread, its ring set up and empty
 *
 * Unwound to the thread's start, the frames are its whole stack; else
 * they stand over the before-attach frame (RB_ATTACH_MARKER), under
 * which returns never pop.
 */
void rb_seed_stack(struct rb_thread *t, uintptr_t fn, uintptr_t site)
{
	struct rb_walk *w = MAP_FAILED;
	unsigned i = 0, from = 0;
	bool whole = false;

	if (site != 0 && __atomic_load_n(&rb_uw_ready, __ATOMIC_ACQUIRE))
		/* 12 KiB: off the thread's stack, which may be small; no malloc in a hook. */
		w = mmap(NULL, sizeof(*w), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w != MAP_FAILED) {
		rb_uw.backtrace(rb_walk_frame, w);
		/* The frame returning to @site is @fn's caller. */
		for (i = 1; i < w->n; i++)
			if (w->f[i].ip == site)
				break;
		/*
		 * The frame over it called the hook: @fn itself, or a
		 * function @fn was inlined into, which a preloaded stack
		 * shows under @fn.
		 */
		if (i < w->n)
			from = w->f[i - 1].start == fn ? i : i - 1;
		/* The last frame, past the thread's start, has no return address. */
		whole = i < w->n && !w->full && w->f[w->n - 1].ip == 0;
	}
	t->floor = 0;
	if (!whole) {
		rb_push_marker(t, RB_ATTACH_MARKER);
		t->floor = 1;
	}
	if (w != MAP_FAILED) {
		/*
		 * Not the last frame: past the thread's start, or one
		 * without unwind tables, whose region start is the last
		 * one found's.
		 */
		if (i < w->n)
			rb_seed_push(t, w, from, w->n - 1);
		munmap(w, sizeof(*w));
	}
}

/*
 * Threads asleep through the attach (rbtrace -p, "ATTACH" in rbtrace(5)).
 *
 * A thread blocked since before the attach makes no hook, so it would
 * never get a ring.  While rbtrace holds every thread of the process
 * stopped under ptrace (none is signalled), it gives their registers to
 * a seed request of __rbtrace_start() (attach.c), run in one of them:
 * each thread that has no ring gets one made for it here, its frames
 * unwound from those registers:
 * with the call tables of the objects its stack passes through, found as
 * the unwinder finds them (_Unwind_Find_FDE), and read here, the stacks
 * through process_vm_readv() so that a bad address is an error, not a
 * fault.  Its frames are kept as rb_seed_push() keeps a thread's own:
 * RB_SLOT_SEEDED, over the before-attach frame unless the unwind reached
 * the thread's start.  Nothing here takes a lock or allocates with
 * malloc(): the stopped threads may hold any.
 *
 * Such a ring is pre-made: its thread's first hook takes it over (found
 * by tid, rb_seed_adopt()) instead of claiming another, and seeds it
 * again from its own stack.  A detach gives back those never taken over.
 */

/* The registers of a thread unwound from outside: DWARF's x86-64 numbers. */
#define RB_DW_RSP	7
#define RB_DW_RA	16
#define RB_DW_NREGS	17

/* Where a register of the caller is: its CFI rule. */
#define RB_RULE_SAME	0	/* unchanged (the callee saves it) */
#define RB_RULE_OFFSET	1	/* saved at CFA + off */
#define RB_RULE_VAL	2	/* is CFA + off */
#define RB_RULE_REG	3	/* is in register off */
#define RB_RULE_UNDEF	4	/* undefined: the end, for the RA */
#define RB_RULE_UNKNOWN	5	/* an expression: not followed */

struct rb_cfi_row {
	int		cfa_reg;	/* -1: an expression */
	int64_t		cfa_off;
	uint8_t		rule[RB_DW_NREGS];
	int64_t		off[RB_DW_NREGS];
};

struct rb_cfi_cie {
	uint64_t	caf;		/* code alignment */
	int64_t		daf;		/* data alignment */
	unsigned	ra;		/* the return address column */
	uint8_t		enc;		/* FDE pointers ('R') */
	bool		aug;		/* 'z': augmentation data */
	bool		signal;		/* 'S': a signal frame */
	const uint8_t	*ins, *end;	/* initial instructions */
};

/* Read @len bytes at @addr of this process, a bad address an error. */
static bool rb_peek(uint64_t addr, void *out, size_t len)
{
	struct iovec l = { out, len }, r = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(getpid(), &l, 1, &r, 1, 0) == (ssize_t)len;
}

static uint64_t rb_uleb(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (*p < end) {
		uint8_t b = *(*p)++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	return v;
}

static int64_t rb_sleb(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b = 0;

	while (*p < end) {
		b = *(*p)++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

/* A pointer encoded as DW_EH_PE_* @enc says.  Return: false if unsupported. */
static bool rb_eh_ptr(const uint8_t **p, const uint8_t *end, uint8_t enc,
		      const struct rb_eh_bases *b, uint64_t *out)
{
	const uint8_t *at = *p;
	uint64_t v;

	if (enc == 0xff) {
		*out = 0;
		return true;
	}
	switch (enc & 0x0f) {
	case 0x00: case 0x04: case 0x0c:
		if (end - *p < 8)
			return false;
		memcpy(&v, *p, 8);
		*p += 8;
		break;
	case 0x01:
		v = rb_uleb(p, end);
		break;
	case 0x09:
		v = (uint64_t)rb_sleb(p, end);
		break;
	case 0x02: case 0x0a: {
		uint16_t x;

		if (end - *p < 2)
			return false;
		memcpy(&x, *p, 2);
		*p += 2;
		v = (enc & 0x08) ? (uint64_t)(int64_t)(int16_t)x : x;
		break;
	}
	case 0x03: case 0x0b: {
		uint32_t x;

		if (end - *p < 4)
			return false;
		memcpy(&x, *p, 4);
		*p += 4;
		v = (enc & 0x08) ? (uint64_t)(int64_t)(int32_t)x : x;
		break;
	}
	default:
		return false;
	}
	switch (enc & 0x70) {
	case 0x00:
		break;
	case 0x10:
		v += (uint64_t)(uintptr_t)at;
		break;
	case 0x20:
		v += (uint64_t)(uintptr_t)b->tbase;
		break;
	case 0x30:
		v += (uint64_t)(uintptr_t)b->dbase;
		break;
	case 0x40:
		v += (uint64_t)(uintptr_t)b->func;
		break;
	default:
		return false;
	}
	if ((enc & 0x80) && !rb_peek(v, &v, sizeof(v)))
		return false;
	*out = v;
	return true;
}

/* The CIE of the FDE at @fde.  Return: false if it cannot be read. */
static bool rb_cie_parse(const uint8_t *fde, const struct rb_eh_bases *b,
			 struct rb_cfi_cie *c)
{
	const uint8_t *p, *end, *aug, *adata_end = NULL;
	uint32_t len, id;
	uint8_t ver;

	memcpy(&id, fde + 4, 4);
	p = fde + 4 - id;
	memcpy(&len, p, 4);
	if (len == 0 || len == 0xffffffffu)
		return false;
	end = p + 4 + len;
	p += 8;
	ver = *p++;
	aug = p;
	p += strnlen((const char *)aug, (size_t)(end - p)) + 1;
	if (p > end)
		return false;
	memset(c, 0, sizeof(*c));
	c->caf = rb_uleb(&p, end);
	c->daf = rb_sleb(&p, end);
	c->ra = ver == 1 ? *p++ : (unsigned)rb_uleb(&p, end);
	c->enc = 0;
	if (*aug == 'z') {
		uint64_t n = rb_uleb(&p, end);

		c->aug = true;
		adata_end = p + n;
		if (adata_end > end)
			return false;
		for (aug++; *aug != '\0'; aug++) {
			uint64_t dummy;

			switch (*aug) {
			case 'R':
				c->enc = *p++;
				break;
			case 'L':
				p++;
				break;
			case 'P': {
				uint8_t penc = *p++;

				if (!rb_eh_ptr(&p, adata_end, penc & 0x7f, b,
					       &dummy))
					return false;
				break;
			}
			case 'S':
				c->signal = true;
				break;
			default:
				/* Unknown: the rest of the data is skipped. */
				p = adata_end;
				break;
			}
			if (p >= adata_end)
				break;
		}
		for (; *aug != '\0'; aug++)
			if (*aug == 'S')
				c->signal = true;
		p = adata_end;
	} else if (*aug != '\0')
		return false;
	c->ins = p;
	c->end = end;
	return c->ra < RB_DW_NREGS;
}

#define RB_CFI_STATES	8

/*
 * Run the CFI instructions [@p, @end) from location @loc until past @pc.
 * @init: the row after the CIE's initial instructions (DW_CFA_restore).
 * Return: false on an instruction not understood.
 */
static bool rb_cfi_run(const uint8_t *p, const uint8_t *end,
		       const struct rb_cfi_cie *c, const struct rb_eh_bases *b,
		       uint64_t loc, uint64_t pc, struct rb_cfi_row *row,
		       const struct rb_cfi_row *init)
{
	struct rb_cfi_row saved[RB_CFI_STATES];
	unsigned nsaved = 0;

	while (p < end) {
		uint8_t op = *p++, lo = op & 0x3f;
		uint64_t reg, v;
		int64_t off;

		switch (op & 0xc0) {
		case 0x40:		/* DW_CFA_advance_loc */
			loc += lo * c->caf;
			if (loc > pc)
				return true;
			continue;
		case 0x80:		/* DW_CFA_offset */
			off = (int64_t)rb_uleb(&p, end) * c->daf;
			if (lo < RB_DW_NREGS) {
				row->rule[lo] = RB_RULE_OFFSET;
				row->off[lo] = off;
			}
			continue;
		case 0xc0:		/* DW_CFA_restore */
			if (lo < RB_DW_NREGS && init != NULL) {
				row->rule[lo] = init->rule[lo];
				row->off[lo] = init->off[lo];
			}
			continue;
		}
		switch (op) {
		case 0x00:		/* DW_CFA_nop */
			break;
		case 0x01:		/* DW_CFA_set_loc */
			if (!rb_eh_ptr(&p, end, c->enc, b, &v))
				return false;
			loc = v;
			if (loc > pc)
				return true;
			break;
		case 0x02: case 0x03: case 0x04: {	/* advance_loc1/2/4 */
			size_t n = op == 0x02 ? 1 : op == 0x03 ? 2 : 4;
			uint32_t d = 0;

			if ((size_t)(end - p) < n)
				return false;
			memcpy(&d, p, n);
			p += n;
			loc += d * c->caf;
			if (loc > pc)
				return true;
			break;
		}
		case 0x05: case 0x11: case 0x14: case 0x15: case 0x2f:
			/* offset_extended(_sf), val_offset(_sf), GNU neg. */
			reg = rb_uleb(&p, end);
			if (op == 0x11 || op == 0x15)
				off = rb_sleb(&p, end) * c->daf;
			else if (op == 0x2f)
				off = -(int64_t)rb_uleb(&p, end) * c->daf;
			else
				off = (int64_t)rb_uleb(&p, end) * c->daf;
			if (reg < RB_DW_NREGS) {
				row->rule[reg] = op == 0x14 || op == 0x15 ?
						 RB_RULE_VAL : RB_RULE_OFFSET;
				row->off[reg] = off;
			}
			break;
		case 0x06:		/* DW_CFA_restore_extended */
			reg = rb_uleb(&p, end);
			if (reg < RB_DW_NREGS && init != NULL) {
				row->rule[reg] = init->rule[reg];
				row->off[reg] = init->off[reg];
			}
			break;
		case 0x07: case 0x08:	/* undefined, same_value */
			reg = rb_uleb(&p, end);
			if (reg < RB_DW_NREGS)
				row->rule[reg] = op == 0x07 ? RB_RULE_UNDEF :
					RB_RULE_SAME;
			break;
		case 0x09:		/* DW_CFA_register */
			reg = rb_uleb(&p, end);
			v = rb_uleb(&p, end);
			if (reg < RB_DW_NREGS) {
				row->rule[reg] = v < RB_DW_NREGS ? RB_RULE_REG :
					RB_RULE_UNKNOWN;
				row->off[reg] = (int64_t)v;
			}
			break;
		case 0x0a:		/* DW_CFA_remember_state */
			if (nsaved == RB_CFI_STATES)
				return false;
			saved[nsaved++] = *row;
			break;
		case 0x0b:		/* DW_CFA_restore_state */
			if (nsaved == 0)
				return false;
			/* The CFA's rule too, as GCC and gdb have it. */
			*row = saved[--nsaved];
			break;
		case 0x0c:		/* DW_CFA_def_cfa */
			row->cfa_reg = (int)rb_uleb(&p, end);
			row->cfa_off = (int64_t)rb_uleb(&p, end);
			break;
		case 0x12:		/* DW_CFA_def_cfa_sf */
			row->cfa_reg = (int)rb_uleb(&p, end);
			row->cfa_off = rb_sleb(&p, end) * c->daf;
			break;
		case 0x0d:		/* DW_CFA_def_cfa_register */
			row->cfa_reg = (int)rb_uleb(&p, end);
			break;
		case 0x0e:		/* DW_CFA_def_cfa_offset */
			row->cfa_off = (int64_t)rb_uleb(&p, end);
			break;
		case 0x13:		/* DW_CFA_def_cfa_offset_sf */
			row->cfa_off = rb_sleb(&p, end) * c->daf;
			break;
		case 0x0f:		/* DW_CFA_def_cfa_expression */
			v = rb_uleb(&p, end);
			p += v;
			row->cfa_reg = -1;
			break;
		case 0x10: case 0x16:	/* expression, val_expression */
			reg = rb_uleb(&p, end);
			v = rb_uleb(&p, end);
			p += v;
			if (reg < RB_DW_NREGS)
				row->rule[reg] = RB_RULE_UNKNOWN;
			break;
		case 0x2e:		/* DW_CFA_GNU_args_size */
			(void)rb_uleb(&p, end);
			break;
		default:
			return false;
		}
	}
	return true;
}

/* What one step of an unwind from outside found. */
#define RB_STEP_OK	0
#define RB_STEP_END	1	/* the thread's start: no return address */
#define RB_STEP_LOST	2	/* no call table, or one not understood */

/*
 * One frame up: @reg, the registers of a frame at @pc, become its
 * caller's; @func is set to the frame's function's start.
 */
static int rb_cfi_step(uint64_t pc, uint64_t reg[RB_DW_NREGS],
		       uintptr_t *func)
{
	struct rb_eh_bases b = { 0 };
	struct rb_cfi_row row, init;
	struct rb_cfi_cie c;
	const uint8_t *fde, *p, *end;
	uint64_t start, range, cfa, v, next[RB_DW_NREGS];
	uint32_t len;
	unsigned i;

	fde = rb_find_fde((void *)(uintptr_t)pc, &b);
	if (fde == NULL)
		return RB_STEP_LOST;
	*func = (uintptr_t)b.func;
	if (!rb_cie_parse(fde, &b, &c) || c.signal)
		return RB_STEP_LOST;
	memcpy(&len, fde, 4);
	end = fde + 4 + len;
	p = fde + 8;
	if (!rb_eh_ptr(&p, end, c.enc, &b, &start) ||
	    !rb_eh_ptr(&p, end, c.enc & 0x0f, &b, &range))
		return RB_STEP_LOST;
	if (c.aug) {
		v = rb_uleb(&p, end);	/* the FDE's augmentation data */
		p += v;
	}
	memset(&row, 0, sizeof(row));
	row.cfa_reg = RB_DW_RSP;
	if (!rb_cfi_run(c.ins, c.end, &c, &b, start, UINT64_MAX, &row, NULL))
		return RB_STEP_LOST;
	init = row;
	if (!rb_cfi_run(p, end, &c, &b, start, pc, &row, &init))
		return RB_STEP_LOST;
	if (row.rule[c.ra] == RB_RULE_UNDEF)
		return RB_STEP_END;
	if (row.cfa_reg < 0 || row.cfa_reg >= RB_DW_NREGS ||
	    row.rule[c.ra] != RB_RULE_OFFSET)
		return RB_STEP_LOST;
	cfa = reg[row.cfa_reg] + (uint64_t)row.cfa_off;
	for (i = 0; i < RB_DW_NREGS; i++) {
		switch (row.rule[i]) {
		case RB_RULE_OFFSET:
			if (!rb_peek(cfa + (uint64_t)row.off[i], &v, sizeof(v)))
				return RB_STEP_LOST;
			next[i] = v;
			break;
		case RB_RULE_VAL:
			next[i] = cfa + (uint64_t)row.off[i];
			break;
		case RB_RULE_REG:
			next[i] = reg[row.off[i]];
			break;
		default:
			next[i] = reg[i];
			break;
		}
	}
	next[RB_DW_RSP] = cfa;
	memcpy(reg, next, sizeof(next));
	reg[RB_DW_RA] = next[c.ra];
	return RB_STEP_OK;
}

/*
 * Walk a stopped thread's stack from its registers @reg into @w, as
 * rb_walk_frame() does its own: each frame's pc (a return address past
 * the first), its function's start, its stack pointer; past the thread's
 * start, a last frame of pc 0.  Return: true if its whole stack was.
 */
static bool rb_walk_outside(uint64_t reg[RB_DW_NREGS], struct rb_walk *w)
{
	uint64_t pc = reg[RB_DW_RA], sp;
	uintptr_t func;
	int st;

	w->n = 0;
	for (;;) {
		if (w->n == sizeof(w->f) / sizeof(w->f[0])) {
			w->full = true;
			return false;
		}
		sp = reg[RB_DW_RSP];
		if (pc == 0) {
			w->f[w->n++] = (struct rb_seen){ 0, 0, sp };
			return true;
		}
		func = 0;
		/* A return address is past its call: look the call up. */
		st = rb_cfi_step(w->n == 0 ? pc : pc - 1, reg, &func);
		w->f[w->n++] = (struct rb_seen){ (uintptr_t)pc, func, sp };
		if (st == RB_STEP_END)
			pc = 0;
		else if (st == RB_STEP_OK)
			pc = reg[RB_DW_RA];
		else
			return false;
	}
}

/* This library's code: a thread with a frame in it is inside a hook. */
static uintptr_t rb_self_lo, rb_self_hi;

static int rb_self_span(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t here = (uintptr_t)arg;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
		    here >= lo && here < lo + ph->p_memsz) {
			rb_self_lo = lo;
			rb_self_hi = lo + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

/*
 * Pre-made rings not yet taken over: tid and ring number in one word,
 * changed by compare-and-swap only (0: free).
 */
#define RB_PREMADE	1024
static uint64_t rb_premade[RB_PREMADE];

#define RB_PM_MAKE(tid, idx)	(((uint64_t)(uint32_t)(tid) << 32) | \
				 ((uint64_t)(uint32_t)(idx) + 1))
#define RB_PM_TID(v)		((pid_t)(uint32_t)((v) >> 32))
#define RB_PM_IDX(v)		((uint32_t)(v) - 1)

/* Take entry @i if it still holds @v.  Return: true if taken. */
static unsigned rb_premade_n;	/* entries held (0: none to look at) */

static bool rb_premade_take(unsigned i, uint64_t v)
{
	if (v == 0 || !__atomic_compare_exchange_n(&rb_premade[i], &v, 0,
			false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return false;
	__atomic_fetch_sub(&rb_premade_n, 1, __ATOMIC_RELAXED);
	return true;
}

/**
 * rb_seed_adopt - the calling thread @tid's first hook: the ring made for
 * it while it was asleep, if any
 *
 * Return: the ring number, held in CLAIMING as rb_ring_claim() gives one,
 * or -1.
 */
int rb_seed_adopt(pid_t tid)
{
	unsigned i;

	if (__atomic_load_n(&rb_premade_n, __ATOMIC_RELAXED) == 0)
		return -1;

	for (i = 0; i < RB_PREMADE; i++) {
		uint64_t v = __atomic_load_n(&rb_premade[i], __ATOMIC_ACQUIRE);

		if (v == 0 || RB_PM_TID(v) != tid || !rb_premade_take(i, v))
			continue;
		if (rb_ring_adopt(&rb_proc.map, RB_PM_IDX(v), rb_proc.pid))
			return (int)RB_PM_IDX(v);
	}
	return -1;
}

/**
 * rb_seed_release_all - a detach: give back the rings made for threads
 * that never took theirs over
 *
 * Return: how many.
 */
uint32_t rb_seed_release_all(void)
{
	uint32_t n = 0;
	unsigned i;

	for (i = 0; i < RB_PREMADE; i++) {
		uint64_t v = __atomic_load_n(&rb_premade[i], __ATOMIC_ACQUIRE);

		if (rb_premade_take(i, v)) {
			rb_ring_release_as(&rb_proc.map, RB_PM_IDX(v),
					   RB_STATE_DETACHED);
			n++;
		}
	}
	return n;
}

/* Does thread @tid of this process exist? */
static bool rb_task_exists(pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d", (int)tid);
	return access(path, F_OK) == 0;
}

/**
 * rb_seed_sweep - a new thread's first hook: the rings made for threads
 * that exited without a hook are given back, as exited
 */
void rb_seed_sweep(void)
{
	unsigned i;

	if (__atomic_load_n(&rb_premade_n, __ATOMIC_RELAXED) == 0)
		return;
	for (i = 0; i < RB_PREMADE; i++) {
		uint64_t v = __atomic_load_n(&rb_premade[i], __ATOMIC_ACQUIRE);

		if (v != 0 && !rb_task_exists(RB_PM_TID(v)) &&
		    rb_premade_take(i, v))
			rb_ring_release(&rb_proc.map, RB_PM_IDX(v));
	}
}

/*
 * Rings made for threads that exited asleep are given back as exited;
 * Return: true if thread @tid has a ring, pre-made or its own.
 */
static bool rb_seed_has_ring(pid_t tid)
{
	const struct rb_header *h = &rb_proc.map.geo;
	unsigned i;

	for (i = 0; i < RB_PREMADE; i++) {
		uint64_t v = __atomic_load_n(&rb_premade[i], __ATOMIC_ACQUIRE);

		if (v == 0)
			continue;
		if (RB_PM_TID(v) == tid)
			return true;
		if (!rb_task_exists(RB_PM_TID(v)) && rb_premade_take(i, v))
			rb_ring_release(&rb_proc.map, RB_PM_IDX(v));
	}
	for (i = 0; i < h->rings; i++) {
		uint64_t ctl = RB_LOAD_ACQ(&rb_owner_at(rb_proc.map.base, h,
							i)->ctl);
		struct rb_ring *r = rb_ring_at(rb_proc.map.base, h, i);

		if ((RB_OWN_STATE(ctl) == RB_OWN_LIVE ||
		     RB_OWN_STATE(ctl) == RB_OWN_CLAIMING) &&
		    (pid_t)RB_OWN_PID(ctl) == rb_proc.pid &&
		    RB_LOAD(&r->tid) == tid)
			return true;
	}
	return false;
}

/* Thread @tid's name, as the kernel has it. */
static void rb_task_name(pid_t tid, char *name, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	name[0] = '\0';
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, name, size - 1);
	close(fd);
	if (n < 0)
		n = 0;
	name[n] = '\0';
	name[strcspn(name, "\n")] = '\0';
}

/**
 * rb_seed_thread - make a ring for thread @tid, stopped with the registers
 * @reg (rbtrace holds it under ptrace), and seed it with its frames
 *
 * Return: RB_SEED_WHOLE its whole stack, RB_SEED_PART frames over the
 * before-attach frame, RB_SEED_NONE that frame alone (no call table where
 * it stopped), RB_SEED_HAS a ring it has already, or is inside a hook
 * claiming one; RB_SEED_NORING no ring free.
 */
int rb_seed_thread(pid_t tid, const uint64_t reg[RB_SEED_NREGS])
{
	uint64_t r[RB_DW_NREGS] = { 0 };
	struct rb_thread t;
	struct rb_walk *w;
	bool whole = false;
	unsigned i, to = 0;
	char name[RB_THREAD_NAME_MAX + 1];
	int idx, ret;

	if (rb_seed_has_ring(tid))
		return RB_SEED_HAS;
	/* DWARF's numbering: rbx 3, rbp 6, rsp 7, r12-r15 12-15, rip 16. */
	r[16] = reg[0];
	r[7] = reg[1];
	r[6] = reg[2];
	r[3] = reg[3];
	r[12] = reg[4];
	r[13] = reg[5];
	r[14] = reg[6];
	r[15] = reg[7];
	w = mmap(NULL, sizeof(*w), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w == MAP_FAILED)
		return RB_SEED_NORING;
	w->n = 0;
	w->full = false;
	if (__atomic_load_n(&rb_uw_ready, __ATOMIC_ACQUIRE) &&
	    rb_find_fde != NULL)
		whole = rb_walk_outside(r, w);
	for (i = 0; i < w->n; i++)
		if (w->f[i].ip >= rb_self_lo && w->f[i].ip < rb_self_hi) {
			/* In a hook: it makes its ring itself. */
			munmap(w, sizeof(*w));
			return RB_SEED_HAS;
		}
	idx = rb_ring_claim(&rb_proc.map, rb_proc.pid);
	if (idx < 0) {
		__atomic_fetch_add(&rb_proc.map.hdr->untraced_threads, 1,
				   __ATOMIC_RELAXED);
		munmap(w, sizeof(*w));
		return RB_SEED_NORING;
	}
	rb_task_name(tid, name, sizeof(name));
	rb_thread_premake(&t, (uint32_t)idx, tid, name);
	if (w->n > 0)
		/* Past the thread's start; or a frame without a call table. */
		to = whole || w->f[w->n - 1].start == 0 ? w->n - 1 : w->n;
	if (!whole)
		rb_push_marker(&t, RB_ATTACH_MARKER);
	rb_seed_push(&t, w, 0, to);
	ret = whole ? RB_SEED_WHOLE : t.depth > 1 ? RB_SEED_PART : RB_SEED_NONE;
	munmap(w, sizeof(*w));
	rb_thread_publish(&t);
	for (i = 0; i < RB_PREMADE; i++) {
		uint64_t none = 0;

		if (__atomic_compare_exchange_n(&rb_premade[i], &none,
				RB_PM_MAKE(tid, idx), false, __ATOMIC_RELEASE,
				__ATOMIC_RELAXED)) {
			__atomic_fetch_add(&rb_premade_n, 1, __ATOMIC_RELAXED);
			return ret;
		}
	}
	/* No room to be found by: its thread would make a second one. */
	rb_ring_release_as(&rb_proc.map, (uint32_t)idx, RB_STATE_DETACHED);
	return RB_SEED_NORING;
}
