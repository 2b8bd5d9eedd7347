/* SPDX-License-Identifier: MIT */
/*
 * kstate.c - threads the kernel has in different states, for rbmon's
 * kernel state, CPU share and "blocked in" (tests/integration/kstate.sh).
 *
 * usage: kstate
 *   "spinner"  spin_main -> spin_here: on a CPU all the time
 *   "reader"   read_main -> read_here: blocked in read() on a pipe
 *   "waiter"   wait_main -> wait_here: blocked in pthread_cond_wait()
 * Each writes "thread NAME TID" to $RBT_READY once it got there (the
 * reader first writes "fd reader FD", the descriptor it reads); main then
 * writes "main PID" and waits in main -> main_wait.  SIGTERM or SIGINT
 * releases the threads, joins them and exits with status 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "app.h"

static atomic_int stop;
static int pipefd[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static volatile unsigned long sink;

NOTRACE static void here(const char *name)
{
	pthread_setname_np(pthread_self(), name);
	app_ready("thread %s %ld", name, (long)syscall(SYS_gettid));
}

static void spin_here(void)
{
	here("spinner");
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		sink++;
}

static void *spin_main(void *arg)
{
	spin_here();
	return arg;
}

static void read_here(void)
{
	char c;

	app_ready("fd reader %d", pipefd[0]);
	here("reader");
	while (read(pipefd[0], &c, 1) < 0)
		;
}

static void *read_main(void *arg)
{
	read_here();
	return arg;
}

static void wait_here(void)
{
	pthread_mutex_lock(&lock);
	here("waiter");
	while (!atomic_load(&stop))
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
}

static void *wait_main(void *arg)
{
	wait_here();
	return arg;
}

static void main_wait(void)
{
	app_wait(0);
}

int main(void)
{
	pthread_t t[3];
	sigset_t set;
	int i;

	/* Only main_wait takes the stop signals. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pipe(pipefd) != 0)
		return 1;
	pthread_create(&t[0], NULL, spin_main, NULL);
	pthread_create(&t[1], NULL, read_main, NULL);
	pthread_create(&t[2], NULL, wait_main, NULL);
	app_ready("main %ld", (long)getpid());
	main_wait();

	atomic_store(&stop, 1);
	if (write(pipefd[1], "x", 1) != 1)
		return 1;
	pthread_mutex_lock(&lock);
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	return 0;
}
