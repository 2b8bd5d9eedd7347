/* SPDX-License-Identifier: MIT */
/*
 * watchsyms - names defined in several files, pointers to functions and
 * to symbols, for watch-symbols.sh, which compares rbmon's values with
 * gdb's print of the same process.
 *
 * Built from main.c, a/util.c, b/util.c and display.c, in that order
 * (two files with one base name), twice: tests/apps/watchsyms (DWARF) and
 * tests/apps/watchsyms-nodebug (the debug sections stripped at link).
 *
 *   level    static in a/util.c (2), b/util.c (3) and display.c (4)
 *   verbose  static in main.c (1) and a/util.c (5)
 *   mode     global in main.c (7), static in b/util.c (8)
 *   scale    static function in a/util.c (x + 2) and b/util.c (x * 3),
 *            reached through a_scale and b_scale
 *
 * The statics are "used", so they keep their memory (and a DWARF
 * location) whatever -O the user's CFLAGS add.
 *
 * Nothing below changes once the program is ready, so rbmon and gdb see
 * the same values.  Threads: "ticker" passes a hook (tick()) every
 * millisecond, so that it evaluates watches; main reports "main PID" and
 * waits in sigwait() (passing no hook) until SIGTERM or SIGINT.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../app.h"
#include "watchsyms.h"

static int verbose __attribute__((used)) = 1;
int mode = 7;

struct ops {
	const char	*name;
	int		(*scale)(int);
	void		(*on_event)(int);
	int		*data;
};
typedef void (*handler_t)(int);

int total = 5;
int table[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
int *tablep = &table[3];
int *table_end = &table[8];
int *totalp = &total;
void *anyp = &total;
char banner[12] = "watch me!!!";
char *bannerp = banner + 6;
const char *plain = "plain";
unsigned char bytes[4] = "ab";
unsigned char *bytesp = bytes;
int *heapp;

void handle_event(int sig);
void handle_tick(int sig);
int log_line(const char *fmt, ...);

void (*on_event)(int) = handle_event;
handler_t on_tick = handle_tick;
void (*no_handler)(int);
int (*steps[3])(int);
int (*log_p)(const char *, ...) = log_line;
char *(*pick_p)(char *, const char *);
struct ops ops = { "ops", NULL, handle_event, &total };
struct ops opsv[2] = {
	{ "first", NULL, handle_tick, &table[1] },
	{ "second", NULL, NULL, NULL },
};
void (*hooks[12])(int) = {
	handle_tick, handle_tick, handle_tick, handle_tick, handle_tick,
	handle_tick, handle_tick, handle_tick, handle_tick, handle_tick,
	handle_tick, handle_tick,
};

void tick(void);

static volatile int sink;

void handle_event(int sig)
{
	sink += sig;
}

void handle_tick(int sig)
{
	sink -= sig;
}

int log_line(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sink += fmt[0];
	va_end(ap);
	return 0;
}

void tick(void)
{
	sink++;
}

NOTRACE static void *ticker_main(void *arg)
{
	struct timespec ts = { 0, 1000000 };

	(void)arg;
	pthread_setname_np(pthread_self(), "ticker");
	app_ready("thread ticker %ld", (long)syscall(SYS_gettid));
	for (;;) {
		tick();
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int main(void)
{
	sigset_t set;
	pthread_t t;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	heapp = malloc(64 * sizeof(*heapp));
	if (heapp == NULL)
		return 1;
	heapp[0] = 42;
	steps[0] = a_scale;
	steps[2] = b_scale;
	ops.scale = a_scale;
	opsv[1].scale = b_scale;
	sink = verbose + mode + util_a() + util_b() + display();
	if (pthread_create(&t, NULL, ticker_main, NULL) != 0)
		return 1;
	app_ready("main %ld", (long)getpid());
	app_wait(0);
	return 0;
}
