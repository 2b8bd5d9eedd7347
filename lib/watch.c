/* SPDX-License-Identifier: MIT */
/*
 * watch.c - the owner's half of the watch protocol and the worker thread
 * that compiles the expressions (rbtrace(5), "WATCH PROTOCOL").
 *
 *   monitor                                   owner thread (a hook)
 *   CAS inuse FREE -> WRITING
 *   expr, exprlength, resready = 0
 *   inuse = SET                (release)      attention &= ~WATCH (seq_cst)
 *   attention |= WATCH         (seq_cst)      for each entry with inuse SET
 *   wake++, FUTEX_WAKE(wake)                    and resready == 0 (acquire):
 *                                               evaluate; result, reslength,
 *                                               GMA past RB_RESULT_MAX
 *   sees resready == 1 (acquire), reads  <-     resready = 1     (release)
 *   resready = 0, attention |= WATCH: again
 *   CAS inuse SET -> REMOVING,
 *   attention |= WATCH: remove           ->     inuse = FREE     (release)
 *
 * (RB_WATCH_* in format.h.)
 *
 * Nothing happens while no monitor asks: an entry whose value was read and
 * not asked for again costs nothing, and the hot path never looks here.
 *
 * A hook takes no lock and allocates nothing: it may run in a signal
 * handler that interrupted malloc().  So the expressions are compiled by
 * the module rbtrace-watch.so (lib/expr/) in a worker thread of this library,
 * which loads the module on the first watch: programs that are never
 * watched never load it, nor libdw.
 *
 * The worker itself is started at the first watch (RBTRACE_WATCH_WORKER=
 * start: with the first traced thread, and in fork children).  Starting a
 * thread allocates, so the hook that finds a watch and no worker starts it
 * only at a safe point, where it is not, as far as can be told, in a
 * signal handler: no signal frame on the stack above the hook (see
 * rb_watch_safe()), whatever signals the thread blocks.  Else the watch
 * waits and the thread looks again at a later hook, at most once a
 * millisecond, for up to RB_WK_LAZY_WAIT_MS; then the watch is answered
 * with an error that says what to do.  No hook runs while this thread
 * holds a lock of the library's, unless in a signal handler that
 * interrupted it: the rule covers that too.
 *
 * Each ring's entry has a slot here, in this process's memory; the owner
 * and the worker hand it over by its state alone:
 *
 *   owner (a hook)                            worker
 *   IDLE, prog does not match the text:
 *   text, ring; state = WANT   (release)  ->  CAS WANT -> BUSY (acquire)
 *   seq++, FUTEX_WAKE(seq)                    compile; prog = the new one
 *                                             CAS BUSY -> IDLE (release),
 *   state == IDLE (acquire): evaluate    <-   free the old program, then
 *     prog, allocation-free, in the hook      attention |= WATCH, wake++
 *   removal, exit: IDLE -> DROP,  ->          DROP: free prog, IDLE
 *     WANT -> DROP, BUSY -> BUSYDROP          BUSYDROP: free both, IDLE
 *
 * The owner reads prog only while the state is IDLE, the worker changes it
 * only while it is not, so a program is never freed under its evaluation.
 * Evaluating reads memory without faulting and allocates nothing.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/futex.h"
#include "internal.h"
#include "watch.h"

#define RB_WS_IDLE	0	/* the owner may evaluate prog */
#define RB_WS_WANT	1	/* the owner asks for text's program */
#define RB_WS_BUSY	2	/* the worker compiles it */
#define RB_WS_DROP	3	/* the owner is done with prog: free it */
#define RB_WS_BUSYDROP	4	/* ... and with the one being compiled */

#define RB_WF_MODULE	1	/* no program: the module is missing */
#define RB_WF_NOMEM	2	/* no program: out of memory */

/* One watch entry of one ring, private to this process. */
struct rb_wslot {
	uint32_t	 state;		/* RB_WS_* */
	uint32_t	 fail;		/* RB_WF_*, for text; 0: prog is it */
	void		*prog;		/* compiled by the module, or NULL */
	struct rb_ring	*ring;		/* where to say it is done */
	uint32_t	 len;
	uint32_t	 snap_was;	/* a snapshot trigger's last value:
					   RB_WSNAP_* */
	char		 text[RB_EXPR_MAX];
};

/* rb_wslot.snap_was */
#define RB_WSNAP_UNKNOWN	0	/* not evaluated since its text came */
#define RB_WSNAP_FALSE		1
#define RB_WSNAP_TRUE		2

#define RB_WK_EXIT_WAIT_MS	1000	/* exit() waits this long for a compile */
#define RB_WK_UP_WAIT_MS	1000	/* fork() waits this long for a start */
#define RB_WK_LAZY_WAIT_MS	2000	/* a watch waits this long for a safe point */
#define RB_WK_LAZY_TRY_NS	1000000	/* ... looking at most this often */

static struct {
	pid_t		 pid;		/* the process that has it, or 0 */
	pid_t		 tid;		/* its thread, once it runs (rb_watch_tid()) */
	int		 state;		/* 0 none or starting, 1 running, -1 failed */
	char		 err[128];	/* why it failed */
	uint32_t	 seq;		/* futex: bumped after every request */
	uint32_t	 busy;		/* futex: 1 while compiling */
	uint32_t	 up;		/* futex: 1 once the worker is in its loop */
	int		 quit;		/* exit(): no more compiling */
	bool		 atexit;	/* rb_watch_exit() registered */
	struct rb_wslot	*slots;		/* rings * RB_WATCHES, or NULL */
	uint32_t	 rings;
	size_t		 map_size;
	uint64_t	 gma_off;	/* the GMA, as laid out at the start */
	uint32_t	 gma_size;
} rb_wk;

static const struct rb_watch_ops *rb_wops;
static int rb_wmod_state;		/* 0 not tried, 1 loaded, -1 failed */
static char rb_wmod_err[256];

/* -------------------------------------------------------------------------
 * The worker: loads the module, compiles, frees.
 */

static bool rb_watch_try(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	rb_watch_entry_fn fn;
	const struct rb_watch_ops *ops;

	if (h == NULL) {
		const char *e = dlerror();

		if (rb_wmod_err[0] == '\0' && e != NULL)
			snprintf(rb_wmod_err, sizeof(rb_wmod_err), "%s", e);
		return false;
	}
	*(void **)&fn = dlsym(h, RB_WATCH_ENTRY);
	ops = fn != NULL ? fn() : NULL;
	if (ops == NULL || ops->abi != RB_WATCH_ABI) {
		snprintf(rb_wmod_err, sizeof(rb_wmod_err),
			 "%s: not this version's expression module", path);
		dlclose(h);
		return false;
	}
	/* Release: the module's ops before a hook uses them; pairs with rb_watch_eval()'s acquire load. */
	__atomic_store_n(&rb_wops, ops, __ATOMIC_RELEASE);
	return true;
}

/*
 * The module, in the worker only: next to the library that holds this
 * code (its rbtrace/ subdirectory when installed, the same directory in a
 * build tree), then where it was installed.
 */
static const struct rb_watch_ops *rb_watch_module(void)
{
	char dir[PATH_MAX], path[PATH_MAX + 64];
	Dl_info info;
	char *slash;
	bool ok = false;

	if (rb_wmod_state != 0)
		return rb_wops;
	if (dladdr((void *)rb_watch_module, &info) != 0 &&
	    info.dli_fname != NULL && strlen(info.dli_fname) < sizeof(dir)) {
		strcpy(dir, info.dli_fname);
		slash = strrchr(dir, '/');
		if (slash != NULL) {
			*slash = '\0';
			snprintf(path, sizeof(path), "%s/rbtrace/%s", dir,
				 RB_WATCH_MODULE);
			ok = rb_watch_try(path);
			if (!ok) {
				snprintf(path, sizeof(path), "%s/%s", dir,
					 RB_WATCH_MODULE);
				ok = rb_watch_try(path);
			}
		}
	}
	if (!ok)
		ok = rb_watch_try(RB_PKGLIBDIR "/" RB_WATCH_MODULE);
	rb_wmod_state = ok ? 1 : -1;
	return rb_wops;
}

static void rb_watch_release(void *prog)
{
	if (prog != NULL && rb_wops != NULL)
		rb_wops->release(prog);
}

/* Tell the owner its program is there: as a monitor asks for a value. */
static void rb_watch_poke(struct rb_ring *r)
{
	/* After the slot's IDLE: the owner clears the bit before it looks at the slot (rb_watch_serve()), so one of the two sees the other. */
	RB_ATTN_OR(r, RB_ATTN_WATCH);
	/* The bit before the bump (release, in rb_ring_wake()). */
	rb_ring_wake(r);
}

static void rb_watch_compile(struct rb_wslot *s)
{
	const struct rb_watch_ops *ops = rb_watch_module();
	void *old = s->prog, *prog = NULL;
	uint32_t expect = RB_WS_BUSY, fail = 0;

	if (ops == NULL)
		fail = RB_WF_MODULE;
	else if (old != NULL && ops->same(old, s->text, s->len))
		prog = old;
	else if ((prog = ops->compile(s->text, s->len)) == NULL)
		fail = RB_WF_NOMEM;
	s->prog = prog;
	s->fail = fail;
	/* Release: prog and fail before IDLE; pairs with the owner's acquire load of state. */
	if (!__atomic_compare_exchange_n(&s->state, &expect, RB_WS_IDLE, false,
					 __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
		/* BUSYDROP: the owner wants neither. */
		struct rb_ring *r = s->ring;

		s->prog = NULL;
		s->fail = 0;
		if (prog != old)
			rb_watch_release(prog);
		rb_watch_release(old);
		/* Release: done with the slot before the owner takes it again. */
		RB_STORE_REL(&s->state, RB_WS_IDLE);
		/* A new watch in the entry may have found the slot busy. */
		if (r != NULL)
			rb_watch_poke(r);
		return;
	}
	if (old != prog)
		rb_watch_release(old);
	rb_watch_poke(s->ring);
}

/* Whether exit() has begun; else the worker is busy until rb_watch_idle(). */
static bool rb_watch_busy(void)
{
	/* seq_cst, both: busy before quit here, quit before busy in rb_watch_exit(), so one of the two sees the other. */
	__atomic_store_n(&rb_wk.busy, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&rb_wk.quit, __ATOMIC_SEQ_CST))
		return false;
	__atomic_store_n(&rb_wk.busy, 0, __ATOMIC_SEQ_CST);
	return true;
}

static void rb_watch_idle(void)
{
	/* seq_cst: see rb_watch_busy(). */
	__atomic_store_n(&rb_wk.busy, 0, __ATOMIC_SEQ_CST);
	rb_futex_wake_private(&rb_wk.busy, INT_MAX);
}

static void rb_watch_work(void)
{
	uint32_t i, n = rb_wk.rings * RB_WATCHES;

	for (i = 0; i < n; i++) {
		struct rb_wslot *s = &rb_wk.slots[i];
		/* Relaxed: the CAS or the fence below orders what follows. */
		uint32_t st = RB_LOAD(&s->state);

		if (st == RB_WS_WANT) {
			if (rb_watch_busy())
				return;
			/* Acquire: the owner's text and ring; pairs with its release store of WANT. */
			if (__atomic_compare_exchange_n(&s->state, &st, RB_WS_BUSY,
							false, __ATOMIC_ACQUIRE,
							__ATOMIC_RELAXED))
				rb_watch_compile(s);
			/* else dropped meanwhile: the next pass frees it */
			rb_watch_idle();
		} else if (st == RB_WS_DROP) {
			/* Acquire: the owner is done with prog; pairs with its release store of DROP. */
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			struct rb_ring *r = s->ring;

			rb_watch_release(s->prog);
			s->prog = NULL;
			s->fail = 0;
			/* Release: the slot is the owner's again. */
			RB_STORE_REL(&s->state, RB_WS_IDLE);
			/*
			 * A watch posted in the entry since its removal found
			 * the slot not IDLE and waits for a poke (a spurious
			 * one, to a ring that changed hands, costs a scan).
			 */
			if (r != NULL)
				rb_watch_poke(r);
		}
	}
}

static void *rb_watch_worker(void *arg)
{
	(void)arg;
	/* Never traced: a hook in code it runs (a traced malloc) does nothing. */
	rb_self.state = RB_T_DONE;
	/* Relaxed: read by a seed request, with every other thread stopped. */
	RB_STORE(&rb_wk.tid, rb_gettid());
	prctl(PR_SET_NAME, "rbtrace-watch", 0, 0, 0);
	/* Release: its start-up before up; pairs with rb_watch_fork_prepare(). */
	RB_STORE_REL(&rb_wk.up, 1);
	rb_futex_wake_private(&rb_wk.up, INT_MAX);
	for (;;) {
		/* Acquire: the requests made before this bump are seen by the scan; pairs with rb_watch_kick(). */
		uint32_t seq = RB_LOAD_ACQ(&rb_wk.seq);

		/* Relaxed: a compile looks again (rb_watch_busy()). */
		if (RB_LOAD(&rb_wk.quit))
			break;
		rb_watch_work();
		rb_futex_wait_private(&rb_wk.seq, seq, RB_FUTEX_FOREVER);
	}
	return NULL;
}

/*
 * exit(): no compile may run on while the libraries it uses are being
 * finalized; wait a bounded time for the one in progress.
 */
static void rb_watch_exit(void)
{
	int waited;

	/* Acquire: pairs with rb_watch_start()'s release store of state. */
	if (rb_wk.pid != getpid() || RB_LOAD_ACQ(&rb_wk.state) != 1)
		return;
	/* seq_cst, both: see rb_watch_busy(). */
	__atomic_store_n(&rb_wk.quit, 1, __ATOMIC_SEQ_CST);
	for (waited = 0; __atomic_load_n(&rb_wk.busy, __ATOMIC_SEQ_CST) &&
	     waited < RB_WK_EXIT_WAIT_MS; waited += 10)
		rb_futex_wait_private(&rb_wk.busy, 1, 10 * 1000 * 1000);
}

/*
 * A fork child has the parent's slots, for the parent's rings, and no
 * worker: every program is freed by its own worker, then the slot is idle.
 */
static void rb_watch_slots_reset(void)
{
	uint32_t i, n = rb_wk.rings * RB_WATCHES;

	for (i = 0; i < n; i++) {
		struct rb_wslot *s = &rb_wk.slots[i];

		s->fail = 0;
		s->state = s->prog != NULL ? RB_WS_DROP : RB_WS_IDLE;
	}
}

/**
 * rb_watch_fork_child - in a fork child, before any thread setup: the
 * parent's worker is not the child's, which has none until it starts its own
 *
 * The child has one thread, this one: plain stores.
 */
void rb_watch_fork_child(void)
{
	rb_wk.pid = 0;
	rb_wk.state = 0;
	rb_wk.up = 0;
	rb_self.wk_since = 0;
	rb_self.wk_next = 0;
}

/*
 * The safe point (rbtrace(5), "The evaluator"): whether this hook runs
 * inside a signal handler, which may have interrupted malloc() or a lock
 * of the C library.
 *
 * To run a handler, the kernel pushes a signal frame on the stack and
 * enters the handler as if called from the frame's first word, the
 * handler's restorer (sa_restorer: the C library's __restore_rt, which
 * makes the rt_sigreturn call; x86-64 delivers no handler without one).
 * So the hook collects the restorers of the handlers installed now (raw
 * rt_sigaction queries: async-signal-safe, and not through a wrapper a
 * runtime may interpose), adds those of earlier checks (a handler reset
 * by SA_RESETHAND, or replaced, while it runs), and looks for one in the
 * words of the live stack above it: from its own frame to a little above
 * the thread's outermost traced frame, or over the rest of the alternate
 * signal stack when it runs on that.  A word equal to a restorer means
 * "in a handler"; a stale copy of one in a live frame only delays the
 * start to a later hook.  Memory is read with process_vm_readv(), which
 * does not fault: the scan ends at the first unreadable page.
 *
 * Elsewhere than x86-64 the restorer need not be on the stack (arm64
 * returns through the link register, to the vDSO), and the older rule
 * holds: a handler runs with its own signal blocked, so a blocked signal
 * that has a handler means "maybe in it".
 */
#define RB_WK_RESTORERS	8		/* restorers remembered across checks */
#define RB_WK_SCAN_MARGIN 2048		/* above the outermost frame's sp */
#define RB_WK_SCAN_MAX	(8u << 20)	/* the farthest outermost frame */
#define RB_WK_SCAN_BLIND (256u << 10)	/* without one: scanned this far */
#define RB_WK_SCAN_CHUNK 512		/* bytes read at a time (stack) */

#if defined(__x86_64__)
#define RB_SIGFRAME	1

struct rb_ksigaction {			/* the kernel's struct sigaction */
	uintptr_t	handler;
	unsigned long	flags;
	uintptr_t	restorer;
	uint64_t	mask;
};

#define RB_SA_RESTORER	0x04000000ul

/* The restorers seen by earlier checks, 0 for none; never removed. */
static uintptr_t rb_wk_restorers[RB_WK_RESTORERS];

struct rb_restorers {
	uintptr_t	 addr[2 * RB_WK_RESTORERS];
	unsigned	 n;
	bool		 handled;	/* some signal has a handler now */
	bool		 over;		/* more than addr holds */
};

static void rb_restorer_add(struct rb_restorers *rs, uintptr_t a)
{
	unsigned i;

	for (i = 0; i < rs->n; i++)
		if (rs->addr[i] == a)
			return;
	if (rs->n == sizeof(rs->addr) / sizeof(rs->addr[0]))
		rs->over = true;
	else
		rs->addr[rs->n++] = a;
}

/* Remember @a for later checks, lock-free: threads may check at once. */
static void rb_restorer_keep(uintptr_t a)
{
	uintptr_t cur;
	unsigned i;

	for (i = 0; i < RB_WK_RESTORERS; i++) {
		cur = RB_LOAD(&rb_wk_restorers[i]);
		if (cur == 0 && __atomic_compare_exchange_n(&rb_wk_restorers[i],
		    &cur, a, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			return;
		if (cur == a)
			return;
	}
}

/* The restorers of the handlers installed now, and of earlier checks. */
static void rb_restorers_get(struct rb_restorers *rs)
{
	struct rb_ksigaction k;
	uintptr_t a;
	unsigned i;
	int sig;

	memset(rs, 0, sizeof(*rs));
	for (sig = 1; sig <= 64; sig++) {
		memset(&k, 0, sizeof(k));
		if (syscall(SYS_rt_sigaction, sig, NULL, &k, (size_t)8) != 0)
			continue;
		if (k.handler == (uintptr_t)SIG_DFL ||
		    k.handler == (uintptr_t)SIG_IGN)
			continue;
		rs->handled = true;
		if ((k.flags & RB_SA_RESTORER) && k.restorer != 0) {
			rb_restorer_add(rs, k.restorer);
			rb_restorer_keep(k.restorer);
		}
	}
	for (i = 0; i < RB_WK_RESTORERS; i++) {
		a = RB_LOAD(&rb_wk_restorers[i]);
		if (a != 0)
			rb_restorer_add(rs, a);
	}
}

/* Whether a word of [@lo, @hi) of this thread's stack is a restorer. */
static bool rb_restorers_found(const struct rb_restorers *rs, uintptr_t lo,
			       uintptr_t hi)
{
	uintptr_t buf[RB_WK_SCAN_CHUNK / sizeof(uintptr_t)];
	struct iovec l, r;
	ssize_t got;
	size_t len, i;
	unsigned j;
	bool hit = false;

	while (lo < hi) {
		len = hi - lo < sizeof(buf) ? hi - lo : sizeof(buf);
		l.iov_base = buf;
		l.iov_len = len;
		r.iov_base = (void *)lo;
		r.iov_len = len;
		got = syscall(SYS_process_vm_readv, (long)rb_proc.pid, &l, 1ul,
			      &r, 1ul, 0ul);
		if (got <= 0)
			break;
		for (i = 0; i < (size_t)got / sizeof(uintptr_t) && !hit; i++)
			for (j = 0; j < rs->n; j++)
				if (buf[i] == rs->addr[j])
					hit = true;
		if (hit || (size_t)got < len)
			break;		/* found, or an unreadable page: the end */
		lo += len;
	}
	return hit;
}

/*
 * The top of what to scan above @lo, the hook's frame: on the alternate
 * signal stack, that stack's top; else a margin above the stack pointer
 * of the thread's outermost traced frame (level 0), which covers a
 * handler entered with no traced frame below it (the handler's entry
 * stack pointer is the address of the restorer's word, the sp it records
 * a little below).  Without one (level 0's slot taken by a deeper level
 * in a small ring, a named frame, another stack, or one too far),
 * RB_WK_SCAN_BLIND bytes, or to the first unreadable page.
 */
static uintptr_t rb_scan_top(struct rb_thread *t, uintptr_t lo)
{
	stack_t ss;
	const struct rb_slot *s;
	uint64_t sp;

	memset(&ss, 0, sizeof(ss));
	if (syscall(SYS_sigaltstack, NULL, &ss) == 0 &&
	    !(ss.ss_flags & SS_DISABLE) && ss.ss_size > 0 &&
	    lo >= (uintptr_t)ss.ss_sp && lo - (uintptr_t)ss.ss_sp < ss.ss_size)
		return (uintptr_t)ss.ss_sp + ss.ss_size;
	if (t->slots != NULL && t->depth > 0 && t->nslots > 0) {
		s = (const struct rb_slot *)t->slots;	/* level 0's, unless wrapped */
		sp = s->sp;
		if (s->depth == 0 && sp != RB_SP_NONE && sp > lo &&
		    sp - lo <= RB_WK_SCAN_MAX)
			return (uintptr_t)sp + RB_WK_SCAN_MARGIN;
	}
	return lo + RB_WK_SCAN_BLIND;
}

/*
 * Whether a signal frame is above the caller of this function.  Not
 * inlined: the scan starts at its own frame, above its copies of the
 * restorers.
 */
static __attribute__((noinline)) bool rb_sigframe_seen(struct rb_thread *t)
{
	struct rb_restorers rs;
	uintptr_t lo;

	rb_restorers_get(&rs);
	if (!rs.handled && rs.n == 0)
		return false;		/* no handler, none seen: none runs */
	if (rs.over)
		return true;
	lo = ((uintptr_t)__builtin_frame_address(0) + sizeof(uintptr_t) - 1) &
	     ~(uintptr_t)(sizeof(uintptr_t) - 1);
	return rb_restorers_found(&rs, lo, rb_scan_top(t, lo));
}

/*
 * Clear the stack rb_sigframe_seen() used, called from the same frame: a
 * copy of a restorer left there would be a stale one in the frame of a
 * later hook's caller, which the next check, from a deeper hook, scans.
 */
static __attribute__((noinline)) void rb_sigframe_wipe(void)
{
	char b[RB_WK_SCAN_CHUNK + 768];

	memset(b, 0, sizeof(b));
	__asm__ __volatile__("" : : "r"(b) : "memory");
}
#else
#if defined(__i386__) || defined(__aarch64__) || defined(__arm__) || \
    defined(__riscv) || defined(__powerpc__) || defined(__s390__) || \
    defined(__loongarch__)
#define RB_RAW_SIGNALS	1

struct rb_ksigaction {
	void		*handler;
	unsigned char	 rest[120];	/* flags, restorer, mask */
};
#endif

/* Whether signal @sig has a handler: neither SIG_DFL nor SIG_IGN. */
static bool rb_watch_handled(int sig)
{
#ifdef RB_RAW_SIGNALS
	struct rb_ksigaction k;

	if (syscall(SYS_rt_sigaction, sig, NULL, &k, (size_t)8) != 0)
		return true;
	return k.handler != (void *)SIG_DFL && k.handler != (void *)SIG_IGN;
#else
	struct sigaction sa;

	if (sigaction(sig, NULL, &sa) != 0)
		return true;
	return (sa.sa_flags & SA_SIGINFO) ||
	       (sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN);
#endif
}
#endif

/*
 * Whether the calling thread @t may start a thread: it is not, as far as
 * can be told, in a signal handler (above).  Not seen: a handler whose
 * restorer no check found (reset or replaced before the first), a signal
 * frame beyond the scan, a hook in an allocator that is itself
 * instrumented.  Nor in the child of a vfork(), which runs on this
 * thread's memory until it execs.
 */
bool rb_watch_safe(struct rb_thread *t)
{
#ifdef RB_SIGFRAME
	bool seen;

	if (syscall(SYS_getpid) != rb_proc.pid)
		return false;
	seen = rb_sigframe_seen(t);
	rb_sigframe_wipe();
	return !seen;
#else
	uint64_t mask;
	int sig;

	(void)t;
#ifdef RB_RAW_SIGNALS
	if (syscall(SYS_getpid) != rb_proc.pid)
		return false;
	if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &mask, (size_t)8) != 0)
		return false;
#else
	sigset_t set;

	if (getpid() != rb_proc.pid)
		return false;
	if (pthread_sigmask(SIG_BLOCK, NULL, &set) != 0)
		return false;
	mask = 0;
	for (sig = 1; sig <= 64 && sig < NSIG; sig++)
		if (sigismember(&set, sig) == 1)
			mask |= 1ull << (sig - 1);
#endif
	for (sig = 1; sig <= 64; sig++) {
		if ((mask & (1ull << (sig - 1))) && rb_watch_handled(sig))
			return false;
	}
	return true;
#endif
}

/* The worker's thread in this process, or 0: it gets no ring. */
pid_t rb_watch_tid(void)
{
	/* Relaxed: see rb_watch_worker(). */
	return RB_LOAD(&rb_wk.pid) == rb_proc.pid ? RB_LOAD(&rb_wk.tid) : 0;
}

/**
 * rb_watch_start - start this process's worker, unless it has one
 *
 * From a thread's setup with RBTRACE_WATCH_WORKER=start (its first hook,
 * or fork() in the child), before the thread serves any watch; else from a
 * hook at a safe point that found a watch and no worker (rb_watch_ready()).
 * Once per process.
 */
void rb_watch_start(void)
{
	const struct rb_header *g = &rb_proc.map.geo;
	pid_t cur = RB_LOAD(&rb_wk.pid);
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t th;
	int saved = errno, rc;

	/* One thread of the process starts it; the others go on (see rb_watch_eval()). */
	if (cur == rb_proc.pid ||
	    !__atomic_compare_exchange_n(&rb_wk.pid, &cur, rb_proc.pid, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return;
	/* Relaxed: hooks only tell starting (0) from failed (-1) meanwhile. */
	RB_STORE(&rb_wk.state, 0);
	rb_wk.quit = 0;
	rb_wk.busy = 0;
	RB_STORE(&rb_wk.up, 0);
	if (rb_wk.slots != NULL) {
		rb_watch_slots_reset();
	} else {
		uint32_t rings = g->rings;
		void *m;

		if (rings > RB_MAX_RINGS)
			rings = RB_MAX_RINGS;
		rb_wk.map_size = (size_t)rings * RB_WATCHES * sizeof(struct rb_wslot);
		m = mmap(NULL, rb_wk.map_size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED) {
			snprintf(rb_wk.err, sizeof(rb_wk.err), "no memory for its slots: %s",
				 strerror(errno));
			/* Release: err before the state; pairs with the hooks' acquire loads. */
			RB_STORE_REL(&rb_wk.state, -1);
			errno = saved;
			return;
		}
		/*
		 * The GMA as this process laid it out or checked it (the
		 * private copy of the header): a header changed since cannot
		 * send values elsewhere.
		 */
		rb_wk.gma_off = g->gma_off;
		rb_wk.gma_size = g->global_sz;
		if (rb_wk.gma_size > RB_MAX_GLOBAL_SZ)
			rb_wk.gma_size = RB_MAX_GLOBAL_SZ;
		if (rb_wk.gma_off + rb_wk.gma_size > rb_proc.map.size)
			rb_wk.gma_size = 0;
		rb_wk.rings = rings;
		/* Release: the slots before a hook finds them; pairs with rb_watch_slot(). */
		__atomic_store_n(&rb_wk.slots, (struct rb_wslot *)m, __ATOMIC_RELEASE);
	}
	if (!rb_wk.atexit)
		rb_wk.atexit = atexit(rb_watch_exit) == 0;

	/* Every signal blocked: the program's signals go to its own threads. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 4u << 20);
	rc = pthread_create(&th, &attr, rb_watch_worker, NULL);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		snprintf(rb_wk.err, sizeof(rb_wk.err), "cannot start it: %s",
			 strerror(rc));
		rb_warnf("rbtrace: no watch worker thread: %s; watches answer an error",
			 strerror(rc));
	}
	/* Release: err before the state; pairs with the hooks' acquire loads. */
	RB_STORE_REL(&rb_wk.state, rc == 0 ? 1 : -1);
	errno = saved;
}

/**
 * rb_watch_fork_prepare - before fork(): a worker being started gets there
 *
 * A thread that is starting may be inside its runtime's start-up, which
 * can allocate (AddressSanitizer's does, and its allocator has no fork
 * handlers): the child would find a lock held by a thread it lacks.  Once
 * in its loop the worker holds nothing but the module's lock, which the
 * module takes at fork.  Waits a bounded time, in the forking thread.
 */
void rb_watch_fork_prepare(void)
{
	int waited;

	/* 10 ms at a time: a wake may come before the wait. */
	for (waited = 0; waited < RB_WK_UP_WAIT_MS; waited += 10) {
		/* Acquire: pairs with rb_watch_start()'s release store of state. */
		int state = RB_LOAD_ACQ(&rb_wk.state);

		/* Relaxed: only this process's worker counts, once started. */
		if (RB_LOAD(&rb_wk.pid) != rb_proc.pid || state == -1)
			return;
		/* Acquire: the worker's start-up; pairs with its release store of up. */
		if (state == 1 && RB_LOAD_ACQ(&rb_wk.up))
			return;
		rb_futex_wait_private(&rb_wk.up, 0, 10 * 1000 * 1000);
	}
}

/* -------------------------------------------------------------------------
 * The owner: at its hooks, allocation-free and without locks.
 */

/* The slot of the calling thread's entry @i, or NULL. */
static struct rb_wslot *rb_watch_slot(struct rb_thread *t, uint32_t i)
{
	/* Acquire: the slots' set-up; pairs with rb_watch_start()'s release store. */
	struct rb_wslot *slots = __atomic_load_n(&rb_wk.slots, __ATOMIC_ACQUIRE);

	if (slots == NULL || t->index >= rb_wk.rings)
		return NULL;
	return &slots[(size_t)t->index * RB_WATCHES + i];
}

/* Wake the worker for a request. */
static void rb_watch_kick(void)
{
	/* Release: the slot's WANT or DROP before the bump; pairs with the worker's acquire load of seq. */
	__atomic_fetch_add(&rb_wk.seq, 1, __ATOMIC_RELEASE);
	rb_futex_wake_private(&rb_wk.seq, 1);
}

/* The owner is done with the slot's program (removal, exit). */
static void rb_watch_drop(struct rb_thread *t, uint32_t i)
{
	struct rb_wslot *s;
	uint32_t st;

	/*
	 * Acquire: the slots; pairs with rb_watch_start()'s release store of
	 * state.  Without a worker this thread handed nothing over (a fork
	 * child's copies of the parent's programs are dropped at the start).
	 */
	if (RB_LOAD_ACQ(&rb_wk.state) != 1)
		return;
	s = rb_watch_slot(t, i);
	if (s == NULL)
		return;
	/* Relaxed: the CAS below decides. */
	st = RB_LOAD(&s->state);
	for (;;) {
		uint32_t to;

		if (st == RB_WS_IDLE && s->prog == NULL) {
			s->fail = 0;
			return;
		}
		if (st == RB_WS_IDLE || st == RB_WS_WANT)
			to = RB_WS_DROP;
		else if (st == RB_WS_BUSY)
			to = RB_WS_BUSYDROP;
		else
			return;		/* dropped already */
		/* Release: done with prog before the worker frees it; pairs with its acquire. */
		if (__atomic_compare_exchange_n(&s->state, &st, to, false,
						__ATOMIC_RELEASE, __ATOMIC_RELAXED))
			break;
	}
	if (st != RB_WS_BUSY)
		rb_watch_kick();
}

/* Where a value's text goes: result first, the GMA after it. */
struct rb_wsink {
	struct rb_thread	*t;
	struct rb_watch		*w;
	uint32_t		 entry;
	uint64_t		 total;
	int			 gma;	/* 1 owned, 0 not tried, -1 not to be had */
	uint32_t		 gma_len;
	char			 head[32];	/* the value's first bytes */
};

static int rb_watch_put(void *arg, const char *s, size_t n)
{
	struct rb_wsink *k = arg;
	char *gma = (char *)rb_proc.map.base + rb_wk.gma_off;
	size_t i;

	for (i = 0; i < n; i++, k->total++) {
		uint64_t p = k->total;

		if (p < sizeof(k->head))
			k->head[p] = s[i];
		if (p < RB_RESULT_MAX) {
			k->w->result[p] = s[i];
			continue;
		}
		if (k->gma == 0)
			k->gma = rb_gma_claim(RB_GMA_MAKE(k->t->index, k->entry + 1) |
					      RB_GMA_BUSY, RB_RESULT_MAX) ? 1 : -1;
		if (k->gma == 1 && p - RB_RESULT_MAX < rb_wk.gma_size) {
			gma[p - RB_RESULT_MAX] = s[i];
			k->gma_len = (uint32_t)(p - RB_RESULT_MAX + 1);
		}
	}
	return 0;
}

/* Answer entry @w with an error; @fmt's text is cut to the result. */
static __attribute__((format(printf, 2, 3)))
void rb_watch_fail(struct rb_watch *w, const char *fmt, ...)
{
	char err[RB_RESULT_MAX];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(err, sizeof(err), fmt, ap);
	va_end(ap);
	n = strnlen(err, sizeof(err) - 1);
	if (n == 0)
		n = strlen(strcpy(err, "error"));
	memcpy(w->result, err, n);
	RB_STORE(&w->reslength, -(int32_t)n);
	/* result and reslength before resready; pairs with the monitor's acquire load. */
	RB_STORE_REL(&w->resready, 1);
}

/*
 * Whether this process's worker runs: 1; 0 when the watch waits for it
 * (the thread looks again at a later hook); -1 when @w was answered with
 * an error.  With none, starts it at a safe point (rbtrace(5), "The
 * evaluator").
 */
static int rb_watch_ready(struct rb_thread *t, struct rb_watch *w)
{
	uint64_t now;
	int state;

	for (;;) {
		/* Acquire: err, the slots; pairs with rb_watch_start()'s release store of state. */
		state = RB_LOAD_ACQ(&rb_wk.state);
		if (state == 1)
			return 1;
		if (state < 0) {
			rb_watch_fail(w, "watches need the library's worker thread: %s",
				      rb_wk.err);
			return -1;
		}
		/* Relaxed: being started by another thread of this process. */
		if (RB_LOAD(&rb_wk.pid) == rb_proc.pid)
			break;
		now = rb_clock_mono_ns();
		if (t->wk_since == 0) {
			t->wk_since = now;
			t->wk_next = now;
		}
		if (now < t->wk_next)
			break;
		t->wk_next = now + RB_WK_LAZY_TRY_NS;
		if (!rb_watch_safe(t)) {
			if (now - t->wk_since < RB_WK_LAZY_WAIT_MS * 1000000ull)
				break;
			rb_watch_fail(w, "the watch worker is started at the first watch, at a hook outside signal handlers, and this thread ran none in %d s: run the program with RBTRACE_WATCH_WORKER=start to have it from the start",
				      RB_WK_LAZY_WAIT_MS / 1000);
			return -1;
		}
		rb_watch_start();
		/* Started (or failed) here, or by another thread meanwhile: look. */
	}
	/* Look again at the next hook (seq_cst, as every attention change). */
	RB_ATTN_OR(t->ring, RB_ATTN_WATCH);
	return 0;
}

/*
 * Is a value true, for a snapshot trigger?  False: empty, "false", a null
 * pointer, or a number that is zero ("0", "0x0", "-0.0").  @s holds the
 * first @n bytes of the value.
 */
static bool rb_watch_truth(const char *s, size_t n)
{
	bool zero = false;
	size_t i;

	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\n'))
		n--;
	while (n > 0 && *s == ' ') {
		s++;
		n--;
	}
	if (n == 0 || (n == 5 && memcmp(s, "false", 5) == 0) ||
	    (n == 4 && memcmp(s, "NULL", 4) == 0) ||
	    (n == 5 && memcmp(s, "(nil)", 5) == 0))
		return false;
	for (i = 0; i < n; i++) {
		if (s[i] == '0')
			zero = true;
		else if (s[i] != '.' && s[i] != '-' && s[i] != '+' &&
			 s[i] != 'x' && s[i] != 'X')
			return true;
	}
	return !zero;
}

/*
 * A snapshot trigger's value (RB_WATCH_SNAP_PREFIX): a value that went
 * from false to true triggers a snapshot of this process, here, in the
 * thread that evaluated it.  The first value only says where it stands.
 */
static void rb_watch_snap(struct rb_thread *t, struct rb_wslot *s,
			  uint32_t i, const struct rb_wsink *k)
{
	size_t n = k->total < sizeof(k->head) ? (size_t)k->total :
		   sizeof(k->head);
	bool now = rb_watch_truth(k->head, n);

	if (now && s->snap_was == RB_WSNAP_FALSE)
		(void)rb_snapshot_trigger(RB_SNAPR_WATCH, t->tid, 0, i);
	s->snap_was = now ? RB_WSNAP_TRUE : RB_WSNAP_FALSE;
}

/* Returns whether entry @w waits for the worker to be started. */
static bool rb_watch_eval(struct rb_thread *t, uint32_t i, struct rb_watch *w)
{
	struct rb_header *h = rb_proc.map.hdr;
	const struct rb_watch_ops *ops;
	struct rb_wsink k = { t, w, i, 0, 0, 0, { 0 } };
	struct rb_wslot *s;
	int32_t len = RB_LOAD(&w->exprlength);
	char expr[RB_EXPR_MAX], err[RB_RESULT_MAX];
	bool snap = false;
	int rc;

	if (len < 0 || len > RB_EXPR_MAX) {
		rb_watch_fail(w, "bad expression length %d (0..%d)", (int)len,
			      RB_EXPR_MAX);
		return false;
	}
	rc = rb_watch_ready(t, w);
	if (rc <= 0)
		return rc == 0;
	s = rb_watch_slot(t, i);
	if (s == NULL) {
		rb_watch_fail(w, "no watch slots for ring %u", t->index);
		return false;
	}
	/* Acquire: prog and fail; pairs with the worker's release of IDLE. */
	if (RB_LOAD_ACQ(&s->state) != RB_WS_IDLE)
		return false;	/* the worker pokes the ring when done */
	memcpy(expr, w->expr, (size_t)len);
	/* A snapshot trigger: the expression after the prefix is the watch. */
	if (len > RB_WATCH_SNAP_PREFIX_LEN &&
	    memcmp(expr, RB_WATCH_SNAP_PREFIX, RB_WATCH_SNAP_PREFIX_LEN) == 0) {
		len -= RB_WATCH_SNAP_PREFIX_LEN;
		memmove(expr, expr + RB_WATCH_SNAP_PREFIX_LEN, (size_t)len);
		snap = true;
	}
	/* Acquire: the module's ops; pairs with rb_watch_try()'s release store. */
	ops = __atomic_load_n(&rb_wops, __ATOMIC_ACQUIRE);
	if (s->prog == NULL || ops == NULL || !ops->same(s->prog, expr, (size_t)len)) {
		if (s->fail != 0 && s->len == (uint32_t)len &&
		    memcmp(s->text, expr, (size_t)len) == 0) {
			/* compiled for this very text, and failed */
			if (s->fail == RB_WF_MODULE)
				rb_watch_fail(w, "watches need %s: %s", RB_WATCH_MODULE,
					      rb_wmod_err[0] ? rb_wmod_err : "not found");
			else
				rb_watch_fail(w, "out of memory");
			s->fail = 0;
			return false;
		}
		memcpy(s->text, expr, (size_t)len);
		s->len = (uint32_t)len;
		s->ring = t->ring;
		s->fail = 0;
		s->snap_was = RB_WSNAP_UNKNOWN;
		/* Release: the text, and done with the old program; pairs with the worker's acquire CAS. */
		RB_STORE_REL(&s->state, RB_WS_WANT);
		rb_watch_kick();
		return false;
	}
	err[0] = '\0';
	rc = ops->eval(s->prog, rb_watch_put, &k, err, sizeof(err));
	if (rc != 0) {
		if (k.gma == 1)
			RB_STORE(&h->gma_len, 0);
		rb_watch_fail(w, "%s", err);
	} else {
		RB_STORE(&w->reslength,
			 (int32_t)(k.total > INT32_MAX ? INT32_MAX : k.total));
		if (k.gma == 1)
			RB_STORE(&h->gma_len, k.gma_len);
		/* result, reslength, the GMA before resready; pairs with the monitor's acquire load. */
		RB_STORE_REL(&w->resready, 1);
		if (snap)
			rb_watch_snap(t, s, i, &k);
	}
	/*
	 * Only now from busy to held (resready == 1 keeps it), so no moment
	 * lets another thread see the claim as lapsed.  The monitor waits out
	 * the busy bit; release pairs with its acquire load of gma_owner.
	 */
	if (k.gma == 1)
		RB_STORE_REL(&h->gma_owner, RB_GMA_MAKE(t->index, i + 1));
	return false;
}

/*
 * rb_watch_serve - evaluate the entries a monitor asked for, remove the
 * ones it gave up; from a hook (or a stop) of the ring's owner
 */
void rb_watch_serve(struct rb_thread *t)
{
	struct rb_ring *r = t->ring;
	bool waits = false;
	uint32_t i;

	/* Clear, then look: a request made meanwhile sets the bit again. */
	RB_ATTN_AND(r, ~RB_ATTN_WATCH);
	for (i = 0; i < RB_WATCHES; i++) {
		struct rb_watch *w = &r->watches[i];
		int32_t in = RB_LOAD_ACQ(&w->inuse);

		if (in == RB_WATCH_REMOVING) {
			rb_watch_drop(t, i);
			/* Release: done with the entry before it is free. */
			RB_STORE_REL(&w->inuse, RB_WATCH_FREE);
			continue;
		}
		/* Any other value of inuse or resready asks for nothing. */
		if (in == RB_WATCH_SET && RB_LOAD_ACQ(&w->resready) == 0 &&
		    rb_watch_eval(t, i, w))
			waits = true;
	}
	/* The wait for a safe point counts from the first watch that waits. */
	if (!waits)
		t->wk_since = 0;
}

/* rb_watch_thread_exit - the exiting thread's programs go to the worker to free */
void rb_watch_thread_exit(struct rb_thread *t)
{
	uint32_t i;

	for (i = 0; i < RB_WATCHES; i++)
		rb_watch_drop(t, i);
}
