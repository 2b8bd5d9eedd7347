/* SPDX-License-Identifier: MIT */
/*
 * ring.c - who owns which ring.
 *
 * Ownership lives in the free map, one 64-bit control word per ring
 * (state | pid << 32), changed only by compare-and-swap, so no lock exists
 * that a dead process could leave held.  A thread claims, in this order:
 *
 *   1. a ring never used (FREE);
 *   2. the ring released longest ago (EXITED, oldest stamp first), so the
 *      last stacks of exited threads survive as long as possible;
 *   3. a ring still LIVE whose owner process is dead (pid plus start time,
 *      so a reused pid is not taken for life), or CLAIMING by a pid that no
 *      longer runs (a claimer has not written its start time yet).
 *
 * The claimer holds the ring in CLAIMING while it writes the identity, then
 * publishes LIVE.  Only the owner moves LIVE to EXITED; only a claimer moves
 * anything out of EXITED.
 */
#include "config.h"

#include <string.h>

#include "internal.h"

#define RB_DEAD_CACHE	32

/* Liveness answers within one scan, so a dead pid costs one /proc read. */
struct rb_dead_cache {
	int		n;
	pid_t		pid[RB_DEAD_CACHE];
	uint64_t	pstart[RB_DEAD_CACHE];
	bool		alive[RB_DEAD_CACHE];
};

static bool rb_owner_alive(struct rb_dead_cache *c, pid_t pid, uint64_t pstart)
{
	bool alive;
	int i;

	for (i = 0; i < c->n; i++)
		if (c->pid[i] == pid && c->pstart[i] == pstart)
			return c->alive[i];
	alive = rb_proc_alive(pid, pstart);
	if (c->n < RB_DEAD_CACHE) {
		c->pid[c->n] = pid;
		c->pstart[c->n] = pstart;
		c->alive[c->n++] = alive;
	}
	return alive;
}

/* Has the recorder consumed every record of ring @i's drain log? */
static bool rb_ring_drained(const struct rb_map *m, uint32_t i)
{
	const struct rb_evlog *l =
		rb_ring_evlog(&m->geo, rb_ring_at(m->base, &m->geo, i));

	return RB_LOAD(&l->tail) >= RB_LOAD(&l->head);
}

static _Atomic uint32_t rb_free_hint;	/* where the last FREE ring was found */

static bool rb_ring_take(struct rb_map *m, uint32_t i, uint64_t expect,
			 pid_t pid)
{
	struct rb_owner *o = rb_owner_at(m->base, &m->geo, i);

	/* Acquire: see the previous owner's last writes before we reuse the ring. */
	if (!RB_CAS(&o->ctl, &expect, RB_OWN_MAKE(RB_OWN_CLAIMING, pid)))
		return false;
	/*
	 * (K) Release fence: ctl's change before this owner's writes to the
	 * ring, so a reader that saw one of them sees ctl changed when it
	 * reads ctl again (rbtrace(5), "ORDERING").
	 */
	RB_FENCE_REL();
	__atomic_fetch_add(&o->gen, 1, __ATOMIC_RELAXED);
	RB_STORE(&o->stamp, rb_clock_mono_ns());
	return true;
}

/**
 * rb_ring_claim - take a ring for a new thread of @pid
 *
 * Return: the ring number, held in CLAIMING, or -1 if every ring is in use.
 */
int rb_ring_claim(struct rb_map *m, pid_t pid)
{
	const struct rb_header *h = &m->geo;
	uint32_t n = h->rings, hint, k, i, best;
	struct rb_dead_cache dead = { 0 };
	uint64_t ctl, best_stamp;
	int tries;

	hint = atomic_load_explicit(&rb_free_hint, memory_order_relaxed);
	for (k = 0; k < n; k++) {
		i = (hint + k) % n;
		ctl = RB_LOAD(&rb_owner_at(m->base, h, i)->ctl);
		if (RB_OWN_STATE(ctl) == RB_OWN_FREE &&
		    rb_ring_take(m, i, ctl, pid)) {
			atomic_store_explicit(&rb_free_hint, (i + 1) % n,
					      memory_order_relaxed);
			return (int)i;
		}
	}

	/*
	 * Oldest exited ring; retry when another claimer beats us to it.  With
	 * a recorder draining the logs, the oldest whose log it has read to the
	 * end first, so that it still gets the last records of the others.
	 */
	for (tries = 0; tries < 64; tries++) {
		uint32_t drained = n;
		uint64_t drained_stamp = UINT64_MAX, stamp;
		bool consumer = h->events != 0 &&
				h->ev_policy == RB_POLICY_DRAIN &&
				RB_LOAD(&m->hdr->ev_consumer) != 0;

		best = n;
		best_stamp = UINT64_MAX;
		for (i = 0; i < n; i++) {
			struct rb_owner *o = rb_owner_at(m->base, h, i);

			ctl = RB_LOAD(&o->ctl);
			if (RB_OWN_STATE(ctl) != RB_OWN_EXITED)
				continue;
			stamp = RB_LOAD(&o->stamp);
			if (stamp < best_stamp) {
				best = i;
				best_stamp = stamp;
			}
			if (consumer && stamp < drained_stamp &&
			    rb_ring_drained(m, i)) {
				drained = i;
				drained_stamp = stamp;
			}
		}
		if (drained != n)
			best = drained;
		if (best == n)
			break;
		ctl = RB_LOAD(&rb_owner_at(m->base, h, best)->ctl);
		if (RB_OWN_STATE(ctl) == RB_OWN_EXITED &&
		    rb_ring_take(m, best, ctl, pid))
			return (int)best;
	}

	/* Rings of dead processes. */
	for (i = 0; i < n; i++) {
		struct rb_ring *r = rb_ring_at(m->base, h, i);
		uint32_t st;

		ctl = RB_LOAD(&rb_owner_at(m->base, h, i)->ctl);
		st = RB_OWN_STATE(ctl);
		if (st != RB_OWN_LIVE && st != RB_OWN_CLAIMING)
			continue;
		if (RB_OWN_PID(ctl) == pid)
			continue;	/* our own threads, alive by definition */
		if (st == RB_OWN_CLAIMING ? rb_proc_alive_pid(RB_OWN_PID(ctl)) :
		    rb_owner_alive(&dead, RB_OWN_PID(ctl), RB_LOAD(&r->pstart)))
			continue;
		if (rb_ring_take(m, i, ctl, pid)) {
			__atomic_fetch_add(&m->hdr->rings_reclaimed, 1,
					   __ATOMIC_RELAXED);
			return (int)i;
		}
	}
	return -1;
}

/**
 * rb_ring_adopt - ring @i, made LIVE for a thread of @pid asleep through
 * an attach (seed.c), is taken over by that thread
 *
 * Return: true with the ring held in CLAIMING; false if it is no longer
 * that (given back meanwhile).
 */
bool rb_ring_adopt(struct rb_map *m, uint32_t i, pid_t pid)
{
	return rb_ring_take(m, i, RB_OWN_MAKE(RB_OWN_LIVE, pid), pid);
}

/**
 * rb_ring_release - the owner of ring @i is gone: keep it readable as exited
 */
void rb_ring_release(struct rb_map *m, uint32_t i)
{
	rb_ring_release_as(m, i, RB_STATE_EXITED);
}

/**
 * rb_ring_release_as - give ring @i back, its last state @state:
 * RB_STATE_EXITED, or RB_STATE_DETACHED for a thread that runs on
 * untraced after a detach
 */
void rb_ring_release_as(struct rb_map *m, uint32_t i, int32_t state)
{
	struct rb_owner *o = rb_owner_at(m->base, &m->geo, i);
	struct rb_ring *r = rb_ring_at(m->base, &m->geo, i);
	uint64_t now = rb_clock_mono_ns(), ctl;

	RB_STORE(&r->exited_ns, now);
	RB_STORE(&r->state, state);
	RB_STORE(&o->stamp, now);
	ctl = RB_LOAD(&o->ctl);
	/*
	 * (K) Release: the ring's last stack and exit state before it becomes
	 * claimable; pairs with the acquire of the CAS in rb_ring_take() and
	 * with readers' acquire load of ctl.
	 */
	RB_STORE_REL(&o->ctl, RB_OWN_MAKE(RB_OWN_EXITED, RB_OWN_PID(ctl)));
}

/**
 * rb_ring_release_image - release the rings an earlier image of this
 * process held (the threads exec() ended)
 *
 * Return: how many rings were released.
 */
int rb_ring_release_image(struct rb_map *m, pid_t pid, uint64_t pstart,
			  uint64_t keep_image)
{
	const struct rb_header *h = &m->geo;
	uint32_t i;
	int count = 0;

	for (i = 0; i < h->rings; i++) {
		struct rb_ring *r = rb_ring_at(m->base, h, i);
		uint64_t ctl = RB_LOAD_ACQ(&rb_owner_at(m->base, h, i)->ctl);

		if (RB_OWN_PID(ctl) != pid ||
		    (RB_OWN_STATE(ctl) != RB_OWN_LIVE &&
		     RB_OWN_STATE(ctl) != RB_OWN_CLAIMING))
			continue;
		if (RB_LOAD(&r->pstart) != pstart ||
		    RB_LOAD(&r->image) == keep_image)
			continue;
		rb_ring_release(m, i);
		count++;
	}
	return count;
}
