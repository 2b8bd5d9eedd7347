/* SPDX-License-Identifier: MIT */
/*
 * dropuid.c - a traced program that gives up root once it runs, as a
 * daemon does (untraced-setuid.sh).
 *
 * usage: dropuid UID
 * Writes "dropuid PID" to $RBT_READY, calls setuid(UID), then counts
 * calls of dropuid_tick() in ticks, one a millisecond, until killed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "app.h"

static volatile unsigned long ticks;

static void dropuid_tick(void)
{
	ticks++;
	usleep(1000);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: dropuid UID\n");
		return 2;
	}
	app_ready("dropuid %d", (int)getpid());
	if (setuid((uid_t)atoi(argv[1])) != 0) {
		perror("dropuid: setuid");
		return 1;
	}
	for (;;)
		dropuid_tick();
}
