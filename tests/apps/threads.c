/* SPDX-License-Identifier: MIT */
/*
 * threads.c - churn short-lived threads, then park some.
 *
 * usage: threads CHURN PARK [BATCH]
 * Creates CHURN "churn" threads, at most BATCH (default 5) alive at a time,
 * each running churn_main -> churn_step -> churn_leaf and exiting; all are
 * joined.  Then PARK "parked" threads block in park_here (a read() on a
 * pipe); main writes "ready PID" to $RBT_READY once they all got there and
 * waits in main_wait.  SIGTERM or SIGINT releases them, joins them and exits
 * with status 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"

#define MAX_BATCH	64

static int stop_pipe[2];
static pthread_barrier_t parked;
static volatile unsigned long sink;

static unsigned long churn_leaf(unsigned long x)
{
	return x * 2654435761u;
}

static unsigned long churn_step(unsigned long x)
{
	return churn_leaf(x) + churn_leaf(x + 1);
}

static void *churn_main(void *arg)
{
	sink += churn_step((unsigned long)arg);
	return NULL;
}

NOTRACE static void park_until_stop(void)
{
	char c;

	while (read(stop_pipe[0], &c, 1) < 0)
		;
}

static void park_here(void)
{
	pthread_barrier_wait(&parked);
	park_until_stop();
}

static void *parked_main(void *arg)
{
	park_here();
	return arg;
}

struct start {
	const char	*name;
	void		*(*fn)(void *);
	void		*arg;
};

/* Name the thread before its first instrumented call claims a ring. */
NOTRACE static void *thread_start(void *p)
{
	struct start *s = p;

	pthread_setname_np(pthread_self(), s->name);
	return s->fn(s->arg);
}

NOTRACE static void spawn(pthread_t *t, struct start *s)
{
	int err = pthread_create(t, NULL, thread_start, s);

	if (err) {
		fprintf(stderr, "threads: pthread_create: %s\n", strerror(err));
		exit(1);
	}
}

static void churn(int n, int batch)
{
	pthread_t t[MAX_BATCH];
	struct start s[MAX_BATCH];
	int i, k, done = 0;

	while (done < n) {
		k = n - done < batch ? n - done : batch;
		for (i = 0; i < k; i++) {
			s[i] = (struct start){ "churn", churn_main,
					       (void *)(unsigned long)(done + i) };
			spawn(&t[i], &s[i]);
		}
		for (i = 0; i < k; i++)
			pthread_join(t[i], NULL);
		done += k;
	}
}

static int main_wait(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigwait(&set, &sig);
	return sig;
}

int main(int argc, char **argv)
{
	int nchurn, npark, batch = 5, i;
	struct start ps = { "parked", parked_main, NULL };
	pthread_t *pt;
	sigset_t set;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: threads CHURN PARK [BATCH]\n");
		return 2;
	}
	nchurn = atoi(argv[1]);
	npark = atoi(argv[2]);
	if (argc == 4)
		batch = atoi(argv[3]);
	if (nchurn < 0 || npark < 0 || batch < 1 || batch > MAX_BATCH) {
		fprintf(stderr, "threads: bad arguments\n");
		return 2;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pt = calloc((size_t)npark + 1, sizeof(*pt));
	if (!pt || pipe(stop_pipe) < 0 ||
	    pthread_barrier_init(&parked, NULL, (unsigned)npark + 1)) {
		perror("threads");
		return 1;
	}

	churn(nchurn, batch);
	for (i = 0; i < npark; i++)
		spawn(&pt[i], &ps);
	pthread_barrier_wait(&parked);
	app_ready("ready %d", (int)getpid());
	main_wait();
	close(stop_pipe[1]);
	for (i = 0; i < npark; i++)
		pthread_join(pt[i], NULL);
	free(pt);
	app_ready("done");
	return 0;
}
