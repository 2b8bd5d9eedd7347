/* SPDX-License-Identifier: MIT */
/*
 * dynhard.cc - threads whose calls leave their functions other than by a
 * return, for dynamic tracing (functions switched off and on while they
 * run): C++ exceptions thrown across them, longjmp() across them, a
 * signal handler running them (on the thread's stack, and on an
 * alternate stack), and a SIGTRAP handler of the program's own.
 *
 * usage: dynhard [-s] [-u]
 *   -s  threads "dh-sig0" (SIGUSR1 handled on its stack) and "dh-sig1"
 *       (on an alternate stack, sigaltstack), sent SIGUSR1 by "dh-kick",
 *       and "dh-trap", which raises SIGTRAP and runs int3, each caught by
 *       the program's own handler exactly once
 *   -u  threads "dh-exc" (throws through 4 calls) and "dh-jmp" (longjmp()
 *       out of 4 calls), and "dh-hold", which waits for SIGUSR1 inside
 *       dh_hold() after writing "in N", and outside it after "out N"
 * (both without an option).  Every result is checked against the same
 * sums made without a call: a difference writes "bad WHAT" and the
 * program exits 1.  Writes "running PID", "kicks N" every 500 signals
 * sent, "steps N" every 2000 rounds of the first thread; SIGUSR2 parks
 * every thread in dh_thread -> dh_park ("parked N", N threads); SIGTERM
 * ends it ("done PID").
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "app.h"

#define DH_DEPTH	4

enum { DH_SIG0, DH_SIG1, DH_TRAP, DH_EXC, DH_JMP, DH_HOLD, DH_KINDS };
static const char *dh_names[DH_KINDS] = {
	"dh-sig0", "dh-sig1", "dh-trap", "dh-exc", "dh-jmp", "dh-hold"
};

static int park_pipe[2];
static int park, bad, parked;
static pthread_t th[DH_KINDS];
static int on[DH_KINDS];
static long first;	/* the first thread: writes "steps N" */
static volatile sig_atomic_t traps;
static __thread unsigned long sig_x;
static __thread jmp_buf jb;
static __thread unsigned long jmp_val;

NOTRACE static unsigned long dh_expect(unsigned long x)
{
	int i;

	for (i = 0; i < 8; i++)
		x = (x ^ (x >> 7)) + 3;
	return x;
}

/*
 * Time spent outside the functions switched, about as long as a round in
 * them: a switch finds the thread inside them or not about as often.
 */
static const int dh_spin[DH_KINDS] = { 8, 8, 8, 300, 10, 0 };
static unsigned long holds;

/* dh-hold: SIGUSR1 (blocked in every thread) lets it go on. */
NOTRACE static void dh_hold_wait(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigwait(&set, &sig);
}

NOTRACE static void dh_outside(long k, unsigned long x)
{
	int i;

	if (k == DH_HOLD && !__atomic_load_n(&park, __ATOMIC_ACQUIRE)) {
		app_ready("out %lu", holds);
		dh_hold_wait();
	}
	for (i = 0; i < dh_spin[k]; i++) {
		x = dh_expect(x);
		__asm__ volatile("" : "+r"(x));
	}
}

NOTRACE static void dh_bad(const char *what)
{
	app_ready("bad %s", what);
	__atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
}

extern "C" {

__attribute__((noinline)) unsigned long dh_leaf(unsigned long x)
{
	return (x ^ (x >> 7)) + 3;
}

__attribute__((noinline)) unsigned long dh_mid(unsigned long x)
{
	int i;

	for (i = 0; i < 8; i++)
		x = dh_leaf(x);
	return x;
}

/* SIGUSR1: instrumented code in a handler. */
__attribute__((noinline)) void dh_on_signal(int sig)
{
	unsigned long want = dh_expect(sig_x);

	(void)sig;
	if (dh_mid(sig_x) != want)
		dh_bad("signal");
	sig_x++;
}

/* SIGTRAP: the program's own. */
__attribute__((noinline)) void dh_on_trap(int sig)
{
	(void)sig;
	traps++;
}

__attribute__((noinline)) unsigned long dh_throw(int d, unsigned long x)
{
	if (d == 0)
		throw dh_mid(x);
	return dh_throw(d - 1, x) + 1;
}

__attribute__((noinline)) unsigned long dh_exc_step(unsigned long x)
{
	try {
		dh_throw(DH_DEPTH, x);
	} catch (unsigned long v) {
		return v;
	}
	dh_bad("no exception");
	return 0;
}

__attribute__((noinline)) unsigned long dh_jump(int d, unsigned long x)
{
	if (d == 0) {
		jmp_val = dh_mid(x);
		longjmp(jb, 1);
	}
	return dh_jump(d - 1, x) + 1;
}

__attribute__((noinline)) unsigned long dh_jmp_step(unsigned long x)
{
	if (setjmp(jb) == 0) {
		dh_jump(DH_DEPTH, x);
		dh_bad("no longjmp");
	}
	return jmp_val;
}

__attribute__((noinline)) void dh_trap_step(void)
{
	sig_atomic_t n = traps;

	raise(SIGTRAP);
	if (traps != n + 1)
		dh_bad("raise(SIGTRAP) not handled once by the program");
	__asm__ volatile("int3");
	if (traps != n + 2)
		dh_bad("int3 not handled once by the program");
}

__attribute__((noinline)) unsigned long dh_hold(unsigned long x)
{
	if (!__atomic_load_n(&park, __ATOMIC_ACQUIRE)) {
		app_ready("in %lu", ++holds);
		dh_hold_wait();
	}
	return dh_mid(x);
}

__attribute__((noinline)) void dh_park(void)
{
	char c;

	__atomic_add_fetch(&parked, 1, __ATOMIC_RELEASE);
	while (read(park_pipe[0], &c, 1) < 0)
		;
}

__attribute__((noinline)) void *dh_thread(void *arg)
{
	long k = (long)arg;
	unsigned long x = 0, want, got = 0;
	stack_t ss;

	prctl(PR_SET_NAME, dh_names[k], 0, 0, 0);
	sig_x = (unsigned long)k * 977;
	if (k == DH_SIG1) {
		memset(&ss, 0, sizeof(ss));
		ss.ss_size = 1 << 16;
		ss.ss_sp = malloc(ss.ss_size);
		if (ss.ss_sp == NULL || sigaltstack(&ss, NULL) != 0)
			dh_bad("sigaltstack");
	}
	while (!__atomic_load_n(&park, __ATOMIC_ACQUIRE)) {
		dh_outside(k, x);
		want = dh_expect(x);
		switch (k) {
		case DH_SIG0:
		case DH_SIG1:
			got = dh_mid(x);
			break;
		case DH_TRAP:
			dh_trap_step();
			got = dh_mid(x);
			break;
		case DH_EXC:
			got = dh_exc_step(x);
			break;
		case DH_JMP:
			got = dh_jmp_step(x);
			break;
		case DH_HOLD:
			got = dh_hold(x);
			break;
		}
		if (got != want) {
			dh_bad(dh_names[k]);
			break;
		}
		if (++x % 2000 == 0 && k == first)
			app_ready("steps %lu", x / 2000);
	}
	dh_park();
	return NULL;
}

}

NOTRACE static void *dh_kick(void *arg)
{
	long n = 0;

	(void)arg;
	prctl(PR_SET_NAME, "dh-kick", 0, 0, 0);
	while (!__atomic_load_n(&park, __ATOMIC_ACQUIRE)) {
		pthread_kill(th[DH_SIG0], SIGUSR1);
		pthread_kill(th[DH_SIG1], SIGUSR1);
		if (++n % 500 == 0)
			app_ready("kicks %ld", n);
		usleep(500);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	pthread_t kick;
	sigset_t set;
	long k, n = 0;
	int c, sig, sigs = 0, unw = 0;

	while ((c = getopt(argc, argv, "su")) != -1) {
		switch (c) {
		case 's':
			sigs = 1;
			break;
		case 'u':
			unw = 1;
			break;
		default:
			fprintf(stderr, "usage: dynhard [-s] [-u]\n");
			return 2;
		}
	}
	if (!sigs && !unw)
		sigs = unw = 1;
	on[DH_SIG0] = on[DH_SIG1] = on[DH_TRAP] = sigs;
	on[DH_EXC] = on[DH_JMP] = on[DH_HOLD] = unw;
	if (pipe(park_pipe) != 0)
		return 2;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = dh_on_signal;
	sa.sa_flags = SA_ONSTACK | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = dh_on_trap;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGTRAP, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (!sigs) {
		sigset_t usr1;

		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	}
	first = sigs ? DH_SIG0 : DH_EXC;
	for (k = 0; k < DH_KINDS; k++)
		if (on[k]) {
			pthread_create(&th[k], NULL, dh_thread, (void *)k);
			n++;
		}
	if (sigs)
		pthread_create(&kick, NULL, dh_kick, NULL);
	app_ready("running %d", (int)getpid());
	for (;;) {
		sigwait(&set, &sig);
		if (sig == SIGTERM)
			break;
		__atomic_store_n(&park, 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(&parked, __ATOMIC_ACQUIRE) < n) {
			if (on[DH_HOLD])
				pthread_kill(th[DH_HOLD], SIGUSR1);
			usleep(1000);
		}
		app_ready("parked %ld", n);
	}
	__atomic_store_n(&park, 1, __ATOMIC_RELEASE);
	if (on[DH_HOLD])
		pthread_kill(th[DH_HOLD], SIGUSR1);
	close(park_pipe[1]);
	for (k = 0; k < DH_KINDS; k++)
		if (on[k])
			pthread_join(th[k], NULL);
	if (sigs)
		pthread_join(kick, NULL);
	app_ready("done %d", (int)getpid());
	return bad;
}
