/* SPDX-License-Identifier: MIT */
/*
 * plain.c - a program built without -finstrument-functions: rbtrace says
 * so before it runs it (untraced.sh).
 *
 * usage: plain [-p] [-e STATUS]
 *        plain-dl [-p] [-e STATUS] [-l LIBRARY]
 *        plain-exec [-p] [-e STATUS] [-x PROGRAM [ARG...]]
 * Prints "plain: hello" on stdout.  -p writes "plain PID" to $RBT_READY and
 * waits for SIGTERM or SIGINT; plain-dl also for SIGUSR1, on which it
 * dlopens LIBRARY (tests/apps/plugin.c) and parks in its instrumented
 * plugin_run(), after "plugin" in $RBT_READY, until a signal ends it.
 * plain-exec, with -x, execs PROGRAM in its place (the same pid) after
 * "plain: hello".  Exits with STATUS (-e, default 0).  Only plain-dl
 * imports dlopen(), only plain-exec execv().
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#ifdef PLAIN_DLOPEN
#include <dlfcn.h>
#endif

#include "app.h"

static void plain_load(const char *lib)
{
#ifdef PLAIN_DLOPEN
	int (*run)(int);
	sigset_t set;
	void *h;
	int fd[2];

	h = dlopen(lib, RTLD_NOW);
	if (h == NULL || pipe(fd) < 0) {
		fprintf(stderr, "plain: %s\n", h == NULL ? dlerror() : "pipe");
		exit(2);
	}
	*(void **)&run = dlsym(h, "plugin_run");
	if (run == NULL) {
		fprintf(stderr, "plain: no plugin_run in %s\n", lib);
		exit(2);
	}
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	run(fd[0]);		/* the write end stays open: it never returns */
#else
	(void)lib;
#endif
}

int main(int argc, char **argv)
{
	const char *lib = NULL;
	int c, park = 0, status = 0, x = 0;
	sigset_t set;

	while ((c = getopt(argc, argv, "+pe:l:x")) != -1) {
		switch (c) {
		case 'p':
			park = 1;
			break;
		case 'e':
			status = atoi(optarg);
			break;
		case 'l':
			lib = optarg;
			break;
		case 'x':
			x = 1;
			break;
		default:
			fprintf(stderr, "usage: plain [-p] [-e STATUS] "
			    "[-l LIBRARY] [-x PROGRAM [ARG...]]\n");
			return 2;
		}
	}
	printf("plain: hello\n");
	fflush(stdout);
#ifdef PLAIN_EXEC
	if (x && optind < argc) {
		execv(argv[optind], &argv[optind]);
		perror("plain: execv");
		return 126;
	}
#endif
	(void)x;
	if (park) {
		sigemptyset(&set);
		sigaddset(&set, SIGTERM);
		sigaddset(&set, SIGINT);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
		app_ready("plain %d", (int)getpid());
		while (app_wait(SIGUSR1) == SIGUSR1)
			if (lib != NULL)
				plain_load(lib);
	}
	return status;
}
