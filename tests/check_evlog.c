/* SPDX-License-Identifier: MIT */
/*
 * check_evlog: the event log's ring of records (common/evlog.c): each
 * policy at its boundaries, and one writer against a concurrent reader
 * over millions of records, asserting that nothing torn is ever accepted
 * and that every event is accounted for, as the kernel's ring-buffer
 * self-test asserts read + lost == written.
 */
#include "config.h"

#include <pthread.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "common/evlog.h"

/* Event number @e as the writer of these tests records it: checkable. */
#define EV_FN(e)	((e) * 2 + 1)
#define EV_ARG(e)	(~(uint64_t)(e))
#define EV_TS(e)	((e) * 3 + 7)

/* A log of @size records in memory of its own; log_free() frees it. */
static struct rb_evq *
log_new(uint32_t size, uint32_t policy)
{
	struct rb_evq	*q = calloc(1, sizeof(*q));
	struct rb_evlog	*l;

	l = aligned_alloc(RB_CACHELINE, sizeof(*l) +
	    (size_t)size * sizeof(struct rb_event));
	ck_assert_ptr_nonnull(q);
	ck_assert_ptr_nonnull(l);
	memset(l, 0x5a, sizeof(*l));
	rb_evq_attach(q, l, size, policy);
	rb_evlog_reset(q);
	return q;
}

static void
log_free(struct rb_evq *q)
{
	free(q->log);
	free(q);
}

static int
put(struct rb_evq *l, uint64_t e)
{
	return rb_evlog_put(l, RB_EV_ENTRY, EV_FN(e), EV_ARG(e), EV_TS(e));
}

/* A record copied is whole: event number, or -1. */
static int64_t
ev_of(const struct rb_event *r)
{
	uint64_t	e;

	if (r->kind != RB_EV_ENTRY || (r->fn & 1) == 0)
		return -1;
	e = r->fn / 2;
	if (r->arg != EV_ARG(e) || r->ts != EV_TS(e))
		return -1;
	return (int64_t)e;
}

START_TEST(test_evlog_ring)
{
	struct rb_evq		*l = log_new(8, RB_POLICY_RING);
	struct rb_event		 out[16];
	struct rb_ev_window	 w;
	uint64_t		 e;
	size_t			 i, n;

	/* Empty; one short of full: all 7, oldest first. */
	ck_assert_uint_eq(rb_evlog_copy(l, 0, out, 16, &w), 0);
	for (e = 0; e < 7; e++)
		ck_assert_int_eq(put(l, e), 1);
	n = rb_evlog_copy(l, 0, out, 16, &w);
	ck_assert_uint_eq(n, 7);
	ck_assert_uint_eq(w.first, 0);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(ev_of(&out[i]), (int64_t)i);
	/*
	 * Exactly full: the oldest slot is the one the writer stores in next,
	 * maybe already: a reader keeps the 7 after it.
	 */
	ck_assert_int_eq(put(l, 7), 1);
	n = rb_evlog_copy(l, 0, out, 16, &w);
	ck_assert_uint_eq(n, 7);
	ck_assert_uint_eq(w.first, 1);
	ck_assert_uint_eq(w.overwritten, 0);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(ev_of(&out[i]), (int64_t)(1 + i));
	/* One over: the oldest is overwritten, the next oldest is at risk. */
	ck_assert_int_eq(put(l, 8), 1);
	n = rb_evlog_copy(l, 0, out, 16, &w);
	ck_assert_uint_eq(w.head, 9);
	ck_assert_uint_eq(w.overwritten, 1);
	ck_assert_uint_eq(w.first, 2);
	ck_assert_uint_eq(n, 7);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(ev_of(&out[i]), (int64_t)(2 + i));
	/* Wrapped many times: the newest, in order; a reader's window. */
	for (e = 9; e < 8 * 1000 + 3; e++)
		put(l, e);
	n = rb_evlog_copy(l, 0, out, 16, &w);
	ck_assert_uint_eq(n, 7);
	ck_assert_uint_eq(w.first + n, 8003);
	ck_assert_uint_eq(w.overwritten, 8003 - 8);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(ev_of(&out[i]), (int64_t)(w.first + i));
	/* From a later index, and at most max. */
	n = rb_evlog_copy(l, 8001, out, 16, &w);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(w.first, 8001);
	n = rb_evlog_copy(l, 0, out, 3, &w);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(w.first, 8000);
	ck_assert_uint_eq(w.dropped, 0);
	log_free(l);
}
END_TEST

START_TEST(test_evlog_fill)
{
	struct rb_evq		*l = log_new(8, RB_POLICY_FILL);
	struct rb_event		 out[16];
	struct rb_ev_window	 w;
	uint64_t		 e;
	size_t			 i, n;

	for (e = 0; e < 7; e++)
		ck_assert_int_eq(put(l, e), 1);
	ck_assert_int_eq(put(l, 7), 1);		/* exactly full */
	ck_assert_int_eq(put(l, 8), 0);		/* one over: dropped */
	for (e = 9; e < 1000; e++)
		ck_assert_int_eq(put(l, e), 0);
	n = rb_evlog_copy(l, 0, out, 16, &w);
	ck_assert_uint_eq(n, 8);	/* the first 8, all whole: never overwritten */
	for (i = 0; i < n; i++)
		ck_assert_int_eq(ev_of(&out[i]), (int64_t)i);
	ck_assert_uint_eq(w.dropped, 1000 - 8);
	ck_assert_uint_eq(w.overwritten, 0);
	/* written == consumed + overwritten + dropped + buffered */
	ck_assert_uint_eq(1000, 0 + w.overwritten + w.dropped + w.head);
	log_free(l);
}
END_TEST

START_TEST(test_evlog_drain)
{
	struct rb_evq		*l = log_new(8, RB_POLICY_DRAIN);
	struct rb_event		 out[16];
	struct rb_ev_window	 w;
	uint64_t		 e;
	size_t			 n;

	for (e = 0; e < 8; e++)
		ck_assert_int_eq(put(l, e), 1);
	ck_assert_int_eq(put(l, 8), 0);		/* full: dropped, not overwritten */
	ck_assert_int_eq(put(l, 9), 0);
	n = rb_evlog_copy(l, 0, out, 16, &w);
	ck_assert_uint_eq(n, 8);
	ck_assert_int_eq(ev_of(&out[0]), 0);
	ck_assert_uint_eq(w.dropped, 2);
	/* One consumed: no room yet for the mark and an event. */
	ck_assert_int_eq(rb_evlog_consume(l, 0, 1), 1);
	ck_assert_int_eq(put(l, 10), 0);
	ck_assert_uint_eq(l->log->pending_lost, 3);
	/* Two consumed: the gap marked, then the event. */
	ck_assert_int_eq(rb_evlog_consume(l, 1, 2), 1);
	ck_assert_int_eq(put(l, 11), 1);
	n = rb_evlog_copy(l, 2, out, 16, &w);
	ck_assert_uint_eq(w.first, 2);
	ck_assert_uint_eq(n, 8);
	ck_assert_int_eq(ev_of(&out[5]), 7);
	ck_assert_uint_eq(out[6].kind, RB_EV_LOST);
	ck_assert_uint_eq(out[6].arg, 3);
	ck_assert_int_eq(ev_of(&out[7]), 11);
	ck_assert_uint_eq(l->log->pending_lost, 0);
	/* A tail past head (a stray write) is no room: dropped, no harm. */
	l->log->tail = 1000;
	ck_assert_int_eq(put(l, 12), 0);
	ck_assert_int_eq(rb_evlog_consume(l, 1000, 5000), 0);	/* never past head */
	ck_assert_uint_le(l->log->tail, 1000);
	/* A consumer that read before the log was emptied for a new owner. */
	rb_evlog_reset(l);
	for (e = 0; e < 3; e++)
		ck_assert_int_eq(put(l, e), 1);
	ck_assert_int_eq(rb_evlog_consume(l, 2, 3), 0);
	ck_assert_uint_eq(l->log->tail, 0);
	log_free(l);
}
END_TEST

/* Several records at once (a name and its text): all of them or none. */
START_TEST(test_evlog_putv)
{
	struct rb_evq		*l = log_new(8, RB_POLICY_FILL);
	struct rb_event		 v[3], out[16];
	struct rb_ev_window	 w;
	size_t			 n;

	memset(v, 0, sizeof(v));
	v[0].kind = RB_EV_NAMED;
	v[0].aux = 2;
	v[1].kind = v[2].kind = RB_EV_TEXT;
	ck_assert_int_eq(put(l, 0), 1);
	ck_assert_int_eq(rb_evlog_putv(l, v, 3), 1);	/* 4 of 8 */
	ck_assert_int_eq(rb_evlog_putv(l, v, 3), 1);	/* 7 of 8 */
	ck_assert_int_eq(rb_evlog_putv(l, v, 3), 0);	/* one short: none */
	ck_assert_int_eq(put(l, 1), 0);		/* and none after: the first only */
	n = rb_evlog_copy(l, 0, out, 16, &w);
	ck_assert_uint_eq(n, 7);
	ck_assert_uint_eq(out[4].kind, RB_EV_NAMED);
	ck_assert_uint_eq(out[6].kind, RB_EV_TEXT);
	ck_assert_uint_eq(w.dropped, 4);
	/* Full: the next record would be dropped; a drop is counted. */
	ck_assert_int_eq(rb_evlog_full(l, 1), 1);
	rb_evlog_drop(l, 2);
	ck_assert_uint_eq(l->log->dropped, 6);
	/* More than half the log at once is refused, never stored. */
	log_free(l);
	l = log_new(4, RB_POLICY_RING);
	ck_assert_int_eq(rb_evlog_putv(l, v, 3), 0);
	ck_assert_int_eq(rb_evlog_putv(l, v, 2), 1);
	log_free(l);
	/* Drain: the gap's mark and the records must all fit. */
	l = log_new(8, RB_POLICY_DRAIN);
	for (n = 0; n < 8; n++) {
		ck_assert_int_eq(rb_evlog_full(l, 1), 0);
		ck_assert_int_eq(put(l, n), 1);
	}
	ck_assert_int_eq(rb_evlog_full(l, 1), 1);
	ck_assert_int_eq(put(l, 8), 0);
	ck_assert_int_eq(rb_evlog_consume(l, 0, 3), 1);	/* room 3: mark + 3 do not fit */
	ck_assert_int_eq(rb_evlog_putv(l, v, 3), 0);
	ck_assert_uint_eq(l->log->pending_lost, 4);
	ck_assert_int_eq(rb_evlog_consume(l, 3, 4), 1);
	ck_assert_int_eq(rb_evlog_putv(l, v, 3), 1);
	n = rb_evlog_copy(l, 4, out, 16, &w);
	ck_assert_uint_eq(n, 8);
	ck_assert_uint_eq(out[4].kind, RB_EV_LOST);
	ck_assert_uint_eq(out[4].arg, 4);
	ck_assert_uint_eq(out[5].kind, RB_EV_NAMED);
	log_free(l);
}
END_TEST

/* ---- one writer, one concurrent reader ---------------------------------- */

#define RACE_EVENTS	4000000u

struct race {
	struct rb_evq	*l;
	uint64_t	 offered, stored;
	int		 done;
};

static void *
race_writer(void *arg)
{
	struct race	*r = arg;
	uint64_t	 e;

	for (e = 0; e < RACE_EVENTS; e++)
		r->stored += (uint64_t)put(r->l, e);
	r->offered = RACE_EVENTS;
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * A ring of 1024 read while written: every record accepted is whole and
 * the right one for its index; what the reader missed between its copies
 * was overwritten; read + lost == written at the end.
 */
START_TEST(test_evlog_race_ring)
{
	struct race		 r = { .l = log_new(1024, RB_POLICY_RING) };
	struct rb_event		*out = calloc(1024, sizeof(*out));
	struct rb_ev_window	 w;
	pthread_t		 t;
	uint64_t		 next = 0, read = 0, lost = 0, copies = 0;
	size_t			 i, n;
	int			 done;

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(pthread_create(&t, NULL, race_writer, &r), 0);
	do {
		done = __atomic_load_n(&r.done, __ATOMIC_ACQUIRE);
		n = rb_evlog_copy(r.l, next, out, 1024, &w);
		copies++;
		ck_assert_uint_ge(w.first, next);
		lost += w.first - next;
		for (i = 0; i < n; i++)
			ck_assert_msg(ev_of(&out[i]) == (int64_t)(w.first + i),
			    "record %" PRIu64 " torn or misplaced",
			    (uint64_t)(w.first + i));
		read += n;
		next = w.first + n;
	} while (!done);
	pthread_join(t, NULL);
	n = rb_evlog_copy(r.l, next, out, 1024, &w);
	lost += w.first - next;
	read += n;
	ck_assert_uint_eq(r.stored, RACE_EVENTS);
	ck_assert_uint_eq(read + lost, RACE_EVENTS);
	ck_assert_uint_gt(copies, 1);
	free(out);
	log_free(r.l);
}
END_TEST

/*
 * Drain: a consumer reads and consumes while the writer writes; nothing is
 * overwritten, every drop is marked by a lost record before the next
 * event, and consumed + dropped == written.
 */
START_TEST(test_evlog_race_drain)
{
	struct race		 r = { .l = log_new(256, RB_POLICY_DRAIN) };
	struct rb_event		*out = calloc(256, sizeof(*out));
	struct rb_ev_window	 w;
	pthread_t		 t;
	uint64_t		 tail = 0, events = 0, marked = 0, expect = 0;
	size_t			 i, n;
	int			 done;

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(pthread_create(&t, NULL, race_writer, &r), 0);
	do {
		done = __atomic_load_n(&r.done, __ATOMIC_ACQUIRE);
		n = rb_evlog_copy(r.l, tail, out, 256, &w);
		ck_assert_uint_eq(w.first, tail);	/* never overwritten */
		for (i = 0; i < n; i++) {
			if (out[i].kind == RB_EV_LOST) {
				ck_assert_uint_gt(out[i].arg, 0);
				marked += out[i].arg;
				expect += out[i].arg;
				continue;
			}
			ck_assert_msg(ev_of(&out[i]) == (int64_t)expect,
			    "event %" PRIu64 " expected", expect);
			expect++;
			events++;
		}
		if (n > 0)
			ck_assert_int_eq(rb_evlog_consume(r.l, tail, tail + n), 1);
		tail += n;
	} while (!done);
	pthread_join(t, NULL);
	n = rb_evlog_copy(r.l, tail, out, 256, &w);
	for (i = 0; i < n; i++) {
		if (out[i].kind == RB_EV_LOST)
			marked += out[i].arg;
		else
			events++;
	}
	/* consumed + dropped == written; the drops not yet marked are pending. */
	ck_assert_uint_eq(events + w.dropped, RACE_EVENTS);
	ck_assert_uint_eq(marked + r.l->log->pending_lost, w.dropped);
	ck_assert_uint_eq(r.stored, events);
	free(out);
	log_free(r.l);
}
END_TEST

/* ---- short calls taken back (rbtrace(5), "EVENT LOG", "Short calls") ---- */

/* Call @c's exit as these tests record it: checkable against its entry. */
static int
put_exit(struct rb_evq *l, uint64_t c)
{
	return rb_evlog_put(l, RB_EV_EXIT, EV_FN(c), EV_ARG(c), EV_TS(c) + 1);
}

/* The owner takes back its newest record, as the exit hook does. */
static void
take_back(struct rb_evq *l)
{
	rb_evlog_rewind(l, __atomic_load_n(&l->log->head, __ATOMIC_RELAXED));
}

/* ... if it is call @c's entry (a full fill log dropped it). */
static int
take_back_if(struct rb_evq *l, uint64_t c)
{
	uint64_t	h = l->log->head;
	struct rb_event	*e;

	if (h == 0)
		return 0;
	e = &l->rec[(h - 1) & (l->size - 1)];
	if (e->kind != RB_EV_ENTRY || e->fn != EV_FN(c))
		return 0;
	rb_evlog_rewind(l, h);
	return 1;
}

/* A record copied is whole: its call number, or -1; @kind set. */
static int64_t
call_of(const struct rb_event *r, uint32_t *kind)
{
	uint64_t	c;

	*kind = r->kind;
	if ((r->kind != RB_EV_ENTRY && r->kind != RB_EV_EXIT) ||
	    (r->fn & 1) == 0)
		return -1;
	c = r->fn / 2;
	if (r->arg != EV_ARG(c) ||
	    r->ts != EV_TS(c) + (r->kind == RB_EV_EXIT) || r->aux != 0)
		return -1;
	return (int64_t)c;
}

START_TEST(test_evlog_rewind)
{
	struct rb_evq		*l = log_new(8, RB_POLICY_RING);
	struct rb_event		 out[16];
	struct rb_ev_window	 w;
	uint32_t		 k;
	size_t			 n;

	/* call 0 kept; call 1 taken back; call 2 open */
	put(l, 0);
	put_exit(l, 0);
	put(l, 1);
	take_back(l);
	ck_assert_uint_eq(l->log->head, 2);
	ck_assert_uint_eq(l->log->rewinds, 1);
	n = rb_evlog_copy(l, 0, out, 16, &w);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(w.settled, 2);
	ck_assert_uint_eq(w.rewinds, 1);
	put(l, 2);
	n = rb_evlog_copy(l, 0, out, 16, &w);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(call_of(&out[2], &k), 2);
	ck_assert_uint_eq(k, RB_EV_ENTRY);
	/* the open entry may still be taken back: not settled */
	ck_assert_uint_eq(w.settled, 2);
	/* nested: call 3 in call 2, both short, both taken back */
	put(l, 3);
	take_back(l);
	take_back(l);
	n = rb_evlog_copy(l, 0, out, 16, &w);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(w.rewinds, 3);
	ck_assert_uint_eq(w.overwritten, 0);
	/* a stray count, huge but unchanged across the copy: as before */
	l->log->rewinds = UINT64_MAX - 1;
	ck_assert_uint_eq(rb_evlog_copy(l, 0, out, 16, &w), 2);
	/* reset: the count starts again */
	rb_evlog_reset(l);
	ck_assert_uint_eq(l->log->rewinds, 0);
	log_free(l);
}
END_TEST

/*
 * Records of the tests below: call @c, called by call @parent, entry or
 * exit; fn and ts checkable against each other (a record torn by a
 * rewrite under the reader's copy fails call_at()), arg the parent.
 */
static int
put_call(struct rb_evq *l, uint32_t kind, uint64_t c, uint64_t parent)
{
	return rb_evlog_put(l, kind, EV_FN(c), parent,
	    c * 2 + (kind == RB_EV_EXIT));
}

static int64_t
call_at(const struct rb_event *r, uint32_t *kind, uint64_t *parent)
{
	uint64_t	c;

	*kind = r->kind;
	if ((r->kind != RB_EV_ENTRY && r->kind != RB_EV_EXIT) ||
	    (r->fn & 1) == 0 || r->aux != 0)
		return -1;
	c = r->fn / 2;
	if (r->ts >> 1 != c || (r->ts & 1) != (r->kind == RB_EV_EXIT))
		return -1;
	*parent = r->arg;
	return (int64_t)c;
}

/* What the writer does while the reader is at a given record. */
extern void (*rb_evlog_copy_step)(const struct rb_evq *, uint64_t);
static uint64_t step_at;

/* Calls 2 and 1 taken back, calls 3 and 4 (in 3) entered in their place. */
static void
step_rewrite(const struct rb_evq *q, uint64_t i)
{
	struct rb_evq	*l = (struct rb_evq *)q;

	if (i != step_at)
		return;
	rb_evlog_copy_step = NULL;
	take_back(l);
	take_back(l);
	put_call(l, RB_EV_ENTRY, 3, 0);
	put_call(l, RB_EV_ENTRY, 4, 3);
}

/*
 * A writer taking records back and writing others in their place while a
 * reader copies them: the reader never shows a record taken back, nor one
 * written after it next to one from before.
 */
START_TEST(test_evlog_rewind_under_copy)
{
	struct rb_evq		*l;
	struct rb_event		 out[16];
	struct rb_ev_window	 w;
	uint64_t		 p;
	uint32_t		 k;
	size_t			 n;

	for (step_at = 0; step_at < 3; step_at++) {
		l = log_new(16, RB_POLICY_RING);
		put_call(l, RB_EV_ENTRY, 0, UINT64_MAX);
		put_call(l, RB_EV_ENTRY, 1, 0);
		put_call(l, RB_EV_ENTRY, 2, 1);
		rb_evlog_copy_step = step_rewrite;
		n = rb_evlog_copy(l, 0, out, 16, &w);
		ck_assert_ptr_null(rb_evlog_copy_step);
		ck_assert_uint_eq(w.rewinds, 2);
		/* records 1 and 2 may have been rewritten: only call 0 */
		ck_assert_uint_eq(n, 1);
		ck_assert_int_eq(call_at(&out[0], &k, &p), 0);
		/* and the next copy sees the calls now there */
		n = rb_evlog_copy(l, 0, out, 16, &w);
		ck_assert_uint_eq(n, 3);
		ck_assert_int_eq(call_at(&out[1], &k, &p), 3);
		ck_assert_int_eq(call_at(&out[2], &k, &p), 4);
		log_free(l);
	}
}
END_TEST

/*
 * A ring whose head went back: the slots above the head still hold the
 * records taken back, not the older ones of their index.
 */
START_TEST(test_evlog_rewind_ring_slots)
{
	struct rb_evq		*l = log_new(4, RB_POLICY_RING);
	struct rb_event		 out[8];
	struct rb_ev_window	 w;
	uint64_t		 c, p;
	uint32_t		 k;
	size_t			 i, n;

	for (c = 0; c < 5; c++)
		put_call(l, RB_EV_ENTRY, c, c - 1);
	take_back(l);
	take_back(l);
	/* slots: 4 (taken back), 1, 2, 3 (taken back); head 3 */
	n = rb_evlog_copy(l, 0, out, 8, &w);
	ck_assert_uint_ge(w.first, 1);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(call_at(&out[i], &k, &p),
		    (int64_t)(w.first + i));
	ck_assert_uint_eq(w.first + n, 3);
	log_free(l);
}
END_TEST

/* Fill: a call taken back gives its room back. */
START_TEST(test_evlog_rewind_fill)
{
	struct rb_evq		*l = log_new(4, RB_POLICY_FILL);
	struct rb_event		 out[8];
	struct rb_ev_window	 w;
	uint32_t		 k;

	put(l, 0);
	put_exit(l, 0);
	put(l, 1);
	put(l, 2);
	take_back(l);
	put_exit(l, 1);
	ck_assert_uint_eq(rb_evlog_copy(l, 0, out, 8, &w), 4);
	ck_assert_int_eq(call_of(&out[3], &k), 1);
	ck_assert_uint_eq(k, RB_EV_EXIT);
	ck_assert_uint_eq(w.dropped, 0);
	ck_assert_int_eq(put(l, 3), 0);
	ck_assert_uint_eq(rb_evlog_copy(l, 0, out, 8, &w), 4);
	ck_assert_uint_eq(w.dropped, 1);
	log_free(l);
}
END_TEST

#define REWIND_BLOCKS	20000u

struct rewinder {
	struct rb_evq	*l;
	uint64_t	 calls, short_calls;
	int		 done;
};

/*
 * An outer call kept, and in it 64 times a call with one inside: the
 * inner one always short, taken back; the middle one too three times in
 * four.  Head goes back and forth over the same two records most of the
 * time: a reader's newest records are rewritten under its copy.
 */
static void *
rewind_writer(void *arg)
{
	struct rewinder	*r = arg;
	uint64_t	 c = 0, o, a, b, i, j;

	for (i = 0; i < REWIND_BLOCKS; i++) {
		o = c++;
		put_call(r->l, RB_EV_ENTRY, o, UINT64_MAX);
		for (j = 0; j < 64; j++) {
			a = c++;
			b = c++;
			put_call(r->l, RB_EV_ENTRY, a, o);
			put_call(r->l, RB_EV_ENTRY, b, a);
			if (take_back_if(r->l, b)) {
				r->short_calls++;
				if (j % 4 != 0 && take_back_if(r->l, a)) {
					r->short_calls++;
					continue;
				}
			} else {
				put_call(r->l, RB_EV_EXIT, b, a);
			}
			put_call(r->l, RB_EV_EXIT, a, o);
		}
		put_call(r->l, RB_EV_EXIT, o, UINT64_MAX);
	}
	r->calls = c;
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * One copy checked: every record whole; after an entry, its call's exit
 * or the entry of a call it made; after an exit, the entry of a call its
 * caller made, or its caller's exit; entries of ever later calls.  A
 * record rewritten under the copy, or shown after it was taken back,
 * breaks one of these.
 */
static void
rewind_check(const struct rb_event *out, size_t n, uint64_t first)
{
	int64_t		 c, p = -1, last = -1;
	uint64_t	 d, pd = 0;
	uint32_t	 k, pk = RB_EV_NONE;
	size_t		 i;

	for (i = 0; i < n; i++, p = c, pk = k, pd = d) {
		c = call_at(&out[i], &k, &d);	/* d: the caller */
		ck_assert_msg(c >= 0, "record %" PRIu64 " torn",
		    (uint64_t)(first + i));
		if (k == RB_EV_ENTRY) {
			ck_assert_msg(c > last, "record %" PRIu64 ": call %"
			    PRId64 " after %" PRId64, (uint64_t)(first + i), c,
			    last);
			last = c;
		}
		if (i == 0)
			continue;
		if (pk == RB_EV_ENTRY)
			ck_assert_msg((k == RB_EV_ENTRY && d == (uint64_t)p) ||
			    (k == RB_EV_EXIT && c == p && d == pd),
			    "record %" PRIu64 ": stale after call %" PRId64
			    "'s entry", (uint64_t)(first + i), p);
		else
			ck_assert_msg((k == RB_EV_ENTRY && d == pd) ||
			    (k == RB_EV_EXIT && c == (int64_t)pd),
			    "record %" PRIu64 ": stale after call %" PRId64
			    "'s exit", (uint64_t)(first + i), p);
	}
}

/*
 * A reader copying a log whose writer takes records back constantly:
 * every window consistent; at the end head + dropped + 2 * rewinds is
 * every record offered (two per call).
 */
static void
rewind_race(uint32_t policy)
{
	struct rewinder		 r = { .l = log_new(256, policy) };
	struct rb_event		*out = calloc(256, sizeof(*out));
	struct rb_ev_window	 w;
	pthread_t		 t;
	uint64_t		 copies = 0, shown = 0;
	int			 done;

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(pthread_create(&t, NULL, rewind_writer, &r), 0);
	do {
		done = __atomic_load_n(&r.done, __ATOMIC_ACQUIRE);
		/* The newest three mostly: the copy is quick, rewrites close. */
		rb_evlog_copy(r.l, 0, out, copies % 16 == 0 ? 256 : 3, &w);
		rewind_check(out, w.n, w.first);
		shown += w.n;
		copies++;
	} while (!done);
	pthread_join(t, NULL);
	rb_evlog_copy(r.l, 0, out, 256, &w);
	rewind_check(out, w.n, w.first);
	ck_assert_uint_eq(w.rewinds, r.short_calls);
	ck_assert_uint_eq(w.head + w.dropped + 2 * w.rewinds, 2 * r.calls);
	ck_assert_uint_gt(copies, 1);
	ck_assert_uint_gt(shown, 0);
	free(out);
	log_free(r.l);
}

START_TEST(test_evlog_race_rewind_ring)
{
	rewind_race(RB_POLICY_RING);
}
END_TEST

START_TEST(test_evlog_race_rewind_fill)
{
	rewind_race(RB_POLICY_FILL);
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("evlog");
	TCase	*tc = tcase_create("evlog");
	SRunner	*sr;
	int	 failed;

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_evlog_ring);
	tcase_add_test(tc, test_evlog_fill);
	tcase_add_test(tc, test_evlog_drain);
	tcase_add_test(tc, test_evlog_putv);
	tcase_add_test(tc, test_evlog_race_ring);
	tcase_add_test(tc, test_evlog_race_drain);
	tcase_add_test(tc, test_evlog_rewind);
	tcase_add_test(tc, test_evlog_rewind_fill);
	tcase_add_test(tc, test_evlog_rewind_under_copy);
	tcase_add_test(tc, test_evlog_rewind_ring_slots);
	tcase_add_test(tc, test_evlog_race_rewind_ring);
	tcase_add_test(tc, test_evlog_race_rewind_fill);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
