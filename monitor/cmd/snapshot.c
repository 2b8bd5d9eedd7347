/* SPDX-License-Identifier: MIT */
/*
 * rbmon snapshot: write a recording of every thread of a process each time
 * a trigger freezes their event logs (rbtrace(5), "SNAPSHOTS").
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "monitor/cmd/cmd.h"
#include "monitor/core/discover.h"
#include "monitor/history/snap.h"
#include "monitor/util/escape.h"
#include "monitor/util/util.h"

static void
snapshot_usage(FILE *f)
{
	fputs("Usage: rbmon snapshot [OPTIONS] -o DIR FILE\n"
	    "       rbmon snapshot [OPTIONS] -o DIR -p PID\n"
	    "Wait for snapshot triggers (the snapshot signal, rbtrace "
	    "--snapshot-signal;\na watch turning true; a capture's condition) "
	    "and write each frozen process's\nevent logs into "
	    "DIR/PROGRAM.PID.snap.N.rbr, a recording rbmon replay reads.\n"
	    "\n"
	    "  -o, --output DIR     where the recordings go (default .)\n"
	    "  -p, --pid PID        use the trace file PID writes to; with "
	    "--now, freeze PID\n"
	    "  -n, --count N        stop after N snapshots (default 100)\n"
	    "  -i, --interval S     at least S seconds between two freezes "
	    "(default 1;\n"
	    "                       0.001 to 3600); triggers sooner are "
	    "suppressed\n"
	    "  -T, --timeout S      stop after S seconds\n"
	    "      --now            trigger one snapshot at once, write it, "
	    "stop\n"
	    "  -w, --watch EXPR     trigger when EXPR, evaluated by the "
	    "program's thread\n"
	    "                       every millisecond, goes from false to "
	    "true\n"
	    "  -t, --thread TID     the thread evaluating --watch (default "
	    "the main thread)\n"
	    "  -h, --help           show this help\n", f);
}

static double
snapshot_secs(const char *opt, const char *s, double lo, double hi)
{
	char	*end;
	double	 v = strtod(s, &end);

	if (end == s || *end != '\0' || !(v >= lo && v <= hi))
		rbmon_bad_usage("%s: %s: seconds from %g to %g", opt, s, lo, hi);
	return v;
}

static long
snapshot_long(const char *opt, const char *s, long lo, long hi)
{
	char	*end;
	long	 v = strtol(s, &end, 10);

	if (end == s || *end != '\0' || v < lo || v > hi)
		rbmon_bad_usage("%s: %s: a number from %ld to %ld", opt, s, lo,
		    hi);
	return v;
}

/** rbmon_cmd_snapshot - `rbmon snapshot [-o DIR] FILE` */
/*
 * The directory the snapshots go to: made if it is not there (its parent
 * must be), and found writable before any trigger is waited for, so that
 * a trigger is never spent on a recording that cannot be written.
 */
static int
snapshot_dir(const char *dir)
{
	struct stat	 sb;
	const char	*why = NULL;
	char		*esc;
	int		 err = 0;

	if (stat(dir, &sb) != 0 && errno == ENOENT && mkdir(dir, 0777) != 0 &&
	    errno != EEXIST) {
		why = "cannot make the directory";
		err = errno;
	} else if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
		why = "not a directory:";
	else if (access(dir, W_OK | X_OK) != 0) {
		why = "cannot write in";
		err = errno;
	}
	if (why == NULL)
		return 0;
	esc = rbmon_esc_dup(dir);
	fprintf(stderr, "rbmon snapshot: %s %s%s%s\n", why, esc,
	    err != 0 ? ": " : "", err != 0 ? strerror(err) : "");
	free(esc);
	return -1;
}

int
rbmon_cmd_snapshot(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "output",	required_argument,	NULL, 'o' },
		{ "pid",	required_argument,	NULL, 'p' },
		{ "count",	required_argument,	NULL, 'n' },
		{ "interval",	required_argument,	NULL, 'i' },
		{ "timeout",	required_argument,	NULL, 'T' },
		{ "now",	no_argument,		NULL, 'N' },
		{ "watch",	required_argument,	NULL, 'w' },
		{ "thread",	required_argument,	NULL, 't' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 }
	};
	struct rbmon_snap_opts	 o;
	const char		*file;
	char			*found = NULL;
	long			 pid = 0;
	int			 c, status;

	memset(&o, 0, sizeof o);
	o.dir = ".";
	o.count = RBMON_SNAP_COUNT;
	o.interval_ns = RBMON_SNAP_INTERVAL_NS;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:p:n:i:T:w:t:h", longs,
	    NULL)) != -1) {
		switch (c) {
		case 'o':
			o.dir = optarg;
			break;
		case 'p':
			pid = snapshot_long("--pid", optarg, 1, INT32_MAX);
			break;
		case 'n':
			o.count = (uint32_t)snapshot_long("--count", optarg, 1,
			    1000000);
			break;
		case 'i':
			o.interval_ns = (uint64_t)(snapshot_secs("--interval",
			    optarg, 0.001, 3600) * 1e9);
			break;
		case 'T':
			o.timeout_ns = (uint64_t)(snapshot_secs("--timeout",
			    optarg, 0.001, 31536000) * 1e9);
			break;
		case 'N':
			o.now = 1;
			break;
		case 'w':
			o.watch = optarg;
			break;
		case 't':
			o.tid = (int32_t)snapshot_long("--thread", optarg, 1,
			    INT32_MAX);
			break;
		case 'h':
			snapshot_usage(stdout);
			return 0;
		default:
			snapshot_usage(stderr);
			return 2;
		}
	}
	if (argc - optind > 1)
		rbmon_bad_usage("snapshot takes one FILE");
	if (o.now && o.watch != NULL)
		rbmon_bad_usage("--now and --watch: one trigger or the other");
	if (o.now) {
		o.count = 1;
		o.pid = (int32_t)pid;
	}
	if (snapshot_dir(o.dir) != 0)
		return 1;
	if ((file = rbmon_discover_file(optind < argc ? argv[optind] : NULL,
	    pid, &found)) == NULL)
		status = 1;
	else {
		o.trace = file;
		status = rbmon_snap_run(&o);
	}
	free(found);
	return status;
}
