/* SPDX-License-Identifier: MIT */
/*
 * forkchain.c - forks at once, N deep (fork-early).
 *
 *   forkchain N
 *
 * The root forks from its first traced call, while the library's watch
 * worker it just started may still be starting; each child starts and
 * joins a thread (the allocations of a thread's start), writes
 * "link K PID PPID" to $RBT_READY, then forks on at once, its own worker
 * just started in turn.  The last child parks until SIGTERM; then each
 * process exits with its child's status, the root last.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app.h"

static void *side(void *arg)
{
	return arg;
}

static int chain(int k, int n)
{
	pthread_t t;
	int status;
	pid_t pid;

	if (k == n) {
		app_wait(0);
		return 0;
	}
	pid = fork();
	if (pid < 0) {
		perror("forkchain: fork");
		return 1;
	}
	if (pid == 0) {
		if (pthread_create(&t, NULL, side, NULL) != 0 ||
		    pthread_join(t, NULL) != 0)
			_exit(2);
		app_ready("link %d %d %d", k + 1, (int)getpid(), (int)getppid());
		_exit(chain(k + 1, n));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 3;
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	sigset_t set;
	int n;

	if (argc != 2 || (n = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: forkchain N\n");
		return 2;
	}
	/* For the last child's app_wait(). */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	app_ready("root %d", (int)getpid());
	return chain(0, n);
}
