/* SPDX-License-Identifier: MIT */
/*
 * stk-asleep.c - started without the library, for rbtrace -p: main and
 * four threads each enter a chain of functions at start-up and fall asleep
 * there before any attach, each in another way: read() on a pipe (main),
 * pthread_cond_wait(), a nanosleep() loop, epoll_wait() without a timeout,
 * and read() on the FIFO named by argv[1] (the control thread).  Once all
 * sleep, "asleep PID 5".  None makes an instrumented call after that, so
 * none would get a ring of its own: rbtrace -p must show them all at once,
 * with the frames gdb shows.
 *
 * Each line written to the FIFO wakes the control thread, which appends
 * "eintr PID N" (the calls that failed with EINTR so far, in every thread)
 * and sleeps again; "quit" wakes every thread, and the program exits 0
 * with "done PID N".  Without the FIFO the control thread sleeps in read()
 * on the pipe as main does.
 *
 * The innermost functions open their body on the line that names them:
 * rbmon locates an innermost frame at its function's first line-table
 * row, which clang puts at the brace and gcc at the name, and gdb at the
 * name.
 */
#include <poll.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>

#include "stk.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static volatile int quit;
static int eintrs;
static int sleeping;
static int epfd = -1;
static int fifo = -1;
static int wake[2] = { -1, -1 };

NOTRACE static void asleep(void)
{
	if (__atomic_add_fetch(&sleeping, 1, __ATOMIC_ACQ_REL) == 5)
		app_ready("asleep %d 5", (int)getpid());
}

NOTRACE static void count_eintr(void)
{
	__atomic_add_fetch(&eintrs, 1, __ATOMIC_ACQ_REL);
}

/* Main: read() on a pipe written to at "quit" only. */
NOINLINE static int main_wait(int n) {
	char c;
	ssize_t r;

	asleep();
	while ((r = read(wake[0], &c, 1)) < 0 && errno == EINTR)
		count_eintr();
	return (int)r + n;
}

NOINLINE static int
main_serve(int n)
{
	return main_wait(n + 1) - 1;
}

/* pthread_cond_wait(), woken by "quit" alone. */
NOINLINE static int cond_wait_job(int n) {
	pthread_mutex_lock(&mu);
	asleep();
	while (!quit)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return n;
}

NOINLINE static int
cond_worker(int n)
{
	return cond_wait_job(n * 2) + 1;
}

static void *
cond_main(void *arg)
{
	return (void *)(long)cond_worker((int)(long)arg);
}

/* A nanosleep() loop; a sleep cut short by EINTR is counted. */
NOINLINE static int nap_loop(int n) {
	struct timespec ts = { 0, 20000000 };

	asleep();
	while (!quit)
		if (nanosleep(&ts, NULL) < 0 && errno == EINTR)
			count_eintr();
	return n;
}

NOINLINE static int
napper(int n)
{
	return nap_loop(n + 3) - 3;
}

static void *
nap_main(void *arg)
{
	return (void *)(long)napper((int)(long)arg);
}

/* epoll_wait() without a timeout on the pipe "quit" writes to. */
NOINLINE static int poll_events(int n) {
	struct epoll_event ev;
	int r;

	asleep();
	while ((r = epoll_wait(epfd, &ev, 1, -1)) < 0 && errno == EINTR)
		count_eintr();
	return r + n;
}

NOINLINE static int
event_loop(int n)
{
	return poll_events(n) ^ 1;
}

static void *
event_main(void *arg)
{
	return (void *)(long)event_loop((int)(long)arg);
}

NOTRACE static void wake_all(void)
{
	pthread_mutex_lock(&mu);
	quit = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	if (write(wake[1], "qq", 2) != 2)
		perror("stk-asleep: write");
}

/* The control thread: a line of the FIFO at a time. */
NOINLINE static int read_command(int n) {
	char buf[64];
	ssize_t r;

	asleep();
	for (;;) {
		r = read(fifo >= 0 ? fifo : wake[0], buf, sizeof(buf) - 1);
		if (r < 0 && errno == EINTR) {
			count_eintr();
			continue;
		}
		if (r <= 0 || fifo < 0)
			break;
		buf[r] = '\0';
		app_ready("eintr %d %d", (int)getpid(),
			  __atomic_load_n(&eintrs, __ATOMIC_ACQUIRE));
		if (strstr(buf, "quit") != NULL) {
			wake_all();
			break;
		}
	}
	return n;
}

NOINLINE static int
control(int n)
{
	return read_command(n) + 2;
}

static void *
control_main(void *arg)
{
	return (void *)(long)control((int)(long)arg);
}

int
main(int argc, char **argv)
{
	struct epoll_event ev = { .events = EPOLLIN };
	pthread_t t[4];
	int i;

	stk_init(5);
	if (pipe(wake) < 0 || (epfd = epoll_create1(0)) < 0) {
		perror("stk-asleep");
		return 1;
	}
	ev.data.fd = wake[0];
	epoll_ctl(epfd, EPOLL_CTL_ADD, wake[0], &ev);
	/* O_RDWR: a writer that comes and goes is no end of file. */
	if (argc > 1 && (fifo = open(argv[1], O_RDWR)) < 0) {
		perror(argv[1]);
		return 1;
	}
	if (pthread_create(&t[0], NULL, cond_main, (void *)1L) != 0 ||
	    pthread_create(&t[1], NULL, nap_main, (void *)2L) != 0 ||
	    pthread_create(&t[2], NULL, event_main, (void *)3L) != 0 ||
	    pthread_create(&t[3], NULL, control_main, (void *)4L) != 0) {
		fprintf(stderr, "stk-asleep: pthread_create failed\n");
		return 1;
	}
	main_serve(argc);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	app_ready("done %d %d", (int)getpid(),
		  __atomic_load_n(&eintrs, __ATOMIC_ACQUIRE));
	return 0;
}
