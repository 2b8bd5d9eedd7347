/* SPDX-License-Identifier: MIT */
/* check_recfile: reading recordings back (recfile.c) and naming their calls
 * (walk.c). */
#include "config.h"

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
	struct rp_ctx	 x;
	char		*path, *why = NULL, name[64], file[16];
	uint32_t	 v[600];
	size_t		 i;

	path = rec_make(2000000000ull, 2000, 1000, 4000);
	ck_assert_msg(rp_open(&x, path, &why) == 0, "%s", why);
	for (i = 0; i < 600; i++) {
		snprintf(name, sizeof name, "%.*s", (int)(1 + i % 40),
		    "ffffffffffffffffffffffffffffffffffffffffffff");
		snprintf(file, sizeof file, "%zu.c", i / 40);
		v[i] = rp_func_named(&x, name, file, (int)(i % 7));
	}
	for (i = 0; i < 600; i++) {
		snprintf(name, sizeof name, "%.*s", (int)(1 + i % 40),
		    "ffffffffffffffffffffffffffffffffffffffffffff");
		snprintf(file, sizeof file, "%zu.c", i / 40);
		ck_assert_uint_eq(rp_func_named(&x, name, file,
		    (int)(i % 7)), v[i]);
		ck_assert_str_eq(x.funcs[v[i]].name, name);
		ck_assert_str_eq(x.funcs[v[i]].file, file);
		ck_assert_int_eq(x.funcs[v[i]].line, (int)(i % 7));
	}
	/* The same name in another file, or at another line, is another. */
	ck_assert_uint_ne(rp_func_named(&x, "f", "0.c", 1), v[0]);
	ck_assert_uint_ne(rp_func_named(&x, "f", "1.c", 0), v[0]);
	rp_close(&x);
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
	return s;
}
