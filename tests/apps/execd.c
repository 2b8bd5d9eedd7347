/* SPDX-License-Identifier: MIT */
/*
 * execd.c - the program execer runs: main -> execd_work -> execd_park.
 *
 * Writes "execd PID" to $RBT_READY once parked; SIGTERM or SIGINT ends it
 * with status 0.  It blocks those itself: a signal mask survives exec, so
 * the waiting works whoever started it.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "app.h"


static void execd_park(void)	/* LINE:execd_park_def */
{
	sigset_t set;
	int sig;

	app_ready("execd %d", (int)getpid());
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigwait(&set, &sig);
}

static void execd_work(void)	/* LINE:execd_work_def */
{
	execd_park();		/* LINE:call_execd_park */
}

int main(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	execd_work();		/* LINE:call_execd_work */
	return 0;
}
