/* SPDX-License-Identifier: MIT */
/*
 * many.c - many traced threads whose stacks never stop changing.
 *
 * usage: many [THREADS [NAP_US]]
 * Runs THREADS traced threads in all (default 256: main + 255 started
 * ones), each named "many-NNN" with pthread_setname_np() (main keeps the
 * program's name).  Every thread loops: pick a depth of 5..40, walk down
 * that many frames through three instrumented functions (walk_a -> walk_b
 * -> walk_c -> walk_a ...), do a little work at the bottom and nap there
 * for NAP_US microseconds (default 20000, randomised +-50%), return, and
 * descend again.  So the live stacks change continuously while the
 * program uses only a modest share of a core: with the defaults about
 * 256 / 20 ms = 12800 walks and 290000 traced calls a second, which took
 * 20-25% of one core on a 2-core AMD EPYC VM (bench/rbmon.sh reports it).
 *
 * Once every thread made its first traced call (and so owns a ring), main
 * appends "ready PID THREADS" to $RBT_READY (see tests/apps/app.h) and
 * walks like the others.  SIGTERM or SIGINT stops every thread; main joins
 * them and exits with status 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* pthread_setname_np */
#endif

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app.h"		/* tests/apps/app.h: $RBT_READY */

#define MANY_DEFAULT	256
#define MANY_MAX	4096
#define DEPTH_MIN	5
#define DEPTH_MAX	40
#define NAP_DEFAULT_US	20000
#define STACK_SIZE	(256 * 1024)

static atomic_int many_stop;
static pthread_barrier_t many_started;
static long many_nap_us = NAP_DEFAULT_US;
static volatile unsigned long many_sink;	/* keeps the work from being elided */

NOTRACE static void many_on_signal(int sig)
{
	(void)sig;
	atomic_store(&many_stop, 1);
}

/* xorshift32: a per-thread random sequence, no shared state. */
NOTRACE static uint32_t many_rand(uint32_t *s)
{
	uint32_t x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

NOTRACE static void many_nap(uint32_t *seed)
{
	long us = many_nap_us / 2 + (long)(many_rand(seed) % (uint32_t)(many_nap_us + 1));
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !atomic_load(&many_stop))
		;
}

static __attribute__((noinline)) unsigned long bottom(uint32_t *seed)
{
	unsigned long x = *seed;
	int i;

	for (i = 0; i < 200; i++)	/* a little work: a small spin */
		x = x * 6364136223846793005u + 1442695040888963407u;
	many_nap(seed);
	return x;
}

static unsigned long walk_a(int depth, uint32_t *seed);
static unsigned long walk_b(int depth, uint32_t *seed);
static unsigned long walk_c(int depth, uint32_t *seed);

/* Each adds to the result after the call, so none is a tail call. */
static __attribute__((noinline)) unsigned long walk_a(int depth, uint32_t *seed)
{
	return (depth > 1 ? walk_b(depth - 1, seed) : bottom(seed)) + 1;
}

static __attribute__((noinline)) unsigned long walk_b(int depth, uint32_t *seed)
{
	return (depth > 1 ? walk_c(depth - 1, seed) : bottom(seed)) + 2;
}

static __attribute__((noinline)) unsigned long walk_c(int depth, uint32_t *seed)
{
	return (depth > 1 ? walk_a(depth - 1, seed) : bottom(seed)) + 3;
}

static __attribute__((noinline)) void walker(uint32_t seed)
{
	while (!atomic_load(&many_stop)) {
		int depth = DEPTH_MIN +
			    (int)(many_rand(&seed) % (DEPTH_MAX - DEPTH_MIN + 1));

		many_sink += walk_a(depth, &seed);
	}
}

/* The first traced call of a thread: it owns a ring from here on. */
static __attribute__((noinline)) void worker_main(uint32_t seed)
{
	pthread_barrier_wait(&many_started);
	walker(seed);
}

/* Name the thread before its first traced call claims a ring. */
NOTRACE static void *many_thread(void *arg)
{
	unsigned n = (unsigned)(uintptr_t)arg;
	char name[16];

	snprintf(name, sizeof(name), "many-%03u", n);
	pthread_setname_np(pthread_self(), name);
	worker_main(0x9e3779b9u * (n + 1));
	return NULL;
}

int main(int argc, char **argv)
{
	long nthreads = MANY_DEFAULT;
	struct sigaction sa;
	pthread_attr_t attr;
	pthread_t *t;
	long i;
	int err;

	if (argc > 3) {
		fprintf(stderr, "usage: many [THREADS [NAP_US]]\n");
		return 2;
	}
	if (argc > 1)
		nthreads = strtol(argv[1], NULL, 10);
	if (argc > 2)
		many_nap_us = strtol(argv[2], NULL, 10);
	if (nthreads < 1 || nthreads > MANY_MAX || many_nap_us < 0 ||
	    many_nap_us > 10000000) {
		fprintf(stderr, "many: bad arguments\n");
		return 2;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = many_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	t = calloc((size_t)nthreads, sizeof(*t));
	if (t == NULL ||
	    pthread_barrier_init(&many_started, NULL, (unsigned)nthreads) ||
	    pthread_attr_init(&attr) ||
	    pthread_attr_setstacksize(&attr, STACK_SIZE)) {
		perror("many");
		return 1;
	}
	for (i = 1; i < nthreads; i++) {
		err = pthread_create(&t[i], &attr, many_thread, (void *)(uintptr_t)i);
		if (err) {
			fprintf(stderr, "many: pthread_create: %s\n", strerror(err));
			return 1;
		}
	}
	pthread_attr_destroy(&attr);

	pthread_barrier_wait(&many_started);
	app_ready("ready %d %ld", (int)getpid(), nthreads);
	walker(0x2545f491u);

	for (i = 1; i < nthreads; i++)
		pthread_join(t[i], NULL);
	free(t);
	app_ready("done");
	return 0;
}
