/* SPDX-License-Identifier: MIT */
/*
 * sigmalloc.c - a thread whose hooks run only in a signal handler that
 * interrupts malloc(), for the watch tests.
 *
 * "spinner" passes its first hook in spinner_main() (its ring is set up
 * there), then loops over malloc() and free() of blocks too large for the
 * thread's cache (the arena's lock is taken for each), counting rounds in
 * `spins`, with no instrumented call.  A timer sends it SIGALRM every
 * millisecond (to that thread alone), whose handler on_alarm() is
 * instrumented and calls on_tick(), which counts in `ticks`.  So every
 * later hook of "spinner" runs inside a signal handler, most of them while
 * malloc() or free() is half done underneath.
 *
 * With the argument "altstack", the handler runs on an alternate signal
 * stack of the spinner's (sigaltstack(), SA_ONSTACK), away from the
 * thread's stack and its traced frames.
 *
 * Readiness: "thread spinner TID" once the timer runs and a tick was
 * seen, then "main PID"; main waits in sigwait().  SIGTERM or SIGINT ends
 * the program with status 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "app.h"

volatile unsigned long spins;
volatile unsigned long ticks;
int answer = 42;
struct pair { int a, b; } pair = { 3, 4 };
static int altstack;

void on_tick(void);

void on_tick(void)
{
	ticks++;
}

static void on_alarm(int sig)
{
	(void)sig;
	on_tick();
}

NOTRACE static void start_timer(void)
{
	struct sigevent ev;
	struct itimerspec its = { { 0, 1000000 }, { 0, 1000000 } };
	timer_t tm;

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGALRM;
	ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &ev, &tm) != 0 ||
	    timer_settime(tm, 0, &its, NULL) != 0) {
		perror("sigmalloc: timer");
		exit(1);
	}
}

/* Not traced: the loop passes no hook of its own. */
NOTRACE static void spin(void)
{
	void *p[8];
	int i;

	for (;;) {
		for (i = 0; i < 8; i++) {
			p[i] = malloc(4096 + (size_t)i * 512);
			if (p[i] != NULL)
				memset(p[i], i, 64);
		}
		for (i = 0; i < 8; i++)
			free(p[i]);
		spins++;
	}
}

static void *spinner_main(void *arg)
{
	struct sigaction sa;
	sigset_t set;

	(void)arg;
	pthread_setname_np(pthread_self(), "spinner");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	if (altstack) {
		stack_t ss;

		memset(&ss, 0, sizeof(ss));
		ss.ss_size = 65536;
		ss.ss_sp = mmap(NULL, ss.ss_size, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (ss.ss_sp == MAP_FAILED || sigaltstack(&ss, NULL) != 0) {
			perror("sigmalloc: sigaltstack");
			exit(1);
		}
		sa.sa_flags |= SA_ONSTACK;
	}
	sigaction(SIGALRM, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	start_timer();
	while (ticks == 0)
		;
	app_ready("thread spinner %ld", (long)syscall(SYS_gettid));
	spin();
	return NULL;
}

int main(int argc, char **argv)
{
	sigset_t set;
	pthread_t t;

	altstack = argc > 1 && strcmp(argv[1], "altstack") == 0;

	/* Only the spinner takes SIGALRM; main waits for the end. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pthread_create(&t, NULL, spinner_main, NULL) != 0) {
		perror("sigmalloc: pthread_create");
		return 1;
	}
	app_ready("main %ld", (long)getpid());
	app_wait(0);
	return 0;
}
