/* SPDX-License-Identifier: MIT */
/*
 * tuilife.c - two parked threads with known stacks that can also end
 * normally with their last stacks kept, for the monitor life-cycle tests.
 *
 * usage: tuilife [-e STATUS]
 * The main thread parks in main -> life_main_wait; a thread named
 * "lifeworker" parks in life_worker_main -> life_outer -> life_inner.  At
 * start the program prints "tuilife: hello stdout PID" on stdout and
 * "tuilife: hello stderr PID" on stderr, then writes "lifeworker TID" and
 * "main PID" to $RBT_READY once both are parked.
 *
 * SIGUSR1 prints "tuilife: usr1 stdout PID" and "tuilife: usr1 stderr PID"
 * (each flushed) and then writes "printed N" (N counts the SIGUSR1s).
 *
 * SIGTERM or SIGINT ends it normally, every thread by itself with its last
 * stack kept: the worker calls pthread_exit() from life_inner, and main,
 * once the worker is joined, calls exit(STATUS) (-e, default 0) from
 * main -> life_leave.  The LINE: markers let tests compute expected lines.
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
#include <sys/syscall.h>
#include <unistd.h>

#include "app.h"


static int wake_pipe[2];
static int opt_status;
static pthread_barrier_t parked;

NOTRACE static void wait_wake(void)
{
	char c;

	while (read(wake_pipe[0], &c, 1) < 0)
		;
}

static void life_inner(void)		/* LINE:life_inner_def */
{
	pthread_barrier_wait(&parked);
	app_ready("lifeworker %ld", (long)syscall(SYS_gettid));
	wait_wake();
	pthread_exit(NULL);	/* ends here: the stack stays as it is */
}

static void life_outer(void)		/* LINE:life_outer_def */
{
	life_inner();		/* LINE:call_inner */
}

static void *life_worker_main(void *arg)	/* LINE:life_worker_main_def */
{
	life_outer();		/* LINE:call_outer */
	return arg;
}

/* Name the thread before its first instrumented call claims a ring. */
NOTRACE static void *life_worker_start(void *arg)
{
	pthread_setname_np(pthread_self(), "lifeworker");
	return life_worker_main(arg);
}

NOTRACE static void life_print(const char *what)
{
	printf("tuilife: %s stdout %d\n", what, (int)getpid());
	fflush(stdout);
	fprintf(stderr, "tuilife: %s stderr %d\n", what, (int)getpid());
	fflush(stderr);
}

static void life_main_wait(void)	/* LINE:life_main_wait_def */
{
	sigset_t set;
	int sig, printed = 0;

	pthread_barrier_wait(&parked);
	app_ready("main %d", (int)getpid());
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	for (;;) {
		sigwait(&set, &sig);
		if (sig != SIGUSR1)
			break;
		life_print("usr1");
		app_ready("printed %d", ++printed);
	}
}

static void life_leave(void)		/* LINE:life_leave_def */
{
	exit(opt_status);	/* ends here: the stack stays as it is */
}

int main(int argc, char **argv)		/* LINE:main_def */
{
	pthread_t worker;
	sigset_t set;
	int c;

	while ((c = getopt(argc, argv, "e:")) != -1) {
		if (c != 'e') {
			fprintf(stderr, "usage: tuilife [-e STATUS]\n");
			return 2;
		}
		opt_status = atoi(optarg);
	}
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pipe(wake_pipe) < 0 || pthread_barrier_init(&parked, NULL, 2)) {
		perror("tuilife");
		return 1;
	}
	life_print("hello");
	if (pthread_create(&worker, NULL, life_worker_start, NULL)) {
		fprintf(stderr, "tuilife: pthread_create failed\n");
		return 1;
	}
	life_main_wait();	/* LINE:call_main_wait */
	if (write(wake_pipe[1], "x", 1) != 1)
		perror("tuilife: wake");
	pthread_join(worker, NULL);
	life_leave();		/* LINE:call_leave */
	return 0;
}
