/* SPDX-License-Identifier: MIT */
/*
 * latency.c - functions of known call counts and durations, for rbmon
 * latency.
 *
 * usage: latency [-l] SLEEPS QUICKS
 * Three worker threads call lat_sleeper (a nanosleep of 1 ms) SLEEPS times
 * in all (the first takes what does not divide by three) and lat_quick (it
 * returns at once) QUICKS times in all, alternating; main writes "done PID"
 * to $RBT_READY when they are joined, and exits.  With -l, the workers
 * start over and over until SIGTERM or SIGINT (after "ready PID").
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"

#define WORKERS	3

struct work {
	long	sleeps, quicks;
};

static volatile unsigned long sink;
static volatile sig_atomic_t stop;

static void lat_sleeper(void)
{
	struct timespec ts = { 0, 1000000 };

	while (nanosleep(&ts, &ts) != 0)
		;
}

static unsigned long lat_quick(unsigned long x)
{
	return x * 2654435761u;
}

static void *lat_worker(void *arg)
{
	const struct work *w = arg;
	long s = 0, q = 0, per;

	/* A sleep, then its share of quick calls, until both are done. */
	per = w->sleeps > 0 ? w->quicks / w->sleeps + 1 : w->quicks;
	while (s < w->sleeps || q < w->quicks) {
		if (s < w->sleeps) {
			lat_sleeper();
			s++;
		}
		for (long i = 0; i < per && q < w->quicks; i++, q++)
			sink += lat_quick((unsigned long)q);
	}
	return NULL;
}

NOTRACE static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

NOTRACE static void run(long sleeps, long quicks)
{
	pthread_t t[WORKERS];
	struct work w[WORKERS];
	int i;

	for (i = 0; i < WORKERS; i++) {
		w[i].sleeps = sleeps / WORKERS + (i == 0 ? sleeps % WORKERS : 0);
		w[i].quicks = quicks / WORKERS + (i == 0 ? quicks % WORKERS : 0);
		if (pthread_create(&t[i], NULL, lat_worker, &w[i]) != 0)
			exit(1);
	}
	for (i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
	int loop = 0;

	if (argc > 1 && strcmp(argv[1], "-l") == 0) {
		loop = 1;
		argc--;
		argv++;
	}
	if (argc != 3)
		return 2;
	if (loop) {
		signal(SIGTERM, on_signal);
		signal(SIGINT, on_signal);
		app_ready("ready %d", (int)getpid());
		while (!stop)
			run(atol(argv[1]), atol(argv[2]));
		return 0;
	}
	run(atol(argv[1]), atol(argv[2]));
	app_ready("done %d", (int)getpid());
	return 0;
}
