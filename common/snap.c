/* SPDX-License-Identifier: MIT */
/*
 * common/snap.c - a trigger freezes every event log of its process for the
 * snapshot writer (rbtrace(5), "SNAPSHOTS"):
 *
 *   trigger (any thread, a signal handler)      writer (rbmon snapshot)
 *   writer attached and alive, else missed      snap_writer = pid (CAS 0)
 *   spaced by snap_interval_ns, else suppressed
 *   CAS state IDLE -> FILLING, else suppressed
 *   gen odd, fields, gen even (release)   (S1)
 *   off |= RB_EVOFF_SNAP, each log of pid
 *   taken++, state = FROZEN (release)     (S2)  state == FROZEN (acquire)
 *   FUTEX_WAKE(state)                            CAS FROZEN -> WRITING
 *                                                fields between equal gens
 *                                                copy the logs, write
 *                                                off &= ~RB_EVOFF_SNAP, all
 *                                                written++, CAS -> IDLE
 *
 * One snapshot is in flight per file.  A freeze whose writer is gone, or
 * that is older than RB_SNAP_HOLD_NS, is thawed by the next trigger or
 * the next writer, so a writer killed in the middle never leaves the logs
 * frozen for good.  Nothing here trusts the shared words: the geometry
 * comes from the caller's validated header, and any value of the block's
 * words only changes what is frozen, never where anything is written.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>

#include "common/atomic.h"
#include "common/futex.h"
#include "common/snap.h"

/**
 * rb_snap_writer_gone - is the writer @pid not running (or no writer)?
 * A pid of another user's process counts as alive: kill(2) says EPERM.
 */
bool rb_snap_writer_gone(int32_t pid)
{
	int saved = errno;
	bool gone;

	gone = pid <= 0 || (kill((pid_t)pid, 0) != 0 && errno == ESRCH);
	errno = saved;
	return gone;
}

static struct rb_evlog *rb_snap_log(void *base, const struct rb_header *g,
				    uint32_t i)
{
	return rb_ring_evlog(g, rb_ring_at(base, g, i));
}

/* Switch recording off in every log of @pid's live rings. */
static void rb_snap_freeze(void *base, const struct rb_header *g, int32_t pid)
{
	uint64_t ctl;
	uint32_t i;

	for (i = 0; i < g->rings; i++) {
		/* Relaxed: a ring claimed meanwhile starts its own off word. */
		ctl = RB_LOAD(&rb_owner_at(base, g, i)->ctl);
		if (RB_OWN_STATE(ctl) != RB_OWN_LIVE || RB_OWN_PID(ctl) != pid)
			continue;
		/* Relaxed: the owner acts on it at its next hook, as on EVOF. */
		RB_FETCH_OR(&rb_snap_log(base, g, i)->off, RB_EVOFF_SNAP);
	}
}

/**
 * rb_snap_thaw - switch every log frozen for a snapshot back on
 *
 * One snapshot is in flight at a time, so every RB_EVOFF_SNAP bit of the
 * file is its own; EVOF's bit is left alone.
 * Return: the logs thawed.
 */
uint32_t rb_snap_thaw(void *base, const struct rb_header *g)
{
	uint32_t i, n = 0;

	if (g->events == 0)
		return 0;
	for (i = 0; i < g->rings; i++)
		if (RB_FETCH_AND(&rb_snap_log(base, g, i)->off,
				 ~RB_EVOFF_SNAP) & RB_EVOFF_SNAP)
			n++;
	return n;
}

/*
 * A freeze whose writer died, or that held too long, or a state that is
 * none (a stray write): ours to end.
 */
static bool rb_snap_take_stale(struct rb_header *h, void *base,
			       const struct rb_header *g, uint64_t now)
{
	uint32_t st = RB_LOAD_ACQ(&h->snap_state);
	uint64_t at;

	if (st > RB_SNAP_WRITING) {
		if (!RB_CAS_ACQ(&h->snap_state, &st, RB_SNAP_FILLING))
			return false;
		rb_snap_thaw(base, g);
		return true;
	}
	if (st != RB_SNAP_FROZEN && st != RB_SNAP_WRITING)
		return false;
	/* Acquire above: snap_ns was stored before FROZEN, (S2). */
	at = RB_LOAD(&h->snap_ns);
	if (now - at < RB_SNAP_HOLD_NS && now >= at &&
	    !rb_snap_writer_gone(RB_LOAD(&h->snap_writer)))
		return false;
	if (!RB_CAS_ACQ(&h->snap_state, &st, RB_SNAP_FILLING))
		return false;
	rb_snap_thaw(base, g);
	return true;
}

/**
 * rb_snap_heal - end a freeze whose writer died or that held too long
 * (RB_SNAP_HOLD_NS), or a state a stray write left, without a trigger:
 * what a frozen log's owner does now and then, so that a writer killed
 * while it copies never leaves the logs frozen (rbtrace(5), "SNAPSHOTS")
 * @now: CLOCK_MONOTONIC ns
 *
 * Async-signal-safe.  Return: true if it ended one.
 */
bool rb_snap_heal(void *base, const struct rb_header *g, uint64_t now)
{
	struct rb_header *h = base;

	if (g->events == 0 || !rb_snap_take_stale(h, base, g, now))
		return false;
	RB_STORE_REL(&h->snap_state, RB_SNAP_IDLE);
	return true;
}

/**
 * rb_snap_trigger - freeze @q->pid's event logs for the writer, if one is
 * attached, none is in flight and the last was long enough ago
 * @base: the file, writable
 * @g: its validated header (geometry)
 * @q: the trigger
 * @now: CLOCK_MONOTONIC ns
 *
 * Async-signal-safe.  Return: RB_SNAP_TAKEN, RB_SNAP_MISSED or
 * RB_SNAP_SUPPRESSED, each counted in the header.
 */
int rb_snap_trigger(void *base, const struct rb_header *g,
		    const struct rb_snap_req *q, uint64_t now)
{
	struct rb_header *h = base;
	uint64_t last, gap;
	uint32_t st = RB_SNAP_IDLE, odd;

	if (g->events == 0 || rb_snap_writer_gone(RB_LOAD(&h->snap_writer))) {
		/* No writer: nothing frozen, and a freeze it left ended. */
		if (rb_snap_take_stale(h, base, g, now))
			RB_STORE_REL(&h->snap_state, RB_SNAP_IDLE);
		RB_FETCH_ADD(&h->snap_missed, 1);
		return RB_SNAP_MISSED;
	}
	if (!rb_snap_take_stale(h, base, g, now)) {
		gap = RB_LOAD(&h->snap_interval_ns);
		if (gap > RB_SNAP_INTERVAL_MAX_NS)
			gap = RB_SNAP_INTERVAL_MAX_NS;
		last = RB_LOAD(&h->snap_ns);
		/* Acquire: the fields as the last trigger left them. */
		if ((!(q->flags & RB_SNAP_REQ_FORCE) && last != 0 &&
		     now >= last && now - last < gap) ||
		    !RB_CAS_ACQ(&h->snap_state, &st, RB_SNAP_FILLING)) {
			RB_FETCH_ADD(&h->snap_suppressed, 1);
			return RB_SNAP_SUPPRESSED;
		}
	}
	/* (S1) Seqlock: gen odd, the fields, gen even with release. */
	odd = RB_LOAD(&h->snap_gen) | 1u;
	RB_STORE(&h->snap_gen, odd);
	RB_FENCE_REL();
	RB_STORE(&h->snap_pid, q->pid);
	RB_STORE(&h->snap_tid, q->tid);
	RB_STORE(&h->snap_reason, q->reason);
	RB_STORE(&h->snap_fn, q->fn);
	RB_STORE(&h->snap_arg, q->arg);
	RB_STORE(&h->snap_ts, q->ts);
	RB_STORE(&h->snap_ns, now);
	RB_STORE_REL(&h->snap_gen, odd + 1u);
	rb_snap_freeze(base, g, q->pid);
	RB_FETCH_ADD(&h->snap_taken, 1);
	/* (S2) The fields and the freeze before FROZEN; pairs with the
	   writer's acquire load of snap_state. */
	RB_STORE_REL(&h->snap_state, RB_SNAP_FROZEN);
	rb_futex_wake(&h->snap_state);
	return RB_SNAP_TAKEN;
}

/**
 * rb_snap_read - copy the trigger's fields between two equal, even loads
 * of snap_gen (S1)
 * Return: 0, or -1 if they kept changing.
 */
int rb_snap_read(const struct rb_header *h, struct rb_snap_info *s)
{
	uint32_t g1, g2;
	int tries;

	for (tries = 0; tries < 1000; tries++) {
		/* Acquire: pairs with the trigger's release of an even gen. */
		g1 = RB_LOAD_ACQ(&h->snap_gen);
		if (g1 & 1u)
			continue;
		s->reason = RB_LOAD(&h->snap_reason);
		s->pid = RB_LOAD(&h->snap_pid);
		s->tid = RB_LOAD(&h->snap_tid);
		s->fn = RB_LOAD(&h->snap_fn);
		s->arg = RB_LOAD(&h->snap_arg);
		s->ts = RB_LOAD(&h->snap_ts);
		s->ns = RB_LOAD(&h->snap_ns);
		/* The copy before the reread; pairs with (S1)'s release fence. */
		RB_FENCE_ACQ();
		g2 = RB_LOAD(&h->snap_gen);
		if (g1 == g2)
			return 0;
	}
	return -1;
}

const char *rb_snap_reason_name(uint32_t reason)
{
	switch (reason) {
	case RB_SNAPR_SIGNAL:
		return "signal";
	case RB_SNAPR_WATCH:
		return "watch";
	case RB_SNAPR_CAPTURE:
		return "capture";
	case RB_SNAPR_NOW:
		return "now";
	default:
		return "unknown";
	}
}
