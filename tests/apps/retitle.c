/* SPDX-License-Identifier: MIT */
/*
 * retitle.c - rewrites its argv in place, as setproctitle() does (progname).
 *
 *   retitle TITLE
 *
 * main, which runs no hook, overwrites the memory of its argument strings
 * with TITLE (argv[0]'s basename is then part of TITLE or empty), then
 * enters retitle_park, whose hooks are the program's first: it writes
 * "parked PID" to $RBT_READY and sleeps in 10 ms steps until killed.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app.h"

static void retitle_nap(void)
{
	const struct timespec tick = { 0, 10000000 };

	nanosleep(&tick, NULL);
}

static void retitle_park(void)
{
	app_ready("parked %d", (int)getpid());
	for (;;)
		retitle_nap();
}

NOTRACE int main(int argc, char **argv)
{
	char title[256];
	size_t size;

	if (argc != 2) {
		fprintf(stderr, "usage: retitle TITLE\n");
		return 2;
	}
	snprintf(title, sizeof(title), "%s", argv[1]);
	/* The strings lie end to end: one area, as setproctitle() takes it. */
	size = (size_t)(argv[argc - 1] + strlen(argv[argc - 1]) - argv[0]) + 1;
	memset(argv[0], 0, size);
	memcpy(argv[0], title, strnlen(title, size - 1));
	argv[1] = NULL;
	retitle_park();
	return 0;
}
