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
#include <stdlib.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
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
