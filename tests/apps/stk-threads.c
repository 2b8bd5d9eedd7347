/* SPDX-License-Identifier: MIT */
/*
 * stk-threads.c - every thread blocked in read(), each under its own
 * chain: main, an acceptor, two workers and a logger.
 */
#include "stk.h"

NOINLINE static int
wait_client(int n)
{
	return stk_park() + n;
}

NOINLINE static int
accept_loop(int n)
{
	return wait_client(n + 1) + 1;
}

static void *
acceptor_main(void *arg)
{
	return (void *)(long)accept_loop((int)(long)arg);
}

NOINLINE static int
queue_pop(int n)
{
	return stk_park() - n;
}

NOINLINE static int
next_job(int n)
{
	return queue_pop(n * 2) + 2;
}

NOINLINE static int
worker_loop(int n)
{
	return next_job(n + 3) * 3;
}

static void *
worker_main(void *arg)
{
	return (void *)(long)worker_loop((int)(long)arg);
}

NOINLINE static int
flush_wait(int n)
{
	return stk_park() ^ n;
}

static void *
logger_main(void *arg)
{
	return (void *)(long)flush_wait((int)(long)arg);
}

NOINLINE static int
join_all(int n)
{
	return stk_park() | n;
}

NOINLINE static int
run_server(int n)
{
	stk_spawn(acceptor_main, (void *)1L);
	stk_spawn(worker_main, (void *)2L);
	stk_spawn(worker_main, (void *)3L);
	stk_spawn(logger_main, (void *)4L);
	return join_all(n) + 1;
}

int
main(int argc, char **argv)
{
	stk_init(5);
	return run_server(argc) == 0;
}
