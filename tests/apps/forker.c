/* SPDX-License-Identifier: MIT */
/*
 * forker.c - fork from main -> parent_work -> fork_here, both sides parked.
 *
 * A "sidekick" thread is parked before the fork (the child must not show
 * it).  The child parks in child_park and writes "child PID"; the parent
 * parks in parent_park and writes "parent PID CHILDPID" to $RBT_READY.
 * SIGTERM to the parent ends both with status 0.
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
#include <sys/wait.h>
#include <unistd.h>

#include "app.h"


static int stop_pipe[2];
static pthread_barrier_t started;

static void sidekick_park(void)
{
	char c;

	pthread_barrier_wait(&started);
	while (read(stop_pipe[0], &c, 1) < 0)
		;
}

static void *sidekick_main(void *arg)
{
	sidekick_park();
	return arg;
}

NOTRACE static void *sidekick_start(void *arg)
{
	pthread_setname_np(pthread_self(), "sidekick");
	return sidekick_main(arg);
}

static void child_park(void)	/* LINE:child_park_def */
{
	app_ready("child %d", (int)getpid());
	app_wait(0);
	_exit(0);
}

static void parent_park(pid_t child)	/* LINE:parent_park_def */
{
	int status;

	app_ready("parent %d %d", (int)getpid(), (int)child);
	app_wait(0);
	kill(child, SIGTERM);
	waitpid(child, &status, 0);
}

static void fork_here(void)	/* LINE:fork_here_def */
{
	pid_t pid = fork();

	if (pid < 0) {
		perror("forker: fork");
		exit(1);
	}
	if (pid == 0)
		child_park();		/* LINE:call_child_park */
	else
		parent_park(pid);	/* LINE:call_parent_park */
}

static void parent_work(void)	/* LINE:parent_work_def */
{
	fork_here();		/* LINE:call_fork_here */
}

int main(void)			/* LINE:main_def */
{
	pthread_t sidekick;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pipe(stop_pipe) < 0 || pthread_barrier_init(&started, NULL, 2) ||
	    pthread_create(&sidekick, NULL, sidekick_start, NULL)) {
		perror("forker");
		return 1;
	}
	pthread_barrier_wait(&started);
	parent_work();		/* LINE:call_parent_work */
	close(stop_pipe[1]);
	pthread_join(sidekick, NULL);
	return 0;
}
