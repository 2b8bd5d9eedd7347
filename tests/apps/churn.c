/* SPDX-License-Identifier: MIT */
/*
 * churn.c - threads that live in the hooks, for attach/detach under load.
 *
 * usage: churn [THREADS]
 * THREADS (default 8) threads named "churn" call tiny instrumented
 * functions without pause (churn_walk -> churn_step -> churn_leaf, 6 levels
 * deep): most of their time is spent in the hooks, so a thread is often
 * preempted inside one, or between calling one and entering it.  Each
 * round's sum is checked against the same computation without calls
 * ("ERROR ..." on stdout if it differs); main prints "rounds N" on SIGUSR1
 * (N the rounds every thread has completed so far).  Readiness: "ready
 * PID", on stdout and in $RBT_READY, once every thread has looped.
 * SIGTERM or SIGINT ends it ("done").
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "app.h"

#define MAX_THREADS	64
#define DEPTH		6

static volatile sig_atomic_t stop;
static volatile unsigned long rounds[MAX_THREADS];

__attribute__((noinline)) static unsigned churn_leaf(unsigned x)
{
	return x * 2654435761u ^ (x >> 7);
}

__attribute__((noinline)) static unsigned churn_step(unsigned x, int d)
{
	if (d == 0)
		return churn_leaf(x);
	return churn_step(churn_leaf(x), d - 1) + 1;
}

__attribute__((noinline)) static unsigned churn_walk(unsigned x)
{
	return churn_step(x, DEPTH - 2);
}

NOTRACE static unsigned churn_expect(unsigned x)
{
	unsigned v;
	int i;

	for (i = 0; i < DEPTH - 1; i++)
		x = x * 2654435761u ^ (x >> 7);
	v = x;
	return v + DEPTH - 2;
}

static void *churn_main(void *arg)
{
	long i = (long)arg;
	unsigned x = (unsigned)i * 7919u + 1;

	while (!stop) {
		if (churn_walk(x) != churn_expect(x)) {
			printf("ERROR: thread %ld: a sum came out wrong\n", i);
			fflush(stdout);
		}
		x++;
		rounds[i]++;
	}
	return NULL;
}

NOTRACE static unsigned long min_rounds(long n)
{
	unsigned long m = (unsigned long)-1;
	long i;

	for (i = 0; i < n; i++)
		if (rounds[i] < m)
			m = rounds[i];
	return m;
}

NOTRACE int main(int argc, char **argv)
{
	pthread_t th[MAX_THREADS];
	sigset_t set;
	long n = argc > 1 ? atol(argv[1]) : 8, i;
	int sig;

	if (n < 1 || n > MAX_THREADS) {
		fprintf(stderr, "churn: THREADS from 1 to %d\n", MAX_THREADS);
		return 2;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	for (i = 0; i < n; i++) {
		pthread_create(&th[i], NULL, churn_main, (void *)i);
		pthread_setname_np(th[i], "churn");
	}
	while (min_rounds(n) == 0)
		sched_yield();
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	app_ready("ready %d", (int)getpid());
	for (;;) {
		sigwait(&set, &sig);
		if (sig != SIGUSR1)
			break;
		printf("rounds %lu\n", min_rounds(n));
		fflush(stdout);
	}
	stop = 1;
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	printf("done\n");
	return 0;
}
