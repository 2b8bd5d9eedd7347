/* SPDX-License-Identifier: MIT */
/*
 * inject-run.c - load a library into a running process and call a function
 * in it with tools/inject.c (inject.sh).
 *
 * usage: inject-run [-d] [-t TID] [-w MS] PID LIB FUNC ARG
 *   -d     dlopen LIB even if PID has it mapped already
 *   -t     stop thread TID (default: inject.c chooses)
 *   -w     give the call MS milliseconds (default 10 s)
 * Prints on stdout, once the thread was stopped:
 *   tid TID            the thread stopped
 *   dlopen yes|no      whether LIB was dlopen()ed
 *   ret N              what FUNC returned (after a successful call)
 *   msg TEXT           what it wrote, escaped (likewise)
 *   pause_ns NS        how long the thread was stopped
 * An error is one line "inject-run: ..." on stderr, and exit status 1.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/inject.h"

static void run_escape(const char *s)
{
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c >= 0x20 && c < 0x7f && c != '\\')
			putchar(c);
		else
			printf("\\x%02x", c);
	}
	putchar('\n');
}

int main(int argc, char **argv)
{
	char err[1024], msg[4096];
	struct rb_inject *in;
	int opt, force = 0, ret = 0, rc = 0, mapped;
	long tid = 0, ms = 0;
	uint64_t ns;
	pid_t pid;

	while ((opt = getopt(argc, argv, "dt:w:")) != -1) {
		switch (opt) {
		case 'd':
			force = 1;
			break;
		case 't':
			tid = strtol(optarg, NULL, 10);
			break;
		case 'w':
			ms = strtol(optarg, NULL, 10);
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind != 4)
		goto usage;
	pid = (pid_t)strtol(argv[optind], NULL, 10);
	mapped = rb_inject_mapped(pid, argv[optind + 1]);
	in = rb_inject_open(pid, (pid_t)tid, err, sizeof(err));
	if (in == NULL) {
		fprintf(stderr, "inject-run: %s\n", err);
		return 1;
	}
	if (ms > 0)
		rb_inject_set_timeout(in, (unsigned)ms);
	printf("tid %d\n", (int)rb_inject_tid(in));
	fflush(stdout);
	printf("dlopen %s\n", force || mapped != 1 ? "yes" : "no");
	if ((force || mapped != 1) &&
	    rb_inject_dlopen(in, argv[optind + 1], err, sizeof(err)) < 0)
		rc = 1;
	else if (rb_inject_call(in, argv[optind + 1], argv[optind + 2], argv[optind + 3],
				&ret, msg, sizeof(msg), err, sizeof(err)) < 0)
		rc = 1;
	ns = rb_inject_close(in);
	if (rc == 0) {
		printf("ret %d\nmsg ", ret);
		run_escape(msg);
	}
	printf("pause_ns %llu\n", (unsigned long long)ns);
	fflush(stdout);
	if (rc != 0)
		fprintf(stderr, "inject-run: %s\n", err);
	return rc;
usage:
	fprintf(stderr, "usage: inject-run [-d] [-t TID] [-w MS] PID LIB FUNC ARG\n");
	return 2;
}
