/* SPDX-License-Identifier: MIT */
/*
 * stk-cvwait.c - stk-condvar.cc in C: a static inline helper around
 * pthread_cond_wait(), inlined at two places of one function; main parks
 * at the first, the worker at the second.  The helper's frame is the
 * thread's newest: pthread_cond_wait() has no hooks.
 */
#include "stk.h"

struct queue {
	pthread_mutex_t	mu;
	pthread_cond_t	cv;
	int		ready, done;
};

static struct queue q = {
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0
};

static inline void
queue_wait(struct queue *qu)
{
	pthread_cond_wait(&qu->cv, &qu->mu);
}

NOINLINE static int
consume(struct queue *qu, int mode)
{
	int n = 0;

	pthread_mutex_lock(&qu->mu);
	stk_arrive();
	if (mode == 0) {
		while (!qu->ready) {
			queue_wait(qu);
			n++;
		}
	} else {
		while (!qu->done) {
			queue_wait(qu);
			n--;
		}
	}
	pthread_mutex_unlock(&qu->mu);
	return n;
}

static void *
worker_main(void *arg)
{
	return (void *)(long)consume(&q, (int)(long)arg + 1);
}

int
main(int argc, char **argv)
{
	(void)argv;
	stk_init(2);
	stk_spawn(worker_main, (void *)(long)(argc - 1));
	return consume(&q, argc - 1);
}
