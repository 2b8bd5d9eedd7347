/* SPDX-License-Identifier: MIT */
/*
 * wfork.c - watches before and after fork(), for watch-fork.
 *
 * main starts "looper", which calls tick() (instrumented) every
 * millisecond, then reports "parent PID LOOPER-TID" and waits in
 * sigwait().  SIGUSR1 makes main fork from fork_here() (instrumented, so
 * the forking thread is traced): the child sets `side` to 2 and its own
 * tls_side to 20, reports "child PID", and loops calling child_tick()
 * every millisecond until SIGTERM.  The parent (side 1, looper's tls_side
 * 10) reports "forked CHILDPID" and waits again; SIGTERM ends both with
 * status 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "app.h"

int side = 1;
unsigned long ticks;
__thread int tls_side;

void tick(void);
void child_tick(void);
pid_t fork_here(void);

NOTRACE static void nap(void)
{
	struct timespec ts = { 0, 1000000 };

	nanosleep(&ts, NULL);
}

void tick(void)
{
	ticks++;
}

void child_tick(void)
{
	ticks++;
}

static void *looper_main(void *arg)
{
	(void)arg;
	tls_side = 10;
	app_ready("looper %ld", (long)syscall(SYS_gettid));
	for (;;) {
		tick();
		nap();
	}
	return NULL;
}

pid_t fork_here(void)
{
	return fork();
}

NOTRACE static void child_main(void)
{
	sigset_t set;

	side = 2;
	tls_side = 20;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	app_ready("child %d", (int)getpid());
	for (;;) {
		child_tick();
		nap();
	}
}

int main(void)
{
	sigset_t set;
	pthread_t t;
	pid_t child = 0;
	int sig, status;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pthread_create(&t, NULL, looper_main, NULL) != 0)
		return 1;
	app_ready("parent %d", (int)getpid());
	for (;;) {
		sigwait(&set, &sig);
		if (sig != SIGUSR1)
			break;
		if (child == 0) {
			child = fork_here();
			if (child == 0)
				child_main();
			app_ready("forked %d", (int)child);
		}
	}
	if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, &status, 0);
	}
	return 0;
}
