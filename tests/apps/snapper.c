/* SPDX-License-Identifier: MIT */
/*
 * snapper.c - four threads each running a chain of its own, for trigger
 * snapshots (tests/integration/snapshot*.sh).
 *
 * usage: snapper [-r ROUNDS] [-f] [-k RATE]
 * Threads w1..w4 run rounds of alpha_1 -> alpha_2 -> alpha_3 (w1), beta_*
 * (w2), gamma_* (w3), delta_* (w4), each round's value checked against the
 * first: a snapshot must not change what the program computes.  Main ticks
 * (main_tick) every 100 us.  -f: at SIGUSR1 main calls flag_before() and
 * then sets `snap_flag` to 1 (a watch trigger's moment).  -k RATE: main
 * sends the process SIGUSR2 RATE times a second, from the start, or with
 * -f from SIGUSR1 on.  Without -r the threads
 * run until SIGTERM or SIGINT; with -r they stop after ROUNDS rounds.  At
 * the end it prints "rounds N bad B elapsed_ms T" and exits 0 if B is 0.
 * $RBT_READY gets "ready PID" once every thread ran a round, "flag PID"
 * when the flag is set.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app.h"

volatile int snap_flag;
static volatile sig_atomic_t stop, flag_asked;
static volatile unsigned long rounds_done[4], bad;
static unsigned long rounds_max;

#define CHAIN(p, k)							\
	static unsigned long p##_3(unsigned long x)			\
	{ return x * 2654435761u + k; }					\
	static unsigned long p##_2(unsigned long x)			\
	{ return p##_3(x) ^ p##_3(x + 1); }				\
	static unsigned long p##_1(unsigned long x)			\
	{ unsigned long v = 0, i;					\
	  for (i = 0; i < 8; i++) v += p##_2(x + i);			\
	  return v; }
CHAIN(alpha, 1)
CHAIN(beta, 2)
CHAIN(gamma, 3)
CHAIN(delta, 4)

static unsigned long (*const chains[4])(unsigned long) = {
	alpha_1, beta_1, gamma_1, delta_1
};

NOTRACE static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *worker(void *arg)
{
	long k = (long)arg;
	unsigned long first = chains[k](1000), v;

	while (!stop) {
		v = chains[k](1000);
		if (v != first)
			bad++;
		rounds_done[k]++;
		if (rounds_max != 0 && rounds_done[k] >= rounds_max)
			break;
	}
	return NULL;
}

static void main_tick(void)
{
	const struct timespec t = { 0, 100000 };

	nanosleep(&t, NULL);
}

static void flag_before(void)
{
	main_tick();
}

NOTRACE static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

NOTRACE static void on_flag(int sig)
{
	(void)sig;
	flag_asked = 1;
}

NOTRACE static int all_done(void)
{
	int k;

	for (k = 0; k < 4; k++)
		if (rounds_max == 0 || rounds_done[k] < rounds_max)
			return 0;
	return 1;
}

NOTRACE static void *start(void *arg)
{
	static const char *names[4] = { "w1", "w2", "w3", "w4" };

	pthread_setname_np(pthread_self(), names[(long)arg]);
	return worker(arg);
}

int main(int argc, char **argv)
{
	pthread_t th[4];
	uint64_t t0, next_kill = 0, gap = 0, now;
	unsigned long total = 0;
	int c, ready = 0, fmode = 0;
	long k;

	while ((c = getopt(argc, argv, "r:fk:")) != -1) {
		switch (c) {
		case 'r':
			rounds_max = strtoul(optarg, NULL, 10);
			break;
		case 'f':
			signal(SIGUSR1, on_flag);
			fmode = 1;
			break;
		case 'k':
			gap = 1000000000u / strtoull(optarg, NULL, 10);
			break;
		default:
			return 2;
		}
	}
	signal(SIGTERM, on_stop);
	signal(SIGINT, on_stop);
	t0 = now_ns();
	for (k = 0; k < 4; k++)
		pthread_create(&th[k], NULL, start, (void *)k);
	while (!stop && !all_done()) {
		now = now_ns();
		if (!ready && rounds_done[0] && rounds_done[1] &&
		    rounds_done[2] && rounds_done[3]) {
			app_ready("ready %d", (int)getpid());
			ready = 1;
		}
		if (flag_asked == 1) {
			flag_before();
			snap_flag = 1;
			app_ready("flag %d", (int)getpid());
			flag_asked = 2;
		}
		if (gap != 0 && (!fmode || flag_asked)) {
			while (next_kill <= now) {
				kill(getpid(), SIGUSR2);
				next_kill = (next_kill == 0 ? now :
					     next_kill) + gap;
			}
			continue;
		}
		main_tick();
	}
	stop = 1;
	for (k = 0; k < 4; k++) {
		pthread_join(th[k], NULL);
		total += rounds_done[k];
	}
	printf("rounds %lu bad %lu elapsed_ms %llu\n", total, bad,
	       (unsigned long long)((now_ns() - t0) / 1000000u));
	return bad == 0 ? 0 : 1;
}
