/* SPDX-License-Identifier: MIT */
/*
 * evcount.c - threads whose hooks are counted exactly, for the recorder's
 * accounting: what a recording keeps of a thread plus what it says was
 * lost must be every entry and exit the thread made.
 *
 * usage: evcount [-t THREADS] [-n CALLS] [-f] [-x] [-w]
 * Every thread of the program calls count_run(CALLS), which calls
 * count_leaf() CALLS times; each writes "hooks PID TID N" just before its
 * last hook, N its entries and exits from its first hook to its last:
 *   a thread "count-K" (THREADS of them, default 3): count_thread {
 *       count_run { count_leaf {} x CALLS } }         N = 2 * CALLS + 4
 *   main: main { count_run {...} }                    N = 2 * CALLS + 4
 *   -f  a fork child, forked by main with main open (its entry was the
 *       parent's): count_run {...} then main's exit  N = 2 * CALLS + 3
 *   -x  main, its threads joined, execs itself with -n CALLS (no other
 *       option): the image before writes N = 2 * CALLS + 3 (main never
 *       returns there), the one after its own line
 *   -w  main writes "armed PID" first and waits for SIGUSR1 before any
 *       work (a test can hold the recorder up meanwhile)
 * Default CALLS: 100000.  "done PID" once every thread and child ended.
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

#define THREADS_MAX	64

static long calls = 100000;
static volatile unsigned long sink;

static void count_leaf(void)
{
	sink++;
}

static void count_run(void)
{
	long i;

	for (i = 0; i < calls; i++)
		count_leaf();
}

NOTRACE static void count_say(long n)
{
	app_ready("hooks %d %d %ld", (int)getpid(), (int)gettid(), n);
}

static void *count_thread(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "count-%d", (int)(long)arg);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	count_run();
	count_say(2 * calls + 4);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[THREADS_MAX];
	int opt, threads = 3, fork_child = 0, do_exec = 0, armed = 0, i;
	char arg[32];
	pid_t child = -1;
	sigset_t set;

	/* Waited for (-w), not delivered; SIGTERM and SIGINT only meanwhile. */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	while ((opt = getopt(argc, argv, "t:n:fxw")) != -1) {
		switch (opt) {
		case 't': threads = atoi(optarg); break;
		case 'n': calls = atol(optarg); break;
		case 'f': fork_child = 1; break;
		case 'x': do_exec = 1; break;
		case 'w': armed = 1; break;
		default: return 2;
		}
	}
	if (threads < 0 || threads > THREADS_MAX || calls < 0)
		return 2;
	if (armed) {
		sigprocmask(SIG_BLOCK, &set, NULL);
		app_ready("armed %d", (int)getpid());
		if (app_wait(SIGUSR1) != SIGUSR1)
			return 0;
		sigdelset(&set, SIGUSR1);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
	}
	for (i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, count_thread,
				   (void *)(long)(i + 1)) != 0)
			return 2;
	if (fork_child) {
		child = fork();
		if (child < 0)
			return 2;
		if (child == 0) {
			count_run();
			count_say(2 * calls + 3);
			return 0;
		}
	}
	count_run();
	for (i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	if (child > 0)
		waitpid(child, NULL, 0);
	if (do_exec) {
		count_say(2 * calls + 3);
		snprintf(arg, sizeof(arg), "%ld", calls);
		execl("/proc/self/exe", argv[0], "-t", "0", "-n", arg,
		      (char *)NULL);
		return 3;
	}
	app_ready("done %d", (int)getpid());
	count_say(2 * calls + 4);
	return 0;
}
