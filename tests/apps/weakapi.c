/* SPDX-License-Identifier: MIT */
/*
 * weakapi.c - a program that calls the API of <rbtrace/rbtrace.h> only
 * where librbtrace is there: its references to it are weak, it neither
 * links librbtrace nor is built with -finstrument-functions, so the API
 * is its only call of the hooks (attach-api.sh).
 *
 * Writes "main PID" to $RBT_READY, then until SIGTERM or SIGINT, every
 * millisecond: if rbtrace_push is bound, pushes "weak_frame" (weak.py,
 * line 3), moves it to line 7, sleeps and pops it.
 */
#include <signal.h>
#include <time.h>

#include "rbtrace/rbtrace.h"
#include "app.h"

#pragma weak rbtrace_push
#pragma weak rbtrace_pop
#pragma weak rbtrace_line

static volatile sig_atomic_t weak_done;

/*
 * Is rbtrace_push bound?  Read anew at each call: a compiler takes the
 * address of a function for a constant, and would test it once.
 */
__attribute__((noinline, noipa)) static int weak_bound(void)
{
	return rbtrace_push != NULL;
}

static void weak_stop(int sig)
{
	(void)sig;
	weak_done = 1;
}

int main(void)
{
	const struct timespec ms = { 0, 1000000 };
	struct sigaction sa;

	sa.sa_handler = weak_stop;
	sa.sa_flags = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	app_ready("main %ld", (long)getpid());
	while (!weak_done) {
		if (weak_bound() && rbtrace_push("weak_frame", "weak.py", 3) > 0) {
			rbtrace_line(7);
			nanosleep(&ms, NULL);
			rbtrace_pop();
		} else {
			nanosleep(&ms, NULL);
		}
	}
	return 0;
}
