/* SPDX-License-Identifier: MIT */
/*
 * rbmon dump (rbmon --dump, --json): every process and thread of a trace
 * file with its live stack, once or every interval (--follow).
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "monitor/cmd/cmd.h"
#include "monitor/core/discover.h"
#include "monitor/core/dump.h"
#include "monitor/core/model.h"
#include "monitor/core/safeio.h"
#include "monitor/core/stack.h"
#include "monitor/core/symbols.h"
#include "monitor/util/escape.h"
#include "monitor/util/opts.h"
#include "monitor/util/util.h"

static volatile sig_atomic_t	dump_stop;

static void
dump_signal(int sig)
{
	dump_stop = 1;
}

static void
dump_sleep(long tenths)
{
	struct timespec	ts;
	long		i;

	/* Sleep in short steps so a signal ends the wait at once. */
	for (i = 0; i < tenths && !dump_stop; i++) {
		ts.tv_sec = 0;
		ts.tv_nsec = 100000000;
		nanosleep(&ts, NULL);
	}
}

static int
dump_run(const char *path, int json, int follow, long delay)
{
	struct rbmon_model	 m;
	struct rbmon_snapshot	 s;
	struct rbmon_symbols	*sy;
	struct rbmon_clock	 c;
	struct rbmon_seen	 seen = { NULL, 0 };
	struct sigaction	 sa;
	char			*cause = NULL;
	int			 tty, status = 0, more;

	if (rbmon_safeio_open_trace(&m, path, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon: %s: %s", path, cause);
		free(cause);
		return 1;
	}
	if (follow) {
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = dump_signal;
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
		more = follow && !dump_stop && rbmon_any_alive(&m, &s);
		rbmon_model_free(&s);
		if (!more)
			break;
		dump_sleep(delay);
		if (dump_stop)
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

static void
dump_usage(FILE *f)
{
	fputs("Usage: rbmon dump [OPTIONS] FILE\n"
	    "       rbmon dump [OPTIONS] -p PID\n"
	    "Print every process and thread of a trace file with its live "
	    "stack, then exit\n(rbmon --dump).\n"
	    "\n"
	    "      --json           JSON output\n"
	    "  -f, --follow         redraw every interval until every traced "
	    "process is gone,\n"
	    "                       or until interrupted\n"
	    "  -d, --delay TENTHS   the interval in tenths of a second "
	    "(default 10)\n"
	    "  -p, --pid PID        use the trace file PID writes to\n"
	    "  -h, --help           show this help\n", f);
}

/**
 * rbmon_cmd_dump - `rbmon dump [--json] [-f] FILE`, or rbmon with --dump,
 * --json or --follow, or not on a terminal
 */
int
rbmon_cmd_dump(int argc, char **argv)
{
	struct rbmon_opts	 o;
	const char		*file;
	char			*found;
	int			 status;

	rbmon_opts_parse(&o, "dump", argc, argv);
	if (rbmon_opts_answered(&o, dump_usage))
		return 0;
	if ((file = rbmon_discover_file(o.file, o.pid, &found)) == NULL)
		status = 1;
	else
		status = dump_run(file, o.json, o.follow, o.delay);
	free(found);
	rbmon_opts_free(&o);
	return status;
}
