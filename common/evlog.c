/*
 * common/evlog.c - the event log's ring of records: the owner's writer and
 * the readers' copy (see evlog.h).  The writer takes no lock, makes no
 * system call and allocates nothing.
 */
#include "config.h"

#include <string.h>

#include "common/atomic.h"
#include "common/evlog.h"

/**
 * rb_evlog_init - an empty log of @size records (a power of two, or 0)
 */
void rb_evlog_init(struct rb_evlog *l, uint32_t size, enum rb_ev_policy policy)
{
	memset(l, 0, sizeof(*l));
	l->size = size != 0 && (size & (size - 1)) == 0 ? size : 0;
	l->policy = (uint32_t)policy;
}

/* Store one record at @h and publish it: head = h + 1. */
static void rb_evlog_store(struct rb_evlog *l, uint64_t h, uint32_t kind,
			   uint64_t fn, uint64_t arg, uint64_t ts)
{
	struct rb_event *e = &rb_evlog_records(l)[h & (l->size - 1)];

	/*
	 * Release fence: the last head store before this record's stores, so
	 * that a reader that saw the old head cannot see this record's words
	 * in the slot it is copying (pairs with rb_evlog_copy()'s acquire
	 * fence before it reads head again).
	 */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	RB_STORE(&e->ts, ts);
	RB_STORE(&e->fn, fn);
	RB_STORE(&e->arg, arg);
	RB_STORE(&e->kind, kind);
	/* Release: the record before the count that shows it; pairs with the readers' acquire load of head. */
	RB_STORE_REL(&l->head, h + 1);
}

/**
 * rb_evlog_put - the owner records one event
 * @kind: enum rb_ev_kind
 * @fn, @arg: as struct rb_event has them
 * @ts: the time
 *
 * Return: 1 if stored, 0 if dropped (fill: full; drain: no room before
 * the consumer's tail) or recording is off.
 */
int rb_evlog_put(struct rb_evlog *l, uint32_t kind, uint64_t fn, uint64_t arg,
		 uint64_t ts)
{
	uint64_t h, t, n = RB_LOAD(&l->size), lost;

	if (n == 0 || RB_LOAD(&l->off))
		return 0;
	/* Relaxed: head is the owner's own. */
	h = RB_LOAD(&l->head);
	switch (RB_LOAD(&l->policy)) {
	case RB_EV_FILL:
		if (h >= n) {
			RB_STORE(&l->dropped, l->dropped + 1);
			return 0;
		}
		break;
	case RB_EV_DRAIN:
		/* Acquire: the consumer is done with what it consumed; pairs with rb_evlog_consume(). */
		t = RB_LOAD_ACQ(&l->tail);
		lost = RB_LOAD(&l->pending_lost);
		/* A gap is marked first: room for the mark and the event. */
		if (t > h || h - t + (lost != 0) + 1 > n) {
			RB_STORE(&l->dropped, l->dropped + 1);
			RB_STORE(&l->pending_lost, lost + 1);
			return 0;
		}
		if (lost != 0) {
			rb_evlog_store(l, h, RB_EV_LOST, 0, lost, ts);
			RB_STORE(&l->pending_lost, 0);
			h++;
		}
		break;
	default:
		break;
	}
	rb_evlog_store(l, h, kind, fn, arg, ts);
	return 1;
}

/**
 * rb_evlog_copy - copy the records of @l from index @from on, without
 * stopping the writer
 * @out: room for @max records
 * @w: filled with what was copied and the log's counts
 *
 * Copies the newest records at most @max, then reads head again and
 * keeps only those the writer cannot have been overwriting meanwhile
 * (ring: the slot of the record being written next is the oldest's;
 * drain: the slots below the consumer's tail).  Never a torn record.
 *
 * Return: the records kept, whole, in @out[0..] (index w->first on).
 */
size_t rb_evlog_copy(const struct rb_evlog *l, uint64_t from,
		     struct rb_event *out, size_t max, struct rb_ev_window *w)
{
	const struct rb_event *r = rb_evlog_records((struct rb_evlog *)l);
	uint64_t n = RB_LOAD(&l->size), h1, h2, lo, valid, i;
	uint32_t policy = RB_LOAD(&l->policy);
	size_t k, skip;

	memset(w, 0, sizeof(*w));
	if (n == 0 || (n & (n - 1)) != 0)
		return 0;
	/* Acquire: the records below head; pairs with the writer's release store. */
	h1 = RB_LOAD_ACQ(&l->head);
	lo = h1 > n ? h1 - n : 0;
	if (from > lo)
		lo = from;
	if (lo > h1)
		lo = h1;
	if (h1 - lo > max)
		lo = h1 - max;
	for (i = lo, k = 0; i < h1; i++, k++) {
		const struct rb_event *e = &r[i & (n - 1)];

		out[k].ts = RB_LOAD(&e->ts);
		out[k].fn = RB_LOAD(&e->fn);
		out[k].arg = RB_LOAD(&e->arg);
		out[k].kind = RB_LOAD(&e->kind);
		out[k].pad = 0;
	}
	/*
	 * Acquire fence: the copy before the second look at head and tail;
	 * pairs with the writer's release fence before it stores a record.
	 */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	h2 = RB_LOAD(&l->head);
	if (policy == RB_EV_FILL)
		valid = 0;
	else if (policy == RB_EV_DRAIN)
		valid = RB_LOAD(&l->tail);
	else
		valid = h2 >= n ? h2 - n + 1 : 0;
	skip = valid > lo ? (size_t)((valid < h1 ? valid : h1) - lo) : 0;
	if (skip > 0)
		memmove(out, out + skip, (k - skip) * sizeof(*out));
	w->first = lo + skip;
	w->n = k - skip;
	w->head = h2;
	w->overwritten = policy == RB_EV_RING && h2 > n ? h2 - n : 0;
	w->dropped = RB_LOAD(&l->dropped);
	return w->n;
}

/**
 * rb_evlog_consume - drain: the consumer is done with the records below
 * @upto; the writer may store there again
 */
void rb_evlog_consume(struct rb_evlog *l, uint64_t upto)
{
	/* Acquire: head, to never consume what is not stored. */
	uint64_t h = RB_LOAD_ACQ(&l->head);

	if (upto > h)
		upto = h;
	/* Release: the copies made before; pairs with the writer's acquire load of tail. */
	if (upto > RB_LOAD(&l->tail))
		RB_STORE_REL(&l->tail, upto);
}
