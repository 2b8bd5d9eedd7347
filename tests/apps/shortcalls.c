/* SPDX-License-Identifier: MIT */
/*
 * shortcalls.c - threads making many quick calls and a few slow ones, for
 * the event log's minimum duration (rbtrace(5), "EVENT LOG", "Short
 * calls"): with a threshold between the two, the log keeps the slow calls
 * only, and counts every quick call as a short call dropped.
 *
 * usage: shortcalls [-t THREADS] [-n QUICK] [-s SLOW] [-p | -r]
 * Each thread "short-K" (THREADS of them, default 3) runs short_work():
 *   short_thread { short_work { quick_call {} x QUICK
 *                               slow_call { quick_call {} } x SLOW } }
 * where slow_call sleeps 3 ms before its quick_call; then writes
 * "worked PID TID QUICK+SLOW" (its quick calls) and stays, parked, so its
 * log stays on show.  Main writes "done PID" once every thread worked and
 * waits for SIGTERM.
 * -p  phases instead, in main alone: short_work(), "phase N PID", wait for
 *     SIGUSR1; three times, then "done PID" and wait.
 * -r  the threads run short_work() again and again: main writes "running
 *     PID" and waits for SIGUSR1, then the threads stop after their round.
 * Defaults: QUICK 100000, SLOW 50.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "app.h"

#define THREADS_MAX	16

static long quick = 100000, slow = 50;
static volatile unsigned long sink;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int worked;
static volatile int again;	/* -r: 1 while the threads go round */

/* One more thread worked: tell main, then stay for good. */
NOTRACE static void short_park(void)
{
	pthread_mutex_lock(&mu);
	worked++;
	pthread_cond_broadcast(&cv);
	for (;;)
		pthread_cond_wait(&cv, &mu);
}

static void quick_call(void)
{
	sink++;
}

NOTRACE static void short_sleep(void)
{
	struct timespec ts = { 0, 3000000 };

	while (nanosleep(&ts, &ts) != 0)
		;
}

static void slow_call(void)
{
	short_sleep();
	quick_call();
}

static void short_work(void)
{
	long i;

	for (i = 0; i < quick; i++)
		quick_call();
	for (i = 0; i < slow; i++)
		slow_call();
}

static void *short_thread(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "short-%d", (int)(long)arg);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	do
		short_work();
	while (__atomic_load_n(&again, __ATOMIC_RELAXED));
	app_ready("worked %d %d %ld", (int)getpid(), (int)gettid(),
	    quick + slow);
	short_park();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[THREADS_MAX];
	int opt, threads = 3, phases = 0, rounds = 0, i;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	while ((opt = getopt(argc, argv, "t:n:s:pr")) != -1) {
		switch (opt) {
		case 't': threads = atoi(optarg); break;
		case 'n': quick = atol(optarg); break;
		case 's': slow = atol(optarg); break;
		case 'p': phases = 1; break;
		case 'r': rounds = 1; break;
		default: return 2;
		}
	}
	if (threads < 0 || threads > THREADS_MAX || quick < 0 || slow < 0)
		return 2;
	if (phases) {
		for (i = 1; i <= 3; i++) {
			short_work();
			app_ready("phase %d %d", i, (int)getpid());
			if (app_wait(SIGUSR1) != SIGUSR1)
				return 0;
		}
	} else {
		again = rounds;
		for (i = 0; i < threads; i++)
			if (pthread_create(&t[i], NULL, short_thread,
					   (void *)(long)(i + 1)) != 0)
				return 2;
		if (rounds) {
			app_ready("running %d", (int)getpid());
			if (app_wait(SIGUSR1) != SIGUSR1)
				return 0;
			__atomic_store_n(&again, 0, __ATOMIC_RELAXED);
		}
		pthread_mutex_lock(&mu);
		while (worked < threads)
			pthread_cond_wait(&cv, &mu);
		pthread_mutex_unlock(&mu);
	}
	app_ready("done %d", (int)getpid());
	app_wait(0);
	return 0;
}
