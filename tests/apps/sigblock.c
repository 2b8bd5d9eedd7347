/* SPDX-License-Identifier: MIT */
/*
 * sigblock.c - a thread that keeps its handled signals blocked all along,
 * as a server's master process does, for the watch tests.
 *
 * main installs a handler for SIGUSR1 and SIGHUP and blocks both, with
 * SIGTERM and SIGINT, for good; then it loops: tick() (instrumented,
 * counts in `ticks`), and a wait of 1 ms for SIGTERM or SIGINT in
 * sigtimedwait().  No handler ever runs: every hook is outside handlers,
 * though signals with handlers are blocked at each.
 *
 * Readiness: "main PID" once a tick was seen.  SIGTERM or SIGINT ends the
 * program with status 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app.h"

volatile unsigned long ticks;
volatile sig_atomic_t got;
int answer = 42;

void tick(void);

void tick(void)
{
	ticks++;
}

static void on_signal(int sig)
{
	got = sig;
}

int main(void)
{
	struct timespec ms = { 0, 1000000 };
	struct sigaction sa;
	sigset_t set, end;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigemptyset(&end);
	sigaddset(&end, SIGTERM);
	sigaddset(&end, SIGINT);
	tick();
	app_ready("main %ld", (long)getpid());
	for (;;) {
		tick();
		if (sigtimedwait(&end, NULL, &ms) > 0)
			return 0;
	}
}
