/* SPDX-License-Identifier: MIT */
/*
 * forktree.c - a tree of processes: a root, two children, a grandchild.
 *
 *   root   main -> plant -> root_park         "root PID LEFT RIGHT"
 *   left   main -> plant -> grow_left -> left_park        "left PID LEAF"
 *   leaf   main -> plant -> grow_left -> leaf_park        "leaf PID"
 *   right  main -> plant -> right_park                    "right PID"
 *
 * Each writes its line to $RBT_READY once parked.  The left child is set
 * up (its grandchild forked) before the right one is forked, so the
 * children's rings are made in that order.  SIGTERM to the root ends them
 * all with status 0; SIGUSR1 to the root ends the right child alone.
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

static int left_up[2];

NOTRACE static void reap(pid_t pid)
{
	int status;

	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
}

static void leaf_park(void)
{
	app_ready("leaf %d", (int)getpid());
	app_wait(0);
	_exit(0);
}

static void left_park(pid_t leaf)
{
	app_ready("left %d %d", (int)getpid(), (int)leaf);
	app_wait(0);
	reap(leaf);
	_exit(0);
}

static void grow_left(void)
{
	pid_t leaf = fork();

	if (leaf < 0) {
		perror("forktree: fork");
		_exit(1);
	}
	/* Each has its ring once fork() returned: the root goes on at EOF. */
	close(left_up[1]);
	if (leaf == 0)
		leaf_park();
	left_park(leaf);
}

static void right_park(void)
{
	app_ready("right %d", (int)getpid());
	app_wait(0);
	_exit(0);
}

static void root_park(pid_t left, pid_t right)
{
	app_ready("root %d %d %d", (int)getpid(), (int)left, (int)right);
	while (app_wait(SIGUSR1) == SIGUSR1) {
		if (right > 0)
			reap(right);
		right = 0;
		app_ready("right gone");
	}
	if (right > 0)
		reap(right);
	reap(left);
}

static void plant(void)
{
	pid_t left, right;
	char c;

	if (pipe(left_up) < 0) {
		perror("forktree: pipe");
		exit(1);
	}
	left = fork();
	if (left < 0) {
		perror("forktree: fork");
		exit(1);
	}
	if (left == 0) {
		close(left_up[0]);
		grow_left();
	}
	close(left_up[1]);
	while (read(left_up[0], &c, 1) < 0)
		;
	right = fork();
	if (right < 0) {
		perror("forktree: fork");
		exit(1);
	}
	if (right == 0)
		right_park();
	root_park(left, right);
}

int main(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	plant();
	return 0;
}
