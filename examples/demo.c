/* SPDX-License-Identifier: MIT */
/*
 * demo.c - a small multi-threaded, forking program to watch with rbtrace.
 *
 * Build it with -finstrument-functions and run it under rbtrace:
 *
 *	rbtrace -- examples/demo -t 60 &
 *	rbmon /tmp/demo.<pid>.trace
 *
 * Threads, each named with pthread_setname_np():
 *   parser    cycles through a changing call chain
 *             (parse_document -> parse_section -> parse_line -> tokenize ...)
 *   recursor  recurses 100 frames deep in walk_tree() and rests at the bottom
 *   server    parked in poll() under server_main -> accept_loop ->
 *             wait_for_client
 *   job       a short-lived job thread started about every second
 * and a forked child process "demo-child" with two threads (its main thread
 * and "checksummer").
 *
 * Nothing busy-spins: every work burst is followed by a short sleep.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* pthread_setname_np */
#endif

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOTRACE		__attribute__((no_instrument_function))

#define TREE_DEPTH	100
#define JOB_PERIOD_MS	1000

static atomic_int demo_stop;		/* set by signals or the deadline */
static int server_pipe[2] = { -1, -1 };	/* written once to wake the server */
static volatile unsigned long demo_sink;	/* keeps work from being elided */

static const char *const demo_text[] = {
	"# rbtrace demo",
	"name = value",
	"list = one, two, three",
	"",
	"[section]",
	"key = \"quoted string\"",
};

NOTRACE static void demo_on_signal(int sig)
{
	(void)sig;
	atomic_store(&demo_stop, 1);
}

NOTRACE static int demo_stopping(void)
{
	return atomic_load(&demo_stop);
}

/* Sleep @ms milliseconds, in slices so that a stop request is seen soon. */
NOTRACE static void demo_nap(long ms)
{
	struct timespec ts;

	while (ms > 0 && !demo_stopping()) {
		long slice = ms < 50 ? ms : 50;

		ts.tv_sec = 0;
		ts.tv_nsec = slice * 1000000L;
		nanosleep(&ts, NULL);
		ms -= slice;
	}
}

/* The parser: a call chain that changes from one burst to the next. */

static unsigned long classify(char c)
{
	if (c >= '0' && c <= '9')
		return 1;
	if (c == '=' || c == ',' || c == '[' || c == ']')
		return 2;
	return 3;
}

static unsigned long tokenize(const char *line, int round)
{
	unsigned long sum = 0;

	for (const char *p = line; *p; p++)
		sum += classify(*p);
	if (round % 2)
		demo_nap(10);
	return sum;
}

static unsigned long parse_value(const char *line, int round)
{
	const char *eq = strchr(line, '=');

	demo_nap(15);
	return eq ? tokenize(eq + 1, round) : 0;
}

static unsigned long parse_line(const char *line, int round)
{
	unsigned long n = tokenize(line, round);

	if (round % 3 == 0)
		n += parse_value(line, round);
	return n;
}

static unsigned long parse_section(int round)
{
	unsigned long n = 0;
	size_t i;

	for (i = 0; i < sizeof(demo_text) / sizeof(demo_text[0]); i++) {
		n += parse_line(demo_text[i], round);
		demo_nap(20);
	}
	return n;
}

static unsigned long parse_document(int round)
{
	unsigned long n = parse_section(round);

	if (round % 2)
		n += parse_section(round + 1);
	return n;
}

static void *parser_main(void *arg)
{
	int round = 0;

	(void)arg;
	while (!demo_stopping()) {
		demo_sink += parse_document(round++);
		demo_nap(100);
	}
	return NULL;
}

/* The recursor: deeper than the default 32 slots, so the ring wraps. */

static void rest_at_bottom(void)
{
	demo_nap(1500);
}

static unsigned long walk_tree(int depth)
{
	if (depth >= TREE_DEPTH) {
		rest_at_bottom();
		return 1;
	}
	return walk_tree(depth + 1) + 1;
}

static void *recursor_main(void *arg)
{
	(void)arg;
	while (!demo_stopping()) {
		demo_sink += walk_tree(1);
		demo_nap(500);
	}
	return NULL;
}

/* The server: parked in a blocking call under a known chain. */

static int wait_for_client(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int n;

	do
		n = poll(&pfd, 1, -1);
	while (n < 0 && errno == EINTR && !demo_stopping());
	return n;
}

static void accept_loop(int fd)
{
	while (!demo_stopping())
		if (wait_for_client(fd) > 0)
			break;
}

static void *server_main(void *arg)
{
	(void)arg;
	accept_loop(server_pipe[0]);
	return NULL;
}

/* Jobs: threads that come and go. */

static unsigned long compute_checksum(unsigned long seed)
{
	unsigned long h = seed;
	int i;

	for (i = 0; i < 100000; i++)
		h = h * 31 + (unsigned long)i;
	return h;
}

static void run_job(unsigned long id)
{
	demo_sink += compute_checksum(id);
	demo_nap(300);
}

static void *job_main(void *arg)
{
	run_job((unsigned long)(uintptr_t)arg);
	return NULL;
}

/*
 * Threads start in an uninstrumented trampoline that names them first, so
 * each ring is claimed (at the first instrumented call) under its name.
 */
struct demo_start {
	char		name[16];
	void		*(*fn)(void *);
	void		*arg;
};

NOTRACE static void *demo_trampoline(void *p)
{
	struct demo_start s = *(struct demo_start *)p;

	free(p);
	pthread_setname_np(pthread_self(), s.name);
	return s.fn(s.arg);
}

NOTRACE static int demo_spawn(pthread_t *t, const char *name,
			      void *(*fn)(void *), void *arg)
{
	struct demo_start *s = malloc(sizeof(*s));
	int err;

	if (!s)
		return ENOMEM;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->fn = fn;
	s->arg = arg;
	err = pthread_create(t, NULL, demo_trampoline, s);
	if (err)
		free(s);
	return err;
}

/* The forked child: its own main thread plus "checksummer". */

static void *checksummer_main(void *arg)
{
	unsigned long n = 0;

	(void)arg;
	while (!demo_stopping()) {
		demo_sink += compute_checksum(n++);
		demo_nap(200);
	}
	return NULL;
}

static void child_wait(void)
{
	while (!demo_stopping())
		demo_nap(200);
}

static int child_main(pid_t parent)
{
	pthread_t t;
	int err;

	/* Do not outlive a parent that was killed before it could reap us. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		return 0;
	pthread_setname_np(pthread_self(), "demo-child");
	err = demo_spawn(&t, "checksummer", checksummer_main, NULL);
	if (err)
		fprintf(stderr, "demo-child: pthread_create: %s\n", strerror(err));
	child_wait();
	if (!err)
		pthread_join(t, NULL);
	return 0;
}

static pid_t start_child(void)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid == 0)
		_exit(child_main(parent));
	if (pid < 0)
		perror("demo: fork");
	return pid;
}

NOTRACE static void demo_usage(FILE *f)
{
	fprintf(f,
		"usage: demo [-t SECONDS] [-h]\n"
		"  -t SECONDS  run that long, then exit (default: until SIGINT/SIGTERM)\n"
		"  -h          show this help\n");
}

NOTRACE static double demo_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void main_loop(double seconds)
{
	double deadline = seconds > 0 ? demo_now() + seconds : 0;
	pthread_t job;
	int have_job = 0;
	unsigned long jobs = 0;

	while (!demo_stopping()) {
		if (deadline > 0 && demo_now() >= deadline)
			break;
		if (have_job)
			pthread_join(job, NULL);
		have_job = demo_spawn(&job, "job", job_main,
				      (void *)(uintptr_t)jobs) == 0;
		jobs++;
		demo_nap(JOB_PERIOD_MS);
	}
	atomic_store(&demo_stop, 1);
	if (have_job)
		pthread_join(job, NULL);
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	pthread_t parser, recursor, server;
	double seconds = 0;
	char *end;
	pid_t child;
	int opt, status;

	while ((opt = getopt(argc, argv, "t:h")) != -1) {
		switch (opt) {
		case 't':
			errno = 0;
			seconds = strtod(optarg, &end);
			if (errno || end == optarg || *end || seconds <= 0) {
				fprintf(stderr, "demo: -t %s: not a positive number of seconds\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			demo_usage(stdout);
			return 0;
		default:
			demo_usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		demo_usage(stderr);
		return 2;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = demo_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (pipe(server_pipe) < 0) {
		perror("demo: pipe");
		return 1;
	}

	child = start_child();
	if (demo_spawn(&parser, "parser", parser_main, NULL) ||
	    demo_spawn(&recursor, "recursor", recursor_main, NULL) ||
	    demo_spawn(&server, "server", server_main, NULL)) {
		fprintf(stderr, "demo: cannot start threads\n");
		if (child > 0) {
			kill(child, SIGTERM);
			waitpid(child, NULL, 0);
		}
		return 1;
	}

	main_loop(seconds);

	/* Wake the server, collect everyone, then the child. */
	if (write(server_pipe[1], "q", 1) < 0)
		perror("demo: write");
	pthread_join(parser, NULL);
	pthread_join(recursor, NULL);
	pthread_join(server, NULL);
	if (child > 0) {
		kill(child, SIGTERM);
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
	}
	close(server_pipe[0]);
	close(server_pipe[1]);
	return 0;
}
