/* SPDX-License-Identifier: MIT */
/*
 * ctl.c - threads with known call sequences, for the control tests.
 *
 *   "alpha"    loops alpha_work -> alpha_leaf (static)
 *   "beta"     loops beta_even, beta_odd, in turn
 *   "seq"      loops seq_outer, which calls, in order:
 *                seq_first; seq_second -> seq_inner; seq_third
 *   "blocked"  blocks in blocked_wait (read() on a pipe: passes no hook)
 *              until SIGUSR2, then loops blocked_loop, reporting
 *              "blocked released"
 *
 * Every loop sleeps 1 ms (uninstrumented) per round and counts its rounds.
 * Each thread reports "thread NAME TID" once it runs, main "main PID".
 * SIGUSR1 starts "late" (late_main, which reports "late running" first
 * thing, then loops late_work).  SIGTERM or SIGINT ends the program with
 * status 0.  With argument "exit", main instead returns at once after
 * main_body (used with stop_on_create at start).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "app.h"

/* Global on purpose (alpha_leaf is static, to test static symbols). */
void alpha_work(void);
void beta_even(void);
void beta_odd(void);
void seq_first(void);
void seq_inner(void);
void seq_second(void);
void seq_third(void);
void seq_outer(void);
void blocked_wait(void);
void blocked_loop(void);
void late_work(void);
void main_body(void);

static volatile unsigned long rounds_alpha, rounds_beta, rounds_seq;
static volatile unsigned long rounds_blocked, rounds_late;
static int blocked_pipe[2];

NOTRACE static void nap(void)
{
	struct timespec ts = { 0, 1000000 };

	nanosleep(&ts, NULL);
}

NOTRACE static void hello(const char *name)
{
	pthread_setname_np(pthread_self(), name);
	app_ready("thread %s %ld", name, (long)syscall(SYS_gettid));
}

static void alpha_leaf(void)
{
	rounds_alpha++;
}

void alpha_work(void)
{
	alpha_leaf();
}

static void *alpha_main(void *arg)
{
	(void)arg;
	hello("alpha");
	for (;;) {
		alpha_work();
		nap();
	}
	return NULL;
}

void beta_even(void)
{
	rounds_beta++;
}

void beta_odd(void)
{
	rounds_beta++;
}

static void *beta_main(void *arg)
{
	(void)arg;
	hello("beta");
	for (;;) {
		beta_even();
		nap();
		beta_odd();
		nap();
	}
	return NULL;
}

void seq_first(void)
{
}

void seq_inner(void)
{
	rounds_seq++;
}

void seq_second(void)
{
	seq_inner();
}

void seq_third(void)
{
}

void seq_outer(void)
{
	seq_first();
	seq_second();
	seq_third();
}

static void *seq_main(void *arg)
{
	(void)arg;
	hello("seq");
	for (;;) {
		seq_outer();
		nap();
	}
	return NULL;
}

void blocked_wait(void)
{
	char c;

	while (read(blocked_pipe[0], &c, 1) < 0)
		;
}

void blocked_loop(void)
{
	rounds_blocked++;
}

static void *blocked_main(void *arg)
{
	(void)arg;
	hello("blocked");
	blocked_wait();
	app_ready("blocked released");
	for (;;) {
		blocked_loop();
		nap();
	}
	return NULL;
}

void late_work(void)
{
	rounds_late++;
}

static void *late_main(void *arg)
{
	(void)arg;
	app_ready("late running");
	hello("late");
	for (;;) {
		late_work();
		nap();
	}
	return NULL;
}

NOTRACE static void start(void *(*fn)(void *))
{
	pthread_t t;

	if (pthread_create(&t, NULL, fn, NULL) != 0) {
		perror("ctl: pthread_create");
		exit(1);
	}
	pthread_detach(t);
}

void main_body(void)
{
	app_ready("main body");
}

int main(int argc, char **argv)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	main_body();
	if (argc > 1 && strcmp(argv[1], "exit") == 0)
		return 0;
	if (pipe(blocked_pipe) != 0) {
		perror("ctl: pipe");
		return 1;
	}
	start(alpha_main);
	start(beta_main);
	start(seq_main);
	start(blocked_main);
	app_ready("main %ld", (long)getpid());
	for (;;) {
		if (sigwait(&set, &sig) != 0)
			return 1;
		if (sig == SIGUSR1)
			start(late_main);
		else if (sig == SIGUSR2 && write(blocked_pipe[1], "x", 1) != 1)
			return 1;
		else if (sig == SIGTERM || sig == SIGINT)
			break;
	}
	return 0;
}
