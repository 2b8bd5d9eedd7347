/* SPDX-License-Identifier: MIT */
/*
 * watch.c - globals with known values, for the watch expression tests.
 *
 * Built twice: tests/apps/watch (with DWARF) and tests/apps/watch-nodebug
 * (the same code, debug sections stripped at link: symbols only).
 *
 * Every global below has a fixed value except:
 *   counter    incremented by the "ticker" thread (in tick()) every round
 *   tls_value  thread-local: "ticker" 1000, "w1" 1001, "w2" 1002
 *   freed      set once, before readiness: the address of a 1 MiB region
 *              that was mmap()ed, written and munmap()ed again; it is asked
 *              for at 8 GiB, far below where mmap() places mappings (top
 *              down from below the stack) and above any brk heap, so the
 *              library's own later mappings (debug info, malloc arenas)
 *              do not land there (under ASan, which keeps that range
 *              for its shadow, at 80 TiB, below its allocator's)
 *   big        big[i] = i, filled in before readiness
 *
 * Threads (each reports "thread NAME TID" once running, then loops):
 *   "ticker"   tls_value = 1000; tick() (counter++); 1 ms uninstrumented nap
 *   "w1"       tls_value = 1001; work_step(); 1 ms nap
 *   "w2"       tls_value = 1002; work_step(); 1 ms nap
 *   "parked"   enters parked_wait(), which blocks in read() on a pipe: it
 *              passes no hook, until SIGUSR1 releases it; then it reports
 *              "parked released" and loops parked_step(); 1 ms nap
 * Once all four reported, main reports "freed ADDR" (ADDR as %p) and
 * "main PID", then waits in sigwait() (passing no hook), where SIGUSR1 makes
 * it release "parked".  SIGTERM or SIGINT ends the program with status 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "app.h"

/* The watched globals: names and values are what the tests check. */
int counter;
const int answer = 42;
static int file_static = 7;
char letter = 'A';
_Bool flag = 1;
double ratio = 2.5;
unsigned long mask = 0xff;
short neg = -5;

struct point { int x, y; };
struct config {
	int		 verbose;
	char		 name[16];
	struct point	 pos;
	int		 table[4];
	const char	*title;
};
struct config cfg = { 1, "demo", { 3, 4 }, { 10, 20, 30, 40 }, "Title" };
struct config *cfgp = &cfg;

const char *greeting = "hello, \"world\"\n";

struct node { int value; struct node *next; };
struct node n3 = { 3, NULL }, n2 = { 2, &n3 }, n1 = { 1, &n2 };
struct node *list = &n1;

enum color { RED, GREEN, BLUE };
enum color color = GREEN;

int *nullp;
int *freed;
__thread int tls_value;
int big[300];

/* Global on purpose: instrumented functions the threads pass. */
void tick(void);
void work_step(void);
void parked_wait(void);
void parked_step(void);

#define MIB		(1024L * 1024L)
#ifdef __SANITIZE_ADDRESS__
#define FREED_HINT	0x500000000000UL
#else
#define FREED_HINT	0x200000000UL
#endif

static int parked_pipe[2];
static pthread_barrier_t started;
static volatile int sink;

NOTRACE static void nap(void)
{
	struct timespec ts = { 0, 1000000 };

	nanosleep(&ts, NULL);
}

NOTRACE static void hello(const char *name)
{
	pthread_setname_np(pthread_self(), name);
	app_ready("thread %s %ld", name, (long)syscall(SYS_gettid));
	pthread_barrier_wait(&started);
}

void tick(void)
{
	counter++;
}

void work_step(void)
{
	sink += tls_value;
}

void parked_wait(void)
{
	char c;

	while (read(parked_pipe[0], &c, 1) < 0)
		;
}

void parked_step(void)
{
	sink++;
}

static void *ticker_main(void *arg)
{
	(void)arg;
	tls_value = 1000;
	hello("ticker");
	for (;;) {
		tick();
		nap();
	}
	return NULL;
}

static void *worker_main(void *arg)
{
	int id = (int)(long)arg;

	tls_value = 1000 + id;
	hello(id == 1 ? "w1" : "w2");
	for (;;) {
		work_step();
		nap();
	}
	return NULL;
}

static void *parked_main(void *arg)
{
	(void)arg;
	hello("parked");
	parked_wait();
	app_ready("parked released");
	for (;;) {
		parked_step();
		nap();
	}
	return NULL;
}

NOTRACE static void start(void *(*fn)(void *), long arg)
{
	pthread_t t;

	if (pthread_create(&t, NULL, fn, (void *)arg) != 0) {
		perror("watch: pthread_create");
		exit(1);
	}
	pthread_detach(t);
}

/* Map 1 MiB (at FREED_HINT if free), write it, unmap it: freed points to it. */
NOTRACE static void make_freed(void)
{
	char *p;

	p = mmap((void *)FREED_HINT, MIB, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("watch: mmap");
		exit(1);
	}
	memset(p, 0x5a, MIB);
	if (munmap(p, MIB) != 0) {
		perror("watch: munmap");
		exit(1);
	}
	freed = (int *)(void *)p;
}

int main(void)
{
	sigset_t set;
	int i;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	for (i = 0; i < 300; i++)
		big[i] = i;
	/* Take file_static's address so no optimisation folds it away. */
	sink = *(volatile int *)&file_static;
	if (pipe(parked_pipe) != 0) {
		perror("watch: pipe");
		return 1;
	}
	pthread_barrier_init(&started, NULL, 5);
	start(ticker_main, 0);
	start(worker_main, 1);
	start(worker_main, 2);
	start(parked_main, 0);
	pthread_barrier_wait(&started);
	make_freed();
	app_ready("freed %p", (void *)freed);
	app_ready("main %ld", (long)getpid());
	while (app_wait(SIGUSR1) == SIGUSR1)
		if (write(parked_pipe[1], "x", 1) != 1)
			return 1;
	return 0;
}
