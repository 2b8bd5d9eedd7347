/* SPDX-License-Identifier: MIT */
/*
 * cdexec.c - change directory, then fork and exec another program.
 *
 * usage: cdexec DIR PROGRAM [ARGS]
 *   main -> move_and_spawn makes its first traced calls where it started,
 *   then chdir(DIR) and forks; the child execs PROGRAM (a path that works
 *   from DIR); the parent parks in parent_park and writes "parent PID
 *   CHILDPID" to $RBT_READY.  SIGTERM ends it (and the child) with status 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app.h"

static void parent_park(pid_t child)
{
	int status;

	app_ready("parent %d %d", (int)getpid(), (int)child);
	app_wait(0);
	kill(child, SIGTERM);
	waitpid(child, &status, 0);
}

static void move_and_spawn(const char *dir, char **argv)
{
	pid_t pid;

	if (chdir(dir) < 0) {
		perror("cdexec: chdir");
		exit(1);
	}
	pid = fork();
	if (pid < 0) {
		perror("cdexec: fork");
		exit(1);
	}
	if (pid == 0) {
		execv(argv[0], argv);
		perror("cdexec: execv");
		_exit(127);
	}
	parent_park(pid);
}

int main(int argc, char **argv)
{
	sigset_t set;

	if (argc < 3) {
		fprintf(stderr, "usage: cdexec DIR PROGRAM [ARGS]\n");
		return 2;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	move_and_spawn(argv[1], argv + 2);
	return 0;
}
