/* SPDX-License-Identifier: MIT */
/*
 * slowcall.c - a known rare slow path, for the captures of slow calls
 * (tests/integration/capture*.sh).
 *
 *   slowcall [-t THREADS] [-n CALLS] [-e EVERY] [-s US] [-g] [-p] [-r]
 *
 * Each of THREADS threads (4) runs work() CALLS times (10000): work ->
 * step -> leaf, and step -> tally after leaf.  In each thread, call i of
 * leaf with i % EVERY == EVERY / 2 (EVERY 10000) sleeps 5 ms; with -r,
 * call i sleeps i % 7 * 100 us more, so the slow calls differ (for
 * FUNC>max).  Prints "slow N" (how many calls slept, all threads) and
 * "done PID", then exits, or with -p parks until killed.  With -g it
 * prints "ready PID" first and starts the threads at SIGUSR1.  main ->
 * run_thread -> work -> step is the stack below step.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int	ncalls = 10000, every = 10000, vary, gap = 20;
static volatile unsigned long sink;

static void nap(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) != 0)
		;
}

static void tally(int i)
{
	sink += (unsigned long)i;
}

static void leaf(int i)
{
	if (i % every == every / 2)
		nap(5000 + (vary ? (long)(i / every % 7) * 100 : 0));
	sink++;
}

static void step(int i)
{
	leaf(i);
	tally(i);
}

static void work(int i)
{
	step(i);
}

static void *run_thread(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < ncalls; i++) {
		if (gap > 0)
			nap(gap);
		work(i);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	int c, n = 4, park = 0, go = 0, i, slow = 0, sig;
	sigset_t set;

	while ((c = getopt(argc, argv, "t:n:e:s:gpr")) != -1) {
		switch (c) {
		case 't': n = atoi(optarg); break;
		case 'n': ncalls = atoi(optarg); break;
		case 'e': every = atoi(optarg); break;
		case 's': gap = atoi(optarg); break;
		case 'g': go = 1; break;
		case 'p': park = 1; break;
		case 'r': vary = 1; break;
		default: return 2;
		}
	}
	if (n < 1 || n > 64 || ncalls < 1 || every < 1)
		return 2;
	if (go) {
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		sigwait(&set, &sig);
	}
	for (i = 0; i < n; i++)
		pthread_create(&th[i], NULL, run_thread, NULL);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < ncalls; i++)
		slow += i % every == every / 2;
	printf("slow %d\ndone %d\n", slow * n, (int)getpid());
	fflush(stdout);
	while (park)
		pause();
	return 0;
}
