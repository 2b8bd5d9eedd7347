/* SPDX-License-Identifier: MIT */
/*
 * recurse.c - recurse DEPTH levels, park; on SIGUSR1 unwind to UNWIND, park.
 *
 * usage: recurse DEPTH [UNWIND]
 * Stack at the bottom: main, recurse x DEPTH, at_bottom (DEPTH + 2 frames);
 * writes "deep" to $RBT_READY.  After SIGUSR1 (when UNWIND is given): main,
 * recurse x UNWIND, at_shallow (UNWIND + 2 frames); writes "shallow".
 * SIGTERM or SIGINT exits with status 0 at any time.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"


static int depth_max, unwind_to = -1;

/* Wait for a signal; SIGTERM and SIGINT end the program. */
NOTRACE static void recurse_wait(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigwait(&set, &sig);
	if (sig != SIGUSR1)
		exit(0);
}

static void at_bottom(void)	/* LINE:at_bottom_def */
{
	app_ready("deep");
	recurse_wait();
}

static void at_shallow(void)	/* LINE:at_shallow_def */
{
	app_ready("shallow");
	for (;;)
		recurse_wait();
}

static void recurse(int level)	/* LINE:recurse_def */
{
	if (level < depth_max)
		recurse(level + 1);	/* LINE:recurse_call */
	else
		at_bottom();		/* LINE:bottom_call */
	if (level == unwind_to)
		at_shallow();		/* LINE:shallow_call */
}

int main(int argc, char **argv)	/* LINE:main_def */
{
	sigset_t set;

	if (argc < 2 || argc > 3 || (depth_max = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: recurse DEPTH [UNWIND]\n");
		return 2;
	}
	if (argc == 3)
		unwind_to = atoi(argv[2]);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	recurse(1);		/* LINE:main_call */
	for (;;)
		recurse_wait();
}
