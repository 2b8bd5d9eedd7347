/* SPDX-License-Identifier: MIT */
/*
 * stk-attach.c - started without the library, for rbtrace -p: main and
 * three threads each enter a function (*_before), then wait, polling, until
 * SIGUSR1 says go ("waiting PID 4" once all wait).  The test attaches
 * meanwhile and sends the signal; each then enters its own chain and parks
 * in read() ("parked PID 4").  rbmon must show the chain entered since the
 * attach over the frames entered before it, found by unwinding at the
 * thread's first hook, as gdb shows them.  The logger's stack passes
 * through code without unwind tables (stk_nocfi_call): its unwind stops
 * there, and its frames stand over "[frames before attach]".
 */
#include <signal.h>
#include <time.h>

#include "stk.h"

static volatile sig_atomic_t go;
static int waiting;

NOTRACE static void on_go(int sig)
{
	(void)sig;
	go = 1;
}

/* Not a frame of the program's own (NOTRACE): gdb must not count it. */
NOTRACE static void go_wait(void)
{
	const struct timespec tick = { 0, 1000000 };

	if (__atomic_add_fetch(&waiting, 1, __ATOMIC_ACQ_REL) == 4)
		app_ready("waiting %d 4", (int)getpid());
	while (!go)
		nanosleep(&tick, NULL);
}

NOINLINE static int
poll_queue(int n)
{
	return stk_park() + n;
}

NOINLINE static int
serve_one(int n)
{
	return poll_queue(n * 2) - 1;
}

NOINLINE static int
worker_before(int n)
{
	go_wait();
	return serve_one(n + 1) + 3;
}

static void *
worker_main(void *arg)
{
	return (void *)(long)worker_before((int)(long)arg);
}

/*
 * stk_nocfi_call(fn, arg): fn(arg), from code that has no unwind table
 * entry (no .cfi directives): an unwinder that needs one stops here.  It
 * keeps a frame pointer, which is how gdb goes past it.
 */
__asm__(".text\n"
	".type stk_nocfi_call, @function\n"
	"stk_nocfi_call:\n"
	"\tpush %rbp\n"
	"\tmov %rsp, %rbp\n"
	"\tmov %rdi, %rax\n"
	"\tmov %rsi, %rdi\n"
	"\tcall *%rax\n"
	"\tpop %rbp\n"
	"\tret\n"
	".size stk_nocfi_call, . - stk_nocfi_call\n");
void *stk_nocfi_call(void *(*fn)(void *), void *arg);

NOINLINE static int
flush_logs(int n)
{
	return stk_park() ^ n;
}

NOINLINE static int
logger_before(int n)
{
	go_wait();
	return flush_logs(n) | 1;
}

static void *
logger_inner(void *arg)
{
	return (void *)(long)logger_before((int)(long)arg);
}

static void *
logger_main(void *arg)
{
	return stk_nocfi_call(logger_inner, arg);
}

NOINLINE static int
main_after(int n)
{
	return stk_park() + n;
}

NOINLINE static int
main_before(int n)
{
	stk_spawn(worker_main, (void *)1L);
	stk_spawn(worker_main, (void *)2L);
	stk_spawn(logger_main, (void *)3L);
	go_wait();
	return main_after(n) + 1;
}

int
main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_go };

	(void)argv;
	sigaction(SIGUSR1, &sa, NULL);
	stk_init(4);
	return main_before(argc) == 0;
}
