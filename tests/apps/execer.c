/* SPDX-License-Identifier: MIT */
/*
 * execer.c - exec another instrumented program, with or without fork.
 *
 * usage: execer fork PROGRAM [ARGS]
 *   main -> spawn_target forks; the child execs PROGRAM at once; the parent
 *   parks in parent_park and writes "parent PID CHILDPID" to $RBT_READY.
 *   SIGTERM ends it (and the child) with status 0.
 * usage: execer replace PROGRAM [ARGS]
 *   a "sidekick" thread is parked; main -> before_exec writes "pre-exec PID"
 *   and waits for SIGUSR1, then execs PROGRAM in the same process.
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

static void parent_park(pid_t child)
{
	int status;

	app_ready("parent %d %d", (int)getpid(), (int)child);
	while (app_wait(SIGUSR1) == SIGUSR1)
		;
	kill(child, SIGTERM);
	waitpid(child, &status, 0);
}

static void spawn_target(char **argv)
{
	pid_t pid = fork();

	if (pid < 0) {
		perror("execer: fork");
		exit(1);
	}
	if (pid == 0) {
		execv(argv[0], argv);
		perror("execer: execv");
		_exit(127);
	}
	parent_park(pid);
}

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

static void before_exec(char **argv)
{
	pthread_t sidekick;

	if (pipe(stop_pipe) < 0 || pthread_barrier_init(&started, NULL, 2) ||
	    pthread_create(&sidekick, NULL, sidekick_start, NULL)) {
		perror("execer");
		exit(1);
	}
	pthread_barrier_wait(&started);
	app_ready("pre-exec %d", (int)getpid());
	if (app_wait(SIGUSR1) != SIGUSR1)
		exit(0);
	execv(argv[0], argv);
	perror("execer: execv");
	exit(127);
}

int main(int argc, char **argv)
{
	sigset_t set;

	if (argc < 3 || (strcmp(argv[1], "fork") && strcmp(argv[1], "replace"))) {
		fprintf(stderr, "usage: execer fork|replace PROGRAM [ARGS]\n");
		return 2;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (!strcmp(argv[1], "fork"))
		spawn_target(argv + 2);
	else
		before_exec(argv + 2);
	return 0;
}
