/* SPDX-License-Identifier: MIT */
/* rbmon: show the live stacks in an rbtrace trace file. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "monitor/core/breakpoint.h"
#include "monitor/core/control.h"
#include "monitor/core/discover.h"
#include "monitor/core/dump.h"
#include "monitor/core/escape.h"
#include "monitor/core/model.h"
#include "monitor/core/safeio.h"
#include "monitor/core/stack.h"
#include "monitor/core/symbols.h"
#include "monitor/screen/tui.h"
#include "monitor/history/events.h"
#include "monitor/history/record.h"
#include "monitor/history/profile.h"
#include "monitor/history/replay.h"

#define RBMON_DELAY_MAX	36000	/* tenths: an hour */

static volatile sig_atomic_t	rbmon_stop;

static const struct option rbmon_options[] = {
	{ "dump",	no_argument,		NULL, 'D' },
	{ "json",	no_argument,		NULL, 'J' },
	{ "events",	no_argument,		NULL, 'e' },
	{ "record",	no_argument,		NULL, 'R' },
	{ "output",	required_argument,	NULL, 'o' },
	{ "list",	no_argument,		NULL, 'L' },
	{ "prune",	no_argument,		NULL, 'P' },
	{ "older-than",	required_argument,	NULL, 'O' },
	{ "dry-run",	no_argument,		NULL, 'N' },
	{ "pid",	required_argument,	NULL, 'p' },
	{ "follow",	no_argument,		NULL, 'f' },
	{ "delay",	required_argument,	NULL, 'd' },
	{ "no-color",	no_argument,		NULL, 'C' },
	{ "no-colour",	no_argument,		NULL, 'C' },
	{ "ascii",	no_argument,		NULL, 'A' },
	{ "hide-exited", no_argument,		NULL, 'E' },
	{ "thread",	required_argument,	NULL, 't' },
	{ "send",	required_argument,	NULL, 's' },
	{ "set",	required_argument,	NULL, 'S' },
	{ "timeout",	required_argument,	NULL, 'T' },
	{ "watch",	required_argument,	NULL, 'w' },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, 'V' },
	{ NULL,		0,			NULL, 0 }
};

static void
rbmon_usage(FILE *f)
{
	fputs("Usage: rbmon [OPTIONS] [FILE]\n"
	    "Show the live call stacks an rbtrace'd program keeps in FILE.\n"
	    "On a terminal rbmon opens a full-screen live view (F1 or ? there "
	    "lists\nthe keys); without FILE it lists your trace files to pick "
	    "from.\n"
	    "\n"
	    "  -p, --pid PID        use the trace file PID writes to\n"
	    "  -d, --delay TENTHS   refresh interval in tenths of a second "
	    "(default 10)\n"
	    "      --hide-exited    start with exited threads hidden\n"
	    "      --no-color       draw without colour (also NO_COLOR=1)\n"
	    "      --ascii          draw lines with ASCII characters\n"
	    "      --dump           print every process and thread with its "
	    "live stack, then exit\n"
	    "                       (the default when not on a terminal)\n"
	    "      --json           JSON output (implies --dump)\n"
	    "  -f, --follow         with --dump: redraw every interval until "
	    "every traced\n"
	    "                       process is gone, or until interrupted\n"
	    "      --list           list this user's trace files\n"
	    "      --prune [DIR...] remove this user's trace files whose "
	    "programs are gone\n"
	    "                       (in DIR, or where --list looks)\n"
	    "      --older-than AGE with --prune: only files created AGE ago "
	    "or more\n"
	    "                       (90s, 30m, 12h, 7d)\n"
	    "      --dry-run        with --prune: say what would go, remove "
	    "nothing\n"
	    "      --events         print each thread's event log (its recent "
	    "calls) as a\n"
	    "                       function graph with durations; with --json "
	    "the records;\n"
	    "                       with --thread TID only that thread's\n"
	    "      --record         record every thread's event log into a "
	    "recording until\n"
	    "                       the program ends or rbmon is interrupted "
	    "(see rbmon replay)\n"
	    "  -o, --output OUT     with --record: the recording (default "
	    "PROGRAM.PID.rbr\n"
	    "                       here, after the trace file's name)\n"
	    "\n"
	    "Control (scriptable):\n"
	    "  -t, --thread TID     the thread --send, --watch and thread flags "
	    "act on\n"
	    "      --send 'CMD [ARG]'  post one command to --thread, wait for "
	    "its answer and\n"
	    "                       print it: STOP CONT STEP NEXT FINI TRON TROF "
	    "PING; exit\n"
	    "                       status 0 for OK, 1 for ERR, 2 when the "
	    "thread did not\n"
	    "                       answer.  BRKP FUNCTION [COUNT] [thread], "
	    "BCLR ID|* and\n"
	    "                       BLST act on the breakpoints of --thread's "
	    "process at once\n"
	    "                       (rbmon writes them; no answer awaited).  "
	    "EVOF and EVON\n"
	    "                       switch the event log of --thread off and "
	    "on, or without\n"
	    "                       --thread of every thread of the process "
	    "(--pid) or of\n"
	    "                       the file, and of the threads they start "
	    "later\n"
	    "  -w, --watch EXPR     evaluate a C expression over the program's "
	    "globals in\n"
	    "                       --thread and print its value; up to 4 "
	    "--watch, each\n"
	    "                       then printed as EXPR = VALUE; exit status "
	    "0, 1 for an\n"
	    "                       error, 2 when the thread did not answer\n"
	    "      --timeout SEC    how long --send and --watch wait (default "
	    "5)\n"
	    "      --set FLAG=0|1   set a flag: single, stop_on_create, "
	    "trace_on_create;\n"
	    "                       with --thread also signal (stop at the "
	    "next hook) and\n"
	    "                       trace; may be repeated\n"
	    "  -h, --help           show this help and exit\n"
	    "  -V, --version        show the version and exit\n"
	    "\n"
	    "Commands (rbmon COMMAND --help tells more):\n"
	    "  rbmon replay RECORDING   every call, threads merged in time "
	    "order\n"
	    "  rbmon report RECORDING   calls, total and self time per "
	    "function\n"
	    "  rbmon hot RECORDING      the most called functions, and the "
	    "flags that\n"
	    "                           would stop instrumenting them\n"
	    "  rbmon export FORMAT RECORDING  Chrome JSON, folded stacks, "
	    "speedscope\n"
	    "  rbmon profile FILE       sample the live stacks into folded "
	    "stacks, on CPU\n"
	    "                           and off\n", f);
}

static __attribute__((noreturn, format(printf, 1, 2))) void
rbmon_bad_usage(const char *fmt, ...)
{
	va_list	 ap;
	char	*msg = NULL;

	fputs("rbmon: ", stderr);
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	rbmon_esc_fputs(msg != NULL ? msg : "out of memory", stderr);
	fputs("\nTry 'rbmon --help'.\n", stderr);
	exit(2);
}

static long
rbmon_number(const char *what, const char *s, long lo, long hi)
{
	char	*end;
	long	 v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
		rbmon_bad_usage("invalid %s '%s' (expected %ld..%ld)", what, s,
		    lo, hi);
	return v;
}

static void
rbmon_signal(int sig)
{
	rbmon_stop = 1;
}

static void
rbmon_sleep(long tenths)
{
	struct timespec	ts;
	long		i;

	/* Sleep in short steps so a signal ends the wait at once. */
	for (i = 0; i < tenths && !rbmon_stop; i++) {
		ts.tv_sec = 0;
		ts.tv_nsec = 100000000;
		nanosleep(&ts, NULL);
	}
}

/*
 * Open the trace file to work on; run by root on another user's file,
 * rbmon then keeps to that user's file access rights (see safeio.c).
 */
static int
rbmon_open(struct rbmon_model *m, const char *path, char **cause)
{
	if (rbmon_model_open(m, path, RBMON_READY_WAIT_MS, cause) != 0)
		return -1;
	if (rbmon_safeio_become_owner(m->fd, cause) != 0) {
		rbmon_model_close(m);
		return -1;
	}
	return 0;
}

/* "90s", "30m", "12h", "7d", "3600" (s). Return: 0, or -1. */
static int
rbmon_parse_age(const char *s, uint64_t *ns)
{
	static const struct { const char *unit; double sec; } units[] = {
		{ "", 1 }, { "s", 1 }, { "m", 60 }, { "h", 3600 },
		{ "d", 86400 },
	};
	char	*end;
	double	 v;
	size_t	 i;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || !(v >= 0) || *s == '-')
		return -1;
	for (i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strcmp(end, units[i].unit) == 0) {
			v *= units[i].sec;
			if (v > 100 * 365 * 86400.0)
				return -1;
			*ns = (uint64_t)(v * 1e9);
			return 0;
		}
	return -1;
}

static int
rbmon_any_alive(const struct rbmon_model *m, const struct rbmon_snapshot *s)
{
	size_t	i;

	for (i = 0; i < s->nprocs; i++) {
		if (s->procs[i].alive)
			return 1;
	}
	return rbmon_model_pid_alive(m->hdr.creator_pid, m->hdr.creator_start);
}

static int
rbmon_run(const char *path, int json, int follow, long delay)
{
	struct rbmon_model	 m;
	struct rbmon_snapshot	 s;
	struct rbmon_symbols	*sy;
	struct rbmon_clock	 c;
	struct rbmon_seen	 seen = { NULL, 0 };
	struct sigaction	 sa;
	char			*cause = NULL;
	int			 tty, status = 0, more;

	if (rbmon_open(&m, path, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon: %s: %s", path, cause);
		free(cause);
		return 1;
	}
	if (follow) {
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = rbmon_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	}
	tty = isatty(STDOUT_FILENO);
	sy = rbmon_symbols_new(stderr);
	for (;;) {
		if (rbmon_model_snapshot(&m, &s, &cause) != 0) {
			rbmon_esc_line(stderr, "rbmon: %s: %s", path, cause);
			free(cause);
			status = 1;
			break;
		}
		rbmon_clock_init(&c, &m.hdr);
		if (c.kind == RB_CLOCK_NONE)
			rbmon_seen_update(&seen, &s, c.now_ns);
		rbmon_stack_resolve_all(sy, &s);
		if (follow && tty)
			fputs("\033[H\033[2J", stdout);
		if (json)
			rbmon_dump_json(stdout, &m, &s, sy, &c);
		else
			rbmon_dump_text(stdout, &m, &s, sy, &c);
		fflush(stdout);
		more = follow && !rbmon_stop && rbmon_any_alive(&m, &s);
		rbmon_model_free(&s);
		if (!more)
			break;
		rbmon_sleep(delay);
		if (rbmon_stop)
			break;
	}
	rbmon_symbols_free(sy);
	rbmon_seen_free(&seen);
	rbmon_model_close(&m);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "rbmon: write error: %s\n", strerror(errno));
		status = 1;
	}
	return status;
}

/* --set NAME=VALUE: a global flag, or with @k a thread's. */
static int
rbmon_set_one(struct rbmon_ctl *c, struct rbmon_cmd *k, const char *spec,
    double timeout)
{
	const char	*eq = strchr(spec, '=');
	char		*name, *cause = NULL;
	int		 value, r;

	if (eq == NULL || (strcmp(eq + 1, "0") != 0 && strcmp(eq + 1, "1") != 0))
		rbmon_bad_usage("--set wants FLAG=0 or FLAG=1, not '%s'", spec);
	value = eq[1] - '0';
	name = rbmon_xstrdup(spec);
	name[eq - spec] = '\0';
	if (strcmp(name, "signal") == 0 || strcmp(name, "trace") == 0) {
		if (k == NULL)
			rbmon_bad_usage("--set %s needs --thread TID", name);
		if (strcmp(name, "signal") == 0) {
			r = value ? rbmon_ctl_signal(c, k, &cause) : 0;
		} else {
			r = rbmon_ctl_post(c, k, value ? "TRON" : "TROF", "",
			    &cause);
			if (r == 0 && rbmon_ctl_wait(c, k,
			    (uint64_t)(timeout * 1e9), &cause) != 1) {
				if (cause == NULL)
					rbmon_xasprintf(&cause, "thread %d did "
					    "not answer", k->tid);
				rbmon_ctl_withdraw(c, k);
				r = -1;
			}
		}
	} else {
		r = rbmon_ctl_set_flag(c, name, value, &cause);
	}
	if (r != 0) {
		rbmon_esc_line(stderr, "rbmon: --set %s: %s", spec, cause);
		free(cause);
	}
	free(name);
	return r;
}

static void
rbmon_sleep_ms(long ms)
{
	struct timespec	ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* --watch: each expression evaluated once by thread @k, then removed. */
static int
rbmon_watch_once(struct rbmon_ctl *c, struct rbmon_cmd *k, char **exprs,
    int n, double timeout)
{
	struct rbmon_wval	 v[RB_WATCHES];
	int			 entry[RB_WATCHES], got[RB_WATCHES];
	uint64_t		 deadline;
	char			*cause = NULL;
	int			 i, r, pending = 0, status = 0, answered = 0;

	memset(v, 0, sizeof v);
	for (i = 0; i < n; i++) {
		got[i] = 0;
		entry[i] = -1;
		if (rbmon_ctl_watch_add(c, k, exprs[i], &entry[i], &cause) !=
		    0) {
			rbmon_esc_line(stderr, "rbmon: thread %d: %s: %s",
			    k->tid, exprs[i], cause);
			free(cause);
			cause = NULL;
			got[i] = -1;
			status = 1;
			continue;
		}
		pending++;
	}
	deadline = rbmon_mono_ns() + (uint64_t)(timeout * 1e9);
	while (pending > 0 && rbmon_mono_ns() < deadline) {
		for (i = 0; i < n; i++) {
			if (got[i] != 0)
				continue;
			r = rbmon_ctl_watch_read(c, k, entry[i], &v[i], &cause);
			if (r == 0)
				continue;
			pending--;
			got[i] = r;
			if (r < 0) {
				rbmon_esc_line(stderr, "rbmon: thread %d: %s: "
				    "%s", k->tid, exprs[i], cause != NULL ?
				    cause : "the thread exited");
				free(cause);
				cause = NULL;
				status = 1;
			} else
				answered++;
		}
		if (pending > 0)
			rbmon_sleep_ms(2);
	}
	for (i = 0; i < n; i++) {
		if (got[i] != 1)
			continue;
		if (v[i].error) {
			rbmon_esc_line(stderr, "rbmon: thread %d: %s: %s",
			    k->tid, exprs[i], v[i].text);
			status = 1;
			continue;
		}
		if (n == 1)
			rbmon_esc_line(stdout, "%s%s", v[i].text,
			    v[i].truncated ? "..." : "");
		else
			rbmon_esc_line(stdout, "%s = %s%s", exprs[i],
			    v[i].text, v[i].truncated ? "..." : "");
		if (v[i].truncated)
			rbmon_esc_line(stderr, "rbmon: thread %d: %s: only %zu "
			    "of %d bytes: the global message area was in use "
			    "or too small", k->tid, exprs[i],
			    strlen(v[i].text), (int)v[i].reslength);
	}
	if (pending > 0) {
		fprintf(stderr, "rbmon: thread %d did not evaluate the watch "
		    "within %g s: it passed no hook since (blocked in a system "
		    "call, or running code built without "
		    "-finstrument-functions); the watch entry is freed when it "
		    "next passes one\n", k->tid, timeout);
		status = 2;
	}
	for (i = 0; i < n; i++)
		if (entry[i] >= 0)
			rbmon_ctl_watch_remove(c, k, entry[i]);
	/* A thread that answered acknowledges the removal at its next hook. */
	deadline = rbmon_mono_ns() + 2000000000ull;
	while (pending == 0 && answered > 0 && rbmon_mono_ns() < deadline) {
		for (i = 0; i < n; i++)
			if (entry[i] >= 0 &&
			    rbmon_ctl_watch_inuse(c, k, entry[i]) !=
			    RB_WATCH_FREE)
				break;
		if (i == n)
			break;
		rbmon_sleep_ms(2);
	}
	for (i = 0; i < n; i++)
		rbmon_wval_free(&v[i]);
	return status;
}

/*
 * --send BRKP, BCLR, BLST: rbmon writes the file's breakpoint table
 * itself, so the thread need not pass a hook; the answers are as the
 * thread's would be.
 */
static int
rbmon_bp_send(struct rbmon_ctl *c, const struct rbmon_cmd *k,
    const char *cmd, const char *args)
{
	struct rbmon_bp_scope	 sc;
	struct rbmon_symbols	*sy;
	char			*text = NULL;
	int			 r;

	if (rbmon_bp_scope_of(c, k, &sc, &text) != 0) {
		rbmon_esc_line(stderr, "rbmon: %s", text);
		free(text);
		return 2;
	}
	sy = rbmon_symbols_new(stderr);
	r = rbmon_bp_run(c, sy, &sc, cmd, args, &text);
	rbmon_symbols_free(sy);
	/* BLST answers a line per breakpoint. */
	if (r == 1) {
		rbmon_esc_write(stdout, text, RBMON_ESC_NL);
		putchar('\n');
	} else if (r == 0)
		rbmon_esc_line(stderr, "rbmon: thread %d: %s", k->tid, text);
	else
		rbmon_esc_line(stderr, "rbmon: %s", text);
	free(text);
	return r == 1 ? 0 : r == 0 ? 1 : 2;
}

/* --thread/--send/--set/--watch: one round of control, for scripts. */
/* EVON/EVOF: switch event logs in the file itself. */
static int
rbmon_events_send(struct rbmon_ctl *c, struct rbmon_model *m, long pid,
    long tid, const char *cmd, const char *args)
{
	struct rbmon_snapshot	 s;
	char			*cause = NULL;
	int			 on = strcmp(cmd, "EVON") == 0, n;

	if (*args != '\0') {
		rbmon_esc_line(stderr, "rbmon: %s takes no argument", cmd);
		return 1;
	}
	if (rbmon_model_snapshot(m, &s, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon: %s", cause);
		free(cause);
		return 2;
	}
	n = rbmon_events_switch(c, &s, (int32_t)pid, (int32_t)tid, on, &cause);
	rbmon_model_free(&s);
	if (n < 0) {
		rbmon_esc_line(stderr, "rbmon: %s: %s", cmd, cause);
		free(cause);
		return 1;
	}
	if (tid != 0)
		printf("recording %s for thread %ld\n", on ? "on" : "off", tid);
	else
		printf("recording %s for %d thread%s%s\n", on ? "on" : "off",
		    n, n == 1 ? "" : "s", " and the threads started later");
	return 0;
}

/* --events: every thread's event log, once. */
static int
rbmon_events_run(const char *path, int json, long tid)
{
	struct rbmon_model	 m;
	struct rbmon_snapshot	 s;
	struct rbmon_symbols	*sy;
	struct rbmon_clock	 c;
	char			*cause = NULL;
	size_t			 i, j;
	int			 status = 0, found = tid == 0;

	if (rbmon_open(&m, path, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon: %s: %s", path, cause);
		free(cause);
		return 1;
	}
	if (rbmon_model_snapshot(&m, &s, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon: %s: %s", path, cause);
		free(cause);
		rbmon_model_close(&m);
		return 1;
	}
	for (i = 0; i < s.nprocs && !found; i++)
		for (j = 0; j < s.procs[i].nthreads; j++)
			if (s.procs[i].threads[j].tid == tid)
				found = 1;
	if (!found) {
		rbmon_esc_line(stderr, "rbmon: %s: no thread %ld in it", path,
		    tid);
		status = 1;
	} else {
		rbmon_clock_init(&c, &m.hdr);
		sy = rbmon_symbols_new(stderr);
		if (json)
			rbmon_events_json(stdout, &m, &s, sy, &c, tid);
		else
			rbmon_events_text(stdout, &m, &s, sy, &c, tid);
		rbmon_symbols_free(sy);
	}
	rbmon_model_free(&s);
	rbmon_model_close(&m);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "rbmon: write error: %s\n", strerror(errno));
		status = 1;
	}
	return status;
}

static int
rbmon_control(const char *path, long pid, long tid, const char *send,
    char **sets, int nsets, char **watches, int nwatches, double timeout)
{
	struct rbmon_model	 m;
	struct rbmon_ctl	 c;
	struct rbmon_cmd	 k;
	char			*cause = NULL, *args, cmd[5];
	int			 i, r, status = 0;

	memset(&k, 0, sizeof k);
	if (send != NULL && rbmon_ctl_parse(send, cmd, &args, &cause) != 0)
		rbmon_bad_usage("--send: %s", cause);
	if (send != NULL && strcmp(cmd, "MORE") == 0)
		rbmon_bad_usage("--send: MORE is what rbmon itself sends to "
		    "continue a long answer");
	if (rbmon_open(&m, path, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon: %s: %s", path, cause);
		free(cause);
		return 2;
	}
	if (rbmon_ctl_open(&c, &m, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon: %s: %s", path, cause);
		free(cause);
		rbmon_model_close(&m);
		return 2;
	}
	if (rbmon_safeio_shared_write(m.fd))
		rbmon_esc_line(stderr, "rbmon: warning: %s is writable by "
		    "others than its owner: they can change what rbmon writes "
		    "to it (librbtrace joins no such file)", path);
	/* Stopped threads count their orphan timeout from here. */
	rbmon_ctl_heartbeat(&c);
	if (tid != 0 && rbmon_ctl_target(&c, (int32_t)tid, &k, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon: %s", cause);
		free(cause);
		status = 2;
		goto out;
	}
	for (i = 0; i < nsets; i++)
		if (rbmon_set_one(&c, tid != 0 ? &k : NULL, sets[i],
		    timeout) != 0)
			status = 2;
	if (nwatches > 0 && status == 0) {
		status = rbmon_watch_once(&c, &k, watches, nwatches, timeout);
		goto out;
	}
	if (send == NULL || status != 0)
		goto out;
	if (strcmp(cmd, "EVON") == 0 || strcmp(cmd, "EVOF") == 0) {
		status = rbmon_events_send(&c, &m, pid, tid, cmd, args);
		goto out;
	}
	if (rbmon_bp_is_command(cmd)) {
		status = rbmon_bp_send(&c, &k, cmd, args);
		goto out;
	}
	if (rbmon_ctl_post_wait(&c, &k, cmd, args, (uint64_t)(timeout * 1e9),
	    &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon: %s", cause);
		free(cause);
		status = 2;
		goto out;
	}
	r = rbmon_ctl_wait(&c, &k, (uint64_t)(timeout * 1e9), &cause);
	if (r == 0 && rbmon_ctl_withdraw(&c, &k)) {
		fprintf(stderr, "rbmon: thread %ld did not answer within %g s: "
		    "it passed no hook since (blocked in a system call, or "
		    "running code built without -finstrument-functions); the "
		    "command was withdrawn, nothing was done\n", tid, timeout);
		status = 2;
	} else if (r == 0 &&
	    (r = rbmon_ctl_wait(&c, &k, 5 * 1000000000ull, &cause)) == 0) {
		fprintf(stderr, "rbmon: thread %ld took the command but did "
		    "not finish its answer\n", tid);
		status = 2;
	}
	if (r < 0) {
		rbmon_esc_line(stderr, "rbmon: %s", cause);
		free(cause);
		status = 2;
	} else if (r == 1 && k.ok) {
		rbmon_esc_line(stdout, "%s", k.text);
	} else if (r == 1) {
		rbmon_esc_line(stderr, "rbmon: thread %ld: %s", tid, k.text);
		status = 1;
	}
out:
	rbmon_cmd_free(&k);
	rbmon_ctl_close(&c);
	rbmon_model_close(&m);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "rbmon: write error: %s\n", strerror(errno));
		status = 2;
	}
	return status;
}

static int
rbmon_interactive(const char *path, const struct rbmon_tui_opts *o)
{
	struct rbmon_model	 m;
	char			*cause = NULL;
	int			 status;

	if (rbmon_open(&m, path, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon: %s: %s", path, cause);
		free(cause);
		return 1;
	}
	status = rbmon_tui_run(&m, o);
	rbmon_model_close(&m);
	return status;
}

/* No file given on a terminal: pick one, open it, and come back on error. */
static int
rbmon_pick(const struct rbmon_tui_opts *o)
{
	struct rbmon_model	 m;
	char			*path = NULL, *cause = NULL, *error = NULL;
	char			*last = NULL;
	int			 r;

	for (;;) {
		r = rbmon_pick_run(o, error, last, &path);
		free(error);
		free(last);
		error = last = NULL;
		if (r != 0)
			return r < 0 ? 1 : 0;
		if (rbmon_open(&m, path, &cause) == 0)
			break;
		rbmon_xasprintf(&error, "%s: %s", path, cause);
		free(cause);
		cause = NULL;
		last = path;
	}
	r = rbmon_tui_run(&m, o);
	rbmon_model_close(&m);
	free(path);
	return r;
}

/* --record: the recording's default name is the trace file's, here. */
static int
rbmon_record_run(const char *file, const char *output)
{
	struct rbmon_record_opts	 o;
	char				*dflt = NULL;
	const char			*base = rbmon_basename(file);
	size_t				 n = strlen(base);
	int				 status;

	if (output == NULL) {
		if (n > 6 && strcmp(base + n - 6, ".trace") == 0)
			n -= 6;
		rbmon_xasprintf(&dflt, "%.*s.rbr", (int)n, base);
		output = dflt;
	}
	memset(&o, 0, sizeof o);
	o.trace = file;
	o.replace = dflt == NULL;
	o.out = output;
	o.wait_ms = RBMON_READY_WAIT_MS;
	status = rbmon_record(&o);
	free(dflt);
	return status;
}

int
main(int argc, char **argv)
{
	const char	*file = NULL;
	char		*found = NULL, *cause = NULL;
	struct rbmon_tui_opts	 o = { 10, 1, 0, 0 };
	long		 delay = 10, pid = 0, tid = 0;
	int		 ch, dump = 0, json = 0, list = 0, follow = 0, status;
	int		 events = 0, evsend = 0, record = 0, prune = 0;
	int		 dry = 0, have_older = 0;
	uint64_t	 older = 0;
	const char	*output = NULL;
	char		 evcmd[5], *evargs;
	const char	*send = NULL;
	char		**sets = NULL, *end, **watches = NULL;
	int		 nsets = 0, nwatches = 0;
	double		 timeout = 5;
	int		 interactive;

	setlocale(LC_CTYPE, "");	/* UTF-8 line drawing, if the terminal has it */
	/* rbmon replay|report|hot|export RECORDING: a recording read back. */
	if (argc > 1 && (status = rbmon_subcommand(argc - 1, argv + 1)) >= 0)
		return status;
	/* rbmon profile FILE: samples of the live stacks. */
	if (argc > 1 && strcmp(argv[1], "profile") == 0)
		return rbmon_profile_cmd(argc - 1, argv + 1);
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":p:fd:t:w:o:hV", rbmon_options,
	    NULL)) != -1) {
		switch (ch) {
		case 'D':
			dump = 1;
			break;
		case 'J':
			json = dump = 1;
			break;
		case 'e':
			events = 1;
			break;
		case 'L':
			list = 1;
			break;
		case 'P':
			prune = 1;
			break;
		case 'N':
			dry = 1;
			break;
		case 'O':
			if (rbmon_parse_age(optarg, &older) != 0)
				rbmon_bad_usage("invalid age '%s' for "
				    "--older-than (for example 90s, 30m, 12h, "
				    "7d)", optarg);
			have_older = 1;
			break;
		case 'R':
			record = 1;
			break;
		case 'o':
			if (*optarg == '\0')
				rbmon_bad_usage("--output needs a file name");
			output = optarg;
			break;
		case 'p':
			pid = rbmon_number("pid", optarg, 1, INT_MAX);
			break;
		case 'f':
			follow = 1;
			break;
		case 'd':
			delay = rbmon_number("delay", optarg, 1,
			    RBMON_DELAY_MAX);
			break;
		case 'C':
			o.color = 0;
			break;
		case 'A':
			o.ascii = 1;
			break;
		case 'E':
			o.hide_exited = 1;
			break;
		case 't':
			tid = rbmon_number("thread id", optarg, 1, INT_MAX);
			break;
		case 's':
			send = optarg;
			break;
		case 'S':
			sets = rbmon_xreallocarray(sets, (size_t)nsets + 1,
			    sizeof *sets);
			sets[nsets++] = optarg;
			break;
		case 'w':
			if (nwatches == RB_WATCHES)
				rbmon_bad_usage("at most %d --watch", RB_WATCHES);
			watches = rbmon_xreallocarray(watches,
			    (size_t)nwatches + 1, sizeof *watches);
			watches[nwatches++] = optarg;
			break;
		case 'T':
			errno = 0;
			timeout = strtod(optarg, &end);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    !(timeout >= 0.1 && timeout <= 3600))
				rbmon_bad_usage("invalid timeout '%s' (expected "
				    "0.1..3600 seconds)", optarg);
			break;
		case 'h':
			rbmon_usage(stdout);
			return 0;
		case 'V':
			printf("rbmon (rbtrace) %s\n", PACKAGE_VERSION);
			return 0;
		case ':':
			rbmon_bad_usage("option '%s' needs a value",
			    argv[optind - 1]);
		default:
			if (optopt != 0)
				rbmon_bad_usage("unknown option '-%c'", optopt);
			rbmon_bad_usage("unknown option '%s'",
			    argv[optind - 1]);
		}
	}
	if ((have_older || dry) && !prune)
		rbmon_bad_usage("--older-than and --dry-run go with --prune");
	if (list || prune) {
		if (dump || follow || pid != 0 || (list && prune) || record ||
		    events || send != NULL || nsets > 0 || nwatches > 0 ||
		    (list && optind < argc))
			rbmon_bad_usage("%s", list ? "--list takes no file and "
			    "no other mode" : "--prune takes directories and "
			    "no other mode");
		for (int i = optind; prune && i < argc; i++) {
			struct stat	st;

			if (stat(argv[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
				rbmon_esc_line(stderr, "rbmon: --prune: %s: %s",
				    argv[i], stat(argv[i], &st) != 0 ?
				    strerror(errno) : "not a directory");
				return 2;
			}
		}
		if (prune)
			return rbmon_discover_prune(stdout, stderr,
			    (const char *const *)argv + optind,
			    (size_t)(argc - optind), older, dry);
		return rbmon_discover_list(stdout, stderr);
	}
	if (optind < argc)
		file = argv[optind++];
	if (optind < argc)
		rbmon_bad_usage("too many arguments: '%s'", argv[optind]);


	if (file != NULL && pid != 0)
		rbmon_bad_usage("give either FILE or --pid, not both");
	if (output != NULL && !record)
		rbmon_bad_usage("--output goes with --record");
	if (record) {
		if (events || dump || follow || send != NULL || nsets > 0 ||
		    nwatches > 0 || tid != 0)
			rbmon_bad_usage("--record goes with --output and --pid "
			    "only");
		if (file == NULL && pid == 0)
			rbmon_bad_usage("no trace file given (FILE or --pid "
			    "PID)");
	}
	if (events) {
		if (send != NULL || nsets > 0 || nwatches > 0 || follow ||
		    list)
			rbmon_bad_usage("--events goes with --json and "
			    "--thread only");
		if (file == NULL && pid == 0)
			rbmon_bad_usage("no trace file given (FILE or --pid "
			    "PID)");
	}
	if (send != NULL && rbmon_ctl_parse(send, evcmd, &evargs,
	    &cause) == 0)
		evsend = strcmp(evcmd, "EVON") == 0 ||
		    strcmp(evcmd, "EVOF") == 0;
	free(cause);
	cause = NULL;
	if (send != NULL && tid == 0 && !evsend)
		rbmon_bad_usage("--send needs --thread TID");
	if (nwatches > 0 && tid == 0)
		rbmon_bad_usage("--watch needs --thread TID");
	if (nwatches > 0 && send != NULL)
		rbmon_bad_usage("give either --send or --watch, not both");
	if (!events && (send != NULL || nsets > 0 || tid != 0 ||
	    nwatches > 0) && (dump || follow || list))
		rbmon_bad_usage("--thread, --send, --set and --watch do not go "
		    "with --dump, --json, --follow or --list");
	if (tid != 0 && send == NULL && nsets == 0 && nwatches == 0 &&
	    !events)
		rbmon_bad_usage("--thread needs --send, --watch, --set or "
		    "--events");
	if ((send != NULL || nsets > 0 || nwatches > 0) && file == NULL &&
	    pid == 0)
		rbmon_bad_usage("no trace file given (FILE or --pid PID)");
	interactive = !dump && !follow && isatty(STDIN_FILENO) &&
	    isatty(STDOUT_FILENO);
	o.delay = delay;
	if (file == NULL && pid == 0) {
		if (!interactive)
			rbmon_bad_usage("no trace file given (FILE or --pid "
			    "PID; see rbmon --list)");
		return rbmon_pick(&o);
	}
	if (!dump && !follow && !interactive)
		dump = 1;

	if (pid != 0) {
		found = rbmon_discover_pid((pid_t)pid, stderr, &cause);
		if (found == NULL) {
			rbmon_esc_line(stderr, "rbmon: %s", cause);
			free(cause);
			/* --send: 2 whenever no answer was had */
			return send != NULL || nsets > 0 || nwatches > 0 ?
			    2 : 1;
		}
		file = found;
	}
	if (record)
		status = rbmon_record_run(file, output);
	else if (events)
		status = rbmon_events_run(file, json, tid);
	else if (send != NULL || nsets > 0 || nwatches > 0)
		status = rbmon_control(file, pid, tid, send, sets, nsets,
		    watches, nwatches, timeout);
	else if (interactive)
		status = rbmon_interactive(file, &o);
	else
		status = rbmon_run(file, json, follow, delay);
	free(found);
	free(sets);
	free(watches);
	return status;
}
