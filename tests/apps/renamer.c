/* SPDX-License-Identifier: MIT */
/*
 * renamer.c - threads renamed after their first traced call: one with
 * pthread_setname_np() from main, one with prctl(PR_SET_NAME) by itself.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "app.h"

static int fds[2];
static pthread_barrier_t started, named;

static void park(void)
{
	char c;

	while (read(fds[0], &c, 1) < 0)
		;
}

static void *by_other(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&started);
	pthread_barrier_wait(&named);
	park();
	return NULL;
}

static void *by_self(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&started);
	prctl(PR_SET_NAME, "self-named", 0, 0, 0);
	pthread_barrier_wait(&named);
	park();
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	if (pipe(fds) < 0)
		return 2;
	pthread_barrier_init(&started, NULL, 3);
	pthread_barrier_init(&named, NULL, 3);
	pthread_create(&a, NULL, by_other, NULL);
	pthread_create(&b, NULL, by_self, NULL);
	pthread_barrier_wait(&started);	/* both have made their first call */
	pthread_setname_np(a, "other-named");
	pthread_barrier_wait(&named);
	app_ready("renamed");
	park();
	return 0;
}
