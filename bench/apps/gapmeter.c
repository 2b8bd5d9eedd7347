/* SPDX-License-Identifier: MIT */
/*
 * gapmeter.c - how long a program is held up: for bench/attach.sh.
 *
 * usage: gapmeter [WORKERS]
 * main loops: an instrumented call, then nanosleep(1 ms); it keeps the
 * longest time a loop overran its 1 ms and, on SIGUSR1, prints "gap NS"
 * (the longest since the last print) on stdout and starts again.
 * WORKERS threads (default 2) call instrumented functions without a pause,
 * so that the hooks are being called while an attach rebinds them; each
 * keeps its own longest gap between two calls, printed alike ("wgap NS").
 * "ready PID" on stdout once running.  SIGTERM ends it.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "app.h"

#define MAX_WORKERS	8

static volatile sig_atomic_t stop, report;
static volatile unsigned long wmax[MAX_WORKERS];
static volatile unsigned long sink;

NOTRACE static unsigned long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long)ts.tv_sec * 1000000000ul + (unsigned long)ts.tv_nsec;
}

__attribute__((noinline)) static void tick(void)
{
	sink++;
}

__attribute__((noinline)) static void work_leaf(unsigned long x)
{
	sink += x;
}

__attribute__((noinline)) static void work(unsigned long x)
{
	work_leaf(x);
}

static void *worker(void *arg)
{
	long i = (long)arg;
	unsigned long last = now_ns(), t;

	while (!stop) {
		work((unsigned long)i);
		t = now_ns();
		if (t - last > wmax[i])
			wmax[i] = t - last;
		last = t;
	}
	return NULL;
}

NOTRACE static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		report = 1;
	else
		stop = 1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2, i;
	const struct timespec ms = { 0, 1000000 };
	unsigned long t0, gap, max = 0, w;
	pthread_t th[MAX_WORKERS];

	if (n < 0 || n > MAX_WORKERS)
		n = 2;
	signal(SIGUSR1, on_signal);
	signal(SIGTERM, on_signal);
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < n; i++)
		pthread_create(&th[i], NULL, worker, (void *)(long)i);
	printf("ready %d\n", (int)getpid());
	while (!stop) {
		t0 = now_ns();
		tick();
		nanosleep(&ms, NULL);
		gap = now_ns() - t0 - 1000000ul;
		if ((long)gap > 0 && gap > max)
			max = gap;
		if (report) {
			report = 0;
			for (w = 0, i = 0; i < n; i++) {
				if (wmax[i] > w)
					w = wmax[i];
				wmax[i] = 0;
			}
			printf("gap %lu wgap %lu\n", max, w);
			max = 0;
		}
	}
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return 0;
}
