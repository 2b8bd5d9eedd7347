/* SPDX-License-Identifier: MIT */
/*
 * daemon.c - a parent that forks a daemon and exits at once (daemon.sh).
 *
 * A thread sets the library up (its first hook) and is joined; then main,
 * which has not run a hook itself, forks and exits.  The child waits until
 * it has been given to another parent, so its first hook comes after its
 * parent is gone, writes "daemon PID PARENT" to $RBT_READY and parks in
 * daemon_park until SIGTERM.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "app.h"

static void *setup_main(void *arg)
{
	return arg;
}

static void daemon_park(pid_t parent)
{
	app_ready("daemon %d %d", (int)getpid(), (int)parent);
	app_wait(0);
}

NOTRACE int main(void)
{
	const struct timespec tick = { 0, 1000000 };
	pthread_t t;
	sigset_t set;
	pid_t parent = getpid(), pid;
	int i;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pthread_create(&t, NULL, setup_main, NULL) != 0 ||
	    pthread_join(t, NULL) != 0)
		return 2;
	pid = fork();
	if (pid < 0) {
		perror("daemon: fork");
		return 1;
	}
	if (pid > 0) {
		app_ready("parent %d %d", (int)parent, (int)pid);
		_exit(0);
	}
	/* Bounded: 30 s for the parent to exit. */
	for (i = 0; getppid() == parent && i < 30000; i++)
		nanosleep(&tick, NULL);
	if (getppid() == parent) {
		fprintf(stderr, "daemon: the parent did not exit\n");
		return 1;
	}
	daemon_park(parent);
	return 0;
}
