/* SPDX-License-Identifier: MIT */
/*
 * fib.c - a pure call-heavy load: recursive fib(N), on 1 or more threads,
 * optionally at the bottom of a deep stack.
 *
 * usage: fib N [THREADS [REPS [DEPTH]]]
 * Computes fib(N) REPS times in all (default 2), split evenly over THREADS
 * threads (default 1; REPS must be a multiple of THREADS), so that
 * "fib N 1" and "fib N 2" do the same work.  With DEPTH > 0 (default 0)
 * each thread first descends DEPTH frames through descend(), and computes
 * its share of fib(N) at the bottom: the calls then run at stack levels
 * DEPTH .. DEPTH + N (bench/overhead.sh uses it to show that a traced
 * call costs the same at any depth, the ring wrapping included).
 *
 * Only main(), fib(), descend() and attach() are instrumented and called
 * (everything else is NOTRACE, or never called), so the number of call
 * pairs (one enter + one exit) is
 * exact and known: fib(n) makes 2 * fib(n + 1) - 1 calls of fib, so the
 * timed work section makes
 *	timed_calls = REPS * (2 * fib(N + 1) - 1) + THREADS * DEPTH
 * and the whole process one more for main(), and THREADS more for the
 * attach() each new thread calls before it starts its clock (THREADS > 1).
 * main() and attach() are instrumented so that a tracer's start-up in the
 * process and in each thread (say, creating or joining its file, claiming
 * a ring) happens before the clocks start.
 *
 * With FIB_GO=PATH in the environment, main() first waits for a byte from
 * the FIFO at PATH (uninstrumented code, so no hook runs meanwhile):
 * bench/overhead.sh sets breakpoints on fib_idle_0 .. fib_idle_15,
 * instrumented functions never called, before it lets the work start.
 *
 * With THREADS = 1 the work runs on the main thread; otherwise on THREADS
 * new threads that a barrier releases together.  Each thread times its
 * own share with CLOCK_MONOTONIC in uninstrumented code, so neither the
 * process's nor a tracer's start-up is part of the figure.  It prints one
 * line on standard output:
 *	calls C timed_calls D threads T work_ns W wall_ns X result R
 * W: the sum over threads of each one's work time (thread-seconds, so the
 * figure per call does not depend on THREADS when the threads have a core
 * each); X: the work section's wall time, from the first thread's start to
 * the last one's end; R: fib(N), to check the work was done.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app.h"		/* tests/apps/app.h: NOTRACE */

#define FIB_MAX		60
#define THREADS_MAX	256
#define DEPTH_MAX	100000
#define STACK_SIZE	(64UL * 1024 * 1024)

static unsigned fib_n;
static unsigned long fib_reps;	/* per thread */
static unsigned long fib_depth;
static pthread_barrier_t fib_go;

struct fib_share {
	pthread_t tid;
	uint64_t t0, t1;
	unsigned long result;
};

NOTRACE static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Never called: breakpoints on them must not slow fib() down. */
static volatile unsigned long fib_idle_sink;
#define FIB_IDLE(k) \
	void fib_idle_##k(void); \
	__attribute__((noinline, used)) void fib_idle_##k(void) \
	{ \
		fib_idle_sink += (k) + 1;	/* distinct bodies: never merged */ \
	}
FIB_IDLE(0) FIB_IDLE(1) FIB_IDLE(2) FIB_IDLE(3) FIB_IDLE(4) FIB_IDLE(5)
FIB_IDLE(6) FIB_IDLE(7) FIB_IDLE(8) FIB_IDLE(9) FIB_IDLE(10) FIB_IDLE(11)
FIB_IDLE(12) FIB_IDLE(13) FIB_IDLE(14) FIB_IDLE(15)

/* FIB_GO: wait for the go-ahead, one byte from that FIFO. */
NOTRACE static int fib_wait_go(void)
{
	const char *path = getenv("FIB_GO");
	char c;
	int fd;
	ssize_t n;

	if (path == NULL)
		return 0;
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		return -1;
	}
	while ((n = read(fd, &c, 1)) < 0 && errno == EINTR)
		;
	close(fd);
	return n == 1 ? 0 : -1;
}

/* The instrumented work: the hooks run around every call. */
static __attribute__((noinline)) unsigned long fib(unsigned n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

/* Not a tail call (the + 1), so every level stays on the stack. */
static __attribute__((noinline)) unsigned long descend(unsigned long d)
{
	unsigned long r = 0, i;

	if (d > 1)
		return descend(d - 1) + 1;
	for (i = 0; i < fib_reps; i++)
		r += fib(fib_n);
	return r;
}

NOTRACE static unsigned long fib_work(void)
{
	unsigned long r = 0, i;

	if (fib_depth > 0)
		return descend(fib_depth) - (fib_depth - 1);
	for (i = 0; i < fib_reps; i++)
		r += fib(fib_n);
	return r;
}

/* A new thread's first traced call, before its clock starts. */
static __attribute__((noinline)) void attach(void)
{
	__asm__ volatile("" ::: "memory");
}

NOTRACE static void *fib_thread(void *arg)
{
	struct fib_share *s = arg;

	attach();
	pthread_barrier_wait(&fib_go);
	s->t0 = now_ns();
	s->result = fib_work();
	s->t1 = now_ns();
	return NULL;
}

/* fib(n) and the number of calls it makes, uninstrumented. */
NOTRACE static unsigned long fib_calls(unsigned n, unsigned long *value)
{
	unsigned long a = 0, b = 1, t;	/* fib(0), fib(1) */
	unsigned i;

	for (i = 0; i < n; i++) {
		t = a + b;
		a = b;
		b = t;
	}
	*value = a;			/* fib(n) */
	return 2 * b - 1;		/* 2 * fib(n + 1) - 1 */
}

NOTRACE static int number(const char *s, unsigned long lo, unsigned long hi,
			  unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno == 0 && end != s && *end == '\0' && *s != '-' &&
	       *out >= lo && *out <= hi;
}

int main(int argc, char **argv)
{
	unsigned long n, threads = 1, reps = 2, depth = 0, value, sum, i;
	struct fib_share *sh;
	pthread_attr_t attr;
	uint64_t work = 0, w0, w1 = 0;
	int err;

	if (argc < 2 || argc > 5 ||
	    !number(argv[1], 0, FIB_MAX, &n) ||
	    (argc > 2 && !number(argv[2], 1, THREADS_MAX, &threads)) ||
	    (argc > 3 && !number(argv[3], 1, 1000000, &reps)) ||
	    (argc > 4 && !number(argv[4], 0, DEPTH_MAX, &depth)) ||
	    reps % threads != 0) {
		fprintf(stderr, "usage: fib N [THREADS [REPS [DEPTH]]]\n"
			"  N <= %d, THREADS 1..%d, REPS a multiple of THREADS, DEPTH <= %d\n",
			FIB_MAX, THREADS_MAX, DEPTH_MAX);
		return 2;
	}
	fib_n = (unsigned)n;
	fib_reps = reps / threads;
	fib_depth = depth;

	if (fib_wait_go() != 0)
		return 1;
	sh = calloc(threads, sizeof(*sh));
	if (sh == NULL) {
		perror("fib");
		return 1;
	}
	if (threads == 1) {
		w0 = sh[0].t0 = now_ns();
		sh[0].result = fib_work();
		w1 = sh[0].t1 = now_ns();
	} else {
		if (pthread_barrier_init(&fib_go, NULL, (unsigned)threads + 1) ||
		    pthread_attr_init(&attr) ||
		    pthread_attr_setstacksize(&attr, STACK_SIZE)) {
			perror("fib");
			return 1;
		}
		for (i = 0; i < threads; i++) {
			err = pthread_create(&sh[i].tid, &attr, fib_thread, &sh[i]);
			if (err) {
				fprintf(stderr, "fib: pthread_create: %s\n", strerror(err));
				return 1;
			}
		}
		pthread_attr_destroy(&attr);
		pthread_barrier_wait(&fib_go);
		for (i = 0; i < threads; i++)
			pthread_join(sh[i].tid, NULL);
		w0 = sh[0].t0;
		for (i = 0; i < threads; i++) {
			if (sh[i].t0 < w0)
				w0 = sh[i].t0;
			if (sh[i].t1 > w1)
				w1 = sh[i].t1;
		}
	}

	sum = fib_calls(fib_n, &value);
	for (i = 0; i < threads; i++) {
		work += sh[i].t1 - sh[i].t0;
		if (sh[i].result != fib_reps * value) {
			fprintf(stderr, "fib: thread %lu computed %lu, not %lu\n",
				i, sh[i].result, fib_reps * value);
			return 1;
		}
	}
	sum = reps * sum + threads * depth;
	printf("calls %lu timed_calls %lu threads %lu work_ns %llu wall_ns %llu result %lu\n",
	       sum + 1 + (threads > 1 ? threads : 0), sum, threads,
	       (unsigned long long)work,
	       (unsigned long long)(w1 - w0), value);
	free(sh);
	return 0;
}
