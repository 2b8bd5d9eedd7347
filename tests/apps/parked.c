/* SPDX-License-Identifier: MIT */
/*
 * parked.c - a thread parked in worker_main -> func_a -> func_b -> func_c.
 *
 * The "worker" thread blocks in read() inside func_c; main blocks in
 * sigwait() inside main_wait.  Each writes a line to $RBT_READY once parked
 * ("worker", then "main PID").  SIGTERM or SIGINT ends the program with
 * status 0.  The LINE: markers let tests compute expected lines with grep.
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


static int stop_pipe[2];
static pthread_barrier_t parked;

NOTRACE static void park_until_stop(void)
{
	char c;

	while (read(stop_pipe[0], &c, 1) < 0)
		;
}

static void func_c(void)	/* LINE:func_c_def */
{
	pthread_barrier_wait(&parked);
	app_ready("worker");
	park_until_stop();
}

static void func_b(void)	/* LINE:func_b_def */
{
	func_c();		/* LINE:call_c */
}

static void func_a(void)	/* LINE:func_a_def */
{
	func_b();		/* LINE:call_b */
}

static void *worker_main(void *arg)	/* LINE:worker_main_def */
{
	func_a();		/* LINE:call_a */
	return arg;
}

/* Name the thread before its first instrumented call claims a ring. */
NOTRACE static void *worker_start(void *arg)
{
	pthread_setname_np(pthread_self(), "worker");
	return worker_main(arg);
}

static void main_wait(void)	/* LINE:main_wait_def */
{
	sigset_t set;
	int sig;

	pthread_barrier_wait(&parked);
	app_ready("main %d", (int)getpid());
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigwait(&set, &sig);
}

int main(void)			/* LINE:main_def */
{
	pthread_t worker;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pipe(stop_pipe) < 0 || pthread_barrier_init(&parked, NULL, 2)) {
		perror("parked");
		return 1;
	}
	if (pthread_create(&worker, NULL, worker_start, NULL)) {
		fprintf(stderr, "parked: pthread_create failed\n");
		return 1;
	}
	main_wait();		/* LINE:call_main_wait */
	close(stop_pipe[1]);
	pthread_join(worker, NULL);
	return 0;
}
