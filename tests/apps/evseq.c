/* SPDX-License-Identifier: MIT */
/*
 * evseq.c - a program whose calls are known exactly, for the event log.
 *
 * usage: evseq [-n ROUNDS] [-s] [-w] [-f] [-x] [-c] [-t]
 * Each round is, in this order of records:
 *   seq_round {  named "phase" (evseq.c:PHASE_LINE) {  seq_a {  seq_b {}
 *   line mark SEQ_MARK  seq_c {}  }  }  }
 * After ROUNDS rounds (default 3) it writes "done PID" and parks in
 * seq_park until SIGTERM; with
 *   -s  it goes on with rounds forever instead, writing "spinning PID"
 *       after the first ROUNDS and "spun PID" after ROUNDS more;
 *   -w  a thread "worker" does the same rounds first ("worker TID" once
 *       done, then it parks too);
 *   -f  a forked child does its rounds too and parks ("child PID");
 *   -x  the program execs itself with -n 1 (its rounds then follow the
 *       exec, in the same pid);
 *   -c  seq_c waits for SIGUSR1 each round after the first: a round
 *       stays open ("waiting TID" each time);
 *   -t  once done (or while spinning), at SIGUSR1 it starts a thread
 *       "late" that does its rounds and parks ("late TID");
 *   -e  nothing parks: seq_park returns at once, the worker and the
 *       child end, and main returns once they have;
 *   -p N  before its rounds, main and the worker play ping-pong N times:
 *       seq_ping(i) on main wakes the worker's seq_pong(i) and waits for
 *       it, so their entries alternate in time (with -w).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app.h"
#include "rbtrace/rbtrace.h"

#define PHASE_LINE	77
#define SEQ_MARK	42

static int rounds = 3, opt_spin, opt_wait, opt_end, pings;
static sem_t sem_ping, sem_pong;
static volatile unsigned long sink;

static void seq_b(void)		/* LINE:seq_b_def */
{
	sink++;
}

static void seq_c(int r)	/* LINE:seq_c_def */
{
	sigset_t set;
	int sig;

	if (opt_wait && r > 0) {
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		app_ready("waiting %d", (int)gettid());
		sigwait(&set, &sig);
	}
	sink += 2;
}

static void seq_a(int r)	/* LINE:seq_a_def */
{
	seq_b();		/* LINE:call_b */
	rbtrace_line(SEQ_MARK);
	seq_c(r);		/* LINE:call_c */
}

static void seq_round(int r)	/* LINE:seq_round_def */
{
	rbtrace_push("phase", "evseq.c", PHASE_LINE);
	seq_a(r);		/* LINE:call_a */
	rbtrace_pop();
}

static void seq_run(void)
{
	int r;

	for (r = 0; r < rounds; r++)
		seq_round(r);	/* LINE:call_round */
}

static void seq_park(const char *what, int id)
{
	app_ready("%s %d", what, id);
	if (!opt_end)
		app_wait(0);
}

static void seq_ping(int i)
{
	(void)i;
	sem_post(&sem_pong);
	sem_wait(&sem_ping);
}

static void seq_pong(int i)
{
	(void)i;
	sem_post(&sem_ping);
}

static void *worker(void *arg)
{
	const char *name = arg;
	int i;

	prctl(PR_SET_NAME, name, 0, 0, 0);
	for (i = 0; i < pings; i++) {
		sem_wait(&sem_pong);
		seq_pong(i);
	}
	seq_run();
	seq_park(name, (int)gettid());
	return NULL;
}

int main(int argc, char **argv)
{
	int opt, fork_child = 0, do_exec = 0, spun = 0, late = 0, i;
	int threads = 0;
	pid_t child = -1;
	sigset_t set;
	pthread_t t;

	/* SIGTERM, SIGINT and SIGUSR1 are waited for, never delivered. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sem_init(&sem_ping, 0, 0);
	sem_init(&sem_pong, 0, 0);
	while ((opt = getopt(argc, argv, "n:swfxctep:")) != -1) {
		switch (opt) {
		case 'n': rounds = atoi(optarg); break;
		case 's': opt_spin = 1; break;
		case 'e': opt_end = 1; break;
		case 'p': pings = atoi(optarg); break;
		case 'w': threads = 1; break;
		case 'f': fork_child = 1; break;
		case 'x': do_exec = 1; break;
		case 'c': opt_wait = 1; break;
		case 't': late = 1; break;
		default: return 2;
		}
	}
	if (threads && pthread_create(&t, NULL, worker, "worker") != 0)
		return 2;
	if (do_exec) {
		execl("/proc/self/exe", argv[0], "-n", "1", (char *)NULL);
		return 3;
	}
	if (fork_child) {
		pid_t pid = fork();

		if (pid < 0)
			return 2;
		if (pid == 0) {
			seq_run();
			seq_park("child", (int)getpid());
			return 0;
		}
		child = pid;
	}
	for (i = 0; i < pings && threads; i++)
		seq_ping(i);
	seq_run();			/* LINE:call_run */
	if (opt_spin) {
		app_ready("spinning %d", (int)getpid());
		for (;;) {
			sigset_t pending;
			int sig;

			seq_run();
			/* -t while spinning: SIGUSR1 starts "late". */
			if (late && sigpending(&pending) == 0 &&
			    sigismember(&pending, SIGUSR1)) {
				sigemptyset(&set);
				sigaddset(&set, SIGUSR1);
				sigwait(&set, &sig);
				late = 0;
				if (pthread_create(&t, NULL, worker, "late") != 0)
					return 2;
			}
			if (++spun == rounds)
				app_ready("spun %d", (int)getpid());
		}
	}
	if (late) {
		app_ready("done %d", (int)getpid());
		if (app_wait(SIGUSR1) != SIGUSR1)
			return 0;
		if (pthread_create(&t, NULL, worker, "late") != 0)
			return 2;
	}
	seq_park("done", (int)getpid());
	if (threads)
		pthread_join(t, NULL);
	if (child > 0)
		waitpid(child, NULL, 0);
	return 0;
}
