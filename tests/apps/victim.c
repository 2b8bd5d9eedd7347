/* SPDX-License-Identifier: MIT */
/*
 * victim.c - a program whose threads notice any trace of being stopped and
 * called into (inject.sh): each checks an invariant and exits with one
 * "victim: ERROR ..." line on stderr, status 1, if it breaks.
 *
 * usage: victim [-p]
 * Threads, each reported as "thread NAME TID" in $RBT_READY after "main PID":
 *   regs     x86-64 only: every general register but rsp, the flags (DF
 *            set), MXCSR, the x87 control word and xmm0-15 (ymm0-15 with
 *            AVX) hold known values in a loop that stores them, with a
 *            counter in r15; main compares them on every tick
 *   flops    sums doubles and a long double held in registers, checking
 *            their exact ratios after every 65536 additions
 *   reader   read()s 64 bytes from a pipe main writes once a second: no
 *            EINTR, no short read, the bytes in sequence
 *   sleeper  nanosleep()s 300 ms at a time: no EINTR, never early; the
 *            one thread that takes SIGUSR1 (counted by a handler)
 *   epoll    epoll_wait()s without a timeout for an eventfd main writes
 *            once a second: no EINTR, no wakeup without the event; not
 *            with -p (a debugger attaching, as gdb does, makes it fail)
 * main wakes every 100 ms (clock_nanosleep, absolute) and prints
 * "tick N flops F regs R reads K sleeps S polls P usr1 U" on stdout.  The
 * spinning threads run at nice 19.  It runs until killed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "app.h"

#define VIC_SLEEP_NS	300000000L
#define VIC_CHUNK	65536

static int vic_pipe[2];
static int vic_efd;
static volatile uint64_t vic_flops, vic_reads, vic_sleeps, vic_polls;
static volatile sig_atomic_t vic_usr1;

NOTRACE __attribute__((format(printf, 1, 2), noreturn))
static void vic_fail(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(2, "victim: ERROR ", 14) < 0 || write(2, buf, (size_t)n) < 0)
		_exit(2);
	exit(1);
}

static uint64_t vic_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void vic_ready(const char *name)
{
	app_ready("thread %s %ld", name, (long)syscall(SYS_gettid));
}

#if defined(__x86_64__)
/* What the register loop keeps storing; offsets used by the assembly below. */
struct vic_dump {
	uint64_t	gpr[16];	/* rax rbx rcx rdx rsi rdi rbp rsp r8-r15 */
	uint64_t	flags;		/* 128 */
	uint32_t	mxcsr;		/* 136 */
	uint16_t	fcw;		/* 140 */
	uint8_t		pad[50];
	uint8_t		vec[16][32];	/* 192: xmm, or ymm with AVX */
};
_Static_assert(__builtin_offsetof(struct vic_dump, flags) == 128, "dump layout");
_Static_assert(__builtin_offsetof(struct vic_dump, mxcsr) == 136, "dump layout");
_Static_assert(__builtin_offsetof(struct vic_dump, fcw) == 140, "dump layout");
_Static_assert(__builtin_offsetof(struct vic_dump, vec) == 192, "dump layout");

static const char *const vic_gpr_name[16] = {
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

__attribute__((used, aligned(64))) struct vic_dump vic_dump;
__attribute__((used, aligned(64))) uint64_t vic_gpr_expect[16];
__attribute__((used, aligned(64))) uint8_t vic_vec_expect[16][32];
/* Not the defaults: round up, flush to zero, denormals are zero; x87 single precision, round down. */
__attribute__((used)) uint32_t vic_mxcsr_in = 0xdfc0;
__attribute__((used)) uint16_t vic_fcw_in = 0x047f;
/* CF PF AF SF DF OF set, ZF clear (popfq cannot change IF) */
#define VIC_FLAGS_MASK	0xcd5u
#define VIC_FLAGS_SET	0xc95u

void vic_regloop_sse(void) __attribute__((noreturn));
void vic_regloop_avx(void) __attribute__((noreturn));

#define VIC_LOAD_GPRS \
	"mov vic_gpr_expect+0(%rip), %rax\n" \
	"mov vic_gpr_expect+8(%rip), %rbx\n" \
	"mov vic_gpr_expect+16(%rip), %rcx\n" \
	"mov vic_gpr_expect+24(%rip), %rdx\n" \
	"mov vic_gpr_expect+32(%rip), %rsi\n" \
	"mov vic_gpr_expect+40(%rip), %rdi\n" \
	"mov vic_gpr_expect+48(%rip), %rbp\n" \
	"mov vic_gpr_expect+64(%rip), %r8\n" \
	"mov vic_gpr_expect+72(%rip), %r9\n" \
	"mov vic_gpr_expect+80(%rip), %r10\n" \
	"mov vic_gpr_expect+88(%rip), %r11\n" \
	"mov vic_gpr_expect+96(%rip), %r12\n" \
	"mov vic_gpr_expect+104(%rip), %r13\n" \
	"mov vic_gpr_expect+112(%rip), %r14\n" \
	"xor %r15d, %r15d\n" \
	"ldmxcsr vic_mxcsr_in(%rip)\n" \
	"fldcw vic_fcw_in(%rip)\n" \
	"push $0xc97\n" \
	"popfq\n"

/* Stores only (mov, pushfq/pop to memory, stmxcsr, fnstcw), and lea: no flag changes. */
#define VIC_STORE_GPRS \
	"mov %rax, vic_dump+0(%rip)\n" \
	"mov %rbx, vic_dump+8(%rip)\n" \
	"mov %rcx, vic_dump+16(%rip)\n" \
	"mov %rdx, vic_dump+24(%rip)\n" \
	"mov %rsi, vic_dump+32(%rip)\n" \
	"mov %rdi, vic_dump+40(%rip)\n" \
	"mov %rbp, vic_dump+48(%rip)\n" \
	"mov %rsp, vic_dump+56(%rip)\n" \
	"mov %r8, vic_dump+64(%rip)\n" \
	"mov %r9, vic_dump+72(%rip)\n" \
	"mov %r10, vic_dump+80(%rip)\n" \
	"mov %r11, vic_dump+88(%rip)\n" \
	"mov %r12, vic_dump+96(%rip)\n" \
	"mov %r13, vic_dump+104(%rip)\n" \
	"mov %r14, vic_dump+112(%rip)\n" \
	"mov %r15, vic_dump+120(%rip)\n" \
	"pushfq\n" \
	"popq vic_dump+128(%rip)\n" \
	"stmxcsr vic_dump+136(%rip)\n" \
	"fnstcw vic_dump+140(%rip)\n"

__asm__(
	".text\n"
	".globl vic_regloop_sse\n"
	".type vic_regloop_sse, @function\n"
	"vic_regloop_sse:\n"
	".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	"movdqu vic_vec_expect+32*\\i(%rip), %xmm\\i\n"
	".endr\n"
	VIC_LOAD_GPRS
	"1:\n"
	VIC_STORE_GPRS
	".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	"movdqu %xmm\\i, vic_dump+192+32*\\i(%rip)\n"
	".endr\n"
	"lea 1(%r15), %r15\n"
	"jmp 1b\n"
	".size vic_regloop_sse, .-vic_regloop_sse\n"
	".globl vic_regloop_avx\n"
	".type vic_regloop_avx, @function\n"
	"vic_regloop_avx:\n"
	".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	"vmovdqu vic_vec_expect+32*\\i(%rip), %ymm\\i\n"
	".endr\n"
	VIC_LOAD_GPRS
	"1:\n"
	VIC_STORE_GPRS
	".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	"vmovdqu %ymm\\i, vic_dump+192+32*\\i(%rip)\n"
	".endr\n"
	"lea 1(%r15), %r15\n"
	"jmp 1b\n"
	".size vic_regloop_avx, .-vic_regloop_avx\n");

static int vic_avx;
static uint64_t vic_rsp;	/* the loop's, as first seen */

static void *vic_regs(void *arg)
{
	vic_ready("regs");
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
	if (vic_avx)
		vic_regloop_avx();
	vic_regloop_sse();
}

/* Main's check of the loop's registers.  Return: its counter (r15). */
static uint64_t vic_regs_check(void)
{
	volatile struct vic_dump *d = &vic_dump;
	size_t vlen = vic_avx ? 32 : 16;
	uint8_t vec[32];
	uint64_t v;
	int i;

	if (d->gpr[15] == 0)
		return 0;	/* not started yet */
	for (i = 0; i < 15; i++) {
		v = d->gpr[i];
		if (i == 7) {
			if (vic_rsp == 0)
				vic_rsp = v;
			if (v != vic_rsp)
				vic_fail("regs: rsp is 0x%llx, was 0x%llx",
					 (unsigned long long)v, (unsigned long long)vic_rsp);
			continue;
		}
		if (v != vic_gpr_expect[i])
			vic_fail("regs: %s is 0x%llx, expected 0x%llx", vic_gpr_name[i],
				 (unsigned long long)v, (unsigned long long)vic_gpr_expect[i]);
	}
	if ((d->flags & VIC_FLAGS_MASK) != VIC_FLAGS_SET)
		vic_fail("regs: eflags is 0x%llx, expected 0x%x in mask 0x%x",
			 (unsigned long long)d->flags, VIC_FLAGS_SET, VIC_FLAGS_MASK);
	if (d->mxcsr != vic_mxcsr_in)
		vic_fail("regs: mxcsr is 0x%x, expected 0x%x", d->mxcsr, vic_mxcsr_in);
	if (d->fcw != vic_fcw_in)
		vic_fail("regs: x87 control word is 0x%x, expected 0x%x", d->fcw, vic_fcw_in);
	for (i = 0; i < 16; i++) {
		memcpy(vec, (const void *)d->vec[i], vlen);
		if (memcmp(vec, vic_vec_expect[i], vlen) != 0)
			vic_fail("regs: %s%d differs from what was loaded",
				 vic_avx ? "ymm" : "xmm", i);
	}
	return d->gpr[15];
}

static void vic_regs_start(void)
{
	pthread_t t;
	int i, k;

	for (i = 0; i < 16; i++)
		vic_gpr_expect[i] = 0x5a00000000000000ull | ((uint64_t)i << 48) |
				    (0x01010101ull * (uint64_t)(i + 1));
	for (i = 0; i < 16; i++)
		for (k = 0; k < 32; k++)
			vic_vec_expect[i][k] = (uint8_t)(0x11 * (i + 1) + 3 * k);
	__builtin_cpu_init();
	vic_avx = __builtin_cpu_supports("avx");
	if (pthread_create(&t, NULL, vic_regs, NULL) != 0)
		vic_fail("pthread_create");
}
#else
static uint64_t vic_regs_check(void)
{
	return 0;
}

static void vic_regs_start(void)
{
}
#endif

static void *vic_flops_run(void *arg)
{
	static volatile double seed = 1.0;
	double a = seed, b = 3.0 * seed, c = -2.0 * seed, d = 0.5 * seed;
	long double l = seed;
	int i;

	vic_ready("flops");
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
	for (;;) {
		for (i = 0; i < VIC_CHUNK; i++) {
			a += 1.0;
			b += 3.0;
			c -= 2.0;
			d += 0.5;
			l += 1.0L;
		}
		/* exact while below 2^53 */
		if (b != 3.0 * a || c != -2.0 * a || d != 0.5 * a || l != (long double)a)
			vic_fail("flops: a=%.17g b=%.17g c=%.17g d=%.17g l=%.21Lg", a, b,
				 c, d, l);
		vic_flops = (uint64_t)a;
	}
	return NULL;
}

static void *vic_reader(void *arg)
{
	unsigned char buf[64];
	uint64_t seq = 0;
	ssize_t n;
	int i;

	vic_ready("reader");
	for (;;) {
		n = read(vic_pipe[0], buf, sizeof(buf));
		if (n < 0)
			vic_fail("reader: read: %s", strerror(errno));
		if (n != (ssize_t)sizeof(buf))
			vic_fail("reader: read %zd bytes of %zu", n, sizeof(buf));
		seq++;
		for (i = 0; i < (int)sizeof(buf); i++)
			if (buf[i] != (unsigned char)(seq + (uint64_t)i))
				vic_fail("reader: byte %d of block %llu is %u", i,
					 (unsigned long long)seq, buf[i]);
		vic_reads = seq;
	}
	return NULL;
}

static void *vic_sleeper(void *arg)
{
	struct timespec ts = { 0, VIC_SLEEP_NS };
	uint64_t t0, t1;

	sigset_t usr1;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
	vic_ready("sleeper");
	for (;;) {
		t0 = vic_now();
		if (nanosleep(&ts, NULL) != 0)
			vic_fail("sleeper: nanosleep: %s", strerror(errno));
		t1 = vic_now();
		if (t1 - t0 < (uint64_t)VIC_SLEEP_NS)
			vic_fail("sleeper: nanosleep of %ld ns returned after %llu ns",
				 VIC_SLEEP_NS, (unsigned long long)(t1 - t0));
		vic_sleeps++;
	}
	return NULL;
}

static void *vic_poller(void *arg)
{
	struct epoll_event ev = { .events = EPOLLIN };
	uint64_t v;
	int ep, n;

	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, vic_efd, &ev) < 0)
		vic_fail("epoll: %s", strerror(errno));
	vic_ready("epoll");
	for (;;) {
		n = epoll_wait(ep, &ev, 1, -1);
		if (n < 0)
			vic_fail("epoll: epoll_wait: %s", strerror(errno));
		if (n != 1)
			vic_fail("epoll: epoll_wait without a timeout returned %d", n);
		if (read(vic_efd, &v, sizeof(v)) != (ssize_t)sizeof(v))
			vic_fail("epoll: woken without an event: %s", strerror(errno));
		vic_polls++;
	}
	return NULL;
}

static void vic_on_usr1(int sig)
{
	vic_usr1++;
}

int main(int argc, char **argv)
{
	void *(*fn[4])(void *) = { vic_flops_run, vic_reader, vic_sleeper, vic_poller };
	unsigned char block[64];
	struct timespec next;
	uint64_t tick, seq = 0, one = 1;
	struct sigaction sa = { .sa_handler = vic_on_usr1 };
	sigset_t usr1;
	pthread_t t;
	int i, r, nthreads = 4;

	if (argc > 1 && strcmp(argv[1], "-p") == 0)
		nthreads = 3;
	if (pipe(vic_pipe) < 0 || (vic_efd = eventfd(0, EFD_CLOEXEC)) < 0)
		vic_fail("pipe: %s", strerror(errno));
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);	/* all but the sleeper */
	sigaction(SIGUSR1, &sa, NULL);
	app_ready("main %d", (int)getpid());
	vic_regs_start();
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&t, NULL, fn[i], NULL) != 0)
			vic_fail("pthread_create");
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (tick = 1;; tick++) {
		next.tv_nsec += 100000000;
		if (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		if (r != 0)
			vic_fail("main: clock_nanosleep: %s", strerror(r));
		printf("tick %llu flops %llu regs %llu reads %llu sleeps %llu polls %llu usr1 %d\n",
		       (unsigned long long)tick, (unsigned long long)vic_flops,
		       (unsigned long long)vic_regs_check(), (unsigned long long)vic_reads,
		       (unsigned long long)vic_sleeps, (unsigned long long)vic_polls,
		       (int)vic_usr1);
		fflush(stdout);
		if (tick % 10 == 0) {
			seq++;
			for (i = 0; i < (int)sizeof(block); i++)
				block[i] = (unsigned char)(seq + (uint64_t)i);
			if (write(vic_pipe[1], block, sizeof(block)) != (ssize_t)sizeof(block) ||
			    write(vic_efd, &one, sizeof(one)) != (ssize_t)sizeof(one))
				vic_fail("main: write: %s", strerror(errno));
		}
	}
}
