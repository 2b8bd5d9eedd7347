/* SPDX-License-Identifier: MIT */
/*
 * tuithreads.c - five named threads parked at five known call chains.
 *
 * Main starts the threads one at a time (each is parked before the next
 * starts); each blocks in read() on a pipe of its own under the chain shown
 * (outermost first):
 *
 *   "north"  walk_main -> walk_leaf
 *   "south"  swim_main -> swim_step -> swim_leaf
 *   "east"   fly_main -> fly_up -> fly_high -> fly_leaf
 *   "west"   dig_main -> dig_down -> dig_deeper -> dig_deepest -> dig_bottom
 *   "brief"  nap_main -> nap_leaf
 *
 * Each writes "thread NAME TID" to $RBT_READY as it parks; main then writes
 * "main PID" and waits in main -> main_wait.  SIGUSR1 starts one more
 * thread, "latecomer" (jog_main -> jog_leaf), then writes "late" once it is
 * parked.  SIGUSR2 releases "brief", which ends with pthread_exit() inside
 * nap_leaf (so its last stack is still nap_leaf <- nap_main), joins it and
 * writes "brief exited".  SIGTERM or SIGINT releases every thread, joins
 * them and exits with status 0.  The LINE: markers let tests compute
 * expected lines with grep.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "app.h"

enum { T_NORTH, T_SOUTH, T_EAST, T_WEST, T_BRIEF, T_LATE, T_COUNT };

struct worker {
	const char	*name;
	void		*(*fn)(void *);
	int		 pipe[2];
	pthread_t	 thread;
	int		 started, joined;
	int		 where;		/* which leaf parked it: no two leaves alike */
};

static pthread_barrier_t parked;

/* Report, then block until this thread's pipe is written or closed. */
NOTRACE static void park(struct worker *w, int where)
{
	char c;

	w->where = where;
	app_ready("thread %s %ld", w->name, (long)syscall(SYS_gettid));
	pthread_barrier_wait(&parked);
	while (read(w->pipe[0], &c, 1) < 0)
		;
}

static void walk_leaf(struct worker *w)		/* LINE:walk_leaf_def */
{
	park(w, 1);
}

static void *walk_main(void *arg)
{
	walk_leaf(arg);				/* LINE:walk_call_leaf */
	return NULL;
}

static void swim_leaf(struct worker *w)		/* LINE:swim_leaf_def */
{
	park(w, 2);
}

static void swim_step(struct worker *w)
{
	swim_leaf(w);				/* LINE:swim_call_leaf */
}

static void *swim_main(void *arg)
{
	swim_step(arg);				/* LINE:swim_call_step */
	return NULL;
}

static void fly_leaf(struct worker *w)		/* LINE:fly_leaf_def */
{
	park(w, 3);
}

static void fly_high(struct worker *w)
{
	fly_leaf(w);				/* LINE:fly_call_leaf */
}

static void fly_up(struct worker *w)
{
	fly_high(w);				/* LINE:fly_call_high */
}

static void *fly_main(void *arg)
{
	fly_up(arg);				/* LINE:fly_call_up */
	return NULL;
}

static void dig_bottom(struct worker *w)	/* LINE:dig_bottom_def */
{
	park(w, 4);
}

static void dig_deepest(struct worker *w)
{
	dig_bottom(w);				/* LINE:dig_call_bottom */
}

static void dig_deeper(struct worker *w)
{
	dig_deepest(w);				/* LINE:dig_call_deepest */
}

static void dig_down(struct worker *w)
{
	dig_deeper(w);				/* LINE:dig_call_deeper */
}

static void *dig_main(void *arg)
{
	dig_down(arg);				/* LINE:dig_call_down */
	return NULL;
}

/* Ends the thread from inside: its last stack stays in the file. */
static void nap_leaf(struct worker *w)		/* LINE:nap_leaf_def */
{
	park(w, 5);
	pthread_exit(NULL);
}

static void *nap_main(void *arg)
{
	nap_leaf(arg);				/* LINE:nap_call_leaf */
	return NULL;
}

static void jog_leaf(struct worker *w)		/* LINE:jog_leaf_def */
{
	park(w, 6);
}

static void *jog_main(void *arg)
{
	jog_leaf(arg);				/* LINE:jog_call_leaf */
	return NULL;
}

static struct worker workers[T_COUNT] = {
	[T_NORTH] = { "north", walk_main, { -1, -1 }, 0, 0, 0, 0 },
	[T_SOUTH] = { "south", swim_main, { -1, -1 }, 0, 0, 0, 0 },
	[T_EAST] = { "east", fly_main, { -1, -1 }, 0, 0, 0, 0 },
	[T_WEST] = { "west", dig_main, { -1, -1 }, 0, 0, 0, 0 },
	[T_BRIEF] = { "brief", nap_main, { -1, -1 }, 0, 0, 0, 0 },
	[T_LATE] = { "latecomer", jog_main, { -1, -1 }, 0, 0, 0, 0 },
};

/* Name the thread before its first instrumented call claims a ring. */
NOTRACE static void *worker_start(void *arg)
{
	struct worker *w = arg;

	pthread_setname_np(pthread_self(), w->name);
	return w->fn(w);
}

/* Start one worker and wait until it is parked. */
NOTRACE static void spawn(struct worker *w)
{
	int err;

	if (pipe(w->pipe) < 0) {
		perror("tuithreads: pipe");
		exit(1);
	}
	err = pthread_create(&w->thread, NULL, worker_start, w);
	if (err) {
		fprintf(stderr, "tuithreads: pthread_create: %s\n",
			strerror(err));
		exit(1);
	}
	w->started = 1;
	pthread_barrier_wait(&parked);
}

NOTRACE static void release(struct worker *w)
{
	if (!w->started || w->joined)
		return;
	close(w->pipe[1]);
	pthread_join(w->thread, NULL);
	close(w->pipe[0]);
	w->joined = 1;
}

static void main_wait(void)			/* LINE:main_wait_def */
{
	sigset_t set;
	int sig;

	app_ready("main %d", (int)getpid());
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	for (;;) {
		sigwait(&set, &sig);
		if (sig == SIGUSR1 && !workers[T_LATE].started) {
			spawn(&workers[T_LATE]);
			app_ready("late");
		} else if (sig == SIGUSR2 && !workers[T_BRIEF].joined) {
			release(&workers[T_BRIEF]);
			app_ready("brief exited");
		} else if (sig == SIGTERM || sig == SIGINT)
			return;
	}
}

int main(void)
{
	sigset_t set;
	int i;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pthread_barrier_init(&parked, NULL, 2)) {
		fprintf(stderr, "tuithreads: pthread_barrier_init failed\n");
		return 1;
	}
	for (i = 0; i < T_LATE; i++)
		spawn(&workers[i]);
	main_wait();				/* LINE:call_main_wait */
	for (i = 0; i < T_COUNT; i++)
		release(&workers[i]);
	return 0;
}
