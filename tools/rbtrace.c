/* SPDX-License-Identifier: MIT */
/* rbtrace.c - run a program with librbtrace preloaded, optionally with rbmon on it. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/capspec.h"
#include "common/escape.h"
#include "common/evlog.h"
#include "common/mindur.h"
#include "common/outfile.h"
#include "common/tracepath.h"
#include "rbtrace/format.h"
#include "tools/attach.h"
#include "tools/progcheck.h"

struct rbtrace_opts {
	const char	*file;
	const char	*output;	/* --output, NULL = next to the trace */
	const char	*env[5];	/* RBTRACE_RINGS ... values, NULL = unset */
	const char	*events;	/* RBTRACE_EVENTS, NULL = unset */
	const char	*policy;	/* RBTRACE_POLICY, NULL = unset */
	const char	*clock;		/* RBTRACE_CLOCK, NULL = unset */
	const char	*min_duration;	/* RBTRACE_MIN_DURATION, NULL = unset */
	int		stop_on_create;
	int		trace_on_create;
	int		monitor;
	int		never;		/* it will run untraced (progcheck) */
	int		unsure;		/* not known to call the hooks */
	int		quiet;
	int		record;		/* rbtrace record */
	pid_t		pid;		/* -p: attach to it */
	int		detach;		/* -p PID --detach */
	const char	*recording;	/* its -o, NULL = rbmon's default */
	const char	*blocking;	/* its --blocking[=TIME], "" no TIME */
	/* dynamic tracing (rbtrace(5), "DYNAMIC TRACING") */
	int		dormant;
	char		*exclude;	/* patterns, comma-separated; NULL none */
	char		*include;
	const char	*auto_exclude;	/* "1" or a warm-up in ms; NULL off */
	const char	*snapshot_signal;	/* RBTRACE_SNAPSHOT_SIGNAL, or NULL */
	/* captures of slow calls (rbtrace(5), "CAPTURES") */
	char		*capture;	/* FUNC>DURATION, ';'-separated; NULL none */
	const char	*capture_keep;
};

/*
 * One line on standard error, formatted, then every byte outside printable
 * ASCII written as \xHH: paths, program names and the library's reply
 * reach the terminal as text, never as control sequences.  A backslash
 * stays as it is: parts escaped already (rb_escape()) are not escaped
 * twice.
 */
static void rbtrace_say(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static void rbtrace_say(const char *fmt, ...)
{
	char line[8192];
	const unsigned char *p;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	for (p = (const unsigned char *)line; *p != '\0'; p++) {
		if (*p >= 0x20 && *p < 0x7f)
			fputc(*p, stderr);
		else
			fprintf(stderr, "\\x%02x", *p);
	}
	fputc('\n', stderr);
}

static const struct {
	const char	*opt;
	const char	*var;
	uint32_t	lo, hi;
} rbtrace_geo[5] = {
	{ "rings", "RBTRACE_RINGS", RB_MIN_RINGS, RB_MAX_RINGS },
	{ "slots", "RBTRACE_SLOTS", RB_MIN_SLOTS, RB_MAX_SLOTS },
	{ "slot-size", "RBTRACE_SLOTSZ", RB_MIN_SLOT_SZ, RB_MAX_SLOT_SZ },
	{ "msg-size", "RBTRACE_MSGSZ", RB_MIN_MSG_SZ, RB_MAX_MSG_SZ },
	{ "global-size", "RBTRACE_GLOBALSZ", RB_MIN_GLOBAL_SZ, RB_MAX_GLOBAL_SZ },
};

/*
 * rbtrace record: records per thread (4 MiB: a few milliseconds of a busy
 * thread, what a recorder waiting for a core on a loaded machine needs),
 * fewer when the rings are many, the logs of them all at most 1 GiB; and
 * how long the program waits for the recorder.
 */
#define RBTRACE_RECORD_EVENTS	131072u
#define RBTRACE_RECORD_LOGS	(1ull << 25)	/* records, all rings */
#define RBTRACE_RECORD_WAIT	"10"

/* Waiting for the trace file: polls of 20 ms, a word after 10 s. */
#define RBTRACE_POLL_NS		(20 * 1000 * 1000)
#define RBTRACE_NOTE_POLLS	500
#define RBTRACE_UNSURE_SECS	5	/* one not known to be traced */

static volatile sig_atomic_t rbtrace_child = -1;

static void rbtrace_record_usage(FILE *f)
{
	fprintf(f,
"Usage: rbtrace record [-o RECORDING] [OPTIONS] [--] PROGRAM [ARGS...]\n"
"Run PROGRAM traced and record every call and return of every thread (fork\n"
"and exec children included) into RECORDING until it ends: a recorder process\n"
"(rbmon record) drains the threads' event logs while the program runs.  The\n"
"program does not wait for it: a thread whose log is full drops its new records\n"
"and counts them, and the summary at the end says how many (unless --blocking).\n"
"\n"
"  -o, --output PATH       the recording (default PROGRAM.PID.rbr here)\n"
"      --events N          records per thread's log, a power of two (default %u,\n"
"                          fewer with over 256 rings)\n"
"      --blocking[=TIME]   lossless: a thread whose log is full waits for the\n"
"                          recorder, at most TIME (default 1s) a wait, instead of\n"
"                          dropping; never for a recorder that is gone\n"
"      --file PATH         the trace file (default ${TMPDIR:-/tmp}/PROGRAM.PID.trace)\n"
"  -q, --quiet             no summary\n"
"The geometry options of rbtrace (--rings ...) and --clock apply too; the policy\n"
"is drain.\n"
"Read the recording with rbmon replay, report and export.  ^C ends the program\n"
"and the recording.  The exit status is PROGRAM's; 125 if the recording failed\n"
"(the recorder was killed, or could not write: one line says which).\n",
		RBTRACE_RECORD_EVENTS);
}

static void rbtrace_usage(FILE *f)
{
	fprintf(f,
"Usage: rbtrace [OPTIONS] [--] PROGRAM [ARGS...]\n"
"       rbtrace -p PID [OPTIONS]     (attach)\n"
"       rbtrace -p PID --detach\n"
"       rbtrace -p PID --exclude PATTERN ... --include PATTERN ...\n"
"Run PROGRAM with librbtrace preloaded: every thread's live call stack is kept\n"
"in a trace file that rbmon reads while the program runs, or after it ended.\n"
"PROGRAM must be built with -finstrument-functions (and -g for file:line);\n"
"rbtrace says first when it cannot be traced (see DIAGNOSTICS in rbtrace(1)).\n"
"With -p, trace a program that already runs (built so, started without\n"
"rbtrace): librbtrace is loaded into it, one thread stopped for a moment\n"
"(ptrace); --detach stops tracing it again.  See ATTACH in rbtrace(1).\n"
"\n"
"  -p, --pid PID           attach to process PID instead of running a program\n"
"      --detach            with -p: stop tracing PID; it runs on untraced (one\n"
"                          started by rbtrace is put to sleep: --dormant)\n"
"      --dormant           start with every hook call a no-op: the program runs\n"
"                          at nearly its untraced speed until 'rbtrace -p PID'\n"
"                          wakes it ('rbtrace -p PID --detach': asleep again)\n"
"      --exclude PATTERN   do not trace the functions PATTERN names: a name as\n"
"                          breakpoints take it, a glob (*, ?, [...]), a comma-\n"
"                          separated list, or @FILE with one per line; with -p,\n"
"                          in the running program.  Repeatable\n"
"      --include PATTERN   trace them again (after --exclude: --exclude '*'\n"
"                          --include 'foo*' traces only foo*).  Repeatable\n"
"      --auto-exclude[=MS] after a warm-up (MS, default 500) stop tracing the\n"
"                          functions called very often that return very fast\n"
"      --snapshot-signal SIG  the signal SIG (USR1, USR2, HUP, URG, WINCH,\n"
"                          RTMIN+N) freezes every thread's event log for a\n"
"                          snapshot that 'rbmon snapshot' writes (rbmon(1))\n"
"      --capture 'FUNC>DURATION'  keep the calls of FUNC slower than DURATION\n"
"                          (ns, us, ms, s), or with FUNC>max slower than the\n"
"                          slowest so far: each with its calls and the stack\n"
"                          below it, for 'rbmon captures'.  Repeatable\n"
"      --capture-keep N    captures kept per function, the slowest (1 to 8,\n"
"                          default 8)\n"
"  -o, --file PATH         trace file (default ${TMPDIR:-/tmp}/PROGRAM.PID.trace);\n"
"                          a relative PATH is taken from the current directory\n"
"      --rings N           rings, one per thread of every process (default %u)\n"
"      --slots N           stack slots per ring; deeper stacks wrap (default %u)\n"
"      --slot-size N       name bytes per slot (default %u)\n"
"      --msg-size N        per-ring command area in bytes (default %u)\n"
"      --global-size N     global message area in bytes (default %u)\n"
"      --events N          event log records per thread: 0 (none) or a power\n"
"                          of two from %u to %u (default %u)\n"
"      --policy P          when the event log is full: ring (overwrite the\n"
"                          oldest, the default), fill (keep the first, drop the\n"
"                          rest) or drain (drop until a consumer makes room)\n"
"      --clock C           timestamps: %s (the default where it is a\n"
"                          clock), mono, or none (cheapest: no times)\n"
"      --min-duration T    keep in the event log only calls that last T or\n"
"                          more, or kept a call they made (T: 0, or a whole\n"
"                          number of ns, us, ms or s up to 1s; not with drain)\n"
"      --stop-on-create    new threads, the main thread included, stop at their\n"
"                          first function until a monitor continues them\n"
"      --no-trace-on-create  new threads start with tracing off\n"
"  -m, --monitor           watch the program with rbmon while it runs; its\n"
"                          terminal output then goes to a file (below);\n"
"                          with -p, rbmon starts once attached\n"
"      --output PATH       with --monitor: where the program's output goes\n"
"                          (default: the trace path ending in .out)\n"
"  -q, --quiet             do not print where the trace goes, nor the notes on\n"
"                          code PROGRAM may load or run later and on no trace\n"
"                          file made (the lines saying why PROGRAM will run\n"
"                          untraced remain)\n"
"  -h, --help              show this help\n"
"  -V, --version           show the version\n"
"\n"
"'rbtrace record -o RECORDING -- PROGRAM' records every call instead (see\n"
"'rbtrace record --help').\n"
"\n"
"The exit status is PROGRAM's (128+N if signal N ended it); 125 for an\n"
"rbtrace error, 126/127 when PROGRAM cannot be run or is not found.  With -p:\n"
"0 when attached (detached), 1 when not, 2 for a usage error.\n"
"See rbtrace(1), rbmon(1) and rbtrace(5).\n",
		RB_DEF_RINGS, RB_DEF_SLOTS, RB_DEF_SLOT_SZ, RB_DEF_MSG_SZ,
		RB_DEF_GLOBAL_SZ, RB_MIN_EVENTS, RB_MAX_EVENTS, RB_DEF_EVENTS,
		RB_CLOCK_COUNTER != 0 ? rb_clock_name(RB_CLOCK_COUNTER) :
		"(no counter here)");
}

static void rbtrace_bad_usage(const char *what)
{
	rbtrace_say("rbtrace: %s", what);
	fprintf(stderr, "Try 'rbtrace --help'.\n");
	exit(2);
}

static int rbtrace_parse_uint(const char *s, uint32_t lo, uint32_t hi)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	return 0;
}

/* The directory holding this executable, for the build tree's layout. */
static int rbtrace_self_dir(char *out, size_t size)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return -1;
	exe[n] = '\0';
	snprintf(out, size, "%s", dirname(exe));
	return 0;
}

static int rbtrace_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * The library: $RBTRACE_LIB, else the build tree's when this rbtrace runs
 * from one, else the installed one.
 */
static int rbtrace_find_lib(char *out, size_t size)
{
	static const char *const installed[] = {
		LIBDIR "/librbtrace.so.1", LIBDIR "/librbtrace.so",
	};
	const char *env = getenv("RBTRACE_LIB");
	char dir[PATH_MAX];
	size_t i;

	if (env != NULL && *env) {
		if (!rbtrace_exists(env)) {
			rbtrace_say("rbtrace: RBTRACE_LIB=%s: no such file", env);
			return -1;
		}
		snprintf(out, size, "%s", env);
		return 0;
	}
	if (rbtrace_self_dir(dir, sizeof(dir)) == 0) {
		char probe[PATH_MAX + 16];

		/* a build tree: configure's config.status beside this rbtrace */
		snprintf(probe, sizeof(probe), "%s/config.status", dir);
		if ((size_t)snprintf(out, size, "%s/lib/.libs/librbtrace.so",
				     dir) < size &&
		    rbtrace_exists(probe) && rbtrace_exists(out))
			return 0;
	}
	for (i = 0; i < sizeof(installed) / sizeof(installed[0]); i++) {
		if (rbtrace_exists(installed[i])) {
			snprintf(out, size, "%s", installed[i]);
			return 0;
		}
	}
	rbtrace_say("rbtrace: cannot find librbtrace.so in %s (set RBTRACE_LIB)",
		LIBDIR);
	return -1;
}

static int rbtrace_find_rbmon(char *out, size_t size)
{
	char dir[PATH_MAX];

	if (rbtrace_self_dir(dir, sizeof(dir)) == 0 &&
	    (size_t)snprintf(out, size, "%s/rbmon", dir) < size &&
	    access(out, X_OK) == 0)
		return 0;
	snprintf(out, size, "%s/rbmon", BINDIR);
	if (access(out, X_OK) == 0)
		return 0;
	rbtrace_say("rbtrace: cannot find rbmon next to rbtrace or in %s",
		BINDIR);
	return -1;
}

/*
 * The program's executable, after which the library names the trace file:
 * found as execvp() finds it, symbolic links followed; the command as it
 * is when there is none (exec says why).
 */
static void rbtrace_exe(const char *cmd, char *out, size_t size)
{
	char path[PATH_MAX], real[PATH_MAX];

	if (progcheck_resolve(cmd, path, sizeof(path)) &&
	    realpath(path, real) != NULL)
		cmd = real;
	snprintf(out, size, "%s", cmd);
}

static void rbtrace_trace_path(const struct rbtrace_opts *o, const char *prog,
			       pid_t pid, char *out, size_t size)
{
	if (o->file != NULL) {
		snprintf(out, size, "%s", o->file);
		return;
	}
	/* Where the library puts it: the same rule. */
	rb_trace_path(out, size, getenv("TMPDIR"), prog, pid);
}

/*
 * With --monitor, rbmon owns the terminal: the program's output would
 * scribble over the screen and its reads would steal keys.  Output that
 * goes to the terminal goes to a file instead; input comes from /dev/null.
 */
static int rbtrace_redirects(const struct rbtrace_opts *o)
{
	return o->monitor && (o->output != NULL ||
			      (!o->never && (isatty(STDOUT_FILENO) ||
					     isatty(STDERR_FILENO))));
}

static void rbtrace_output_path(const struct rbtrace_opts *o,
				const char *trace, char *out, size_t size)
{
	size_t n = strlen(trace);

	if (o->output != NULL) {
		snprintf(out, size, "%s", o->output);
		return;
	}
	if (n > 6 && strcmp(trace + n - 6, ".trace") == 0)
		n -= 6;
	snprintf(out, size, "%.*s.out", (int)n, trace);
}

/*
 * In the child, before exec.  The file is new, or replaces what --output
 * names if that is a file of the user's (rbtrace(1), "FILES WRITTEN").
 * Return: 0, or -1 with @why (@size bytes) set.
 */
static int rbtrace_redirect(const struct rbtrace_opts *o, const char *trace,
			    char *why, size_t size)
{
	struct rb_outfile of;
	char out[PATH_MAX];
	int fd, all = o->output != NULL;

	if (!rbtrace_redirects(o))
		return 0;
	rbtrace_output_path(o, trace, out, sizeof(out));
	if (rb_outfile_open(&of, out, RB_OUTFILE_NOW |
			    (all ? RB_OUTFILE_REPLACE : 0), 0600) != 0) {
		snprintf(why, size, "%s%s", of.why, of.mine ?
			 "; name it with --output to replace it" : "");
		return -1;
	}
	fd = of.fd;
	if (((all || isatty(STDOUT_FILENO)) && dup2(fd, STDOUT_FILENO) < 0) ||
	    ((all || isatty(STDERR_FILENO)) && dup2(fd, STDERR_FILENO) < 0)) {
		snprintf(why, size, "%s", strerror(errno));
		return -1;
	}
	close(fd);
	if (isatty(STDIN_FILENO)) {
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd < 0 || dup2(fd, STDIN_FILENO) < 0) {
			snprintf(why, size, "/dev/null: %s", strerror(errno));
			return -1;
		}
		close(fd);
	}
	return 0;
}

static void rbtrace_forward(int sig)
{
	if (rbtrace_child > 0)
		kill((pid_t)rbtrace_child, sig);
}

static int rbtrace_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 125;
}

static void rbtrace_setenv(const struct rbtrace_opts *o, const char *lib,
			   const char *path)
{
	const char *old = getenv("LD_PRELOAD");
#ifdef RB_SAN_RUNTIME
	/* A sanitized build's library works only after its runtime. */
	const char *san = RB_SAN_RUNTIME ":";
#else
	const char *san = "";
#endif
	char *preload;
	size_t i;

	if (old == NULL)
		old = "";
	preload = malloc(strlen(san) + strlen(lib) + strlen(old) + 2);
	if (preload == NULL)
		_exit(125);
	sprintf(preload, "%s%s%s%s", san, lib, *old ? ":" : "", old);
	setenv("LD_PRELOAD", preload, 1);
	free(preload);
	setenv("RBTRACE_FILE", path, 1);
	for (i = 0; i < 5; i++)
		if (o->env[i] != NULL)
			setenv(rbtrace_geo[i].var, o->env[i], 1);
	if (o->events != NULL)
		setenv("RBTRACE_EVENTS", o->events, 1);
	if (o->policy != NULL)
		setenv("RBTRACE_POLICY", o->policy, 1);
	if (o->clock != NULL)
		setenv("RBTRACE_CLOCK", o->clock, 1);
	if (o->min_duration != NULL)
		setenv("RBTRACE_MIN_DURATION", o->min_duration, 1);
	if (o->stop_on_create)
		setenv("RBTRACE_SOC", "1", 1);
	if (!o->trace_on_create)
		setenv("RBTRACE_TOC", "0", 1);
	/* The first calls wait for the recorder (unless the caller says). */
	if (o->record)
		setenv("RBTRACE_RECORD_WAIT", RBTRACE_RECORD_WAIT, 0);
	if (o->dormant)
		setenv("RBTRACE_DORMANT", "1", 1);
	if (o->snapshot_signal != NULL)
		setenv("RBTRACE_SNAPSHOT_SIGNAL", o->snapshot_signal, 1);
	if (o->exclude != NULL)
		setenv("RBTRACE_EXCLUDE", o->exclude, 1);
	if (o->include != NULL)
		setenv("RBTRACE_INCLUDE", o->include, 1);
	if (o->auto_exclude != NULL)
		setenv("RBTRACE_AUTO_EXCLUDE", o->auto_exclude, 1);
	if (o->capture != NULL)
		setenv("RBTRACE_CAPTURE", o->capture, 1);
	if (o->capture_keep != NULL)
		setenv("RBTRACE_CAPTURE_KEEP", o->capture_keep, 1);
}

/*
 * Wait for the program to create its trace file (its first instrumented
 * call does), as long as it runs: a program may call none for a while, or
 * load or run instrumented code later.  After 10 s, one line says what is
 * awaited: @what happens when the file appears.
 *
 * Return: 1 when the file is there, 0 when the program ended without it.
 * *reaped is set when the program was reaped, *status its wait status.
 */
static int rbtrace_wait_file(const struct rbtrace_opts *o, const char *prog,
			     const char *path, pid_t child, const char *what,
			     int *reaped, int *status)
{
	struct timespec ts = { 0, RBTRACE_POLL_NS };
	unsigned i;
	pid_t r;

	*reaped = 0;
	for (i = 1;; i++) {
		if (access(path, F_OK) == 0)
			return 1;
		r = waitpid(child, status, WNOHANG);
		if (r == child || (r < 0 && errno != EINTR)) {
			if (r < 0)
				*status = 125 << 8;
			*reaped = 1;
			/* it may have made the file just before it ended */
			return access(path, F_OK) == 0;
		}
		if (i == RBTRACE_NOTE_POLLS && !o->quiet)
			rbtrace_say("rbtrace: %s has not appeared after 10 s; "
				"%s when it does, at the first instrumented "
				"call (Ctrl-C ends %s)", path, what, prog);
		nanosleep(&ts, NULL);
	}
}

static int rbtrace_reap(pid_t child)
{
	int status;
	pid_t r;

	while ((r = waitpid(child, &status, 0)) < 0 && errno == EINTR)
		;
	if (r < 0) {
		rbtrace_say("rbtrace: waitpid: %s", strerror(errno));
		return 125 << 8;
	}
	return status;
}

/*
 * Reap a program that is not known to call the hooks (a shell, make, a
 * program that may exec or load instrumented code, or one progcheck could
 * not read), watching for its trace file meanwhile.  If the file has not
 * appeared after 5 s, one line says so, once, and the program runs on; if
 * it ends without having made it, one line says that nothing it ran was
 * instrumented.  Once the file is there, nothing more is said.  Its exit is
 * seen at once (a pidfd) where the kernel has them, else within 20 ms.
 *
 * Return: its wait status.
 */
static int rbtrace_watch_reap(const struct rbtrace_opts *o, const char *prog,
			      const char *path, pid_t child)
{
	struct timespec ts = { 0, RBTRACE_POLL_NS }, start, now;
	struct pollfd pfd;
	int status, fd = -1, said = 0;
	pid_t r;

#ifdef SYS_pidfd_open
	fd = (int)syscall(SYS_pidfd_open, child, 0);
#endif
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		if (access(path, F_OK) == 0)
			break;
		r = waitpid(child, &status, WNOHANG);
		if (r < 0 && errno != EINTR)
			break;
		if (r == child) {
			if (access(path, F_OK) != 0 && !o->quiet)
				rbtrace_say("rbtrace: %s ran no instrumented "
					"code: no trace file was made (build "
					"it with -finstrument-functions)",
					prog);
			if (fd >= 0)
				close(fd);
			return status;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!said && !o->quiet &&
		    now.tv_sec - start.tv_sec >= RBTRACE_UNSURE_SECS) {
			said = 1;
			rbtrace_say("rbtrace: %s has not appeared after %d s: "
				"nothing %s ran so far was instrumented; it "
				"runs on (build it with -finstrument-functions "
				"to trace it)", path, RBTRACE_UNSURE_SECS,
				prog);
		}
		if (fd >= 0) {
			pfd.fd = fd;
			pfd.events = POLLIN;
			pfd.revents = 0;
			poll(&pfd, 1, RBTRACE_POLL_NS / 1000000);
		} else
			nanosleep(&ts, NULL);
	}
	if (fd >= 0)
		close(fd);
	return rbtrace_reap(child);
}


/*
 * What became of the recorder, in one line, unless it ended well (then
 * its summary said all): killed by a signal (the recording stops at its
 * last whole chunk, without END), or ended with a failure it said itself.
 */
static void rbtrace_recorder_ended(const char *prog, const char *out,
				   pid_t rec, int rstatus, int prog_ended)
{
	if (WIFSIGNALED(rstatus))
		rbtrace_say("rbtrace: the recorder (pid %d) was killed by "
			"signal %d (%s): %s holds what it wrote until then, "
			"without its END chunk%s%s%s", (int)rec,
			WTERMSIG(rstatus), strsignal(WTERMSIG(rstatus)), out,
			prog_ended ? "" : "; ", prog_ended ? "" : prog,
			prog_ended ? "" : " runs on unrecorded");
	else if (!WIFEXITED(rstatus))
		rbtrace_say("rbtrace: the recorder (pid %d) ended with "
			"wait status %#x", (int)rec, (unsigned)rstatus);
}

/* rbtrace record's log size: RBTRACE_RECORD_EVENTS, less with many rings. */
static const char *rbtrace_record_events(const struct rbtrace_opts *o)
{
	static char buf[16];
	const char *r = o->env[0] != NULL ? o->env[0] : getenv("RBTRACE_RINGS");
	unsigned long rings = r != NULL ? strtoul(r, NULL, 10) : 0;
	unsigned long n = RBTRACE_RECORD_EVENTS;

	if (rings < RB_MIN_RINGS || rings > RB_MAX_RINGS)
		rings = RB_DEF_RINGS;
	while (n > RB_MIN_EVENTS && (unsigned long long)n * rings >
	       RBTRACE_RECORD_LOGS)
		n /= 2;
	snprintf(buf, sizeof(buf), "%lu", n);
	return buf;
}

/*
 * --blocking=TIME: a number and a unit (us, ms, s, m, h), 1 ms to 1 h, as
 * rbmon record reads it (rbmon(1), DURATIONS).
 */
static int rbtrace_blocking_valid(const char *arg)
{
	static const struct { const char *unit; double ms; } units[] = {
		{ "us", 1e-3 }, { "ms", 1 }, { "s", 1e3 }, { "m", 6e4 },
		{ "h", 3.6e6 },
	};
	char *end;
	double v;
	size_t i;

	if (*arg < '0' || *arg > '9')
		return 0;
	v = strtod(arg, &end);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(end, units[i].unit) == 0)
			return v * units[i].ms >= 1 && v * units[i].ms <= 3.6e6;
	return 0;
}

/*
 * rbtrace record: the program runs with its event logs in drain and waits
 * at its first hook (RBTRACE_RECORD_WAIT) until rbmon record, started
 * here, has attached; the recorder ends when every process of the trace
 * file has.  Whichever of the two ends first is reaped first, so that a
 * recorder that dies is said at once.  The exit status is the program's,
 * 125 if the recording failed (the recorder was killed or said why).
 */
static int rbtrace_record(const struct rbtrace_opts *o, const char *prog,
			  pid_t child, const char *path, const char *rbmon)
{
	pid_t rec, r;
	int status, reaped, rstatus = 0, rec_done, st;
	char *dflt = NULL;
	const char *out = o->recording;

	if (o->never) {
		rbtrace_say("rbtrace: nothing to record");
		return rbtrace_status(rbtrace_reap(child));
	}
	if (!o->quiet)
		rbtrace_say("rbtrace: recording %s (pid %d) through %s",
			prog, (int)child, path);
	if (!rbtrace_wait_file(o, prog, path, child, "recording starts",
			       &reaped, &status)) {
		rbtrace_say("rbtrace: nothing to record: %s ended before "
			"calling an instrumented function", prog);
		return rbtrace_status(status);
	}
	if (out == NULL) {
		/* rbmon's default: the trace file's name, here. */
		const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		size_t n = strlen(base);

		if (n > 6 && strcmp(base + n - 6, ".trace") == 0)
			n -= 6;
		if (asprintf(&dflt, "%.*s.rbr", (int)n, base) < 0)
			dflt = NULL;
		out = dflt != NULL ? dflt : "the recording";
	}
	rec = fork();
	if (rec == 0) {
		/* ^C stops the recorder too, after a last sweep. */
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		char blk[128], *av[8];
		int ac = 0;

		av[ac++] = "rbmon";
		av[ac++] = "record";
		if (o->recording != NULL) {
			av[ac++] = "-o";
			av[ac++] = (char *)o->recording;
		}
		if (o->blocking != NULL) {
			snprintf(blk, sizeof(blk), "--blocking%s%s",
				 *o->blocking != '\0' ? "=" : "", o->blocking);
			av[ac++] = blk;
		}
		av[ac++] = (char *)path;
		av[ac] = NULL;
		execv(rbmon, av);
		rbtrace_say("rbtrace: cannot run %s: %s", rbmon,
			strerror(errno));
		_exit(127);
	}
	if (rec < 0)
		rbtrace_say("rbtrace: fork: %s", strerror(errno));
	rec_done = rec <= 0;
	while (!reaped || !rec_done) {
		r = waitpid(reaped ? rec : rec_done ? child : -1, &st, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rbtrace_say("rbtrace: waitpid: %s", strerror(errno));
			if (!reaped)
				status = 125 << 8;
			if (!rec_done)
				rstatus = 125 << 8;
			break;
		}
		if (r == child && !reaped) {
			status = st;
			reaped = 1;
		} else if (r == rec && !rec_done) {
			rstatus = st;
			rec_done = 1;
			rbtrace_recorder_ended(prog, out, rec, rstatus, reaped);
		}
	}
	if (WIFSIGNALED(status) && !o->quiet)
		rbtrace_say("rbtrace: %s killed by signal %d (%s)", prog,
			WTERMSIG(status), strsignal(WTERMSIG(status)));
	free(dflt);
	if (rec > 0 && (!WIFEXITED(rstatus) || WEXITSTATUS(rstatus) != 0))
		return 125;
	return rec > 0 ? rbtrace_status(status) : 125;
}

/* --capture @arg appended to @list, ';'-separated, once it parses. */
static int rbtrace_capture_add(char **list, const char *arg)
{
	char name[RB_CAP_NAME], *n;
	uint64_t ns;
	uint32_t flags;
	size_t len;

	if (strchr(arg, ';') != NULL ||
	    rb_capspec_parse(arg, name, sizeof(name), &ns, &flags) != 0) {
		rbtrace_say("rbtrace: --capture '%s': FUNC>DURATION (a number and ns, us, ms or s) or FUNC>max",
			    arg);
		return -1;
	}
	len = (*list != NULL ? strlen(*list) + 1 : 0) + strlen(arg) + 1;
	if ((n = malloc(len)) == NULL)
		return -1;
	snprintf(n, len, "%s%s%s", *list != NULL ? *list : "",
		 *list != NULL ? ";" : "", arg);
	free(*list);
	*list = n;
	return 0;
}

/*
 * --exclude/--include @arg appended to the list @list: its patterns as
 * given, each @FILE replaced by the patterns its lines hold (read here,
 * in rbtrace's directory, whether the program is started or running).
 * Return: 0, or -1 said.
 */
static int rbtrace_patterns_add(char **list, const char *arg)
{
	char line[4096], *p, *add = NULL;
	size_t n = 0, k;
	FILE *f;

	if (*arg == '\0') {
		rbtrace_say("rbtrace: an empty pattern names no function");
		return -1;
	}
	if (arg[0] != '@') {
		add = strdup(arg);
		n = add != NULL ? strlen(add) : 0;
	} else {
		f = fopen(arg + 1, "re");
		if (f == NULL) {
			rbtrace_say("rbtrace: %s: %s", arg + 1, strerror(errno));
			return -1;
		}
		while (fgets(line, sizeof(line), f) != NULL) {
			k = strcspn(line, "\r\n");
			line[k] = '\0';
			if (k == 0 || line[0] == '#')
				continue;
			p = realloc(add, n + k + 2);
			if (p == NULL) {
				fclose(f);
				free(add);
				return -1;
			}
			add = p;
			if (n > 0)
				add[n++] = ',';
			memcpy(add + n, line, k + 1);
			n += k;
		}
		fclose(f);
		if (add == NULL) {
			rbtrace_say("rbtrace: %s names no function", arg + 1);
			return -1;
		}
	}
	if (add == NULL)
		return -1;
	if (*list == NULL) {
		*list = add;
		return 0;
	}
	p = realloc(*list, strlen(*list) + n + 2);
	if (p == NULL) {
		free(add);
		return -1;
	}
	*list = p;
	strcat(*list, ",");
	strcat(*list, add);
	free(add);
	return 0;
}

/* Appends "NAME=VALUE\n" to @spec (@size bytes, @n used). */
static void rbtrace_spec_add(char *spec, size_t size, size_t *n,
			     const char *name, const char *value)
{
	int k;

	if (value == NULL || *n >= size)
		return;
	k = snprintf(spec + *n, size - *n, "%s=%s\n", name, value);
	if (k > 0)
		*n += (size_t)k;
}

/* The library's reply, one request per line: on one line for the terminal. */
static void rbtrace_reply_lines(char *line)
{
	char out[sizeof(((struct rbtrace_attach *)0)->line)];
	size_t i, k = 0;

	for (i = 0; line[i] != '\0' && k + 3 < sizeof(out); i++) {
		if (line[i] == '\n') {
			out[k++] = ';';
			out[k++] = ' ';
		} else
			out[k++] = line[i];
	}
	out[k] = '\0';
	memcpy(line, out, k + 1);
}

/* rbtrace -p PID --exclude ... --include ... --auto-exclude (rbtrace(5), "DYNAMIC TRACING"). */
static int rbtrace_dyn_main(struct rbtrace_opts *o, int other)
{
	char lib[PATH_MAX], *req;
	struct rbtrace_attach a;
	size_t len = 64;
	int r;

	if (rbtrace_find_lib(lib, sizeof(lib)) < 0)
		return 1;
	if (other)
		rbtrace_bad_usage("-p with --exclude, --include or --auto-exclude "
				  "takes no other option but -q");
	len += o->exclude != NULL ? strlen(o->exclude) : 0;
	len += o->include != NULL ? strlen(o->include) : 0;
	req = malloc(len);
	if (req == NULL)
		return 1;
	snprintf(req, len, "%s%s%s%s%s%s%s%s",
		 o->exclude ? "exclude " : "", o->exclude ? o->exclude : "",
		 o->exclude ? "\n" : "",
		 o->include ? "include " : "", o->include ? o->include : "",
		 o->include ? "\n" : "",
		 o->auto_exclude ? "auto " : "",
		 o->auto_exclude ? o->auto_exclude : "");
	r = rbtrace_attach_run(o->pid, lib, req, RBTRACE_AT_DYN, &a);
	free(req);
	if (r == 2)
		rbtrace_say("rbtrace: %s: attach first (rbtrace -p %d), or start "
			"it with rbtrace --exclude", a.line, (int)o->pid);
	else if (r != 0)
		rbtrace_say("rbtrace: %s", a.line);
	if (r != 0)
		return 1;
	printf("%s\n", a.file);
	fflush(stdout);
	rbtrace_reply_lines(a.line);
	if (!o->quiet)
		rbtrace_say("rbtrace: %d: %s; its thread %d stopped for %.2f ms",
			(int)o->pid, a.line, (int)a.tid, a.pause_ms);
	return 0;
}

/* rbtrace -p PID [--detach] (tools/attach.c). */
static int rbtrace_attach_main(struct rbtrace_opts *o, int nargs, char **args)
{
	char lib[PATH_MAX], rbmon[PATH_MAX], spec[8192];
	struct rbtrace_attach a;
	size_t n = 0;
	int i, other = 0;

	(void)args;
	if (o->pid == 0)
		rbtrace_bad_usage("--detach needs -p PID");
	if (nargs > 0)
		rbtrace_bad_usage("-p attaches to a running process: it takes no program");
	if (o->output != NULL)
		rbtrace_bad_usage("--output goes with a program rbtrace runs, not with -p");
	for (i = 0; i < 5; i++)
		other |= o->env[i] != NULL;
	other |= o->file != NULL || o->events != NULL || o->policy != NULL ||
		 o->clock != NULL || o->min_duration != NULL || o->stop_on_create || !o->trace_on_create ||
		 o->monitor;
	if (o->detach && (other || o->exclude != NULL || o->include != NULL ||
			  o->auto_exclude != NULL))
		rbtrace_bad_usage("--detach takes no option but -p and -q");
	if (o->snapshot_signal != NULL)
		rbtrace_bad_usage("--snapshot-signal goes with a program rbtrace "
				  "starts");
	if (o->dormant)
		rbtrace_bad_usage("--dormant starts a program asleep; with -p, "
				  "--detach puts a running one to sleep");
	if (o->exclude != NULL || o->include != NULL || o->auto_exclude != NULL)
		return rbtrace_dyn_main(o, other);
	if (rbtrace_find_lib(lib, sizeof(lib)) < 0 ||
	    (o->monitor && rbtrace_find_rbmon(rbmon, sizeof(rbmon)) < 0))
		return 1;
	spec[0] = '\0';
	rbtrace_spec_add(spec, sizeof(spec), &n, "RBTRACE_FILE", o->file);
	for (i = 0; i < 5; i++)
		rbtrace_spec_add(spec, sizeof(spec), &n, rbtrace_geo[i].var,
				 o->env[i]);
	rbtrace_spec_add(spec, sizeof(spec), &n, "RBTRACE_EVENTS", o->events);
	rbtrace_spec_add(spec, sizeof(spec), &n, "RBTRACE_POLICY", o->policy);
	rbtrace_spec_add(spec, sizeof(spec), &n, "RBTRACE_CLOCK", o->clock);
	rbtrace_spec_add(spec, sizeof(spec), &n, "RBTRACE_MIN_DURATION",
			 o->min_duration);
	rbtrace_spec_add(spec, sizeof(spec), &n, "RBTRACE_SOC",
			 o->stop_on_create ? "1" : NULL);
	rbtrace_spec_add(spec, sizeof(spec), &n, "RBTRACE_TOC",
			 o->trace_on_create ? NULL : "0");
	rbtrace_spec_add(spec, sizeof(spec), &n, "TMPDIR", getenv("TMPDIR"));
	/* As a program started by rbtrace inherits it. */
	rbtrace_spec_add(spec, sizeof(spec), &n, "RBTRACE_ORPHAN_TIMEOUT",
			 getenv("RBTRACE_ORPHAN_TIMEOUT"));
	if (n >= sizeof(spec)) {
		rbtrace_say("rbtrace: the settings are too long");
		return 1;
	}
	if (rbtrace_attach_run(o->pid, lib, spec, o->detach ?
			       RBTRACE_AT_DETACH : RBTRACE_AT_ATTACH, &a) != 0) {
		rbtrace_say("rbtrace: %s", a.line);
		return 1;
	}
	/* The trace file alone on stdout, for scripts. */
	printf("%s\n", a.file);
	fflush(stdout);
	rbtrace_reply_lines(a.line);
	if (!o->quiet)
		rbtrace_say("rbtrace: %s %d: %s; its thread %d stopped for %.2f ms",
			strncmp(a.line, "awake;", 6) == 0 ? "woke" :
			strncmp(a.line, "asleep;", 7) == 0 ? "put to sleep" :
			o->detach ? "detached from" : "attached to", (int)o->pid,
			a.line, (int)a.tid, a.pause_ms);
	if (!o->quiet && a.seeded[0] != '\0' && a.threads > 0)
		rbtrace_say("rbtrace: %d: %s; its %u thread%s stopped for "
			"%.2f ms", (int)o->pid, a.seeded, a.threads,
			a.threads == 1 ? "" : "s", a.seed_ms);
	else if (!o->quiet && a.seeded[0] != '\0')
		rbtrace_say("rbtrace: %d: %s", (int)o->pid, a.seeded);
	if (o->monitor) {
		execl(rbmon, "rbmon", a.file, (char *)NULL);
		rbtrace_say("rbtrace: cannot run %s: %s", rbmon,
			strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "file", required_argument, NULL, 'F' },
		{ "rings", required_argument, NULL, 1000 },
		{ "slots", required_argument, NULL, 1001 },
		{ "slot-size", required_argument, NULL, 1002 },
		{ "msg-size", required_argument, NULL, 1003 },
		{ "global-size", required_argument, NULL, 1004 },
		{ "events", required_argument, NULL, 1005 },
		{ "policy", required_argument, NULL, 1006 },
		{ "clock", required_argument, NULL, 1007 },
		{ "stop-on-create", no_argument, NULL, 'S' },
		{ "no-trace-on-create", no_argument, NULL, 'T' },
		{ "monitor", no_argument, NULL, 'm' },
		{ "output", required_argument, NULL, 'O' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "pid", required_argument, NULL, 'p' },
		{ "detach", no_argument, NULL, 1008 },
		{ "blocking", optional_argument, NULL, 1009 },
		{ "dormant", no_argument, NULL, 1010 },
		{ "exclude", required_argument, NULL, 1011 },
		{ "include", required_argument, NULL, 1012 },
		{ "auto-exclude", optional_argument, NULL, 1013 },
		{ "snapshot-signal", required_argument, NULL, 1014 },
		{ "capture", required_argument, NULL, 1015 },
		{ "capture-keep", required_argument, NULL, 1016 },
		{ "min-duration", required_argument, NULL, 1017 },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct rbtrace_opts o = { .trace_on_create = 1 };
	char lib[PATH_MAX], path[PATH_MAX], rbmon[PATH_MAX], out[PATH_MAX];
	char file[PATH_MAX], exe[PATH_MAX];
	struct {
		int err;	/* exec's errno, or -1: the output file */
		char why[200];	/* for the output file */
	} fail;
	struct progcheck pc;
	struct sigaction sa;
	pid_t child, mon = -1;
	int c, status, r, reaped, execfd[2];

	if (argc > 1 && strcmp(argv[1], "record") == 0) {
		/* rbtrace record [-o RECORDING] [OPTIONS] -- PROGRAM ... */
		o.record = 1;
		argc--;
		argv++;
	}
	while ((c = getopt_long(argc, argv, "+o:p:mqhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (o.record) {
				if (*optarg == '\0')
					rbtrace_bad_usage("-o needs a path");
				o.recording = optarg;
				break;
			}
			/* FALLTHROUGH */
		case 'F':
			if (*optarg == '\0')
				rbtrace_bad_usage("--file needs a path");
			o.file = optarg;
			break;
		case 1000: case 1001: case 1002: case 1003: case 1004: {
			int i = c - 1000;
			char what[256];

			if (rbtrace_parse_uint(optarg, rbtrace_geo[i].lo,
					       rbtrace_geo[i].hi) < 0) {
				snprintf(what, sizeof(what),
					 "--%s '%.64s': not a number from %u to %u",
					 rbtrace_geo[i].opt, optarg,
					 rbtrace_geo[i].lo, rbtrace_geo[i].hi);
				rbtrace_bad_usage(what);
			}
			o.env[i] = optarg;
			break;
		}
		case 1005: {
			char what[256];

			if (rbtrace_parse_uint(optarg, 0, RB_MAX_EVENTS) < 0 ||
			    !rb_events_valid(strtoul(optarg, NULL, 10))) {
				snprintf(what, sizeof(what),
					 "--events '%.64s': not 0 or a power of two from %u to %u",
					 optarg, RB_MIN_EVENTS, RB_MAX_EVENTS);
				rbtrace_bad_usage(what);
			}
			o.events = optarg;
			break;
		}
		case 1017: {
			uint64_t ns;

			if (rb_mindur_parse(optarg, &ns) != 0) {
				char what[256];

				snprintf(what, sizeof(what),
					 "--min-duration '%.64s': not "
					 RB_MINDUR_WORDS, optarg);
				rbtrace_bad_usage(what);
			}
			o.min_duration = optarg;
			break;
		}
		case 1006:
			if (rb_policy_parse(optarg) < 0) {
				char what[256];

				snprintf(what, sizeof(what),
					 "--policy '%.64s': not ring, fill or drain",
					 optarg);
				rbtrace_bad_usage(what);
			}
			o.policy = optarg;
			break;
		case 1007:
			if (rb_clock_parse(optarg) == 0) {
				char what[256];

				snprintf(what, sizeof(what),
					 "--clock '%.64s': not " RB_CLOCK_WORDS,
					 optarg);
				rbtrace_bad_usage(what);
			}
			o.clock = optarg;
			break;
		case 'p': {
			char what[256];

			if (o.record)
				rbtrace_bad_usage("rbtrace record runs a program: it takes no -p");
			if (rbtrace_parse_uint(optarg, 1, 0x3fffffff) < 0) {
				snprintf(what, sizeof(what),
					 "-p '%.64s': not a process id", optarg);
				rbtrace_bad_usage(what);
			}
			o.pid = (pid_t)strtol(optarg, NULL, 10);
			break;
		}
		case 1008:
			o.detach = 1;
			break;
		case 1009:
			if (!o.record)
				rbtrace_bad_usage("--blocking goes with rbtrace record");
			if (optarg != NULL && !rbtrace_blocking_valid(optarg)) {
				char what[256];

				snprintf(what, sizeof(what),
					 "--blocking '%.64s': not a time from 1ms to 1h "
					 "(for example 100ms, 2s)", optarg);
				rbtrace_bad_usage(what);
			}
			o.blocking = optarg != NULL ? optarg : "";
			break;
		case 1010:
			o.dormant = 1;
			break;
		case 1011:
		case 1012:
			if (rbtrace_patterns_add(c == 1011 ? &o.exclude :
						 &o.include, optarg) < 0)
				return 2;
			break;
		case 1013:
			if (optarg != NULL && rbtrace_parse_uint(optarg, 10,
								 600000) < 0)
				rbtrace_bad_usage("--auto-exclude=MS: a warm-up from 10 to 600000 ms");
			o.auto_exclude = optarg != NULL ? optarg : "1";
			break;
		case 1014:
			if (*optarg == '\0' || strlen(optarg) > 32)
				rbtrace_bad_usage("--snapshot-signal needs a signal "
						  "(USR2, RTMIN+1, ...)");
			o.snapshot_signal = optarg;
			break;
		case 1015:
			if (rbtrace_capture_add(&o.capture, optarg) < 0)
				return 2;
			break;
		case 1016:
			if (rbtrace_parse_uint(optarg, 1, RB_CAP_KEEP_MAX) < 0)
				rbtrace_bad_usage("--capture-keep: 1 to 8 captures");
			o.capture_keep = optarg;
			break;
		case 'S':
			o.stop_on_create = 1;
			break;
		case 'T':
			o.trace_on_create = 0;
			break;
		case 'm':
			o.monitor = 1;
			break;
		case 'O':
			if (*optarg == '\0')
				rbtrace_bad_usage("--output needs a path");
			if (o.record)
				o.recording = optarg;
			else
				o.output = optarg;
			break;
		case 'q':
			o.quiet = 1;
			break;
		case 'h':
			if (o.record)
				rbtrace_record_usage(stdout);
			else
				rbtrace_usage(stdout);
			return 0;
		case 'V':
			printf("rbtrace %s\n", PACKAGE_VERSION);
			return 0;
		default:
			fprintf(stderr, "Try 'rbtrace %s--help'.\n",
				o.record ? "record " : "");
			return 2;
		}
	}
	if (optind >= argc && o.pid == 0 && !o.detach)
		rbtrace_bad_usage("no program to run");
	if (o.output != NULL && !o.monitor)
		rbtrace_bad_usage("--output goes with --monitor");
	if (o.min_duration != NULL && o.policy != NULL &&
	    rb_policy_parse(o.policy) == RB_POLICY_DRAIN)
		rbtrace_bad_usage("--min-duration does not go with --policy "
				  "drain: a drained record may be consumed "
				  "before its call returns");
	if (o.record) {
		if (o.monitor)
			rbtrace_bad_usage("rbtrace record does not take --monitor "
					  "(rbmon can watch the trace file meanwhile)");
		if (o.policy != NULL && rb_policy_parse(o.policy) != RB_POLICY_DRAIN)
			rbtrace_bad_usage("rbtrace record drains the event logs: "
					  "--policy can only be drain");
		if (o.events != NULL && strtoul(o.events, NULL, 10) == 0)
			rbtrace_bad_usage("rbtrace record needs an event log: "
					  "--events cannot be 0");
		if (o.min_duration != NULL)
			rbtrace_bad_usage("rbtrace record drains the event logs: "
					  "--min-duration does not go with drain");
		o.policy = "drain";
		if (o.events == NULL)
			o.events = rbtrace_record_events(&o);
	}
	/* Exported as given, a relative path would follow a child's chdir(). */
	if (o.file != NULL && *o.file != '/') {
		errno = 0;
		if (rb_path_absolute(o.file, file, sizeof(file)) < 0) {
			rbtrace_say("rbtrace: --file %s: cannot make it "
				"absolute: %s", o.file,
				errno ? strerror(errno) : "path too long");
			return 125;
		}
		o.file = file;
	}
	if (o.capture != NULL && (o.pid != 0 || o.detach))
		rbtrace_bad_usage("--capture arms functions at start; in a running program: rbmon -p PID --send 'CAPT FUNC>DURATION'");
	if (o.pid != 0 || o.detach)
		return rbtrace_attach_main(&o, argc - optind, argv + optind);
	if (rbtrace_find_lib(lib, sizeof(lib)) < 0 ||
	    ((o.monitor || o.record) &&
	     rbtrace_find_rbmon(rbmon, sizeof(rbmon)) < 0))
		return 125;

	/* What is wrong with the program, said before it runs anyway. */
	progcheck_run(argv[optind], getenv("LD_PRELOAD"), &pc);
	rbtrace_exe(argv[optind], exe, sizeof(exe));
	o.never = pc.verdict == PROGCHECK_NEVER;
	o.unsure = pc.verdict != PROGCHECK_NEVER &&
		   pc.verdict != PROGCHECK_TRACED;
	if (pc.line[0] != '\0' && (o.never || !o.quiet))
		rbtrace_say("%s", pc.line);

	/* Like system(): the terminal's ^C and ^\ reach the program directly. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = rbtrace_forward;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);

	/* The child reports a failed exec through this pipe; EOF means it ran. */
	if (pipe2(execfd, O_CLOEXEC) < 0) {
		rbtrace_say("rbtrace: pipe: %s", strerror(errno));
		return 125;
	}
	fflush(NULL);
	memset(&fail, 0, sizeof(fail));
	child = fork();
	if (child < 0) {
		rbtrace_say("rbtrace: fork: %s", strerror(errno));
		return 125;
	}
	if (child == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		close(execfd[0]);
		rbtrace_trace_path(&o, exe, getpid(), path, sizeof(path));
		if (rbtrace_redirect(&o, path, fail.why, sizeof(fail.why)) != 0) {
			fail.err = -1;	/* the output file, not the exec */
			if (write(execfd[1], &fail, sizeof(fail)) != sizeof(fail))
				_exit(125);
			_exit(125);
		}
		rbtrace_setenv(&o, lib, path);
		execvp(argv[optind], &argv[optind]);
		fail.err = errno;
		if (write(execfd[1], &fail, sizeof(fail)) != sizeof(fail))
			_exit(125);
		_exit(fail.err == ENOENT ? 127 : 126);
	}
	rbtrace_child = child;
	close(execfd[1]);
	/* One write of less than PIPE_BUF: all of it, or nothing. */
	while ((r = (int)read(execfd[0], &fail, sizeof(fail))) < 0 &&
	       errno == EINTR)
		;
	close(execfd[0]);
	rbtrace_trace_path(&o, exe, child, path, sizeof(path));
	rbtrace_output_path(&o, path, out, sizeof(out));
	if (r == sizeof(fail)) {
		fail.why[sizeof(fail.why) - 1] = '\0';
		if (fail.err < 0) {
			rbtrace_say("rbtrace: cannot write the program's "
				"output to %s: %s", out, fail.why);
		} else {
			rbtrace_say("rbtrace: cannot run %s: %s",
				argv[optind], strerror(fail.err));
		}
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
		return fail.err < 0 ? 125 : rbtrace_status(status);
	}
	if (o.record)
		return rbtrace_record(&o, argv[optind], child, path, rbmon);
	if (!o.quiet && !o.never)
		rbtrace_say("rbtrace: tracing %s (pid %d) into %s%s%s",
			argv[optind], (int)child, path,
			rbtrace_redirects(&o) ? "; its output goes to " : "",
			rbtrace_redirects(&o) ? out : "");

	if (o.monitor && o.never) {
		rbtrace_say("rbtrace: nothing to watch; not starting rbmon");
	} else if (o.monitor) {
		if (!rbtrace_wait_file(&o, argv[optind], path, child,
				       "rbmon starts", &reaped, &status)) {
			rbtrace_say("rbtrace: %s ended before calling an "
				"instrumented function; not starting rbmon",
				argv[optind]);
			goto reaped;
		}
		mon = fork();
		if (mon == 0) {
			signal(SIGINT, SIG_DFL);
			signal(SIGQUIT, SIG_DFL);
			execl(rbmon, "rbmon", path, (char *)NULL);
			rbtrace_say("rbtrace: cannot run %s: %s", rbmon,
				strerror(errno));
			_exit(127);
		}
		if (mon < 0)
			rbtrace_say("rbtrace: fork: %s", strerror(errno));
		else
			rbtrace_reap(mon);
		if (reaped || waitpid(child, &status, WNOHANG) == child)
			goto reaped;
		rbtrace_say("rbtrace: rbmon ended; %s (pid %d) still runs%s%s"
			" (Ctrl-C ends it)", argv[optind], (int)child,
			rbtrace_redirects(&o) ? ", output in " : "",
			rbtrace_redirects(&o) ? out : "");
	}
	if (o.unsure && !o.monitor)
		status = rbtrace_watch_reap(&o, argv[optind], path, child);
	else
		status = rbtrace_reap(child);
reaped:
	if (WIFSIGNALED(status) && !o.quiet)
		rbtrace_say("rbtrace: %s killed by signal %d (%s)%s%s",
			argv[optind], WTERMSIG(status), strsignal(WTERMSIG(status)),
			access(path, F_OK) == 0 ? "; trace kept in " : "",
			access(path, F_OK) == 0 ? path : "");
	return rbtrace_status(status);
}
