/* SPDX-License-Identifier: MIT */
/*
 * hooks.c - the per-call hot path and the explicit API.
 *
 * A traced thread owns one ring.  Entering a function writes the next slot
 * and then raises the ring's depth; leaving lowers the depth.  Nothing else
 * is written, no lock is taken, no system call made, nothing allocated, and
 * errno is never touched (the CPU's counter is read inline, common/clock.h;
 * the CLOCK_MONOTONIC fallback goes through the vDSO).
 *
 * Publication, per slot, seqlock style; the letters are the pairs of
 * rbtrace(5), "ORDERING", which rbmon's reader (monitor/core/model.c) cites
 * too:
 *
 *   writer (owner)                         reader (monitor)
 *   seq = q + 1     (odd: writing)         d = depth              (acquire) (C)
 *   release fence                     (A)  s1 = seq               (acquire) (B)
 *   depth, fn, site, ts, line, flags       copy the fields
 *   seq = q + 2     (release)         (B)  acquire fence                    (A)
 *   depth = d + 1   (release)         (C)  s2 = seq; s1 == s2 and even: good
 *
 * Each slot also records the stack level it holds, so after a stack deeper
 * than the ring has wrapped and unwound, a reader recognises the slots that
 * deeper frames overwrote instead of showing them as the shallower frames.
 * The outermost levels keep slots of their own (rb_slot_index()): a deep
 * stack wraps in the middle and keeps main and its first callees.
 *
 * Frames unwound without their exit hooks (clang's exception unwinding
 * calls none, longjmp, ...) are dropped at the next entry: every slot
 * records the stack pointer its function had when it called the entry
 * hook, and the stack grows down, so a frame on top whose stack pointer is
 * not above the one entering now is gone, unless it is the same stack
 * pointer with the same return address: a function inlined into the frame
 * on top calls the hooks from that machine frame (a recursive function
 * inlined into itself too), so that frame stays.  A stack pointer above
 * the outermost frame's is another stack (a signal's alternate stack, a
 * coroutine's): nothing is dropped then.  A caught exception and a
 * longjmp drop what they unwound at once (unwind.c), which also covers a
 * frame left behind by the very instruction that calls it again.
 *
 * The event log (rbtrace(5), "EVENT LOG"): with the log on, each hook also
 * appends one record, entry or exit, to the thread's log.  The entry
 * record has the slot's timestamp: one clock read serves both.  The ring
 * policy's store is inline; fill, drain, a clock other than the counter
 * and switching recording on or off go out of line (rb_ev_slow()).  One
 * thread-local word (evstate) is tested first: a thread without a log
 * reads nothing shared, one switched off a single word; a full fill or
 * drain log drops a return without reading the clock.  Its pairs are (D)
 * and (E) of rbtrace(5), "ORDERING"; the readers' side is rb_evlog_copy().
 * With a minimum duration (rbtrace(5), "Short calls"; the log's copy of
 * it is on the line of head and off) a return goes out of line, and a
 * short call's entry is taken back instead of an exit recorded (R).
 *
 * No clock (RBTRACE_CLOCK=none): nothing reads a clock.  Slots are stamped
 * 0; a record is stamped with its place in the log (head + 1 when it is
 * made: a sequence that never goes back, not a time).  The entry takes
 * the fast path's one branch to rb_enter_other(), the exit the evstate
 * branch (RB_EVS_SEQ); the counter's path is as it is without them.
 *
 * The bracket (rb_hook_busy(), rb_hook_begin(), rb_hook_end(), internal.h):
 * busy is set for the whole hook, then the gate is read, which is the ring,
 * or NULL.  A signal handler that runs instrumented code while this thread
 * is inside a hook must not write the same ring: its calls find busy set
 * (rb_hook_busy()) and are simply not traced (entries and exits alike, so
 * the stack stays balanced).  A closed gate is a thread without a ring:
 * its first hook claims one (rb_enter_slow()), and a detach closes it to
 * take the ring away while the thread runs (thread.c).  The ring is read
 * once, from the gate; the cold paths inside the bracket use t->ring,
 * which only the thread itself changes.
 */
#include "config.h"

#include <string.h>

#include "internal.h"
#include "dyn/dyn.h"
#include "rbtrace/rbtrace.h"

__thread struct rb_thread rb_self __attribute__((tls_model("initial-exec")));

/* Is recording on?  Marks a switch made since the last record. */
static RB_NOINSTR bool rb_ev_on(struct rb_thread *t, uint64_t ts)
{
	uint32_t off;

	if (t->evstate & RB_EVS_NONE)
		return false;
	off = RB_LOAD(&t->ev.log->off);
	/* Frozen for a snapshot: a freeze its writer left is ended. */
	if (RB_UNLIKELY(off & RB_EVOFF_SNAP)) {
		rb_snapshot_heal(t);
		off = RB_LOAD(&t->ev.log->off);
	}
	off = off != 0;
	if (off != ((t->evstate & RB_EVS_OFF) != 0)) {
		t->evstate ^= RB_EVS_OFF;
		rb_evlog_put(&t->ev, off ? RB_EV_OFF : RB_EV_ON, 0, 0, ts);
	}
	return !off;
}

/* A record's stamp, read now; a thread with a log only. */
static RB_NOINSTR uint64_t rb_ev_now(const struct rb_thread *t)
{
	/* Relaxed: head is the owner's own. */
	if (t->slowclock == RB_TCLOCK_NONE)
		return RB_LOAD(&t->ev.log->head) + 1;
	return t->slowclock ? rb_clock_raw_slow() : rb_counter_read();
}

/*
 * A record the inline path does not take: fill and drain (rb_evlog_put()),
 * another clock, recording switched on or off since the last record
 * (marked in the log).  @ts 0: not read yet, and not read at all for a
 * record a full log would drop.
 */
static RB_NOINSTR __attribute__((noinline, cold)) void
rb_ev_slow(struct rb_thread *t, uint32_t kind, uint64_t fn, uint64_t arg, uint64_t ts)
{
	uint32_t off = RB_LOAD(&t->ev.log->off) != 0;

	if (ts == 0 && !off && !(t->evstate & RB_EVS_OFF) &&
	    rb_evlog_full(&t->ev, 1)) {
		rb_evlog_drop(&t->ev, 1);
		return;
	}
	if (ts == 0)
		ts = rb_ev_now(t);
	if (rb_ev_on(t, ts))
		rb_evlog_put(&t->ev, kind, fn, arg, ts);
}

/* The ring policy's record at head @h of @l: five stores and the head's release. */
static inline RB_NOINSTR __attribute__((always_inline)) void
rb_ev_store(struct rb_thread *t, struct rb_evlog *l, uint64_t h, uint32_t kind, uint64_t fn,
	    uint64_t arg, uint64_t ts)
{
	struct rb_event *e = &t->ev.rec[h & (t->ev.size - 1)];

	/*
	 * (D) The previous head store before the record's words; pairs with
	 * the readers' acquire fence before their second head load.
	 */
	RB_FENCE_REL();
	RB_STORE(&e->ts, ts);
	RB_STORE(&e->fn, fn);
	RB_STORE(&e->arg, arg);
	RB_STORE(&e->kind, kind);
	RB_STORE(&e->aux, 0);
	/* (E) The record before the count that shows it; pairs with the readers' acquire load. */
	RB_STORE_REL(&l->head, h + 1);
}

/*
 * Append one record, stamped @ts, or with @lazy (a constant) stamped now if
 * a record is made.  Thread-local state first: a thread without a log, or
 * switched off, reads one shared word at most.  The ring policy's record
 * is inline, with the counter's stamp or, without a clock, the sequence.
 */
static inline RB_NOINSTR __attribute__((always_inline)) void
rb_ev_put(struct rb_thread *t, uint32_t kind, uint64_t fn, uint64_t arg, uint64_t ts, bool lazy)
{
	uint32_t st = t->evstate;
	struct rb_evlog *l;
	uint64_t h;

	if (RB_UNLIKELY(st != 0)) {
		if (st & RB_EVS_NONE)
			return;
		/*
		 * No clock: the record's place in the log.  Relaxed: head is
		 * the owner's own; off as below.
		 */
		if (st == RB_EVS_SEQ && RB_LOAD(&t->ev.log->off) == 0) {
			l = t->ev.log;
			h = RB_LOAD(&l->head);
			rb_ev_store(t, l, h, kind, fn, arg, h + 1);
			return;
		}
		/* Relaxed: a switch seen one hook late is still honoured. */
		if ((st & ~RB_EVS_SEQ) == RB_EVS_OFF &&
		    (h = RB_LOAD(&t->ev.log->off)) != 0) {
			/* Frozen for a snapshot: a freeze its writer left is ended. */
			if (RB_UNLIKELY(h & RB_EVOFF_SNAP))
				rb_snapshot_heal(t);
			return;
		}
		rb_ev_slow(t, kind, fn, arg, lazy ? 0 : ts);
		return;
	}
	l = t->ev.log;
	if (RB_UNLIKELY(RB_LOAD(&l->off) != 0)) {
		rb_ev_slow(t, kind, fn, arg, lazy ? 0 : ts);
		return;
	}
	if (lazy)
		ts = rb_counter_read();
	/* Relaxed: head is the owner's own. */
	h = RB_LOAD(&l->head);
	rb_ev_store(t, l, h, kind, fn, arg, ts);
}

/* A record stamped @ts (the entry's, read for the slot too). */
static inline RB_NOINSTR __attribute__((always_inline)) void
rb_ev(struct rb_thread *t, uint32_t kind, uint64_t fn, uint64_t arg, uint64_t ts)
{
	rb_ev_put(t, kind, fn, arg, ts, false);
}

/* A record stamped now: the clock is read only if it is made. */
static inline RB_NOINSTR __attribute__((always_inline)) void
rb_ev_lazy(struct rb_thread *t, uint32_t kind, uint64_t fn, uint64_t arg)
{
	rb_ev_put(t, kind, fn, arg, 0, true);
}

/*
 * The log's copy of the file's minimum duration, at the thread's start: a
 * monitor that changes it stores the header's, a full fence, then every
 * log's; the owner stores its log's, a full fence, then looks at the
 * header again, so that one of the two sees the other's store and the
 * log ends with the header's value (seq_cst fences, no pair name: both
 * sides are here and in monitor/core/control.c).
 */
static void rb_ev_mindur_sync(struct rb_thread *t)
{
	uint64_t v = RB_LOAD(&rb_proc.map.hdr->min_duration), w;
	int i;

	for (i = 0; i < 4; i++) {
		RB_STORE(&t->ev.log->min_duration, v);
		RB_FENCE_SEQ();
		w = RB_LOAD(&rb_proc.map.hdr->min_duration);
		if (w == v)
			break;
		v = w;
	}
}

/**
 * rb_ev_thread_start - an empty log for the calling thread, which has just
 * claimed its ring; off if its process had recording switched off
 */
void rb_ev_thread_start(struct rb_thread *t)
{
	const struct rb_header *h = &rb_proc.map.geo;

	t->cap_level = UINT32_MAX;
	t->ncap = 0;
	if (h->events == 0) {
		memset(&t->ev, 0, sizeof(t->ev));
		t->evstate = RB_EVS_NONE;
		return;
	}
	rb_evq_attach(&t->ev, rb_ring_evlog(h, t->ring), h->events,
		      h->ev_policy);
	/* A full drain log waits for a recorder that asks for it (evlog.c). */
	rb_evq_consumer(&t->ev, &rb_proc.map.hdr->ev_consumer);
	if (h->ev_policy == RB_POLICY_DRAIN) {
		/* What the recorder never read of the previous owner's log. */
		uint64_t head = RB_LOAD(&t->ev.log->head);
		uint64_t tail = RB_LOAD(&t->ev.log->tail);

		if (head > tail && head - tail <= h->events)
			RB_FETCH_ADD(&rb_proc.map.hdr->ev_reused_lost, head - tail);
	}
	rb_evlog_reset(&t->ev);
	rb_ev_mindur_sync(t);
	if (h->ev_policy != RB_POLICY_RING || t->slowclock == RB_TCLOCK_CALL)
		t->evstate = RB_EVS_SLOW;
	else
		t->evstate = t->slowclock == RB_TCLOCK_NONE ? RB_EVS_SEQ : 0;
	if (rb_objects_evoff(&rb_proc.map, rb_proc.image)) {
		RB_STORE(&t->ev.log->off, 1);
		t->evstate |= RB_EVS_OFF;
	}
}

/**
 * rb_ev_mark - record a mark (stop, resume, ...) now, from the cold path
 */
void rb_ev_mark(struct rb_thread *t, uint32_t kind, uint64_t fn, uint64_t arg)
{
	rb_ev(t, kind, fn, arg, rb_clock_raw_slow());
}

static inline RB_NOINSTR struct rb_slot *rb_slot(struct rb_thread *t, uint32_t i)
{
	return (struct rb_slot *)(t->slots + (size_t)i * t->slot_size);
}

/* The slot of level @d - 1, given @c, the slot of level @d (@d > 0). */
static inline RB_NOINSTR uint32_t rb_slot_below(const struct rb_thread *t,
						 uint32_t c, uint32_t d)
{
	/* The common case first: one compare. */
	if (RB_LIKELY(c != t->pinned))
		return c - 1;
	return d > t->pinned ? t->nslots - 1 : c - 1;
}

/*
 * The ring is full: the next frame reuses the first unpinned slot.  Keep
 * the return address that slot holds while its frame lives (it locates
 * the pinned frame that made the call); a reader uses it once the slot
 * holds another level.  (C): stored before the release of the depth that
 * exposes the level wrapped into that slot (rb_push()).
 */
static inline RB_NOINSTR uint32_t rb_wrap(struct rb_thread *t,
					   struct rb_ring *r)
{
	struct rb_slot *s = rb_slot(t, t->pinned);

	if (RB_LOAD(&s->depth) == t->pinned)
		RB_STORE(&r->pinned_site, RB_LOAD(&s->site));
	return t->pinned;
}

/* The entry hook's caller's stack pointer: the hook's canonical frame address. */
#if defined(__GNUC__) && !defined(__clang__)
#define RB_CALLER_SP()	((uint64_t)(uintptr_t)__builtin_dwarf_cfa())
#else
#define RB_CALLER_SP()	((uint64_t)(uintptr_t)__builtin_frame_address(0) + 16)
#endif

/*
 * @ts: the entry time; the fast path reads the counter inline, every other
 * clock is read on the cold path (t->slowclock), keeping the fast path free
 * of calls.
 */
static inline RB_NOINSTR __attribute__((always_inline)) struct rb_slot *
rb_push(struct rb_thread *t, struct rb_ring *r, uintptr_t fn, uintptr_t site,
	uintptr_t hook, uint64_t sp, uint64_t ts, uint32_t flags)
{
	uint32_t d = t->depth, c = t->cur, n;
	struct rb_slot *s = rb_slot(t, c);
	uint32_t q = RB_LOAD(&s->seq) & ~1u;

	RB_STORE(&s->seq, q + 1);
	/*
	 * (A) The odd seq before the field stores; pairs with the reader's
	 * acquire fence before its second seq load.
	 */
	RB_FENCE_REL();
	RB_STORE(&s->depth, d);
	RB_STORE(&s->fn, fn);
	RB_STORE(&s->site, site);
	RB_STORE(&s->hook, hook);
	RB_STORE(&s->sp, sp);
	RB_STORE(&s->ts, ts);
	RB_STORE(&s->line, 0);
	RB_STORE(&s->flags, flags);
	if (flags == 0) {
		/* (B) Fields before the even seq; pairs with the reader's acquire load of seq. */
		RB_STORE_REL(&s->seq, q + 2);
	}
	/* else rb_push_text() or rb_push_seeded() closes the slot itself. */
	t->depth = d + 1;
	if (RB_LIKELY(c + 1 != t->nslots))
		n = c + 1;
	else
		n = rb_wrap(t, r);
	t->cur = n;
	if (flags == 0) {
		/*
		 * (C) The slot, and pinned_site (rb_wrap()), before the depth
		 * that exposes it; pairs with the reader's acquire load of
		 * depth.
		 */
		RB_STORE_REL(&r->depth, (int32_t)(d + 1));
		/* currSlot is advisory (readers derive it from depth): no pair. */
		RB_STORE(&r->currSlot, (int32_t)n);
	}
	return s;
}

static inline RB_NOINSTR void rb_set_depth(struct rb_thread *t, uint32_t d)
{
	t->depth = d;
	t->cur = rb_slot_index(d, t->nslots, t->pinned);
	/*
	 * Nothing to publish but the depth itself: a shallower depth hides
	 * slots, never exposes new ones (no pair, rbtrace(5), "ORDERING").
	 */
	RB_STORE(&t->ring->depth, (int32_t)d);
	RB_STORE(&t->ring->currSlot, (int32_t)t->cur);
}

/*
 * Leaving @fn.  Normally the top slot holds @fn (rb_pop()).  If it holds
 * another function at that level, frames were skipped (longjmp, a named
 * frame never popped): unwind to the nearest level that holds @fn
 * (rb_pop_search()).
 */

/*
 * Return: false for an exit whose entry was never seen, which pops
 * nothing and is not recorded.
 */
static RB_NOINSTR bool rb_pop_search(struct rb_thread *t, uintptr_t fn,
				     uint32_t d)
{
	const struct rb_slot *s;
	uint32_t k, lim;

	/*
	 * Slots overwritten by a wrapped deeper stack cannot be checked and
	 * are popped one by one, so the cost never grows with depth.
	 */
	lim = d < t->nslots ? d : t->nslots;
	for (k = 2; k <= lim; k++) {
		s = rb_slot(t, rb_slot_index(d - k, t->nslots, t->pinned));
		if (RB_LOAD(&s->depth) != d - k)
			break;
		if (RB_LOAD(&s->fn) == fn) {
			rb_set_depth(t, d - k);
			return true;
		}
	}
	/*
	 * Every level seen and none holds @fn: an exit without its entry (a
	 * function switched on while this thread was inside it, rbtrace(5),
	 * "DYNAMIC TRACING").
	 */
	if (k > lim && lim == d)
		return false;
	rb_set_depth(t, d - 1);
	return true;
}

/*
 * The common case: the top slot holds @fn, or cannot be checked; nothing
 * to pop.  Return: false if rb_pop_search() must decide.
 */
static inline RB_NOINSTR __attribute__((always_inline)) bool
rb_pop(struct rb_thread *t, struct rb_ring *r, uintptr_t fn)
{
	uint32_t d = t->depth, c;
	struct rb_slot *s;

	/*
	 * Nothing to pop, or only the before-attach frame (a return from a
	 * frame entered before the attach).
	 */
	if (RB_UNLIKELY(d <= t->floor))
		return true;
	c = rb_slot_below(t, t->cur, d);
	s = rb_slot(t, c);
	if (RB_LIKELY(RB_LOAD(&s->fn) == fn) ||
	    RB_LOAD(&s->depth) != d - 1) {
		t->depth = d - 1;
		t->cur = c;
		/* Relaxed: a pop exposes nothing (no pair). */
		RB_STORE(&r->depth, (int32_t)(d - 1));
		RB_STORE(&r->currSlot, (int32_t)c);
		return true;
	}
	return false;
}

/*
 * Short calls (rbtrace(5), "EVENT LOG", "Short calls"): @fn, stamped @ts
 * as it returns, has just been popped; its slot (t->cur, which keeps the
 * entry time) and the newest record say whether it is one.  Taken back
 * when it ran for less than @thr and the newest record is its own entry:
 * the same function with the slot's own stamp, so a frame unwound by a
 * longjmp or an exception, whose entry is followed by other records or
 * was never the newest, is never mistaken for it, nor a recursive call
 * for another level.
 *
 * Return: true if the entry was taken back (no exit is recorded).
 */
static RB_NOINSTR bool rb_ev_rewind(struct rb_thread *t, uintptr_t fn,
				     uint64_t ts, uint64_t thr)
{
	struct rb_evlog *l = t->ev.log;
	const struct rb_slot *s = rb_slot(t, t->cur);
	const struct rb_event *e;
	uint64_t e0, h;

	/* Relaxed: the slot, head and the records are the owner's own. */
	e0 = RB_LOAD(&s->ts);
	h = RB_LOAD(&l->head);
	if (h == 0 || t->ev.size == 0 || RB_LOAD(&s->fn) != fn || e0 == 0 ||
	    ts < e0 || ts - e0 >= thr)
		return false;
	e = &t->ev.rec[(h - 1) & (t->ev.size - 1)];
	if (RB_LOAD(&e->kind) != RB_EV_ENTRY || RB_LOAD(&e->fn) != fn ||
	    RB_LOAD(&e->ts) != e0)
		return false;
	/* (R): head back, then the count that tells the readers. */
	rb_evlog_rewind(&t->ev, h);
	return true;
}

/*
 * The exit's record with a minimum duration set: the clock read here, the
 * entry taken back if the call was short, else the exit recorded as
 * rb_ev_put() would.  Ring and fill only: a drained record may be consumed
 * already; never without a clock, nor while recording is switched off.
 */
static RB_NOINSTR __attribute__((noinline, cold)) void
rb_ev_exit_timed(struct rb_thread *t, uintptr_t fn)
{
	struct rb_evlog *l = t->ev.log;
	/* Relaxed: as in rb_ev_exit(). */
	uint64_t thr = RB_LOAD(&l->min_duration), ts;

	if ((t->evstate & ~RB_EVS_SLOW) != 0 ||
	    t->slowclock == RB_TCLOCK_NONE || t->ev.policy == RB_POLICY_DRAIN ||
	    thr == 0 || RB_LOAD(&l->off) != 0) {
		rb_ev_lazy(t, RB_EV_EXIT, fn, 0);
		return;
	}
	ts = rb_ev_now(t);
	if (rb_ev_rewind(t, fn, ts, thr))
		return;
	if (t->evstate == 0)
		rb_ev_store(t, l, RB_LOAD(&l->head), RB_EV_EXIT, fn, 0, ts);
	else
		rb_ev_slow(t, RB_EV_EXIT, fn, 0, ts);
}

/*
 * The exit's record, after a pop that found @fn on top: rb_ev_lazy()'s,
 * with the log's minimum duration (its copy of the header's, on the line
 * of head and off) compared before a record is made.
 */
static inline RB_NOINSTR __attribute__((always_inline)) void
rb_ev_exit(struct rb_thread *t, uintptr_t fn)
{
	uint32_t st = t->evstate;
	struct rb_evlog *l;

	/*
	 * Relaxed, min_duration: a threshold changed is honoured a hook late
	 * at most; the rewind orders what it writes itself (R).
	 */
	if (RB_UNLIKELY(st != 0)) {
		if (!(st & RB_EVS_NONE) &&
		    RB_LOAD(&t->ev.log->min_duration) != 0)
			rb_ev_exit_timed(t, fn);
		else
			rb_ev_lazy(t, RB_EV_EXIT, fn, 0);
		return;
	}
	l = t->ev.log;
	if (RB_UNLIKELY(RB_LOAD(&l->off) != 0)) {
		rb_ev_slow(t, RB_EV_EXIT, fn, 0, 0);
		return;
	}
	if (RB_UNLIKELY(RB_LOAD(&l->min_duration) != 0)) {
		rb_ev_exit_timed(t, fn);
		return;
	}
	/* Relaxed: head is the owner's own. */
	rb_ev_store(t, l, RB_LOAD(&l->head), RB_EV_EXIT, fn, 0,
	    rb_counter_read());
}

/*
 * The exit when the top slot holds another function: out of line, so
 * that the fast path keeps no value across a call.
 */
static RB_NOINSTR __attribute__((noinline, cold)) void
rb_exit_search(struct rb_thread *t, uintptr_t fn)
{
	if (rb_pop_search(t, fn, t->depth))
		rb_ev_lazy(t, RB_EV_EXIT, fn, 0);
	if (t->depth <= t->cap_level)
		rb_cap_exit(t, fn);
}

/*
 * The exit that leaves an armed call (or one a capture noted and that was
 * unwound): its record, then capture.c measures it.  Out of line, so
 * that the fast path keeps no value across a call.
 */
static RB_NOINSTR __attribute__((noinline, cold)) void
rb_exit_armed(struct rb_thread *t, uintptr_t fn)
{
	rb_ev_exit(t, fn);
	rb_cap_exit(t, fn);
}

/*
 * Is the frame on top gone, now that @fn is entered with stack pointer
 * @sp from @site?  See the top of this file.
 */
static inline RB_NOINSTR __attribute__((always_inline)) bool
rb_top_gone(struct rb_thread *t, uintptr_t fn, uintptr_t site, uint64_t sp)
{
	uint32_t d = t->depth;
	const struct rb_slot *top;
	uint64_t tsp;

	if (d == 0)
		return false;
	top = rb_slot(t, rb_slot_below(t, t->cur, d));
	tsp = RB_LOAD(&top->sp);
	if (RB_LIKELY(tsp > sp))
		return false;
	if (tsp < sp || RB_LOAD(&top->site) != site)
		return true;
	/*
	 * The same machine frame: kept, unless it is @fn's and an exit of
	 * @fn was ever switched off, which leaves its frame behind for the
	 * next call from the same instruction (rbtrace(5), "DYNAMIC
	 * TRACING"): rb_unwind() decides, out of line, so that the fast
	 * path makes no call.
	 */
	return RB_UNLIKELY(RB_LOAD(&top->fn) == fn);
}

/* Drop the frames on top that are gone (rb_top_gone() said the top one is). */
static RB_NOINSTR __attribute__((noinline, cold)) void
rb_unwind(struct rb_thread *t, uintptr_t fn, uintptr_t site, uint64_t sp)
{
	const struct rb_slot *s = rb_slot(t, 0);
	uint32_t d = t->depth, lvl;
	uint64_t ssp;

	/* Level 0 tells which stack this is, if its slot still holds it. */
	if (RB_LOAD(&s->depth) != 0 || (RB_LOAD(&s->sp) != RB_SP_NONE &&
					 sp > RB_LOAD(&s->sp)))
		return;
	while (d > 0) {
		lvl = d - 1;
		s = rb_slot(t, rb_slot_index(lvl, t->nslots, t->pinned));
		if (RB_LOAD(&s->depth) != lvl)
			break;		/* overwritten: nothing to tell by */
		ssp = RB_LOAD(&s->sp);
		if (ssp > sp || (ssp == sp && RB_LOAD(&s->site) == site &&
		    !(RB_LOAD(&s->fn) == fn && rb_dyn_cut(fn))))
			break;
		d--;
	}
	if (d != t->depth)
		rb_set_depth(t, d);
}

/*
 * The ring asks for attention (a request, a stop, stepping, trace off),
 * the function's breakpoint filter bit is set, or the clock is not the
 * counter:
 * keep the stack as usual, then let control.c see to the rest, after the
 * push and after the pop so that a stop shows the function entered, or the
 * caller returned to, on top.
 */
static RB_NOINSTR __attribute__((noinline, cold)) void
rb_attention_enter(struct rb_thread *t, void *fn, void *site, void *hook,
	    uint64_t sp)
{
	uint32_t a = RB_LOAD(&t->ring->attention), armed = 0;

	if (!(a & RB_ATTN_UNTRACED)) {
		uint64_t ts = rb_clock_raw_slow();

		if (rb_top_gone(t, (uintptr_t)fn, (uintptr_t)site, sp))
			rb_unwind(t, (uintptr_t)fn, (uintptr_t)site, sp);
		rb_push(t, t->ring, (uintptr_t)fn, (uintptr_t)site,
		    (uintptr_t)hook, sp, ts, 0);
		rb_ev(t, RB_EV_ENTRY, (uintptr_t)fn, (uintptr_t)site, ts);
		/* An armed function's bit is a breakpoint's (capture.c). */
		if (rb_bp_filtered((uintptr_t)fn))
			armed = rb_cap_enter(t, (uintptr_t)fn);
	}
	if ((a & ~RB_ATTN_UNTRACED) || (rb_bp_filtered((uintptr_t)fn) &&
	    !rb_cap_nobp(t, armed, (uintptr_t)fn)))
		rb_control(t, false, (uintptr_t)fn);
}

static RB_NOINSTR __attribute__((noinline, cold)) void
rb_attention_exit(struct rb_thread *t, void *fn)
{
	uint32_t a = RB_LOAD(&t->ring->attention);

	if (!(a & RB_ATTN_UNTRACED)) {
		if (rb_pop(t, t->ring, (uintptr_t)fn)) {
			rb_ev_exit(t, (uintptr_t)fn);
			if (t->depth <= t->cap_level)
				rb_cap_exit(t, (uintptr_t)fn);
		} else {
			rb_exit_search(t, (uintptr_t)fn);
		}
	}
	if (a & ~RB_ATTN_UNTRACED)
		rb_control(t, true, (uintptr_t)fn);
}

/* The gate is closed: a thread's first hook claims its ring (thread.c). */
static RB_NOINSTR __attribute__((noinline, cold)) void
rb_enter_slow(struct rb_thread *t, void *fn, void *site, void *hook,
	    uint64_t sp)
{
	if (rb_thread_claim(t, (uintptr_t)fn, (uintptr_t)site))
		rb_attention_enter(t, fn, site, hook, sp);
}

/*
 * The fast path's entry after frames were unwound without their exit hooks;
 * out of line, so that the fast path keeps no value across a call.
 */
static RB_NOINSTR __attribute__((noinline, cold)) void
rb_enter_unwound(struct rb_thread *t, void *fn, void *site, void *hook,
	    uint64_t sp)
{
	uint64_t ts = rb_counter_read();

	rb_unwind(t, (uintptr_t)fn, (uintptr_t)site, sp);
	rb_push(t, t->ring, (uintptr_t)fn, (uintptr_t)site, (uintptr_t)hook, sp,
	    ts, 0);
	rb_ev(t, RB_EV_ENTRY, (uintptr_t)fn, (uintptr_t)site, ts);
}

/*
 * The entry when the fast path's test failed: without a clock and nothing
 * else asking for attention, the fast path's work stamped 0; otherwise
 * rb_attention_enter().  Out of line (and the tests repeated here), so
 * that the counter's path is as it is without it.
 */
static RB_NOINSTR __attribute__((noinline)) void
rb_enter_other(struct rb_thread *t, void *fn, void *site, void *hook,
	    uint64_t sp)
{
	/* Relaxed: as in rb_enter(). */
	if (t->slowclock != RB_TCLOCK_NONE ||
	    RB_UNLIKELY((RB_LOAD(&t->ring->attention) |
			 rb_bp_filtered((uintptr_t)fn)) != 0)) {
		rb_attention_enter(t, fn, site, hook, sp);
		return;
	}
	if (RB_UNLIKELY(rb_top_gone(t, (uintptr_t)fn, (uintptr_t)site, sp)))
		rb_unwind(t, (uintptr_t)fn, (uintptr_t)site, sp);
	rb_push(t, t->ring, (uintptr_t)fn, (uintptr_t)site, (uintptr_t)hook, sp,
	    0, 0);
	rb_ev(t, RB_EV_ENTRY, (uintptr_t)fn, (uintptr_t)site, 0);
}

/*
 * Entering @fn, called from @site, whose stack pointer is @sp; @hook is
 * where the entry hook returns to in @fn's code (or in the function @fn
 * was inlined into).
 */
static inline RB_NOINSTR __attribute__((always_inline)) void
rb_enter(void *fn, void *site, void *hook, uint64_t sp)
{
	struct rb_thread *t = &rb_self;
	struct rb_ring *r;

	if (RB_UNLIKELY(rb_hook_busy(t)))
		return;
	r = rb_hook_begin(t);
	/*
	 * Relaxed, attention and the filter word: a request or a bit seen
	 * one hook late is still honoured (no pair).  One branch for the
	 * three tests.
	 */
	if (RB_UNLIKELY(r == NULL))
		rb_enter_slow(t, fn, site, hook, sp);
	else if (RB_UNLIKELY((RB_LOAD(&r->attention) | t->slowclock |
			 rb_bp_filtered((uintptr_t)fn)) != 0))
		rb_enter_other(t, fn, site, hook, sp);
	else if (RB_UNLIKELY(rb_top_gone(t, (uintptr_t)fn, (uintptr_t)site,
					 sp)))
		rb_enter_unwound(t, fn, site, hook, sp);
	else {
		uint64_t ts = rb_counter_read();

		rb_push(t, r, (uintptr_t)fn, (uintptr_t)site, (uintptr_t)hook,
		    sp, ts, 0);
		rb_ev(t, RB_EV_ENTRY, (uintptr_t)fn, (uintptr_t)site, ts);
	}
	rb_hook_end(t);
}

RB_NOINSTR __attribute__((visibility("default")))
void __cyg_profile_func_enter(void *fn, void *site)
{
	rb_enter(fn, site, __builtin_return_address(0), RB_CALLER_SP());
}

/*
 * The entry hook as called with stack pointer @sp (unit tests), without
 * the hook's return address.
 */
RB_NOINSTR void rb_enter_at(void *fn, void *site, uint64_t sp)
{
	rb_enter(fn, site, NULL, sp);
}

RB_NOINSTR __attribute__((visibility("default")))
void __cyg_profile_func_exit(void *fn, void *site)
{
	struct rb_thread *t = &rb_self;
	struct rb_ring *r;

	(void)site;
	if (RB_UNLIKELY(rb_hook_busy(t)))
		return;
	r = rb_hook_begin(t);
	if (RB_UNLIKELY(r == NULL)) {
		/* No ring: an exit has nothing to pop. */
	} else if (RB_UNLIKELY(RB_LOAD(&r->attention) != 0)) {
		rb_attention_exit(t, fn);
	} else if (RB_LIKELY(rb_pop(t, r, (uintptr_t)fn))) {
		/* The one compare an exit pays for captures (capture.c). */
		if (RB_UNLIKELY(t->depth == t->cap_level))
			rb_exit_armed(t, (uintptr_t)fn);
		else
			rb_ev_exit(t, (uintptr_t)fn);
	} else {
		rb_exit_search(t, (uintptr_t)fn);
	}
	rb_hook_end(t);
}

/**
 * rb_stack_drop_below - drop the calling thread's frames below @sp
 * @sp: the stack pointer of the function execution resumes in (a catch,
 *	a longjmp's target); its own frame and those above it stay
 *
 * Called outside any hook, by the interposed functions of unwind.c.
 */
void rb_stack_drop_below(uint64_t sp)
{
	struct rb_thread *t = &rb_self;
	const struct rb_slot *s;
	uint32_t d;

	if (rb_hook_busy(t))
		return;
	if (rb_hook_begin(t) == NULL) {
		rb_hook_end(t);
		return;
	}
	for (d = t->depth; d > 0; d--) {
		s = rb_slot(t, rb_slot_index(d - 1, t->nslots, t->pinned));
		if (RB_LOAD(&s->depth) != d - 1 || RB_LOAD(&s->sp) >= sp)
			break;
	}
	if (d != t->depth)
		rb_set_depth(t, d);
	rb_hook_end(t);
}

/*
 * Record a named frame's entry: its "name\0file\0" (@len bytes at @text,
 * cut to what RB_EV_TEXT_MAX records hold) follows in text records.
 */
static RB_NOINSTR void rb_ev_named(struct rb_thread *t, const char *text,
				   size_t len, int line, uint64_t ts)
{
	struct rb_event v[1 + RB_EV_TEXT_MAX];
	uint32_t n, i;

	if (t->evstate & RB_EVS_NONE)
		return;
	if (t->slowclock == RB_TCLOCK_NONE)
		ts = rb_ev_now(t);
	if (!rb_ev_on(t, ts))
		return;
	if (len > (size_t)RB_EV_TEXT_MAX * RB_EV_TEXT_BYTES)
		len = (size_t)RB_EV_TEXT_MAX * RB_EV_TEXT_BYTES;
	n = (uint32_t)((len + RB_EV_TEXT_BYTES - 1) / RB_EV_TEXT_BYTES);
	memset(v, 0, sizeof(v));
	v[0].ts = ts;
	v[0].arg = (uint64_t)(int64_t)line;
	v[0].kind = RB_EV_NAMED;
	v[0].aux = n;
	for (i = 0; i < n; i++) {
		v[1 + i].kind = RB_EV_TEXT;
		memcpy(&v[1 + i], text + (size_t)i * RB_EV_TEXT_BYTES,
		       len - (size_t)i * RB_EV_TEXT_BYTES < RB_EV_TEXT_BYTES ?
		       len - (size_t)i * RB_EV_TEXT_BYTES : RB_EV_TEXT_BYTES);
	}
	rb_evlog_putv(&t->ev, v, 1 + n);
}

/* Named frames keep "name\0file\0" in the slot's name bytes. */
static RB_NOINSTR void rb_push_text(struct rb_thread *t, uintptr_t site,
				    uint32_t flags, const char *name,
				    const char *file, int line)
{
	struct rb_slot *s;
	size_t n, f;
	char *dst;
	uint32_t q;

	s = rb_push(t, t->ring, 0, site, 0, RB_SP_NONE, rb_clock_raw_slow(),
	    flags);
	dst = rb_slot_name(s);
	n = strnlen(name ? name : "", t->slot_sz - 1);
	memcpy(dst, name ? name : "", n);
	dst[n++] = '\0';
	f = file && n < t->slot_sz ? strnlen(file, t->slot_sz - n - 1) : 0;
	if (n < t->slot_sz) {
		memcpy(dst + n, file ? file : "", f);
		dst[n + f] = '\0';
	}
	RB_STORE(&s->line, line);
	q = RB_LOAD(&s->seq);
	/* (B) Name and line before the even seq; pairs with the reader's acquire load of seq. */
	RB_STORE_REL(&s->seq, q + 1);
	/* (C) The slot before the depth that exposes it; pairs with the reader's acquire load. */
	RB_STORE_REL(&t->ring->depth, (int32_t)t->depth);
	RB_STORE(&t->ring->currSlot, (int32_t)t->cur);
	rb_ev_named(t, dst, n + f + (n < t->slot_sz), line, RB_LOAD(&s->ts));
}

void rb_push_named(struct rb_thread *t, const char *name, const char *file,
		   int line)
{
	rb_push_text(t, (uintptr_t)__builtin_return_address(0), RB_SLOT_NAMED,
		     name, file, line);
}

/**
 * rb_push_marker - a frame that stands for what the ring cannot show: the
 * frames a thread had entered before the attach (rbtrace(5), "ATTACH")
 */
void rb_push_marker(struct rb_thread *t, const char *name)
{
	rb_push_text(t, 0, RB_SLOT_NAMED | RB_SLOT_ATTACH, name, NULL, 0);
}

/**
 * rb_push_seeded - a frame entered before the attach, found by unwinding
 * (seed.c): as a hook would push it, without an entry time
 */
void rb_push_seeded(struct rb_thread *t, uintptr_t fn, uintptr_t site,
		    uint64_t sp)
{
	struct rb_slot *s = rb_push(t, t->ring, fn, site, 0, sp, 0,
	    RB_SLOT_SEEDED);
	uint32_t q = RB_LOAD(&s->seq);

	/* (B) The fields before the even seq; pairs with the reader's acquire load of seq. */
	RB_STORE_REL(&s->seq, q + 1);
	/* (C) The slot before the depth that exposes it; pairs with the reader's acquire load. */
	RB_STORE_REL(&t->ring->depth, (int32_t)t->depth);
	RB_STORE(&t->ring->currSlot, (int32_t)t->cur);
}

/*
 * The API's bracket: the calling thread inside its hooks' bracket, with a
 * ring (claimed now if it has none) and tracing on; NULL (outside the
 * bracket again) otherwise.
 */
static RB_NOINSTR struct rb_thread *rb_api_begin(void)
{
	struct rb_thread *t = &rb_self;

	if (rb_hook_busy(t))
		return NULL;
	if ((rb_hook_begin(t) != NULL || rb_thread_claim(t, 0, 0)) &&
	    !(RB_LOAD(&t->ring->attention) & RB_ATTN_UNTRACED))
		return t;
	rb_hook_end(t);
	return NULL;
}

int rbtrace_push(const char *name, const char *file, int line)
{
	struct rb_thread *t = rb_api_begin();
	int depth;

	if (t == NULL)
		return -1;
	rb_push_named(t, name, file, line);
	depth = (int)t->depth;
	rb_hook_end(t);
	return depth;
}

int rbtrace_pop(void)
{
	struct rb_thread *t = rb_api_begin();
	int depth;

	if (t == NULL)
		return -1;
	if (t->depth > t->floor) {
		rb_set_depth(t, t->depth - 1);
		rb_ev_lazy(t, RB_EV_NAMED_EXIT, 0, 0);
	}
	depth = (int)t->depth;
	rb_hook_end(t);
	return depth;
}

void rbtrace_line(int line)
{
	struct rb_thread *t = rb_api_begin();
	struct rb_slot *s;

	if (t == NULL)
		return;
	if (t->depth > 0) {
		s = rb_slot(t, rb_slot_index(t->depth - 1, t->nslots, t->pinned));
		/* A single aligned int: readers see the old or the new line, never a mix. */
		RB_STORE(&s->line, line);
		rb_ev_lazy(t, RB_EV_LINE, RB_LOAD(&s->fn), (uint64_t)(int64_t)line);
	}
	rb_hook_end(t);
}
