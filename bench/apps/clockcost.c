/* SPDX-License-Identifier: MIT */
/*
 * clockcost.c - what one timestamp costs on this machine, next to an empty
 * call: the reference that makes figures of different machines comparable.
 *
 * usage: clockcost [READS [ROUNDS]]	(default 10000000 reads, 7 rounds)
 *
 * Times READS iterations of a loop with CLOCK_MONOTONIC around it, ROUNDS
 * times each, alternating, and prints the median ns per iteration:
 *	noop_ns N	a call to an empty function (not inlined)
 *	counter_ns N NAME	the hooks' inline counter (common/clock.h):
 *			tsc (rdtsc), cntvct (isb; mrs cntvct_el0); absent
 *			where there is none
 *	mono_ns N	clock_gettime(CLOCK_MONOTONIC), through the vDSO
 * Each loop's result goes into a volatile sink, so that no read is
 * dropped.  Not instrumented: it measures the clocks, not the hooks.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "common/clock.h"

#define MAX_ROUNDS	99

static volatile uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static __attribute__((noinline)) uint64_t empty(uint64_t i)
{
	__asm__ __volatile__("" : "+r"(i));
	return i;
}

static uint64_t loop_noop(uint64_t n)
{
	uint64_t i, s = 0;

	for (i = 0; i < n; i++)
		s += empty(i);
	return s;
}

static uint64_t loop_counter(uint64_t n)
{
	uint64_t i, s = 0;

	for (i = 0; i < n; i++)
		s += rb_counter_read();
	return s;
}

static uint64_t loop_mono(uint64_t n)
{
	struct timespec ts;
	uint64_t i, s = 0;

	for (i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		s += (uint64_t)ts.tv_nsec;
	}
	return s;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static uint64_t (*const loops[])(uint64_t) = {
		loop_noop, loop_counter, loop_mono
	};
	double t[3][MAX_ROUNDS] = { { 0 } };
	uint64_t n = 10000000, t0;
	int rounds = 7, r, k;

	if (argc > 1)
		n = strtoull(argv[1], NULL, 10);
	if (argc > 2)
		rounds = atoi(argv[2]);
	if (n == 0 || rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: clockcost [READS [ROUNDS (1 to %d)]]\n",
			MAX_ROUNDS);
		return 2;
	}
	for (r = 0; r < rounds; r++) {
		for (k = 0; k < 3; k++) {
			if (k == 1 && RB_CLOCK_COUNTER == 0)
				continue;
			t0 = now_ns();
			sink = loops[k](n);
			t[k][r] = (double)(now_ns() - t0) / (double)n;
		}
	}
	for (k = 0; k < 3; k++)
		qsort(t[k], (size_t)rounds, sizeof(double), cmp);
	printf("noop_ns %.3f\n", t[0][rounds / 2]);
	if (RB_CLOCK_COUNTER != 0)
		printf("counter_ns %.3f %s\n", t[1][rounds / 2],
		       rb_clock_name(RB_CLOCK_COUNTER));
	printf("mono_ns %.3f\n", t[2][rounds / 2]);
	return 0;
}
