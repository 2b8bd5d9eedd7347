/* SPDX-License-Identifier: MIT */
/*
 * sleepers.c - many traced threads, nearly all blocked in the kernel, a
 * few busy: what a server looks like to rbmon (bench/rbmon-cpu.sh).
 *
 * usage: sleepers [THREADS [BUSY]]
 * Runs THREADS traced threads in all (default 256: main + 255 started
 * ones).  BUSY of them (default 4, named "busy-N") loop: a burst of about
 * 5 ms of traced calls 3 to 12 deep, then a 15 ms nap (about a quarter of
 * a core each).  The others ("sleep-NNN") block for good, in turn in
 * read() on a pipe, in pthread_cond_wait() and in a nanosleep() loop that
 * wakes twice a second, each under a call chain of its own.  Once every
 * thread made its first traced call (and so owns a ring), main appends
 * "ready PID THREADS" to $RBT_READY (see tests/apps/app.h) and waits in
 * main_wait.  SIGTERM or SIGINT releases every thread; main joins them
 * and exits with status 0.
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

#define SLEEPERS_DEFAULT	256
#define SLEEPERS_MAX		4096
#define BUSY_DEFAULT		4
#define BURST_NS		5000000
#define NAP_NS			15000000
#define STACK_SIZE		(256 * 1024)

static atomic_int stop;
static pthread_barrier_t started;
static int pipefd[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static volatile unsigned long sink;

NOTRACE static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

NOTRACE static void nap(long ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !atomic_load(&stop))
		;
}

static __attribute__((noinline)) unsigned long step(int depth, unsigned long x)
{
	int i;

	if (depth > 1)
		return step(depth - 1, x * 31 + 7) + 1;
	for (i = 0; i < 100; i++)
		x = x * 6364136223846793005u + 1442695040888963407u;
	return x;
}

static __attribute__((noinline)) void busy_loop(unsigned n)
{
	uint32_t seed = 0x9e3779b9u * (n + 1);
	uint64_t end;

	while (!atomic_load(&stop)) {
		end = now_ns() + BURST_NS;
		while (now_ns() < end) {
			seed ^= seed << 13;
			seed ^= seed >> 17;
			seed ^= seed << 5;
			sink += step(3 + (int)(seed % 10), seed);
		}
		nap(NAP_NS);
	}
}

static __attribute__((noinline)) void in_read(void)
{
	char c;

	while (read(pipefd[0], &c, 1) < 0 && !atomic_load(&stop))
		;
}

static __attribute__((noinline)) void in_cond(void)
{
	pthread_mutex_lock(&lock);
	while (!atomic_load(&stop))
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
}

static __attribute__((noinline)) void in_sleep(void)
{
	while (!atomic_load(&stop))
		nap(500000000);
}

/* The first traced call of a thread: it owns a ring from here on. */
static __attribute__((noinline)) void worker_main(unsigned n, unsigned busy)
{
	pthread_barrier_wait(&started);
	if (n <= busy)
		busy_loop(n);
	else if (n % 3 == 0)
		in_read();
	else if (n % 3 == 1)
		in_cond();
	else
		in_sleep();
}

static unsigned nbusy = BUSY_DEFAULT;

/* Name the thread before its first traced call claims a ring. */
NOTRACE static void *worker(void *arg)
{
	unsigned n = (unsigned)(uintptr_t)arg;
	char name[16];

	if (n <= nbusy)
		snprintf(name, sizeof(name), "busy-%u", n % 10000);
	else
		snprintf(name, sizeof(name), "sleep-%03u", n % 10000);
	pthread_setname_np(pthread_self(), name);
	worker_main(n, nbusy);
	return NULL;
}

static __attribute__((noinline)) void main_wait(void)
{
	app_wait(0);
}

int main(int argc, char **argv)
{
	long nthreads = SLEEPERS_DEFAULT;
	pthread_attr_t attr;
	pthread_t *t;
	sigset_t set;
	long i;
	int err;

	if (argc > 3) {
		fprintf(stderr, "usage: sleepers [THREADS [BUSY]]\n");
		return 2;
	}
	if (argc > 1)
		nthreads = strtol(argv[1], NULL, 10);
	if (argc > 2)
		nbusy = (unsigned)strtoul(argv[2], NULL, 10);
	if (nthreads < 1 || nthreads > SLEEPERS_MAX || nbusy >= (unsigned long)nthreads) {
		fprintf(stderr, "sleepers: bad arguments\n");
		return 2;
	}
	/* Only main_wait takes the stop signals. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	t = calloc((size_t)nthreads, sizeof(*t));
	if (t == NULL || pipe(pipefd) != 0 ||
	    pthread_barrier_init(&started, NULL, (unsigned)nthreads) ||
	    pthread_attr_init(&attr) ||
	    pthread_attr_setstacksize(&attr, STACK_SIZE)) {
		perror("sleepers");
		return 1;
	}
	for (i = 1; i < nthreads; i++) {
		err = pthread_create(&t[i], &attr, worker, (void *)(uintptr_t)i);
		if (err) {
			fprintf(stderr, "sleepers: pthread_create: %s\n", strerror(err));
			return 1;
		}
	}
	pthread_attr_destroy(&attr);

	pthread_barrier_wait(&started);
	app_ready("ready %d %ld", (int)getpid(), nthreads);
	main_wait();

	atomic_store(&stop, 1);
	close(pipefd[1]);		/* the readers see the end */
	pthread_mutex_lock(&lock);
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	for (i = 1; i < nthreads; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}
