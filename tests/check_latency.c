/* SPDX-License-Identifier: MIT */
/* check_latency: rbmon latency's percentiles, buckets, order and histogram. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "monitor/history/calls.h"
#include "monitor/history/latency.h"

Suite	*suite_latency(void);

START_TEST(test_quantile_ranks)
{
	uint64_t	v[100], one = 7;
	size_t		i;

	for (i = 0; i < 100; i++)
		v[i] = i + 1;
	/* Nearest rank: the least value with that share at or below it. */
	ck_assert_uint_eq(rblat_quantile(v, 100, 500), 50);
	ck_assert_uint_eq(rblat_quantile(v, 100, 990), 99);
	ck_assert_uint_eq(rblat_quantile(v, 100, 1000), 100);
	ck_assert_uint_eq(rblat_quantile(v, 100, 0), 1);
	ck_assert_uint_eq(rblat_quantile(v, 3, 500), 2);
	ck_assert_uint_eq(rblat_quantile(v, 3, 990), 3);
	ck_assert_uint_eq(rblat_quantile(v, 2, 500), 1);
	ck_assert_uint_eq(rblat_quantile(&one, 1, 500), 7);
	ck_assert_uint_eq(rblat_quantile(&one, 1, 990), 7);
	ck_assert_uint_eq(rblat_quantile(NULL, 0, 500), 0);
}
END_TEST

START_TEST(test_buckets)
{
	ck_assert_uint_eq(rblat_bucket(0), 0);
	ck_assert_uint_eq(rblat_bucket(1), 1);
	ck_assert_uint_eq(rblat_bucket(2), 2);
	ck_assert_uint_eq(rblat_bucket(3), 2);
	ck_assert_uint_eq(rblat_bucket(4), 3);
	ck_assert_uint_eq(rblat_bucket(1023), 10);
	ck_assert_uint_eq(rblat_bucket(1024), 11);
	ck_assert_uint_eq(rblat_bucket(UINT64_MAX), 64);
	ck_assert_uint_eq(rblat_bucket_lo(0), 0);
	ck_assert_uint_eq(rblat_bucket_lo(1), 1);
	ck_assert_uint_eq(rblat_bucket_lo(11), 1024);
	ck_assert_uint_eq(rblat_bucket_lo(64), 1ull << 63);
}
END_TEST

/* 1000 calls of 1 ms and 10 of 5 ms: exact p50, p99, max, total, histogram. */
START_TEST(test_table_exact)
{
	struct rblat	l;
	uint32_t	a, b, order[4];
	size_t		i;

	rblat_init(&l, RBLAT_KEEP_MAX);
	a = rblat_func(&l, "slow", "s.c");
	b = rblat_func(&l, "fast", "f.c");
	ck_assert_uint_eq(rblat_func(&l, "slow", "s.c"), a);
	ck_assert_uint_ne(rblat_func(&l, "slow", "other.c"), a);
	for (i = 0; i < 1000; i++)
		rblat_call(&l, a, 1000000, RBCALLS_L_EXIT);
	for (i = 0; i < 10; i++)
		rblat_call(&l, a, 5000000, i == 0 ? RBCALLS_L_UNWOUND :
		    RBCALLS_L_EXIT);
	rblat_call(&l, a, 0, RBCALLS_L_CUT);
	rblat_call(&l, a, 0, RBCALLS_L_OPEN);
	rblat_entry_lost(&l, a);
	for (i = 0; i < 20000; i++)
		rblat_call(&l, b, 100 + i % 3, RBCALLS_L_EXIT);
	rblat_finish(&l);
	ck_assert_uint_eq(l.f[a].calls, 1010);
	ck_assert_uint_eq(l.f[a].unwound, 1);
	ck_assert_uint_eq(l.f[a].cut, 1);
	ck_assert_uint_eq(l.f[a].open, 1);
	ck_assert_uint_eq(l.f[a].entry_lost, 1);
	ck_assert_uint_eq(l.f[a].total_ns, 1050000000ull);
	ck_assert_uint_eq(l.f[a].p50, 1000000);
	ck_assert_uint_eq(l.f[a].p99, 1000000);
	ck_assert_uint_eq(l.f[a].max_ns, 5000000);
	ck_assert_int_eq(l.f[a].approx, 0);
	ck_assert_uint_eq(l.f[a].hist[rblat_bucket(1000000)], 1000);
	ck_assert_uint_eq(l.f[a].hist[rblat_bucket(5000000)], 10);
	ck_assert_uint_eq(l.f[b].p50, 101);
	ck_assert_uint_eq(l.f[b].p99, 102);
	/* Rows with calls only; by calls fast first, by p99 or total slow. */
	ck_assert_uint_eq(rblat_order(&l, RBLAT_SORT_CALLS, order), 2);
	ck_assert_uint_eq(order[0], b);
	rblat_order(&l, RBLAT_SORT_P99, order);
	ck_assert_uint_eq(order[0], a);
	rblat_order(&l, RBLAT_SORT_TOTAL, order);
	ck_assert_uint_eq(order[0], a);
	rblat_order(&l, RBLAT_SORT_NAME, order);
	ck_assert_uint_eq(order[0], b);
	ck_assert_int_eq(rblat_sort_parse("p99"), RBLAT_SORT_P99);
	ck_assert_int_eq(rblat_sort_parse("p98"), -1);
	rblat_free(&l);
}
END_TEST

/* Memory bounded: past the budget, percentiles from the histogram. */
START_TEST(test_table_bounded)
{
	struct rblat	l;
	uint32_t	a, b;
	size_t		i;

	rblat_init(&l, 64);
	a = rblat_func(&l, "many", "");
	b = rblat_func(&l, "few", "");
	for (i = 0; i < 3; i++)
		rblat_call(&l, b, 10 * (i + 1), RBCALLS_L_EXIT);
	for (i = 0; i < 1000; i++)
		rblat_call(&l, a, i < 900 ? 1500 : 100000, RBCALLS_L_EXIT);
	rblat_finish(&l);
	ck_assert_int_eq(l.f[a].approx, 1);
	ck_assert_int_eq(l.f[b].approx, 0);
	ck_assert_uint_le(l.kept, 64);
	ck_assert_uint_eq(l.f[a].calls, 1000);
	ck_assert_uint_eq(l.f[a].max_ns, 100000);
	/* 1500 is in [1024, 2048): the bucket's middle, 1536. */
	ck_assert_uint_eq(l.f[a].p50, 1536);
	/* 100000 is in [65536, 131072): 98304. */
	ck_assert_uint_eq(l.f[a].p99, 98304);
	ck_assert_uint_eq(l.f[b].p50, 20);
	rblat_free(&l);
}
END_TEST

START_TEST(test_hist_lines)
{
	struct rblat	l;
	uint32_t	a;
	char		**lines;
	size_t		n, i;

	rblat_init(&l, RBLAT_KEEP_MAX);
	a = rblat_func(&l, "f", "");
	ck_assert_uint_eq(rblat_hist_lines(&l.f[a], 0, &lines), 0);
	for (i = 0; i < 30; i++)
		rblat_call(&l, a, 1500, RBCALLS_L_EXIT);
	for (i = 0; i < 10; i++)
		rblat_call(&l, a, 5000, RBCALLS_L_EXIT);
	/* A header, an empty bucket each side, 1024 2048 4096: 6 lines. */
	n = rblat_hist_lines(&l.f[a], 40, &lines);
	ck_assert_uint_eq(n, 6);
	ck_assert_ptr_nonnull(strstr(lines[0], "Distribution"));
	ck_assert_str_eq(lines[1], "      512 ns |                                         0");
	ck_assert_str_eq(lines[2], "     1.02 us |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@           30");
	ck_assert_str_eq(lines[3], "     2.05 us |                                         0");
	ck_assert_str_eq(lines[4], "     4.10 us |@@@@@@@@@@                               10");
	ck_assert_str_eq(lines[5], "     8.19 us |                                         0");
	for (i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	rblat_free(&l);
}
END_TEST

START_TEST(test_time_units)
{
	char	b[32];

	rblat_time(b, sizeof b, 812);
	ck_assert_str_eq(b, "812 ns");
	rblat_time(b, sizeof b, 1050);
	ck_assert_str_eq(b, "1.05 us");
	rblat_time(b, sizeof b, 12300000);
	ck_assert_str_eq(b, "12.3 ms");
	rblat_time(b, sizeof b, 250000000);
	ck_assert_str_eq(b, "250 ms");
	rblat_time(b, sizeof b, 2000000000);
	ck_assert_str_eq(b, "2.00 s");
}
END_TEST

Suite *
suite_latency(void)
{
	Suite	*s = suite_create("latency");
	TCase	*tc = tcase_create("latency");

	tcase_add_test(tc, test_quantile_ranks);
	tcase_add_test(tc, test_buckets);
	tcase_add_test(tc, test_table_exact);
	tcase_add_test(tc, test_table_bounded);
	tcase_add_test(tc, test_hist_lines);
	tcase_add_test(tc, test_time_units);
	suite_add_tcase(s, tc);
	return s;
}
