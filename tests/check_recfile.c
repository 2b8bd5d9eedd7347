/* SPDX-License-Identifier: MIT */
/* check_recfile: recordings written and read back (recfile.c) and naming
 * their calls (walk.c). */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "monitor/history/recfile.h"
#include "monitor/history/walk.h"

Suite	*suite_recfile(void);

/*
 * A recording of one thread entering and leaving one function at @ts, its
 * clock a counter of @hz ticks a second from (@tsc0, @ns0), in a file of
 * its own.  Return: its path, to unlink() and free().
 */
static char *
rec_make(uint64_t hz, uint64_t tsc0, uint64_t ns0, uint64_t ts)
{
	struct rbrec_writer	w;
	struct rbrec_info	i;
	struct rbrec_thread	t;
	struct rb_event		e[2];
	char			*path;
	int			 fd;

	path = strdup("/tmp/check_recfile.XXXXXX");
	ck_assert_ptr_nonnull(path);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(rbrec_open_write(&w, fd, path, 0), 0);
	memset(&i, 0, sizeof i);
	strcpy(i.program, "check");
	i.clock = RB_CLOCK_TSC;
	i.clock_tsc0 = tsc0;
	i.clock_ns0 = ns0;
	i.clock_tsc_hz = hz;
	rbrec_put(&w, RBREC_INFO, &i, sizeof i, NULL, 0);
	memset(&t, 0, sizeof t);
	t.stream = 1;
	t.pid = t.tid = 100;
	t.image = 1;
	rbrec_put(&w, RBREC_THREAD, &t, sizeof t, NULL, 0);
	memset(e, 0, sizeof e);
	e[0].kind = RB_EV_ENTRY;
	e[0].ts = ts;
	e[0].fn = 0x401000;
	e[1].kind = RB_EV_EXIT;
	e[1].ts = ts + 1;
	e[1].fn = 0x401000;
	rbrec_put_events(&w, 1, 0, e, 2);
	ck_assert_int_eq(rbrec_close_write(&w), 0);
	return path;
}

START_TEST(test_rec_ts)
{
	struct rbrec	 r;
	char		*path, *why = NULL;
	uint64_t	 ns;

	/* 2 ticks a ns. */
	path = rec_make(2000000000ull, 2000, 1000, 4000);
	ck_assert_msg(rbrec_open(&r, path, &why) == 0, "%s", why);
	ck_assert_int_eq(rbrec_ts_ns(&r, 4000, &ns), 0);
	ck_assert_uint_eq(ns, 2000);
	ck_assert_int_eq(rbrec_ts_ns(&r, 0, &ns), 0);
	ck_assert_uint_eq(ns, 0);	/* before the start: 0, not negative */
	rbrec_close(&r);
	unlink(path);
	free(path);
}
END_TEST

/*
 * A rate the file's writer chose: one tick a second.  2^40 ticks on are
 * 2^40 s, more nanoseconds than 64 bits hold: unknown, never a converted
 * value out of range (undefined behaviour in C).
 */
START_TEST(test_rec_ts_out_of_range)
{
	struct rbrec	 r;
	char		*path, *why = NULL;
	uint64_t	 ns = 0;

	path = rec_make(1, 1, 1, 1ull << 40);
	ck_assert_msg(rbrec_open(&r, path, &why) == 0, "%s", why);
	ck_assert_int_eq(rbrec_ts_ns(&r, 2, &ns), 0);
	ck_assert_uint_eq(ns, 1000000001ull);
	ck_assert_int_eq(rbrec_ts_ns(&r, 1ull << 40, &ns), -1);
	ck_assert_int_eq(rbrec_ts_ns(&r, UINT64_MAX, &ns), -1);
	/* 18446744073 s after the base still fits; one more does not. */
	ck_assert_int_eq(rbrec_ts_ns(&r, 18446744073ull, &ns), 0);
	ck_assert_int_eq(rbrec_ts_ns(&r, 18446744075ull, &ns), -1);
	rbrec_close(&r);
	unlink(path);
	free(path);
}
END_TEST

/*
 * Functions are one per name, file and line, whatever their lengths: keys
 * of every length share the map's probe sequences (a longer key is never
 * compared past the end of a shorter one; AddressSanitizer tells).
 */
START_TEST(test_rec_func_names)
{
	struct rbwalk_ctx x;
	char		*path, *why = NULL, name[64], file[16];
	uint32_t	 v[600];
	size_t		 i;

	path = rec_make(2000000000ull, 2000, 1000, 4000);
	ck_assert_msg(rbwalk_open(&x, path, &why) == 0, "%s", why);
	for (i = 0; i < 600; i++) {
		snprintf(name, sizeof name, "%.*s", (int)(1 + i % 40),
		    "ffffffffffffffffffffffffffffffffffffffffffff");
		snprintf(file, sizeof file, "%zu.c", i / 40);
		v[i] = rbwalk_func_named(&x, name, file, (int)(i % 7));
	}
	for (i = 0; i < 600; i++) {
		snprintf(name, sizeof name, "%.*s", (int)(1 + i % 40),
		    "ffffffffffffffffffffffffffffffffffffffffffff");
		snprintf(file, sizeof file, "%zu.c", i / 40);
		ck_assert_uint_eq(rbwalk_func_named(&x, name, file,
		    (int)(i % 7)), v[i]);
		ck_assert_str_eq(x.funcs[v[i]].name, name);
		ck_assert_str_eq(x.funcs[v[i]].file, file);
		ck_assert_int_eq(x.funcs[v[i]].line, (int)(i % 7));
	}
	/* The same name in another file, or at another line, is another. */
	ck_assert_uint_ne(rbwalk_func_named(&x, "f", "0.c", 1), v[0]);
	ck_assert_uint_ne(rbwalk_func_named(&x, "f", "1.c", 0), v[0]);
	rbwalk_close(&x);
	unlink(path);
	free(path);
}
END_TEST

/* ---- written, then read back ----------------------------------------------- */

/* A fresh file for the writer: its path, to unlink() and free(). */
static char *
rt_open(struct rbrec_writer *w)
{
	char	*path;
	int	 fd;

	path = strdup("/tmp/check_recfile.XXXXXX");
	ck_assert_ptr_nonnull(path);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(rbrec_open_write(w, fd, path, 0), 0);
	return path;
}

static void
rt_info(struct rbrec_writer *w)
{
	struct rbrec_info	i;

	memset(&i, 0, sizeof i);
	strcpy(i.program, "check");
	i.clock = RB_CLOCK_MONO;
	ck_assert_int_eq(rbrec_put(w, RBREC_INFO, &i, sizeof i, NULL, 0), 0);
}

static void
rt_thread(struct rbrec_writer *w, uint32_t stream, int32_t tid,
    uint64_t first)
{
	struct rbrec_thread	t;

	memset(&t, 0, sizeof t);
	t.stream = stream;
	t.pid = 100;
	t.tid = tid;
	t.image = 1;
	t.first = first;
	snprintf(t.name, sizeof t.name, "t%d", tid);
	ck_assert_int_eq(rbrec_put(w, RBREC_THREAD, &t, sizeof t, NULL, 0),
	    0);
}

/*
 * Records of every shape the encoder has: each kind, a kind above 15, an
 * address going down, a call site below its function, aux, zero and
 * 64-bit fields, a time going back, a text record's raw bytes.
 */
static void
rt_records(struct rb_event *e, size_t n, uint64_t seed)
{
	size_t	i;

	memset(e, 0, n * sizeof *e);
	for (i = 0; i < n; i++) {
		e[i].ts = 1000000 + seed * 1000 + i * 37;
		e[i].kind = (uint32_t)(1 + (i + seed) % 12);
		e[i].fn = 0x400000 + ((i * 7919 + seed) % 64) * 16;
		e[i].arg = i % 3 == 0 ? 0 : e[i].fn - 5 + i;
		e[i].aux = i % 5 == 0 ? (uint32_t)i : 0;
	}
	e[1].kind = 20;
	e[2].fn = UINT64_MAX;
	e[2].arg = UINT64_MAX - 1;
	e[3].ts = 5;			/* back in time */
	e[4].kind = RB_EV_TEXT;
	e[4].ts = 0x6867666564636261ull;
	e[4].fn = 0;
	e[4].arg = UINT64_MAX;
	e[5].kind = RB_EV_ENTRY;
	e[5].arg = e[5].fn - 0x100;	/* a site below its function */
}

static void
rt_expect(struct rbrec *r, size_t si, const struct rb_event *e, size_t n,
    uint64_t first, size_t gap_at, uint64_t gap_count)
{
	struct rbrec_cursor	c;
	struct rbrec_rec	k;
	size_t			i = 0;
	int			gap = gap_count > 0;

	rbrec_cursor_init(&c, r, &r->streams[si]);
	while (rbrec_next(&c, &k)) {
		if (gap && i == gap_at) {
			ck_assert_int_eq(k.lost, 1);
			ck_assert_uint_eq(k.e.kind, RB_EV_LOST);
			ck_assert_uint_eq(k.e.arg, gap_count);
			ck_assert_uint_eq(k.index, first + gap_at);
			gap = 0;
			first += gap_count;
			continue;
		}
		ck_assert_uint_lt(i, n);
		ck_assert_int_eq(k.lost, 0);
		ck_assert_uint_eq(k.index, first + i);
		ck_assert_uint_eq(k.e.kind, e[i].kind);
		ck_assert_uint_eq(k.e.ts, e[i].ts);
		ck_assert_uint_eq(k.e.fn, e[i].fn);
		ck_assert_uint_eq(k.e.arg, e[i].arg);
		ck_assert_uint_eq(k.e.aux, e[i].aux);
		i++;
	}
	ck_assert_uint_eq(i, n);
	ck_assert_int_eq(gap, 0);
	ck_assert_int_eq(c.bad, 0);
}

/*
 * Two streams whose chunks interleave, one with a gap (a LOST chunk)
 * between two EVENTS chunks, one ended: every record comes back as it
 * was, in order, with its index; the gap where it was; the counts.
 */
START_TEST(test_rec_roundtrip)
{
	struct rbrec_writer	 w;
	struct rbrec_lost	 l;
	struct rbrec_thread_end	 te;
	struct rbrec_end	 end;
	struct rb_event		 a[300], b[40];
	struct rbrec		 r;
	char			*path, *why = NULL;
	uint64_t		 kept = 0, dropped = 0;
	size_t			 i;

	rt_records(a, 300, 1);
	rt_records(b, 40, 2);
	/* Lost records (kind 3) are marks: their counts are records lost. */
	for (i = 0; i < 340; i++) {
		const struct rb_event *e = i < 300 ? &a[i] : &b[i - 300];

		if (e->kind == RB_EV_LOST)
			dropped += e->arg;
		else
			kept++;
	}
	path = rt_open(&w);
	rt_info(&w);
	rt_thread(&w, 1, 101, 10);
	rt_thread(&w, 2, 102, 0);
	ck_assert_int_eq(rbrec_put_events(&w, 1, 10, a, 100), 0);
	ck_assert_int_eq(rbrec_put_events(&w, 2, 0, b, 15), 0);
	ck_assert_int_eq(rbrec_put_events(&w, 1, 110, a + 100, 200), 0);
	memset(&l, 0, sizeof l);
	l.stream = 2;
	l.why = RBREC_LOST_OVERWRITTEN;
	l.count = 1000;
	l.at = 15;
	ck_assert_int_eq(rbrec_put(&w, RBREC_LOST, &l, sizeof l, NULL, 0), 0);
	ck_assert_int_eq(rbrec_put_events(&w, 2, 1015, b + 15, 25), 0);
	memset(&te, 0, sizeof te);
	te.stream = 1;
	te.next = 310;
	te.exited_ns = 77;
	strcpy(te.name, "gone");
	ck_assert_int_eq(rbrec_put(&w, RBREC_THREAD_END, &te, sizeof te, NULL,
	    0), 0);
	memset(&end, 0, sizeof end);
	end.reason = RBREC_END_STOPPED;
	end.streams = 2;
	end.records = 340;
	end.lost = 1000;
	ck_assert_int_eq(rbrec_put(&w, RBREC_END, &end, sizeof end, NULL, 0),
	    0);
	ck_assert_int_eq(rbrec_close_write(&w), 0);
	ck_assert_uint_eq(w.records, kept);
	ck_assert_uint_eq(w.lost, 1000 + dropped);
	ck_assert_uint_eq(w.streams, 2);

	ck_assert_msg(rbrec_open(&r, path, &why) == 0, "%s", why);
	ck_assert_ptr_null(r.warning);
	ck_assert_str_eq(r.info.program, "check");
	ck_assert_uint_eq(r.nstreams, 2);
	ck_assert_int_eq(r.streams[0].info.tid, 101);
	ck_assert_str_eq(r.streams[0].info.name, "t101");
	ck_assert_uint_eq(r.streams[0].info.first, 10);
	ck_assert_int_eq(r.streams[1].info.tid, 102);
	ck_assert_uint_eq(r.streams[0].records, 300);
	ck_assert_uint_eq(r.streams[1].records, 40);
	ck_assert_uint_eq(r.streams[0].lost, 0);
	ck_assert_uint_eq(r.streams[1].lost, 1000);
	ck_assert_int_eq(r.streams[0].ended, 1);
	ck_assert_uint_eq(r.streams[0].end.next, 310);
	ck_assert_str_eq(r.streams[0].end.name, "gone");
	ck_assert_int_eq(r.streams[1].ended, 0);
	ck_assert_int_eq(r.have_end, 1);
	ck_assert_uint_eq(r.end.reason, RBREC_END_STOPPED);
	ck_assert_uint_eq(r.end.records, 340);
	rt_expect(&r, 0, a, 300, 10, 0, 0);
	rt_expect(&r, 1, b, 40, 0, 15, 1000);
	rbrec_close(&r);
	unlink(path);
	free(path);
}
END_TEST

/*
 * A recorder killed mid-write: the file ends inside its last chunk.  It
 * is read to its last whole chunk, says so, and has no END.
 */
START_TEST(test_rec_truncated)
{
	struct rbrec_writer	 w;
	struct rb_event		 a[50];
	struct rbrec		 r;
	char			*path, *why = NULL;
	off_t			 whole;
	int			 fd;

	rt_records(a, 50, 3);
	path = rt_open(&w);
	rt_info(&w);
	rt_thread(&w, 1, 101, 0);
	ck_assert_int_eq(rbrec_put_events(&w, 1, 0, a, 20), 0);
	ck_assert_int_eq(rbrec_flush(&w), 0);
	whole = (off_t)w.kept;
	ck_assert_int_eq(rbrec_put_events(&w, 1, 20, a + 20, 30), 0);
	ck_assert_int_eq(rbrec_close_write(&w), 0);
	ck_assert_uint_gt(w.kept, (uint64_t)whole + 16);
	fd = open(path, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)w.kept - 9), 0);
	close(fd);

	ck_assert_msg(rbrec_open(&r, path, &why) == 0, "%s", why);
	ck_assert_ptr_nonnull(r.warning);
	ck_assert_ptr_nonnull(strstr(r.warning, "cut short"));
	ck_assert_int_eq(r.have_end, 0);
	ck_assert_uint_eq(r.used, (size_t)whole);
	ck_assert_uint_eq(r.nstreams, 1);
	ck_assert_uint_eq(r.streams[0].records, 20);
	rt_expect(&r, 0, a, 20, 0, 0, 0);
	rbrec_close(&r);

	/* Cut inside the header of a chunk: the same. */
	fd = open(path, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, whole + 3), 0);
	close(fd);
	ck_assert_msg(rbrec_open(&r, path, &why) == 0, "%s", why);
	ck_assert_ptr_nonnull(r.warning);
	ck_assert_uint_eq(r.streams[0].records, 20);
	rt_expect(&r, 0, a, 20, 0, 0, 0);
	rbrec_close(&r);
	unlink(path);
	free(path);
}
END_TEST

/* A chunk of a type this reader does not know is skipped. */
START_TEST(test_rec_unknown_chunk)
{
	struct rbrec_writer	 w;
	struct rb_event		 a[10];
	struct rbrec		 r;
	char			*path, *why = NULL, junk[13] = "future chunk";

	rt_records(a, 10, 4);
	path = rt_open(&w);
	rt_info(&w);
	rt_thread(&w, 1, 101, 0);
	ck_assert_int_eq(rbrec_put_events(&w, 1, 0, a, 5), 0);
	ck_assert_int_eq(rbrec_put(&w, 99, junk, sizeof junk, NULL, 0), 0);
	ck_assert_int_eq(rbrec_put_events(&w, 1, 5, a + 5, 5), 0);
	ck_assert_int_eq(rbrec_close_write(&w), 0);
	ck_assert_msg(rbrec_open(&r, path, &why) == 0, "%s", why);
	ck_assert_uint_eq(r.streams[0].records, 10);
	rt_expect(&r, 0, a, 10, 0, 0, 0);
	rbrec_close(&r);
	unlink(path);
	free(path);
}
END_TEST

/* A DYN chunk of process 101, image 1, listing @n of @fns but saying @say. */
static void
rt_dyn(struct rbrec_writer *w, uint32_t off, const struct rb_dynfn *fns,
    size_t n, uint32_t say, uint32_t flags)
{
	struct rbrec_dyn	d;

	memset(&d, 0, sizeof d);
	d.image = 1;
	d.pid = 101;
	d.flags = flags;
	d.off_name = off;
	d.nfns = say;
	ck_assert_int_eq(rbrec_put(w, RBREC_DYN, &d, sizeof d, fns,
	    n * sizeof *fns), 0);
}

/*
 * DYN chunks: the last state is kept, the most functions off and every
 * function listed in any, once, sorted; a list is read within its chunk
 * whatever its count says; entries without an address or reason dropped.
 */
START_TEST(test_rec_dyn)
{
	struct rbrec_writer	 w;
	struct rbrec		 r;
	struct rb_dynfn		 a[4], b[3];
	char			*path, *why = NULL;

	memset(a, 0, sizeof a);
	a[0].addr = 0x3000;
	a[0].reason = RB_DYN_BY_NAME;
	a[1].addr = 0x1000;
	a[1].reason = RB_DYN_BY_AUTO;
	a[2].addr = 0x3000;		/* twice: one, both reasons */
	a[2].reason = RB_DYN_BY_AUTO;
	a[3].addr = 0x5000;		/* no known reason: dropped */
	a[3].reason = 0x100;
	memset(b, 0, sizeof b);
	b[0].addr = 0x2000;
	b[0].reason = RB_DYN_BY_NAME;
	b[1].addr = 0;			/* no address: dropped */
	b[1].reason = RB_DYN_BY_NAME;
	b[2].addr = 0x1000;
	b[2].reason = RB_DYN_BY_NAME;
	path = rt_open(&w);
	rt_info(&w);
	rt_thread(&w, 1, 101, 0);
	rt_dyn(&w, 3, a, 4, 4, RB_DYNF_AUTO);
	/* Says a million, holds 3. */
	rt_dyn(&w, 2, b, 3, 1000000, RB_DYNF_DORMANT | 0x8000);
	rt_dyn(&w, 0, NULL, 0, 0, 0);
	ck_assert_int_eq(rbrec_close_write(&w), 0);
	ck_assert_msg(rbrec_open(&r, path, &why) == 0, "%s", why);
	ck_assert_ptr_nonnull(r.warning);
	ck_assert_uint_eq(r.ndyn, 1);
	ck_assert_uint_eq(r.dyn[0].chunks, 3);
	ck_assert_uint_eq(r.dyn[0].max_off, 3);
	ck_assert_uint_eq(r.dyn[0].last.off_name, 0);
	ck_assert_uint_eq(r.dyn[0].last.nfns, 0);
	ck_assert_int_eq(r.dyn[0].dormant, 1);
	ck_assert_uint_eq(r.dyn[0].nfns, 3);
	ck_assert_uint_eq(r.dyn[0].fns[0], 0x1000);
	ck_assert_uint_eq(r.dyn[0].reasons[0], RB_DYN_BY_NAME | RB_DYN_BY_AUTO);
	ck_assert_uint_eq(r.dyn[0].fns[1], 0x2000);
	ck_assert_uint_eq(r.dyn[0].fns[2], 0x3000);
	ck_assert_uint_eq(r.dyn[0].reasons[2], RB_DYN_BY_NAME | RB_DYN_BY_AUTO);
	rbrec_close(&r);
	unlink(path);
	free(path);
}
END_TEST

Suite *
suite_recfile(void)
{
	Suite	*s = suite_create("recfile");
	TCase	*tc = tcase_create("read");

	tcase_add_test(tc, test_rec_ts);
	tcase_add_test(tc, test_rec_ts_out_of_range);
	tcase_add_test(tc, test_rec_func_names);
	suite_add_tcase(s, tc);
	tc = tcase_create("roundtrip");
	tcase_add_test(tc, test_rec_roundtrip);
	tcase_add_test(tc, test_rec_truncated);
	tcase_add_test(tc, test_rec_unknown_chunk);
	tcase_add_test(tc, test_rec_dyn);
	suite_add_tcase(s, tc);
	return s;
}
