/* SPDX-License-Identifier: MIT */
/*
 * stk.h - what the stack-comparison programs (tests/stacks/) share.
 *
 * They are built with gcc and with clang at -O2 and compared with gdb.
 * Every thread ends in stk_park(), blocked for good in read() on a pipe
 * nobody writes to, so rbmon and gdb see the same frozen stacks.  The last
 * of the stk_init() threads to arrive appends "parked PID N" to
 * $RBT_READY; the test then waits until all N are inside read().
 * Everything on a parked stack is instrumented, so each frame gdb shows in
 * the program is one rbmon should show.
 */
#ifndef RBT_STK_H
#define RBT_STK_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <pthread.h>
#include <sys/prctl.h>

#include "app.h"

#if defined(__clang__)
#define NOINLINE	__attribute__((noinline))
#else
#define NOINLINE	__attribute__((noinline, noclone))
#endif
#define INLINE		__attribute__((always_inline)) inline

static int stk_pipe[2] = { -1, -1 };
static int stk_threads;
static int stk_arrived;

/* @nthreads threads, main included, will park. */
NOTRACE __attribute__((unused)) static void stk_init(int nthreads)
{
	stk_threads = nthreads;
	if (pipe(stk_pipe) < 0) {
		perror("stk: pipe");
		exit(1);
	}
#ifdef PR_SET_PTRACER
	/* Let gdb attach under Yama's ptrace_scope 1; harmless without Yama. */
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
#endif
}

NOTRACE __attribute__((unused)) static void stk_spawn(void *(*fn)(void *), void *arg)
{
	pthread_t t;

	if (pthread_create(&t, NULL, fn, arg) != 0) {
		fprintf(stderr, "stk: pthread_create failed\n");
		exit(1);
	}
}

NOTRACE static void stk_arrive(void)
{
	if (__atomic_add_fetch(&stk_arrived, 1, __ATOMIC_ACQ_REL) == stk_threads)
		app_ready("parked %d %d", (int)getpid(), stk_threads);
}

/* Block in read() until data or end of file, which never come. */
NOINLINE __attribute__((unused)) static int stk_park(void)
{
	char c;
	ssize_t n;

	stk_arrive();
	do
		n = read(stk_pipe[0], &c, 1);
	while (n < 0 && errno == EINTR);
	return (int)n;
}

#endif
