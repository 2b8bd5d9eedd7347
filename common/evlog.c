/* SPDX-License-Identifier: MIT */
/*
 * common/evlog.c - the event log's ring of records: the owner's writer and
 * the readers' copy (see evlog.h).  The writer takes no lock and
 * allocates nothing; it makes no system call while its log has room (a
 * full drain log wakes its consumer, and waits for a blocking one).
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "common/atomic.h"
#include "common/evlog.h"
#include "common/futex.h"

#ifdef RB_EVLOG_TEST_STEPS
/* The unit tests act as the writer between a reader's steps (check_evlog). */
void (*rb_evlog_copy_step)(const struct rb_evq *, uint64_t);
#define RB_EVLOG_COPY_STEP(q, i)	do {				\
	if (rb_evlog_copy_step != NULL)					\
		rb_evlog_copy_step(q, i);				\
} while (0)
#else
#define RB_EVLOG_COPY_STEP(q, i)	do { } while (0)
#endif

/* A blocked owner looks at its consumer this often. */
#define RB_EVLOG_WAIT_SLICE_NS	10000000ull

/* RB_POLICY_* as RBTRACE_POLICY, the tools and the outputs spell them. */
static const char *const rb_policy_names[] = { "ring", "fill", "drain" };

/**
 * rb_policy_parse - RB_POLICY_* of @name, or -1
 */
int rb_policy_parse(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(rb_policy_names) / sizeof(rb_policy_names[0]); i++)
		if (strcmp(name, rb_policy_names[i]) == 0)
			return (int)i;
	return -1;
}

/**
 * rb_policy_name - "ring", "fill", "drain", or "unknown"
 */
const char *rb_policy_name(uint32_t policy)
{
	return policy <= RB_POLICY_MAX ? rb_policy_names[policy] : "unknown";
}

/**
 * rb_evq_attach - see the log at @l as holding @size records (a power of
 * two, else none) kept by @policy
 */
void rb_evq_attach(struct rb_evq *q, struct rb_evlog *l, uint32_t size,
		   uint32_t policy)
{
	q->log = l;
	q->rec = rb_evlog_records(l);
	q->size = size != 0 && (size & (size - 1)) == 0 ? size : 0;
	q->policy = policy <= RB_POLICY_MAX ? policy : RB_POLICY_RING;
	q->consumer = NULL;
}

/**
 * rb_evq_consumer - the owner of a drain log may wait for room when the
 * consumer named at @word (rb_header.ev_consumer) asks for it; NULL: never
 */
void rb_evq_consumer(struct rb_evq *q, uint64_t *word)
{
	q->consumer = q->policy == RB_POLICY_DRAIN ? word : NULL;
}

/**
 * rb_evlog_reset - empty the log: its new owner, before anyone reads it
 */
void rb_evlog_reset(const struct rb_evq *q)
{
	struct rb_evlog *l = q->log;

	RB_STORE(&l->head, 0);
	RB_STORE(&l->dropped, 0);
	RB_STORE(&l->pending_lost, 0);
	RB_STORE(&l->off, 0);
	RB_STORE(&l->tail, 0);
	RB_STORE(&l->stalled, 0);
	RB_STORE(&l->waiting, 0);
	RB_STORE(&l->rewinds, 0);
	RB_STORE(&l->peak, 0);
}

/* Store record @e at index @h (publication is the caller's). */
static void rb_evlog_store(const struct rb_evq *q, uint64_t h,
			   const struct rb_event *e)
{
	struct rb_event *d = &q->rec[h & (q->size - 1)];

	RB_STORE(&d->ts, e->ts);
	RB_STORE(&d->fn, e->fn);
	RB_STORE(&d->arg, e->arg);
	RB_STORE(&d->kind, e->kind);
	RB_STORE(&d->aux, e->aux);
}

/* Would @n records stored at head @h find no room (fill, drain)? */
static int rb_evlog_no_room(const struct rb_evq *q, uint64_t h, uint32_t n)
{
	const struct rb_evlog *l = q->log;
	uint64_t t;

	switch (q->policy) {
	case RB_POLICY_FILL:
		/* The first records only: after a drop, every later one too. */
		return h + n > q->size || RB_LOAD(&l->dropped) != 0;
	case RB_POLICY_DRAIN:
		/* (F) Acquire: the consumer is done with what it consumed; pairs with rb_evlog_consume(). */
		t = RB_LOAD_ACQ(&l->tail);
		/* A gap is marked first: room for the mark and the records. */
		return t > h || h - t + (RB_LOAD(&l->pending_lost) != 0) + n >
		    q->size;
	default:
		return 0;
	}
}

static uint64_t rb_evlog_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Drain, blocking: the log has no room for @n records at head @h.  Wait
 * for the consumer to make some, at most its blocking time, and never for
 * a consumer that is gone (its pid no longer runs, or it gave the file
 * back), nor again after a wait ran out or found it gone until the
 * consumer has moved the tail since (a stuck consumer costs each thread
 * one wait, not one per record).  In any thread, at any call: no lock, no allocation, errno
 * kept.
 *
 * Return: 1 if there is room now, 0 if the records are to be dropped.
 */
static __attribute__((noinline, cold)) int
rb_evlog_wait(const struct rb_evq *q, uint64_t h, uint32_t n)
{
	struct rb_evlog *l = q->log;
	uint64_t c, t, now, end;
	uint32_t ms, pid;
	int saved, room = 0;

	/* Relaxed: the word alone says what to do, nothing it points to. */
	c = RB_LOAD(q->consumer);
	ms = RB_CONSUMER_BLOCK_MS(c);
	pid = RB_CONSUMER_PID(c);
	if (ms == 0 || pid == 0)
		return 0;
	t = RB_LOAD(&l->tail);
	if (RB_LOAD(&l->stalled) == t + 1)
		return 0;
	saved = errno;
	/* The recorder may be asleep: it sweeps again at once. */
	rb_futex_wake(rb_consumer_word(q->consumer));
	end = rb_evlog_mono_ns() + (uint64_t)ms * 1000000u;
	for (;;) {
		RB_STORE(&l->waiting, 1);
		/*
		 * (M) Full fence: waiting before the look at tail; pairs with
		 * the consumer's fence between its move of tail and its look
		 * at waiting (rb_evlog_wake()): one of the two sees the other.
		 */
		RB_FENCE_SEQ();
		if (!rb_evlog_no_room(q, h, n)) {
			room = 1;
			break;
		}
		if (RB_LOAD(q->consumer) != c)
			break;		/* given back, or another consumer */
		now = rb_evlog_mono_ns();
		/* Gone without giving it back, or too long: no more waits for it. */
		if ((kill((pid_t)pid, 0) != 0 && errno == ESRCH) || now >= end) {
			RB_STORE(&l->stalled, RB_LOAD(&l->tail) + 1);
			break;
		}
		rb_futex_wait(&l->waiting, 1, end - now < RB_EVLOG_WAIT_SLICE_NS ?
		    end - now : RB_EVLOG_WAIT_SLICE_NS);
	}
	RB_STORE(&l->waiting, 0);
	errno = saved;
	return room;
}

/*
 * No room for @n records at head @h, after a wait if the consumer asks for
 * one?  Without blocking, one more load than before (relaxed, as in
 * rb_evlog_wait()).
 */
static inline int rb_evlog_no_room_wait(const struct rb_evq *q, uint64_t h,
					uint32_t n)
{
	if (!rb_evlog_no_room(q, h, n))
		return 0;
	return q->consumer == NULL ||
	    RB_CONSUMER_BLOCK_MS(RB_LOAD(q->consumer)) == 0 ||
	    !rb_evlog_wait(q, h, n);
}

/**
 * rb_evlog_full - would the owner's next @n records be dropped?  (Then
 * rb_evlog_drop() counts them, and no clock needs reading.)
 */
int rb_evlog_full(const struct rb_evq *q, uint32_t n)
{
	/* Relaxed: head is the owner's own. */
	return q->size == 0 ||
	    rb_evlog_no_room_wait(q, RB_LOAD(&q->log->head), n);
}

/**
 * rb_evlog_drop - the owner drops @n records: counted, and in drain
 * marked in the stream once there is room
 */
void rb_evlog_drop(const struct rb_evq *q, uint32_t n)
{
	struct rb_evlog *l = q->log;
	uint64_t pending;

	RB_STORE(&l->dropped, RB_LOAD(&l->dropped) + n);
	if (q->policy != RB_POLICY_DRAIN)
		return;
	pending = RB_LOAD(&l->pending_lost);
	RB_STORE(&l->pending_lost, pending + n);
	/* A gap begins: the recorder, if asleep, sweeps at once (errno kept). */
	if (pending == 0 && q->consumer != NULL &&
	    RB_CONSUMER_PID(RB_LOAD(q->consumer)) != 0) {
		int saved = errno;

		rb_futex_wake(rb_consumer_word(q->consumer));
		errno = saved;
	}
}

/*
 * Room for @n records at head @h?  If not they are dropped; in drain the
 * gap before them is marked first when there is.
 */
static int rb_evlog_room(const struct rb_evq *q, uint64_t *h, uint32_t n,
			 uint64_t ts)
{
	struct rb_evlog *l = q->log;
	uint64_t lost;

	if (rb_evlog_no_room_wait(q, *h, n)) {
		rb_evlog_drop(q, n);
		return 0;
	}
	if (q->policy == RB_POLICY_DRAIN &&
	    (lost = RB_LOAD(&l->pending_lost)) != 0) {
		struct rb_event m = { ts, 0, lost, RB_EV_LOST, 0 };

		rb_evlog_store(q, *h, &m);
		RB_STORE(&l->pending_lost, 0);
		(*h)++;
	}
	return 1;
}

/**
 * rb_evlog_putv - the owner records @n records at once (a name and its
 * text): all of them or none
 *
 * Return: 1 if stored, 0 if dropped (fill: full; drain: no room before
 * the consumer's tail) or there is no log.
 */
int rb_evlog_putv(const struct rb_evq *q, const struct rb_event *e, uint32_t n)
{
	struct rb_evlog *l = q->log;
	uint64_t h;
	uint32_t i;

	if (q->size == 0 || n == 0 || n > q->size / 2)
		return 0;
	/* Relaxed: head is the owner's own. */
	h = RB_LOAD(&l->head);
	if (!rb_evlog_room(q, &h, n, e[0].ts))
		return 0;
	/*
	 * (D) Release fence: the last head store before these record stores, so
	 * that a reader that saw the old head cannot see these words in the
	 * slots it is copying (pairs with rb_evlog_copy()'s acquire fence
	 * before it reads head again).
	 */
	RB_FENCE_REL();
	for (i = 0; i < n; i++)
		rb_evlog_store(q, h + i, &e[i]);
	/* (E) Release: the records before the count that shows them; pairs with the readers' acquire load of head. */
	RB_STORE_REL(&l->head, h + n);
	return 1;
}

/**
 * rb_evlog_put - the owner records one event
 * @kind: RB_EV_*
 * @fn, @arg: as struct rb_event has them
 * @ts: the time
 *
 * Return: as rb_evlog_putv().
 */
int rb_evlog_put(const struct rb_evq *q, uint32_t kind, uint64_t fn,
		 uint64_t arg, uint64_t ts)
{
	struct rb_event e = { ts, fn, arg, kind, 0 };

	return rb_evlog_putv(q, &e, 1);
}

/**
 * rb_evlog_rewind - the owner takes back its newest record, at index
 * @h - 1 (@h its head, > 0): a short call's entry (rbtrace(5), "EVENT LOG",
 * "Short calls"); the record is written over by the next
 */
void rb_evlog_rewind(const struct rb_evq *q, uint64_t h)
{
	struct rb_evlog *l = q->log;

	/*
	 * The ring's slots of the records taken back still hold them until
	 * written again: the oldest record a reader may trust is peak's
	 * (relaxed: published by the head's release below).
	 */
	if (h > RB_LOAD(&l->peak))
		RB_STORE(&l->peak, h);
	/*
	 * (R) Release, both: the records below the lowered head before it
	 * (a reader's acquire load of head trusts them), and the lowered
	 * head before the count of rewinds that tells of it; pairs with
	 * rb_evlog_copy()'s acquire load of rewinds before it loads head.
	 * The record that next takes index h - 1 is stored after (D), so a
	 * reader whose copy saw any of its words sees this count too.
	 */
	RB_STORE_REL(&l->head, h - 1);
	/* Relaxed load: rewinds is the owner's own. */
	RB_STORE_REL(&l->rewinds, RB_LOAD(&l->rewinds) + 1);
}

/**
 * rb_evlog_copy - copy the records of @q from index @from on, without
 * stopping the writer
 * @out: room for @max records
 * @w: filled with what was copied and the log's counts
 *
 * Copies the newest records at most @max, then reads head again and
 * keeps only those the writer cannot have been overwriting meanwhile
 * (ring: the slot of the record being written next is the oldest's;
 * drain: the slots below the consumer's tail), nor rewriting after a
 * rewind (a short call taken back moves head back by one and counts
 * rewinds, rbtrace(5), "EVENT LOG": the newest records of the window, as
 * many as rewinds grew across the copy, may have been rewritten).  Never
 * a torn or stale record.
 *
 * Return: the records kept, whole, in @out[0..] (index w->first on).
 */
size_t rb_evlog_copy(const struct rb_evq *q, uint64_t from,
		     struct rb_event *out, size_t max, struct rb_ev_window *w)
{
	const struct rb_evlog *l = q->log;
	const struct rb_event *r = q->rec;
	uint64_t n = q->size, h1, h2, lo, hi, valid, tail = 0, i, r1, r2, back;
	uint64_t top;
	size_t k, skip;

	memset(w, 0, sizeof(*w));
	if (n == 0)
		return 0;
	/*
	 * (R) Acquire: a rewind counted here has its lowered head seen
	 * below; pairs with the owner's release of rewinds after it moved
	 * head back (rb_evlog_rewind()).
	 */
	r1 = RB_LOAD_ACQ(&l->rewinds);
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
		out[k].aux = RB_LOAD(&e->aux);
		RB_EVLOG_COPY_STEP(q, i);
	}
	/*
	 * (D) Acquire fence: the copy before the second look at head, tail
	 * and rewinds; pairs with the writer's release fence before it
	 * stores a record.
	 */
	RB_FENCE_ACQ();
	/*
	 * (R) Acquire: a lowered head seen here has the peak stored before
	 * it seen too; pairs with rb_evlog_rewind()'s release of head.
	 */
	h2 = RB_LOAD_ACQ(&l->head);
	r2 = RB_LOAD(&l->rewinds);
	top = RB_LOAD(&l->peak);
	/*
	 * Each rewind since r1 moved head back by one: the records from
	 * h1 - back on may have been rewritten.  A count gone back is a
	 * reset: keep nothing; a head lower than the rewinds explain, a
	 * reset or a stranger's write: as before rewinds, trust no head.
	 * The ring's slots hold the records up to the highest head ever,
	 * peak's or head's: the oldest trusted is below that by the size.
	 */
	back = r2 >= r1 ? r2 - r1 : n;
	if (back > n)
		back = n;
	if (h2 < h1 && h1 - h2 > back)
		h2 = UINT64_MAX;	/* reset or written by a stranger: keep nothing */
	hi = h1 - lo > back ? h1 - back : lo;
	if (q->policy == RB_POLICY_FILL) {
		valid = 0;
	} else if (q->policy == RB_POLICY_DRAIN) {
		valid = tail = RB_LOAD(&l->tail);
	} else {
		if (top < h2 || h2 == UINT64_MAX)
			top = h2;
		valid = top >= n ? top - n + 1 : 0;
	}
	skip = valid > lo ? (size_t)((valid < hi ? valid : hi) - lo) : 0;
	k = (size_t)(hi - lo);
	if (skip > 0)
		memmove(out, out + skip, (k - skip) * sizeof(*out));
	w->first = lo + skip;
	w->n = k - skip;
	w->head = h2;
	w->tail = tail;
	w->overwritten = q->policy == RB_POLICY_RING && h2 > n ? h2 - n : 0;
	w->dropped = RB_LOAD(&l->dropped);
	w->rewinds = r2;
	/* A run of entries at the end may still be taken back. */
	for (w->settled = w->n; w->settled > 0 &&
	    out[w->settled - 1].kind == RB_EV_ENTRY; w->settled--)
		;
	return w->n;
}

/**
 * rb_evlog_consume - drain: the consumer is done with the records from
 * @from (the tail it read them from) below @upto; the writer may store
 * there again
 *
 * The tail moves only from @from, with compare-and-swap: a log emptied
 * for a new owner meanwhile (tail 0 again) is not moved unless @from was
 * 0 too, and never past its head.
 *
 * Return: 1 if the tail moved from @from to its new place, 0 if not.
 */
int rb_evlog_consume(const struct rb_evq *q, uint64_t from, uint64_t upto)
{
	struct rb_evlog *l = q->log;
	/* (E) Acquire: head, to never consume what is not stored. */
	uint64_t h = RB_LOAD_ACQ(&l->head);

	if (upto > h)
		upto = h;
	if (upto <= from)
		return 0;
	/* (F) Release: the copies made before; pairs with the writer's acquire load of tail. */
	return RB_CAS_REL(&l->tail, &from, upto);
}

/**
 * rb_evlog_wake - drain, blocking: the consumer, after it moved the tail,
 * wakes the owner if it waits for room
 *
 * Return: 1 if it was waiting.
 */
int rb_evlog_wake(const struct rb_evq *q)
{
	struct rb_evlog *l = q->log;

	/* (M) Full fence: the move of tail before the look at waiting; pairs with rb_evlog_wait(). */
	RB_FENCE_SEQ();
	if (RB_LOAD(&l->waiting) == 0)
		return 0;
	RB_STORE(&l->waiting, 0);
	rb_futex_wake(&l->waiting);
	return 1;
}
