/* SPDX-License-Identifier: MIT */
/*
 * simple.c - a one-thread program with a small known stack.
 *
 * usage: simple [-p] [-e STATUS] [-s SIGNAL]
 * Calls main -> simple_work -> simple_leaf, then:
 *   -p         parks in simple_leaf, writes "parked PID" to $RBT_READY and
 *              waits for SIGTERM or SIGINT;
 *   -s SIGNAL  raises SIGNAL (e.g. 9) from simple_leaf;
 * and finally exits with STATUS (-e, default 0).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "app.h"


static int opt_park, opt_signal, opt_status;

static void simple_leaf(void)	/* LINE:simple_leaf_def */
{
	sigset_t set;
	int sig;

	if (opt_park) {
		sigemptyset(&set);
		sigaddset(&set, SIGTERM);
		sigaddset(&set, SIGINT);
		sigprocmask(SIG_BLOCK, &set, NULL);
		app_ready("parked %d", (int)getpid());
		sigwait(&set, &sig);
	}
	if (opt_signal) {
		sigemptyset(&set);
		sigaddset(&set, opt_signal);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		signal(opt_signal, SIG_DFL);
		raise(opt_signal);
	}
}

static void simple_work(void)	/* LINE:simple_work_def */
{
	simple_leaf();		/* LINE:call_simple_leaf */
}

int main(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "pe:s:")) != -1) {
		switch (c) {
		case 'p':
			opt_park = 1;
			break;
		case 'e':
			opt_status = atoi(optarg);
			break;
		case 's':
			opt_signal = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: simple [-p] [-e STATUS] [-s SIGNAL]\n");
			return 2;
		}
	}
	simple_work();		/* LINE:call_simple_work */
	return opt_status;
}
