/* SPDX-License-Identifier: MIT */
/*
 * dyncount.c - threads whose calls are known exactly, for dynamic tracing
 * (functions switched off and on while they run).
 *
 * usage: dyncount [-t THREADS] [-n ROUNDS] [-s US] [-w] [-l]
 * Each thread "dc-K" (THREADS, default 3) runs ROUNDS (default 2000)
 * rounds of
 *     dc_round { dc_hot x 64; dc_mid { dc_leaf x 16 }; dc_tail }
 * and checks what they computed against the same sums made without a
 * call: a thread that finds a difference writes "bad TID ROUND" and the
 * program exits 1.  Then "rounds N" (N the rounds of all threads) and
 * "done PID".
 *   -w  write "armed PID" first and wait for SIGUSR1 before any work
 *   -l  loop until SIGTERM (ROUNDS per "round N" line of thread dc-0)
 *   -s  each round also calls dc_spin, which spins for US microseconds
 *       (a function called often whose every call is long)
 * Functions called per round: dc_round 1, dc_hot 64, dc_mid 1, dc_leaf 16,
 * dc_tail 1 (a tail call of dc_leaf's sibling at -O2: dc_tail's exit hook
 * is a jmp).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "app.h"

#define THREADS_MAX	32
#define HOT		64
#define LEAF		16

static long rounds = 2000;
static long spin_us;
static int loop;
static volatile sig_atomic_t stop;
static int bad;
static long total;

__attribute__((noinline)) unsigned long dc_hot(unsigned long x)
{
	return x * 2654435761u + 1;
}

__attribute__((noinline)) unsigned long dc_leaf(unsigned long x)
{
	return (x ^ (x >> 7)) + 3;
}

__attribute__((noinline)) unsigned long dc_mid(unsigned long x)
{
	int i;

	for (i = 0; i < LEAF; i++)
		x = dc_leaf(x);
	return x;
}

__attribute__((noinline)) unsigned long dc_tail(unsigned long x)
{
	return dc_leaf(x + 1);
}

__attribute__((noinline)) void dc_spin(void)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) <
	    spin_us * 1000);
}

__attribute__((noinline)) unsigned long dc_round(unsigned long x)
{
	int i;

	for (i = 0; i < HOT; i++)
		x = dc_hot(x);
	x = dc_mid(x);
	if (spin_us > 0)
		dc_spin();
	return dc_tail(x);
}

/* The same, without a call: what every round must give. */
NOTRACE static unsigned long dc_expect(unsigned long x)
{
	int i;

	for (i = 0; i < HOT; i++)
		x = x * 2654435761u + 1;
	for (i = 0; i < LEAF; i++)
		x = (x ^ (x >> 7)) + 3;
	x = x + 1;
	return (x ^ (x >> 7)) + 3;
}

static void *dc_thread(void *arg)
{
	long k = (long)arg, r, n = 0;
	unsigned long x = (unsigned long)k, want;
	char name[16];

	snprintf(name, sizeof(name), "dc-%ld", k);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	do {
		for (r = 0; r < rounds; r++) {
			want = dc_expect(x);
			x = dc_round(x);
			if (x != want) {
				app_ready("bad %d %ld", (int)gettid(), r);
				__atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
				return NULL;
			}
		}
		__atomic_add_fetch(&total, rounds, __ATOMIC_RELAXED);
		if (loop && k == 0)
			app_ready("round %ld", ++n);
	} while (loop && !stop);
	return NULL;
}

NOTRACE static void dc_stop(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	pthread_t th[THREADS_MAX];
	long threads = 3, i;
	int c, wait_go = 0;

	while ((c = getopt(argc, argv, "t:n:s:wl")) != -1) {
		switch (c) {
		case 't':
			threads = strtol(optarg, NULL, 10);
			break;
		case 'n':
			rounds = strtol(optarg, NULL, 10);
			break;
		case 's':
			spin_us = strtol(optarg, NULL, 10);
			break;
		case 'w':
			wait_go = 1;
			break;
		case 'l':
			loop = 1;
			break;
		default:
			fprintf(stderr, "usage: dyncount [-t THREADS] [-n ROUNDS] [-s US] [-w] [-l]\n");
			return 2;
		}
	}
	if (threads < 1 || threads > THREADS_MAX || rounds < 1)
		return 2;
	signal(SIGTERM, dc_stop);
	if (wait_go) {
		sigset_t set;
		int sig;

		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		pthread_sigmask(SIG_BLOCK, &set, NULL);
		app_ready("armed %d", (int)getpid());
		sigwait(&set, &sig);
	}
	for (i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, dc_thread, (void *)i);
	if (!wait_go)
		app_ready("running %d", (int)getpid());
	for (i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	app_ready("rounds %ld", total);
	app_ready("done %d", (int)getpid());
	return bad;
}
