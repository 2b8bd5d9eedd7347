/* SPDX-License-Identifier: MIT */
/*
 * dynfork.c - a process with a working thread that forks a child and
 * another child that executes it again, for dynamic tracing across fork()
 * and exec() (rbtrace(5), "fork, exec, dlopen").
 *
 * usage: dynfork [-x]
 * Each process runs a thread "df-work" calling df_round() (df_mid,
 * df_leaf) and checking every result against the same sums made without
 * a call ("bad PID" on a difference, exit status 1).  The first process
 * writes "parent PID", forks a child that writes "child PID" and one that
 * executes the program again with -x, which writes "exec PID".  Each runs
 * until SIGTERM, then writes "done PID"; the parent ends its children
 * first.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app.h"

static volatile int stop;
static int bad;

__attribute__((noinline)) unsigned long df_leaf(unsigned long x)
{
	return (x ^ (x >> 7)) + 3;
}

__attribute__((noinline)) unsigned long df_mid(unsigned long x)
{
	int i;

	for (i = 0; i < 8; i++)
		x = df_leaf(x);
	return x;
}

__attribute__((noinline)) unsigned long df_round(unsigned long x)
{
	return df_mid(x * 2654435761u + 1);
}

NOTRACE static unsigned long df_expect(unsigned long x)
{
	int i;

	x = x * 2654435761u + 1;
	for (i = 0; i < 8; i++)
		x = (x ^ (x >> 7)) + 3;
	return x;
}

static void *df_thread(void *arg)
{
	unsigned long x = (unsigned long)getpid(), want;

	(void)arg;
	prctl(PR_SET_NAME, "df-work", 0, 0, 0);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		want = df_expect(x);
		x = df_round(x);
		if (x != want) {
			app_ready("bad %d", (int)getpid());
			bad = 1;
			break;
		}
	}
	return NULL;
}

/* Work until SIGTERM (blocked by the caller). */
NOTRACE static int df_run(const char *what)
{
	pthread_t th;
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	pthread_create(&th, NULL, df_thread, NULL);
	app_ready("%s %d", what, (int)getpid());
	sigwait(&set, &sig);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	app_ready("done %d", (int)getpid());
	return bad;
}

int main(int argc, char **argv)
{
	pthread_t th;
	sigset_t set;
	pid_t kid[2];
	int i, st, ret;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (argc == 2 && strcmp(argv[1], "-x") == 0)
		return df_run("exec");
	if (argc != 1) {
		fprintf(stderr, "usage: dynfork [-x]\n");
		return 2;
	}
	/* Forked while the thread runs: the children start their own. */
	pthread_create(&th, NULL, df_thread, NULL);
	for (i = 0; i < 2; i++) {
		kid[i] = fork();
		if (kid[i] == 0 && i == 0)
			_exit(df_run("child"));
		if (kid[i] == 0) {
			execl("/proc/self/exe", argv[0], "-x", (char *)NULL);
			_exit(3);
		}
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	stop = 0;
	ret = df_run("parent");
	for (i = 0; i < 2; i++) {
		kill(kid[i], SIGTERM);
		if (waitpid(kid[i], &st, 0) != kid[i] || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 0)
			ret = 1;
	}
	return ret;
}
