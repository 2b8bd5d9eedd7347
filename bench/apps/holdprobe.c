/* SPDX-License-Identifier: MIT */
/*
 * holdprobe.c - how long threads are held while a program's hook sites are
 * switched (woken, put back to sleep): for bench/dyn.sh.
 *
 * usage: holdprobe [THREADS]
 * THREADS threads (default 4) spin on short instrumented calls; each reads
 * CLOCK_MONOTONIC once an iteration and keeps, for every 1 ms window since
 * the start, the largest gap between two consecutive iterations and the
 * iterations it made.  "ready PID" on standard output once every thread
 * runs; then the main thread (uninstrumented) answers commands, one a line
 * on standard input:
 *	t	"t W": the current window (ms since the start)
 *	q A B	"q HOLD GAP ITER": over windows A..B-1 (at most the last
 *		WINDOWS), GAP the largest gap any thread saw, ITER the usual
 *		iteration time (the median, over those windows and threads
 *		where no gap reached 50 us, of 1 ms / iterations), HOLD =
 *		GAP - ITER (0 if less); nanoseconds
 *	x	exit
 * End of input exits too.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app.h"		/* tests/apps/app.h: NOTRACE */

#define THREADS_MAX	64
#define WINDOWS		(1u << 16)	/* 65 s kept */
#define WINDOW_NS	1000000u
#define QUIET_NS	50000u

struct probe {
	pthread_t	 tid;
	uint32_t	*gap;		/* [WINDOWS] largest gap, ns */
	uint32_t	*iter;		/* [WINDOWS] iterations */
	uint64_t	*win;		/* [WINDOWS] the window stored there */
};

static struct probe	probes[THREADS_MAX];
static unsigned		nprobes;
static uint64_t		t0;
static volatile int	stop;
static volatile unsigned long sink;
static pthread_barrier_t go;

NOTRACE static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) static void
leaf(unsigned long x)
{
	sink += x;
}

__attribute__((noinline)) static void
step(unsigned long x)
{
	leaf(x);
}

/* The loop is uninstrumented: only step() and leaf() go through sites. */
NOTRACE static void *
spin(void *arg)
{
	struct probe	*p = arg;
	uint64_t	 last, t, w, cur = UINT64_MAX;
	uint32_t	 g;

	pthread_barrier_wait(&go);
	last = now_ns();
	while (!stop) {
		step(1);
		t = now_ns();
		w = (t - t0) / WINDOW_NS;
		g = t - last > UINT32_MAX ? UINT32_MAX : (uint32_t)(t - last);
		last = t;
		if (w != cur) {
			cur = w;
			/* The window's counters before its number. */
			__atomic_store_n(&p->gap[w % WINDOWS], 0, __ATOMIC_RELAXED);
			__atomic_store_n(&p->iter[w % WINDOWS], 0, __ATOMIC_RELAXED);
			__atomic_store_n(&p->win[w % WINDOWS], w, __ATOMIC_RELEASE);
		}
		if (g > p->gap[w % WINDOWS])
			__atomic_store_n(&p->gap[w % WINDOWS], g, __ATOMIC_RELAXED);
		__atomic_store_n(&p->iter[w % WINDOWS], p->iter[w % WINDOWS] + 1,
		    __ATOMIC_RELAXED);
	}
	return NULL;
}

NOTRACE static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

NOTRACE static void
query(uint64_t a, uint64_t b)
{
	static uint64_t	it[WINDOWS * 4];
	uint64_t	gap = 0, iter = 0, w, now;
	size_t		n = 0;
	unsigned	i;

	now = (now_ns() - t0) / WINDOW_NS;
	if (b > now)
		b = now;
	if (b > WINDOWS && a < b - WINDOWS)
		a = b - WINDOWS;
	for (i = 0; i < nprobes; i++) {
		for (w = a; w < b; w++) {
			struct probe *p = &probes[i];
			uint32_t g, c;

			if (__atomic_load_n(&p->win[w % WINDOWS],
			    __ATOMIC_ACQUIRE) != w)
				continue;	/* never there (descheduled) */
			g = __atomic_load_n(&p->gap[w % WINDOWS], __ATOMIC_RELAXED);
			c = __atomic_load_n(&p->iter[w % WINDOWS], __ATOMIC_RELAXED);
			if (g > gap)
				gap = g;
			/* Windows the thread ran through, unpreempted. */
			if (c > 0 && g < QUIET_NS &&
			    n < sizeof(it) / sizeof(it[0]))
				it[n++] = WINDOW_NS / c;
		}
	}
	if (n > 0) {
		qsort(it, n, sizeof(it[0]), cmp_u64);
		iter = it[n / 2];
	}
	printf("q %llu %llu %llu\n",
	    (unsigned long long)(gap > iter ? gap - iter : 0),
	    (unsigned long long)gap, (unsigned long long)iter);
}

int
main(int argc, char **argv)
{
	char		line[128];
	unsigned long long a, b;
	unsigned	i;

	nprobes = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 4;
	if (nprobes < 1 || nprobes > THREADS_MAX) {
		fprintf(stderr, "usage: holdprobe [THREADS], 1..%u\n",
		    THREADS_MAX);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	pthread_barrier_init(&go, NULL, nprobes + 1);
	t0 = now_ns();
	for (i = 0; i < nprobes; i++) {
		struct probe *p = &probes[i];

		p->gap = calloc(WINDOWS, sizeof(*p->gap));
		p->iter = calloc(WINDOWS, sizeof(*p->iter));
		p->win = malloc(WINDOWS * sizeof(*p->win));
		if (p->gap == NULL || p->iter == NULL || p->win == NULL)
			return 1;
		memset(p->win, 0xff, WINDOWS * sizeof(*p->win));
		if (pthread_create(&p->tid, NULL, spin, p) != 0)
			return 1;
	}
	pthread_barrier_wait(&go);
	printf("ready %ld\n", (long)getpid());

	while (fgets(line, sizeof(line), stdin) != NULL) {
		if (line[0] == 't')
			printf("t %llu\n",
			    (unsigned long long)((now_ns() - t0) / WINDOW_NS));
		else if (sscanf(line, "q %llu %llu", &a, &b) == 2)
			query(a, b);
		else if (line[0] == 'x')
			break;
		else
			printf("? %s", line);
	}
	stop = 1;
	for (i = 0; i < nprobes; i++)
		pthread_join(probes[i].tid, NULL);
	return 0;
}
