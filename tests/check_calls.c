/* SPDX-License-Identifier: MIT */
/*
 * check_calls: the calls engine (calls.c) on hand-built records, from a
 * recording written through recfile.c's writer and from a live copy of an
 * event log: exactly which frames are entered and left, at which depth
 * and how, for a clean stream, records lost mid-call, frames unwound,
 * exits whose entries came before the first record, recording switched
 * off and on, and a thread that ends mid-call; and the rows the event
 * graph (--events, the history view) makes of the same records.
 */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "monitor/history/calls.h"
#include "monitor/history/events.h"
#include "monitor/history/recfile.h"
#include "monitor/history/walk.h"

Suite	*suite_calls(void);

#define FA	0x1000ull
#define FB	0x2000ull
#define FC	0x3000ull
#define FD	0x4000ull

/* ---- hand-built records ---------------------------------------------------- */

struct seq {
	struct rb_event	 ev[64];
	size_t		 n;
	uint64_t	 ts;
	size_t		 split;		/* a recording: a LOST chunk here, */
	uint64_t	 split_count;	/* of this many records (0: none) */
	int		 ended;		/* a recording: a THREAD_END chunk */
};

static void
seq_init(struct seq *s)
{
	memset(s, 0, sizeof *s);
	s->ts = 1000;
	s->ended = 1;
}

static void
seq_add(struct seq *s, uint32_t kind, uint64_t fn, uint64_t arg, uint32_t aux)
{
	struct rb_event	*e;

	ck_assert_uint_lt(s->n, 64);
	e = &s->ev[s->n++];
	memset(e, 0, sizeof *e);
	e->ts = s->ts;
	s->ts += 10;
	e->kind = kind;
	e->fn = fn;
	e->arg = arg;
	e->aux = aux;
}

static void
seq_entry(struct seq *s, uint64_t fn)
{
	seq_add(s, RB_EV_ENTRY, fn, fn + 0x10, 0);
}

static void
seq_exit(struct seq *s, uint64_t fn)
{
	seq_add(s, RB_EV_EXIT, fn, 0, 0);
}

/* rbtrace_push(@name) at line 7: its record and its text record. */
static void
seq_named(struct seq *s, const char *name)
{
	char	text[RB_EV_TEXT_BYTES];

	memset(text, 0, sizeof text);
	snprintf(text, sizeof text, "%s%cw.c", name, 0);
	seq_add(s, RB_EV_NAMED, 0, 7, 1);
	seq_add(s, RB_EV_TEXT, 0, 0, 0);
	memcpy(&s->ev[s->n - 1].ts, text, 8);
	memcpy(&s->ev[s->n - 1].fn, text + 8, 8);
	memcpy(&s->ev[s->n - 1].arg, text + 16, 8);
}

/* ---- what the engine tells, as text ---------------------------------------- */

struct trace {
	char	buf[2048];
	size_t	len;
};

static void
trace_add(struct trace *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
trace_add(struct trace *t, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, sizeof t->buf - t->len, fmt, ap);
	va_end(ap);
	ck_assert_int_gt(n, 0);
	t->len += (size_t)n;
	ck_assert_uint_lt(t->len, sizeof t->buf);
}

/* A frame as "A", "B", ...: its function; "N" a named one; "!" entry lost. */
static void
trace_frame(struct trace *t, struct rbcalls_walk *w,
    const struct rbcalls_frame *f)
{
	const char	*name;
	uint64_t	 fn;

	if (f->flags & RBCALLS_F_ENTRY_LOST)
		trace_add(t, "!");
	if (f->flags & RBCALLS_F_NAMED) {
		trace_add(t, "N");
		return;
	}
	fn = f->fn;
	if (w->ctx != NULL) {
		/* Frames entered for a region's plan have no address. */
		name = w->ctx->funcs[f->func].name;
		fn = strtoull(name, NULL, 16);
	}
	trace_add(t, "%c", fn >= FA && fn <= FD ? (int)('A' + fn / FA - 1) :
	    '?');
}

static void
trace_enter(struct rbcalls_walk *w, struct rbcalls_frame *f, size_t depth)
{
	struct trace	*t = w->h->arg;

	ck_assert_uint_eq(depth + 1, w->filter != NULL ? w->nvis : w->n);
	ck_assert_ptr_eq(rbcalls_walk_frame(w, depth), f);
	trace_add(t, "%s+", t->len > 0 ? " " : "");
	trace_frame(t, w, f);
	trace_add(t, "@%zu", depth);
}

static void
trace_leave(struct rbcalls_walk *w, struct rbcalls_frame *f, size_t depth,
    uint64_t end, int how)
{
	struct trace	*t = w->h->arg;

	ck_assert_uint_eq(depth + 1, w->filter != NULL ? w->nvis : w->n);
	ck_assert_ptr_eq(rbcalls_walk_frame(w, depth), f);
	ck_assert_uint_ge(end, f->start);
	trace_add(t, " -");
	trace_frame(t, w, f);
	trace_add(t, "@%zu%c", depth, "xuco"[how]);
}

static void
trace_mark(struct rbcalls_walk *w, const struct rbrec_rec *k, size_t depth)
{
	struct trace	*t = w->h->arg;

	(void)w;
	if (k->lost || k->e.kind == RB_EV_LOST)
		trace_add(t, " L%" PRIu64 "@%zu", k->e.arg, depth);
	else
		trace_add(t, " m%u@%zu", k->e.kind, depth);
}

/* ---- the two sources --------------------------------------------------------- */

/* @s as a recording: its path, to unlink() and free(). */
static char *
seq_record(const struct seq *s)
{
	struct rbrec_writer	w;
	struct rbrec_info	i;
	struct rbrec_thread	t;
	struct rbrec_lost	l;
	struct rbrec_thread_end	te;
	struct rbrec_end	end;
	char			*path;
	size_t			 cut = s->split_count > 0 ? s->split : s->n;
	int			 fd;

	path = strdup("/tmp/check_calls.XXXXXX");
	ck_assert_ptr_nonnull(path);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(rbrec_open_write(&w, fd, path, 0), 0);
	memset(&i, 0, sizeof i);
	strcpy(i.program, "check");
	i.clock = RB_CLOCK_MONO;
	ck_assert_int_eq(rbrec_put(&w, RBREC_INFO, &i, sizeof i, NULL, 0), 0);
	memset(&t, 0, sizeof t);
	t.stream = 1;
	t.pid = t.tid = 100;
	t.image = 1;
	ck_assert_int_eq(rbrec_put(&w, RBREC_THREAD, &t, sizeof t, NULL, 0),
	    0);
	if (cut > 0)
		ck_assert_int_eq(rbrec_put_events(&w, 1, 0, s->ev, cut), 0);
	if (s->split_count > 0) {
		memset(&l, 0, sizeof l);
		l.stream = 1;
		l.why = RBREC_LOST_OVERWRITTEN;
		l.count = s->split_count;
		l.at = cut;
		ck_assert_int_eq(rbrec_put(&w, RBREC_LOST, &l, sizeof l, NULL,
		    0), 0);
		if (s->n > cut)
			ck_assert_int_eq(rbrec_put_events(&w, 1,
			    cut + s->split_count, s->ev + cut, s->n - cut), 0);
	}
	if (s->ended) {
		memset(&te, 0, sizeof te);
		te.stream = 1;
		te.next = s->n + s->split_count;
		ck_assert_int_eq(rbrec_put(&w, RBREC_THREAD_END, &te,
		    sizeof te, NULL, 0), 0);
	}
	memset(&end, 0, sizeof end);
	end.reason = RBREC_END_EXITED;
	end.streams = 1;
	ck_assert_int_eq(rbrec_put(&w, RBREC_END, &end, sizeof end, NULL, 0),
	    0);
	ck_assert_int_eq(rbrec_close_write(&w), 0);
	return path;
}

/* What the engine makes of @s read from a recording. */
static void
walk_recording(const struct seq *s, struct trace *t)
{
	struct rbcalls_handler	 h = { trace_enter, trace_leave, trace_mark, t };
	struct rbwalk_ctx	 x;
	struct rbcalls_walk	 w;
	char			*path, *why = NULL;

	memset(t, 0, sizeof *t);
	path = seq_record(s);
	ck_assert_msg(rbwalk_open(&x, path, &why) == 0, "%s", why);
	ck_assert_uint_eq(x.rec.nstreams, 1);
	rbcalls_walk_init(&w, &x, 0, &h);
	while (rbcalls_walk_step(&w))
		;
	rbcalls_walk_finish(&w);
	ck_assert_uint_eq(w.n, 0);
	rbcalls_walk_free(&w);
	rbwalk_close(&x);
	unlink(path);
	free(path);
}

#define CK_RECORDING(s, want) do {					\
		struct trace	t_;					\
									\
		walk_recording((s), &t_);				\
		ck_assert_str_eq(t_.buf, (want));			\
	} while (0)

/* ---- a recording --------------------------------------------------------- */

START_TEST(test_rec_clean)
{
	struct seq	s;

	seq_init(&s);
	seq_entry(&s, FA);
	seq_entry(&s, FB);
	seq_exit(&s, FB);
	seq_entry(&s, FC);
	seq_exit(&s, FC);
	seq_exit(&s, FA);
	CK_RECORDING(&s, "+A@0 +B@1 -B@1x +C@1 -C@1x -A@0x");
}
END_TEST

/*
 * Records lost mid-call: the open frames are cut where the gap begins;
 * after it, A's exit closes a frame entered when the next region began.
 */
START_TEST(test_rec_lost_mid_call)
{
	struct seq	s;

	seq_init(&s);
	seq_entry(&s, FA);
	seq_entry(&s, FB);
	seq_add(&s, RB_EV_LOST, 0, 5, 0);
	seq_entry(&s, FC);
	seq_exit(&s, FC);
	seq_exit(&s, FA);
	CK_RECORDING(&s, "+A@0 +B@1 -B@1c -A@0c L5@0 +!A@0 +C@1 -C@1x -!A@0x");
}
END_TEST

/* The same gap as a LOST chunk of the recorder (records overwritten). */
START_TEST(test_rec_lost_chunk)
{
	struct seq	s;

	seq_init(&s);
	seq_entry(&s, FA);
	seq_entry(&s, FB);
	seq_entry(&s, FC);
	seq_exit(&s, FC);
	seq_exit(&s, FA);
	s.split = 2;
	s.split_count = 9;
	CK_RECORDING(&s, "+A@0 +B@1 -B@1c -A@0c L9@0 +!A@0 +C@1 -C@1x -!A@0x");
}
END_TEST

/* A's exit while B and C are open (an exception, a longjmp). */
START_TEST(test_rec_unwound)
{
	struct seq	s;

	seq_init(&s);
	seq_entry(&s, FA);
	seq_entry(&s, FB);
	seq_entry(&s, FC);
	seq_exit(&s, FA);
	seq_entry(&s, FD);
	seq_exit(&s, FD);
	CK_RECORDING(&s, "+A@0 +B@1 +C@2 -C@2u -B@1u -A@0x +D@0 -D@0x");
}
END_TEST

/* The first records are exits: the thread was in A, B, C when it began. */
START_TEST(test_rec_cut_start)
{
	struct seq	s;

	seq_init(&s);
	seq_exit(&s, FC);
	seq_exit(&s, FB);
	seq_entry(&s, FD);
	seq_exit(&s, FD);
	seq_exit(&s, FA);
	CK_RECORDING(&s,
	    "+!A@0 +!B@1 +!C@2 -!C@2x -!B@1x +D@1 -D@1x -!A@0x");
}
END_TEST

/* An exit of a function not open while others are: entered before them. */
START_TEST(test_rec_exit_below)
{
	struct seq	s;

	seq_init(&s);
	seq_entry(&s, FA);
	seq_entry(&s, FB);
	seq_exit(&s, FC);
	CK_RECORDING(&s, "+!C@0 +A@1 +B@2 -B@2u -A@1u -!C@0x");
}
END_TEST

/* The thread ends in C, called by A: both still open at its last time. */
START_TEST(test_rec_ends_mid_call)
{
	struct seq	s;

	seq_init(&s);
	seq_entry(&s, FA);
	seq_entry(&s, FB);
	seq_exit(&s, FB);
	seq_entry(&s, FC);
	CK_RECORDING(&s, "+A@0 +B@1 -B@1x +C@1 -C@1o -A@0o");
	s.ended = 0;	/* a stream still open when recording ended */
	CK_RECORDING(&s, "+A@0 +B@1 -B@1x +C@1 -C@1o -A@0o");
}
END_TEST

/*
 * Recording switched off and on: no record was lost, the calls open
 * around the switch are the same calls after it.
 */
START_TEST(test_rec_off_on)
{
	struct seq	s;

	seq_init(&s);
	seq_entry(&s, FA);
	seq_entry(&s, FB);
	seq_add(&s, RB_EV_OFF, 0, 0, 0);
	seq_add(&s, RB_EV_ON, 0, 0, 0);
	seq_exit(&s, FB);
	seq_exit(&s, FA);
	CK_RECORDING(&s, "+A@0 +B@1 m10@2 m11@2 -B@1x -A@0x");
}
END_TEST

START_TEST(test_rec_named)
{
	struct seq	s;

	seq_init(&s);
	seq_entry(&s, FA);
	seq_named(&s, "work");
	seq_entry(&s, FB);
	seq_add(&s, RB_EV_NAMED_EXIT, 0, 0, 0);
	seq_exit(&s, FA);
	CK_RECORDING(&s, "+A@0 +N@1 +B@2 -B@2u -N@1x -A@0x");
}
END_TEST

/* ---- the graph of a live log (--events, the history view) ------------------ */

/*
 * The rows as "kind depth flags": C call, E end, X exit, G lost, O off...;
 * l leaf, o open, u unwound, n named, c a closing brace, x exit lost.
 */
static void
graph_rows(const struct rbmon_evgraph *g, struct trace *t)
{
	static const char kinds[] = "CEXLSROnGB";
	const struct rbmon_evrow *r;
	size_t		 i;

	memset(t, 0, sizeof *t);
	for (i = 0; i < g->n; i++) {
		r = &g->rows[i];
		trace_add(t, "%s%c%d", i > 0 ? " " : "", kinds[r->kind],
		    r->depth);
		if (r->flags & RBMON_EVF_LEAF)
			trace_add(t, "l");
		if ((r->flags & RBMON_EVF_OPEN) && r->end == 0)
			trace_add(t, "o");	/* as the outputs see it */
		if (r->flags & RBMON_EVF_UNWOUND)
			trace_add(t, "u");
		if (r->flags & RBMON_EVF_NAMED)
			trace_add(t, "n");
		if (r->flags & RBMON_EVF_CLOSE)
			trace_add(t, "c");
		if (r->flags & RBMON_EVF_CUT)
			trace_add(t, "x");
	}
}

/* @s copied from a live log at index @first, added to @g. */
static void
graph_add(struct rbmon_evgraph *g, struct seq *s, uint64_t first)
{
	struct rbmon_evcopy	c;

	memset(&c, 0, sizeof c);
	c.rec = s->ev;
	c.n = c.cap = s->n;
	c.w.first = first;
	c.w.n = s->n;
	c.valid = 1;
	rbmon_evgraph_add(g, &c);
}

#define CK_GRAPH(s, want) do {						\
		struct rbmon_evgraph	g_;				\
		struct trace		t_;				\
									\
		rbmon_evgraph_init(&g_);				\
		graph_add(&g_, (s), 0);					\
		graph_rows(&g_, &t_);					\
		rbmon_evgraph_free(&g_);				\
		ck_assert_str_eq(t_.buf, (want));			\
	} while (0)

START_TEST(test_graph_clean)
{
	struct seq	s;

	seq_init(&s);
	seq_entry(&s, FA);
	seq_entry(&s, FB);
	seq_exit(&s, FB);
	seq_entry(&s, FC);
	seq_exit(&s, FC);
	seq_exit(&s, FA);
	CK_GRAPH(&s, "C0 C1l C1l E0");
}
END_TEST

/* After a gap the depth stays: the exits of the calls cut close them. */
START_TEST(test_graph_lost_mid_call)
{
	struct seq	s;

	seq_init(&s);
	seq_entry(&s, FA);
	seq_entry(&s, FB);
	seq_add(&s, RB_EV_LOST, 0, 5, 0);
	seq_entry(&s, FC);
	seq_exit(&s, FC);
	seq_exit(&s, FB);
	seq_exit(&s, FA);
	CK_GRAPH(&s, "C0x C1x G2 C2l X1c X0c");
}
END_TEST

/* Two copies with records overwritten between them. */
START_TEST(test_graph_gap)
{
	struct rbmon_evgraph	g;
	struct trace		t;
	struct seq		a, b;

	seq_init(&a);
	seq_entry(&a, FA);
	seq_entry(&a, FB);
	seq_init(&b);
	b.ts = 5000;
	seq_exit(&b, FA);
	rbmon_evgraph_init(&g);
	graph_add(&g, &a, 0);
	graph_rows(&g, &t);
	ck_assert_str_eq(t.buf, "C0o C1o");
	graph_add(&g, &b, 10);
	graph_rows(&g, &t);
	ck_assert_str_eq(t.buf, "C0x C1x G2 X1c");
	ck_assert_uint_eq(g.rows[2].arg, 8);
	ck_assert_uint_eq(g.rows[2].index, 2);
	ck_assert_uint_eq(g.next, 11);
	rbmon_evgraph_free(&g);
}
END_TEST

/* Unwound calls say so, and no longer say they are open. */
START_TEST(test_graph_unwound)
{
	struct seq	s;

	seq_init(&s);
	seq_entry(&s, FA);
	seq_entry(&s, FB);
	seq_entry(&s, FC);
	seq_exit(&s, FA);
	CK_GRAPH(&s, "C0 C1u C2u E0");
}
END_TEST

START_TEST(test_graph_cut_start)
{
	struct seq	s;

	seq_init(&s);
	seq_exit(&s, FC);
	seq_exit(&s, FB);
	seq_entry(&s, FD);
	seq_exit(&s, FD);
	seq_exit(&s, FA);
	CK_GRAPH(&s, "X-1c X-2c C-2l X-3c");
}
END_TEST

/*
 * An exit of a function not open while others are: its frame is below
 * them, which it leaves unwound; its "}" is left of them.
 */
START_TEST(test_graph_exit_below)
{
	struct seq	s;

	seq_init(&s);
	seq_entry(&s, FA);
	seq_entry(&s, FB);
	seq_exit(&s, FC);
	seq_entry(&s, FD);
	CK_GRAPH(&s, "C0u C1u X-1c C-1o");
}
END_TEST

START_TEST(test_graph_ends_mid_call)
{
	struct seq	s;

	seq_init(&s);
	seq_entry(&s, FA);
	seq_entry(&s, FB);
	seq_exit(&s, FB);
	seq_entry(&s, FC);
	CK_GRAPH(&s, "C0o C1l C1o");
}
END_TEST

START_TEST(test_graph_off_on)
{
	struct seq	s;

	seq_init(&s);
	seq_entry(&s, FA);
	seq_entry(&s, FB);
	seq_add(&s, RB_EV_OFF, 0, 0, 0);
	seq_add(&s, RB_EV_ON, 0, 0, 0);
	seq_exit(&s, FB);
	seq_exit(&s, FA);
	CK_GRAPH(&s, "C0 C1 O2 E1 E0");
}
END_TEST

START_TEST(test_graph_named)
{
	struct rbmon_evgraph	g;
	struct trace		t;
	struct seq		s;

	seq_init(&s);
	seq_named(&s, "work");
	seq_entry(&s, FB);
	seq_exit(&s, FB);
	seq_add(&s, RB_EV_NAMED_EXIT, 0, 0, 0);
	rbmon_evgraph_init(&g);
	graph_add(&g, &s, 0);
	graph_rows(&g, &t);
	ck_assert_str_eq(t.buf, "C0n C1l E0n");
	ck_assert_str_eq(g.rows[0].name, "work");
	ck_assert_str_eq(g.rows[0].file, "w.c");
	ck_assert_uint_eq(g.rows[0].arg, 7);
	ck_assert_str_eq(g.rows[2].name, "work");
	rbmon_evgraph_free(&g);
}
END_TEST

/* ---- the engine on a live log (new) ------------------------------------------ */

/* What the engine makes of @s fed as one live copy, then finished. */
static void
walk_live(struct seq *s, struct trace *t)
{
	struct rbcalls_handler	 h = { trace_enter, trace_leave, trace_mark, t };
	struct rbcalls_walk	 w;

	memset(t, 0, sizeof *t);
	rbcalls_walk_live(&w, &h);
	rbcalls_walk_feed(&w, s->ev, s->n, 0);
	while (rbcalls_walk_step(&w))
		;
	rbcalls_walk_finish(&w);
	ck_assert_uint_eq(w.n, 0);
	rbcalls_walk_free(&w);
}

#define CK_LIVE(s, want) do {						\
		struct trace	t_;					\
									\
		walk_live((s), &t_);					\
		ck_assert_str_eq(t_.buf, (want));			\
	} while (0)

/*
 * The same records as above: the same frames, but for exits whose entries
 * are not there, entered when their exits come (a live log cannot look
 * ahead).
 */
START_TEST(test_live_streams)
{
	struct seq	s;

	seq_init(&s);
	seq_entry(&s, FA);
	seq_entry(&s, FB);
	seq_exit(&s, FB);
	seq_entry(&s, FC);
	seq_exit(&s, FC);
	seq_exit(&s, FA);
	CK_LIVE(&s, "+A@0 +B@1 -B@1x +C@1 -C@1x -A@0x");

	seq_init(&s);
	seq_entry(&s, FA);
	seq_entry(&s, FB);
	seq_add(&s, RB_EV_LOST, 0, 5, 0);
	seq_entry(&s, FC);
	seq_exit(&s, FC);
	seq_exit(&s, FA);
	CK_LIVE(&s, "+A@0 +B@1 -B@1c -A@0c L5@0 +C@0 -C@0x +!A@0 -!A@0x");

	seq_init(&s);
	seq_entry(&s, FA);
	seq_entry(&s, FB);
	seq_entry(&s, FC);
	seq_exit(&s, FA);
	CK_LIVE(&s, "+A@0 +B@1 +C@2 -C@2u -B@1u -A@0x");

	seq_init(&s);
	seq_exit(&s, FC);
	seq_exit(&s, FB);
	seq_entry(&s, FD);
	seq_exit(&s, FD);
	seq_exit(&s, FA);
	CK_LIVE(&s, "+!C@0 -!C@0x +!B@0 -!B@0x +D@0 -D@0x +!A@0 -!A@0x");

	seq_init(&s);
	seq_entry(&s, FA);
	seq_entry(&s, FB);
	seq_exit(&s, FC);
	CK_LIVE(&s, "+A@0 +B@1 -B@1u -A@0u +!C@0 -!C@0x");

	seq_init(&s);
	seq_entry(&s, FA);
	seq_entry(&s, FB);
	seq_exit(&s, FB);
	seq_entry(&s, FC);
	CK_LIVE(&s, "+A@0 +B@1 -B@1x +C@1 -C@1o -A@0o");

	seq_init(&s);
	seq_entry(&s, FA);
	seq_entry(&s, FB);
	seq_add(&s, RB_EV_OFF, 0, 0, 0);
	seq_add(&s, RB_EV_ON, 0, 0, 0);
	seq_exit(&s, FB);
	seq_exit(&s, FA);
	CK_LIVE(&s, "+A@0 +B@1 m10@2 m11@2 -B@1x -A@0x");
}
END_TEST

/* Fed copy by copy, with a gap: the frames carry over, the gap cuts them. */
START_TEST(test_live_feed)
{
	struct trace		 t;
	struct rbcalls_handler	 h = { trace_enter, trace_leave, trace_mark, &t };
	struct rbcalls_walk	 w;
	struct seq		 a, b, c;

	seq_init(&a);
	seq_entry(&a, FA);
	seq_entry(&a, FB);
	seq_init(&b);
	b.ts = 2000;
	seq_exit(&b, FB);
	seq_entry(&b, FC);
	seq_init(&c);
	c.ts = 3000;
	seq_exit(&c, FA);
	memset(&t, 0, sizeof t);
	rbcalls_walk_live(&w, &h);
	rbcalls_walk_feed(&w, a.ev, a.n, 0);
	while (rbcalls_walk_step(&w))
		;
	ck_assert_str_eq(t.buf, "+A@0 +B@1");
	rbcalls_walk_feed(&w, b.ev, b.n, 2);
	while (rbcalls_walk_step(&w))
		;
	ck_assert_str_eq(t.buf, "+A@0 +B@1 -B@1x +C@1");
	rbcalls_walk_gap(&w, 4, 6);
	rbcalls_walk_feed(&w, c.ev, c.n, 10);
	while (rbcalls_walk_step(&w))
		;
	ck_assert_str_eq(t.buf, "+A@0 +B@1 -B@1x +C@1 -C@1c -A@0c L6@0 "
	    "+!A@0 -!A@0x");
	ck_assert_uint_eq(w.n, 0);
	rbcalls_walk_free(&w);
}
END_TEST

/* ---- filters (rbmon(1), FILTERS) ---------------------------------------- */

/* A { B { C } D }, ten ns a record from 0. */
static void
seq_filtered(struct seq *s)
{
	seq_init(s);
	seq_entry(s, FA);
	seq_entry(s, FB);
	seq_entry(s, FC);
	seq_exit(s, FC);
	seq_exit(s, FB);
	seq_entry(s, FD);
	seq_exit(s, FD);
	seq_exit(s, FA);
}

/* What the engine tells of seq_filtered() through @fl. */
static void
walk_filtered(struct rbmon_filter *fl, struct trace *t)
{
	struct rbcalls_handler	 h = { trace_enter, trace_leave, trace_mark, t };
	struct rbwalk_ctx	 x;
	struct rbcalls_walk	 w;
	struct seq		 s;
	char			*path, *why = NULL;
	unsigned char		 used[4] = { 0, 0, 0, 0 };

	memset(t, 0, sizeof *t);
	seq_filtered(&s);
	path = seq_record(&s);
	ck_assert_msg(rbwalk_open(&x, path, &why) == 0, "%s", why);
	fl->used = used;
	x.filter = fl;
	rbcalls_walk_init(&w, &x, 0, &h);
	while (rbcalls_walk_step(&w))
		;
	rbcalls_walk_finish(&w);
	rbcalls_walk_free(&w);
	free(fl->match);
	fl->match = NULL;
	fl->nmatch = 0;
	fl->used = NULL;
	rbwalk_close(&x);
	unlink(path);
	free(path);
}

#define CK_FILTERED(fl, want) do {					\
		struct trace	t_;					\
									\
		walk_filtered((fl), &t_);				\
		ck_assert_str_eq(t_.buf, (want));			\
	} while (0)

START_TEST(test_filter_depth)
{
	struct rbmon_filter	fl = { .depth = 2 };

	CK_FILTERED(&fl, "+A@0 +B@1 -B@1x +D@1 -D@1x -A@0x");
}
END_TEST

/* -F: the calls of B and below, from depth 0; -N: no B nor below. */
START_TEST(test_filter_function)
{
	char			*b[] = { "*2000" };
	struct rbmon_filter	 fl = { .funcs = b, .nfuncs = 1 };

	CK_FILTERED(&fl, "+B@0 +C@1 -C@1x -B@0x");
	fl.nfuncs = 0;
	fl.nots = b;
	fl.nnots = 1;
	CK_FILTERED(&fl, "+A@0 +D@1 -D@1x -A@0x");
}
END_TEST

/* --time-range: the calls that begin in it, kept whole. */
START_TEST(test_filter_range)
{
	struct rbmon_filter	fl = { .have_range = 1, .from = 15,
				    .to = 55 };

	CK_FILTERED(&fl, "+C@0 -C@0x +D@0 -D@0x");
	fl.from = 0;
	fl.to = 15;
	CK_FILTERED(&fl, "+A@0 +B@1 -B@1x -A@0x");
}
END_TEST

/* --min-duration: A took 70 ns, B 30, C and D 10. */
START_TEST(test_filter_min)
{
	struct rbmon_filter	fl = { .min_ns = 25 };

	CK_FILTERED(&fl, "+A@0 +B@1 -B@1x -A@0x");
}
END_TEST

START_TEST(test_filter_match)
{
	ck_assert(rbcalls_filter_match("ns::f(int)", "ns::f"));
	ck_assert(rbcalls_filter_match("ns::f", "ns::f"));
	ck_assert(!rbcalls_filter_match("ns::fg(int)", "ns::f"));
	ck_assert(rbcalls_filter_match("ns::f(int)", "ns::*"));
	ck_assert(rbcalls_filter_match("seq_a", "seq_[ab]"));
	ck_assert(!rbcalls_filter_match("seq_c", "seq_[ab]"));
	ck_assert(rbcalls_filter_match("h(std::vector<int>)", "h"));
	ck_assert(!rbcalls_filter_match("main", "mai"));
}
END_TEST

Suite *
suite_calls(void)
{
	Suite	*s = suite_create("calls");
	TCase	*tc = tcase_create("recording");

	tcase_add_test(tc, test_rec_clean);
	tcase_add_test(tc, test_rec_lost_mid_call);
	tcase_add_test(tc, test_rec_lost_chunk);
	tcase_add_test(tc, test_rec_unwound);
	tcase_add_test(tc, test_rec_cut_start);
	tcase_add_test(tc, test_rec_exit_below);
	tcase_add_test(tc, test_rec_ends_mid_call);
	tcase_add_test(tc, test_rec_off_on);
	tcase_add_test(tc, test_rec_named);
	suite_add_tcase(s, tc);
	tc = tcase_create("graph");
	tcase_add_test(tc, test_graph_clean);
	tcase_add_test(tc, test_graph_lost_mid_call);
	tcase_add_test(tc, test_graph_gap);
	tcase_add_test(tc, test_graph_unwound);
	tcase_add_test(tc, test_graph_cut_start);
	tcase_add_test(tc, test_graph_exit_below);
	tcase_add_test(tc, test_graph_ends_mid_call);
	tcase_add_test(tc, test_graph_off_on);
	tcase_add_test(tc, test_graph_named);
	suite_add_tcase(s, tc);
	tc = tcase_create("live");
	tcase_add_test(tc, test_live_streams);
	tcase_add_test(tc, test_live_feed);
	suite_add_tcase(s, tc);
	tc = tcase_create("filter");
	tcase_add_test(tc, test_filter_depth);
	tcase_add_test(tc, test_filter_function);
	tcase_add_test(tc, test_filter_range);
	tcase_add_test(tc, test_filter_min);
	tcase_add_test(tc, test_filter_match);
	suite_add_tcase(s, tc);
	return s;
}
