/* SPDX-License-Identifier: MIT */
/*
 * pace.c - calls at a set rate: an instrumented leaf function called RATE
 * times a second on each of THREADS threads for SECONDS, so that a
 * recorder can be offered a known number of events per second.
 *
 * usage: pace RATE SECONDS [THREADS]
 * RATE: call pairs (one enter + one exit: two events) per second and
 * thread, 0 for as fast as the loop goes.  Each thread reads
 * CLOCK_MONOTONIC in uninstrumented code and makes the calls due by then
 * (RATE x the time since its start); when it falls more than 1 ms of calls
 * behind (it was preempted, or the rate is above what it can make) it
 * gives the backlog up rather than make it in one burst, so the calls come
 * as evenly as the clock allows.  Only main(), leaf() and attach() are
 * instrumented, so the count is exact.
 *
 * It prints one line on standard output, in fib's form (bench/apps/fib.c):
 *	calls C timed_calls D threads T work_ns W wall_ns X result R
 * C: every call pair of the process (main, each new thread's attach());
 * D: the leaf calls made; W: the sum of the threads' times; X: the wall
 * time from the first thread's start to the last one's end; R: the calls
 * given up (behind by more than 1 ms).
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"		/* tests/apps/app.h: NOTRACE */

#define THREADS_MAX	256
#define RATE_MAX	1000000000ul
#define SECONDS_MAX	3600ul
#define BATCH		256	/* RATE 0: calls between clock reads */

static unsigned long pace_rate;
static uint64_t pace_ns;
static pthread_barrier_t pace_go;

struct pace_share {
	pthread_t tid;
	uint64_t t0, t1;
	unsigned long calls, skipped;
};

NOTRACE static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The instrumented call. */
static __attribute__((noinline)) void leaf(void)
{
	__asm__ volatile("" ::: "memory");
}

/* A new thread's first traced call, before its clock starts. */
static __attribute__((noinline)) void attach(void)
{
	__asm__ volatile("" ::: "memory");
}

NOTRACE static void pace_work(struct pace_share *s)
{
	uint64_t t, end, due, slack = pace_rate / 1000;
	unsigned long done = 0, skipped = 0, i;

	s->t0 = t = now_ns();
	end = s->t0 + pace_ns;
	while (t < end) {
		if (pace_rate == 0) {
			for (i = 0; i < BATCH; i++)
				leaf();
			done += BATCH;
		} else {
			due = (uint64_t)((unsigned __int128)(t - s->t0) *
					 pace_rate / 1000000000u) - skipped;
			if (due > done + slack) {
				skipped += due - done - slack;
				due = done + slack;
			}
			while (done < due) {
				leaf();
				done++;
			}
		}
		t = now_ns();
	}
	s->t1 = t;
	s->calls = done;
	s->skipped = skipped;
}

NOTRACE static void *pace_thread(void *arg)
{
	struct pace_share *s = arg;

	attach();
	pthread_barrier_wait(&pace_go);
	pace_work(s);
	return NULL;
}

NOTRACE static int number(const char *s, unsigned long lo, unsigned long hi,
			  unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno == 0 && end != s && *end == '\0' && *s != '-' &&
	       *out >= lo && *out <= hi;
}

int main(int argc, char **argv)
{
	unsigned long rate, secs, threads = 1, i, calls = 0, skipped = 0;
	struct pace_share *sh;
	uint64_t work = 0, w0, w1 = 0;
	int err;

	if (argc < 3 || argc > 4 ||
	    !number(argv[1], 0, RATE_MAX, &rate) ||
	    !number(argv[2], 1, SECONDS_MAX, &secs) ||
	    (argc > 3 && !number(argv[3], 1, THREADS_MAX, &threads))) {
		fprintf(stderr, "usage: pace RATE SECONDS [THREADS]\n"
			"  RATE 0..%lu call pairs a second and thread (0: as fast as it goes),\n"
			"  SECONDS 1..%lu, THREADS 1..%d\n",
			RATE_MAX, SECONDS_MAX, THREADS_MAX);
		return 2;
	}
	pace_rate = rate;
	pace_ns = (uint64_t)secs * 1000000000u;
	sh = calloc(threads, sizeof(*sh));
	if (sh == NULL) {
		perror("pace");
		return 1;
	}
	if (threads == 1) {
		pace_work(&sh[0]);
	} else {
		if (pthread_barrier_init(&pace_go, NULL, (unsigned)threads + 1)) {
			perror("pace");
			return 1;
		}
		for (i = 0; i < threads; i++) {
			err = pthread_create(&sh[i].tid, NULL, pace_thread, &sh[i]);
			if (err) {
				fprintf(stderr, "pace: pthread_create: %s\n", strerror(err));
				return 1;
			}
		}
		pthread_barrier_wait(&pace_go);
		for (i = 0; i < threads; i++)
			pthread_join(sh[i].tid, NULL);
	}
	w0 = sh[0].t0;
	for (i = 0; i < threads; i++) {
		if (sh[i].t0 < w0)
			w0 = sh[i].t0;
		if (sh[i].t1 > w1)
			w1 = sh[i].t1;
		work += sh[i].t1 - sh[i].t0;
		calls += sh[i].calls;
		skipped += sh[i].skipped;
	}
	printf("calls %lu timed_calls %lu threads %lu work_ns %llu wall_ns %llu result %lu\n",
	       calls + 1 + (threads > 1 ? threads : 0), calls, threads,
	       (unsigned long long)work, (unsigned long long)(w1 - w0), skipped);
	free(sh);
	return 0;
}
