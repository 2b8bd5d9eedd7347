/* SPDX-License-Identifier: MIT */
/*
 * injectee.c - a shared object loaded into a running program and called
 * by tests/apps/inject-run (inject.sh).  Each function has the signature
 * of a call made that way: int f(const char *arg, char *msg, size_t n).
 *
 *   inj_probe  writes "pid=P tid=T arg=ARG ctor=C df=D mxcsr=M fcw=F
 *              align=A" (the constructor ran: C 1; the direction flag,
 *              MXCSR and x87 control word it was called with; the stack
 *              pointer modulo 16 at its entry, before the call pushed its
 *              return address: 0) and returns 42
 *   inj_slow   creates the file ARG names (once it runs), sleeps 2 s, writes
 *              "slept eintr=N" (N: how often a signal handler interrupted
 *              the sleep), returns 7
 *   inj_slowsig  as inj_slow, then sleeps on until a signal handler
 *              interrupted it (60 s at most): the test's signal may come
 *              after 2 s on a loaded machine
 *   inj_crash  writes to address 16
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile int inj_constructed;

__attribute__((constructor)) static void inj_init(void)
{
	inj_constructed = 1;
}

int inj_probe(const char *arg, char *msg, size_t n);
int inj_slow(const char *arg, char *msg, size_t n);
int inj_slowsig(const char *arg, char *msg, size_t n);
int inj_crash(const char *arg, char *msg, size_t n);

int inj_probe(const char *arg, char *msg, size_t n)
{
	uintptr_t entry = (uintptr_t)__builtin_frame_address(0) + 16;
	unsigned long flags = 0;
	unsigned int mxcsr = 0;
	unsigned short fcw = 0;

#if defined(__x86_64__)
	__asm__ volatile("pushfq; popq %0" : "=r"(flags));
	__asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
	__asm__ volatile("fnstcw %0" : "=m"(fcw));
#endif
	snprintf(msg, n, "pid=%d tid=%ld arg=%s ctor=%d df=%lu mxcsr=%04x fcw=%04x align=%u",
		 (int)getpid(), (long)syscall(SYS_gettid), arg, inj_constructed,
		 (flags >> 10) & 1, mxcsr, fcw, (unsigned)(entry % 16));
	return 42;
}

int inj_slow(const char *arg, char *msg, size_t n)
{
	struct timespec ts = { 2, 0 };
	int fd, eintr = 0;

	fd = open(arg, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	while (nanosleep(&ts, &ts) != 0)
		eintr += errno == EINTR;
	snprintf(msg, n, "slept eintr=%d", eintr);
	return 7;
}

int inj_slowsig(const char *arg, char *msg, size_t n)
{
	struct timespec ts = { 2, 0 };
	int fd, i, eintr = 0;

	fd = open(arg, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	while (nanosleep(&ts, &ts) != 0)
		eintr += errno == EINTR;
	for (i = 0; eintr == 0 && i < 600; i++) {
		ts.tv_sec = 0;
		ts.tv_nsec = 100000000;
		if (nanosleep(&ts, NULL) != 0 && errno == EINTR)
			eintr++;
	}
	snprintf(msg, n, "slept eintr=%d", eintr);
	return 7;
}

int inj_crash(const char *arg, char *msg, size_t n)
{
	static volatile int *volatile bad = (volatile int *)16;

	*bad = 1;
	return 0;
}
