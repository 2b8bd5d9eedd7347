/* rbmon: show the live stacks in an rbtrace trace file. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "discover.h"
#include "dump.h"
#include "model.h"
#include "symbols.h"
#include "tui.h"

#define RBMON_DELAY_MAX	36000	/* tenths: an hour */

static volatile sig_atomic_t	rbmon_stop;

static const struct option rbmon_options[] = {
	{ "dump",	no_argument,		NULL, 'D' },
	{ "json",	no_argument,		NULL, 'J' },
	{ "list",	no_argument,		NULL, 'L' },
	{ "pid",	required_argument,	NULL, 'p' },
	{ "follow",	no_argument,		NULL, 'f' },
	{ "delay",	required_argument,	NULL, 'd' },
	{ "no-color",	no_argument,		NULL, 'C' },
	{ "no-colour",	no_argument,		NULL, 'C' },
	{ "ascii",	no_argument,		NULL, 'A' },
	{ "hide-exited", no_argument,		NULL, 'E' },
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
	    "  -h, --help           show this help and exit\n"
	    "  -V, --version        show the version and exit\n", f);
}

static __attribute__((noreturn, format(printf, 1, 2))) void
rbmon_bad_usage(const char *fmt, ...)
{
	va_list	ap;

	fputs("rbmon: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
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
	struct sigaction	 sa;
	char			*cause = NULL;
	int			 tty, status = 0, more;

	if (rbmon_model_open(&m, path, RBMON_READY_WAIT_MS, &cause) != 0) {
		fprintf(stderr, "rbmon: %s: %s\n", path, cause);
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
			fprintf(stderr, "rbmon: %s: %s\n", path, cause);
			free(cause);
			status = 1;
			break;
		}
		rbmon_clock_init(&c, &m.hdr);
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
	rbmon_model_close(&m);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "rbmon: write error: %s\n", strerror(errno));
		status = 1;
	}
	return status;
}

static int
rbmon_interactive(const char *path, const struct rbmon_tui_opts *o)
{
	struct rbmon_model	 m;
	char			*cause = NULL;
	int			 status;

	if (rbmon_model_open(&m, path, RBMON_READY_WAIT_MS, &cause) != 0) {
		fprintf(stderr, "rbmon: %s: %s\n", path, cause);
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
		if (rbmon_model_open(&m, path, RBMON_READY_WAIT_MS,
		    &cause) == 0)
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

int
main(int argc, char **argv)
{
	const char	*file = NULL;
	char		*found = NULL, *cause = NULL;
	struct rbmon_tui_opts	 o = { 10, 1, 0, 0 };
	long		 delay = 10, pid = 0;
	int		 ch, dump = 0, json = 0, list = 0, follow = 0, status;
	int		 interactive;

	setlocale(LC_CTYPE, "");	/* UTF-8 line drawing, if the terminal has it */
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":p:fd:hV", rbmon_options,
	    NULL)) != -1) {
		switch (ch) {
		case 'D':
			dump = 1;
			break;
		case 'J':
			json = dump = 1;
			break;
		case 'L':
			list = 1;
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
	if (optind < argc)
		file = argv[optind++];
	if (optind < argc)
		rbmon_bad_usage("too many arguments: '%s'", argv[optind]);

	if (list) {
		if (dump || follow || file != NULL || pid != 0)
			rbmon_bad_usage("--list takes no file and no other "
			    "mode");
		return rbmon_discover_list(stdout, stderr);
	}
	if (file != NULL && pid != 0)
		rbmon_bad_usage("give either FILE or --pid, not both");
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
		found = rbmon_discover_pid((pid_t)pid, &cause);
		if (found == NULL) {
			fprintf(stderr, "rbmon: %s\n", cause);
			free(cause);
			return 1;
		}
		file = found;
	}
	if (interactive)
		status = rbmon_interactive(file, &o);
	else
		status = rbmon_run(file, json, follow, delay);
	free(found);
	return status;
}
