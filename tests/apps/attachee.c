/* SPDX-License-Identifier: MIT */
/*
 * attachee.c - a program started without rbtrace, for rbtrace -p.
 *
 * usage: attachee [WORKERS]
 * WORKERS (default 3) threads named "worker" loop in worker_main ->
 * chain_outer -> chain_middle -> chain_inner, which sleeps 2 ms: a thread
 * caught at any moment after an attach has chain_outer entered since.  A
 * thread "spawner" starts a short-lived thread "spawned" every 100 ms
 * (spawned_main -> spawned_work, 300 ms).  SIGUSR1 makes main fork a child
 * that runs child_chain -> chain_inner for 2 s and exits ("child PID").
 * main prints "tick N" every 50 ms on stdout, and "ERROR ..." if a sleep
 * ended early or a sum came out wrong: an attach must change neither.
 * Readiness: "ready PID" once every worker has looped.  SIGTERM ends it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "app.h"

#define MAX_WORKERS	16

static volatile sig_atomic_t stop, forks;
static volatile unsigned long loops[MAX_WORKERS];
volatile unsigned long attachee_ticks;	/* watched by the tests */

NOTRACE static unsigned long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long)ts.tv_sec * 1000000000ul + (unsigned long)ts.tv_nsec;
}

/* Sleep @ms, and say so if the sleep ended early (it must not, attached or not). */
NOTRACE static void nap(unsigned ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000l };
	unsigned long t0 = now_ns();

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	if (now_ns() - t0 < (unsigned long)ms * 1000000ul)
		printf("ERROR: a %u ms sleep ended early\n", ms);
}

static void chain_inner(void)
{
	nap(2);
}

static double chain_middle(double x)
{
	chain_inner();
	return x * 1.5;
}

static double chain_outer(double x)
{
	return chain_middle(x) + 0.25;
}

static void *worker_main(void *arg)
{
	long i = (long)arg;
	double x;

	while (!stop) {
		x = chain_outer((double)i);
		/* Floating point kept across the attach: it must come out right. */
		if (x != (double)i * 1.5 + 0.25)
			printf("ERROR: worker %ld computed %f\n", i, x);
		loops[i]++;
	}
	return NULL;
}

static void spawned_work(void)
{
	nap(300);
}

static void *spawned_main(void *arg)
{
	(void)arg;
	spawned_work();
	return NULL;
}

static void *spawner_main(void *arg)
{
	pthread_t t;

	(void)arg;
	while (!stop) {
		if (pthread_create(&t, NULL, spawned_main, NULL) == 0) {
			pthread_setname_np(t, "spawned");
			pthread_detach(t);
		}
		nap(100);
	}
	return NULL;
}

static void child_chain(void)
{
	unsigned long end = now_ns() + 2000000000ul;

	while (now_ns() < end)
		chain_inner();
}

NOTRACE static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		forks++;
	else
		stop = 1;
}

int main(int argc, char **argv)
{
	pthread_t w[MAX_WORKERS], sp;
	int n = argc > 1 ? atoi(argv[1]) : 3, done = 0, seen = 0, i;
	struct sigaction sa;
	pid_t child;

	if (n < 1 || n > MAX_WORKERS) {
		fprintf(stderr, "usage: attachee [WORKERS 1..%d]\n", MAX_WORKERS);
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < n; i++) {
		pthread_create(&w[i], NULL, worker_main, (void *)(long)i);
		pthread_setname_np(w[i], "worker");
	}
	pthread_create(&sp, NULL, spawner_main, NULL);
	pthread_setname_np(sp, "spawner");
	while (!stop) {
		nap(50);
		printf("tick %lu\n", ++attachee_ticks);
		if (!seen) {
			for (i = 0; i < n && loops[i] != 0; i++)
				;
			if (i == n) {
				app_ready("ready %d", (int)getpid());
				seen = 1;
			}
		}
		while (done < forks) {
			done++;
			child = fork();
			if (child == 0) {
				child_chain();
				_exit(0);
			}
			printf("child %d\n", (int)child);
		}
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	for (i = 0; i < n; i++)
		pthread_join(w[i], NULL);
	pthread_join(sp, NULL);
	printf("done\n");
	return 0;
}
