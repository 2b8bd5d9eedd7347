/* SPDX-License-Identifier: MIT */
/*
 * rbmon latency: per function the durations of its whole calls, from a
 * recording (all of it) or from a live trace file (the next N seconds of
 * its event logs), with percentiles and a histogram.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "monitor/cmd/cmd.h"
#include "monitor/core/discover.h"
#include "monitor/core/dump.h"
#include "monitor/core/model.h"
#include "monitor/core/safeio.h"
#include "monitor/core/symbols.h"
#include "monitor/history/calls.h"
#include "monitor/history/latency.h"
#include "monitor/history/readback.h"
#include "monitor/history/recfile.h"
#include "monitor/history/walk.h"
#include "monitor/util/escape.h"
#include "monitor/util/util.h"

#define LAT_SECONDS	1	/* --seconds by default */
#define LAT_SECONDS_MAX	3600
#define LAT_PASS_NS	5000000u	/* a live pass every 5 ms */
#define LAT_TOP		20

struct lat_opts {
	int			 json;
	enum rblat_sort		 sort;
	size_t			 top;
	const char		*func;		/* --function, or NULL */
	long			 seconds;
	long			 pid;		/* 0: every process */
	struct rbmon_tids	 tids;
};

/* What the walk lost, as the output states it. */
struct lat_losses {
	const char	*source;	/* "recording", "live" */
	uint32_t	 policy;
	size_t		 threads;
	uint64_t	 records;
	uint64_t	 lost;		/* records lost */
	int		 lost_unknown;
	uint64_t	 dropped;	/* live: never stored, log full */
	uint64_t	 cut;		/* calls whose exit may have been lost */
	uint64_t	 entries_lost;	/* calls whose entry was lost */
	uint64_t	 torn;
	int		 incomplete;	/* a recording without END */
	int		 exact;
	double		 seconds;
};

static volatile sig_atomic_t lat_stop;

static void
lat_on_signal(int sig)
{
	(void)sig;
	lat_stop = 1;
}

static int
lat_wanted(void *arg, int32_t pid, int32_t tid)
{
	const struct lat_opts	*o = arg;

	if (o->pid != 0 && pid != o->pid)
		return 0;
	return rbmon_cmd_tid_wanted(&o->tids, tid);
}

/* ---- output -------------------------------------------------------------- */

static size_t
lat_rows(const struct rblat *l, const struct lat_opts *o, uint32_t *order)
{
	size_t	n, i, k;

	n = rblat_order(l, o->sort, order);
	if (o->func != NULL) {
		for (i = k = 0; i < n; i++)
			if (rbcalls_filter_match(l->f[order[i]].name, o->func))
				order[k++] = order[i];
		n = k;
	}
	return n < o->top ? n : o->top;
}

static void
lat_text_losses(const struct lat_losses *s, const char *path)
{
	char	a[32];

	rbmon_esc_fputs(path, stdout);
	fputs(": ", stdout);
	if (s->seconds > 0)
		printf("%.1f s of live event logs", s->seconds);
	else
		fputs("a recording", stdout);
	printf(" (%s policy), %zu thread%s, %" PRIu64 " records\n",
	    rb_policy_name(s->policy), s->threads, s->threads == 1 ? "" : "s",
	    s->records);
	if (s->exact && s->seconds > 0) {
		printf("exact: no record lost between copies; every call that "
		    "began and ended in\nthe window counted (%" PRIu64 " ended "
		    "in it without their entry)\n", s->entries_lost);
		return;
	}
	if (s->exact) {
		fputs("exact: no record lost, every call counted\n", stdout);
		return;
	}
	if (s->lost_unknown)
		snprintf(a, sizeof a, "%" PRIu64 "+", s->lost);
	else
		snprintf(a, sizeof a, "%" PRIu64, s->lost);
	printf("LOST: %s record%s", a, s->lost == 1 ? "" : "s");
	if (s->seconds > 0)
		printf(" overwritten before a copy, %" PRIu64 " dropped (log "
		    "full)", s->dropped);
	printf("; %" PRIu64 " call%s cut (exit lost), %" PRIu64 " without "
	    "entry%s: counts are lower bounds\n", s->cut, s->cut == 1 ? "" :
	    "s", s->entries_lost, s->incomplete ?
	    "; incomplete recording (no END)" : "");
}

static void
lat_text(const struct rblat *l, const struct lat_opts *o,
    const struct lat_losses *s, const char *path)
{
	uint32_t	*order = rbmon_xcalloc(l->n + 1, sizeof *order);
	char		 t[5][32], **lines;
	size_t		 n, i, k, nl, shown = 0;

	lat_text_losses(s, path);
	n = lat_rows(l, o, order);
	printf("\n%10s %10s %10s %10s %10s  %s\n", "CALLS", "TOTAL", "P50",
	    "P99", "MAX", "FUNCTION");
	for (i = 0; i < n; i++) {
		const struct rblat_func *f = &l->f[order[i]];

		rblat_time(t[0], sizeof t[0], f->total_ns);
		rblat_time(t[1], sizeof t[1], f->p50);
		rblat_time(t[2], sizeof t[2], f->p99);
		rblat_time(t[3], sizeof t[3], f->max_ns);
		printf("%10" PRIu64 " %10s %10s %10s %10s  ", f->calls, t[0],
		    f->calls ? t[1] : "-", f->calls ? t[2] : "-",
		    f->calls ? t[3] : "-");
		rbmon_esc_fputs(f->name, stdout);
		if (f->cut + f->open + f->entry_lost != 0)
			printf(" (+%" PRIu64 " cut, %" PRIu64 " open, %" PRIu64
			    " without entry)", f->cut, f->open, f->entry_lost);
		if (f->approx)
			fputs(" (percentiles from the histogram)", stdout);
		putchar('\n');
	}
	if (n == 0)
		puts("(no calls)");
	/* The histogram of the first row, or of every row -F selected. */
	for (i = 0; i < n && (o->func != NULL || shown == 0); i++) {
		const struct rblat_func *f = &l->f[order[i]];

		if ((nl = rblat_hist_lines(f, 0, &lines)) == 0)
			continue;
		putchar('\n');
		rbmon_esc_fputs(f->name, stdout);
		if (f->file[0] != '\0') {
			fputs(" (", stdout);
			rbmon_esc_fputs(f->file, stdout);
			putchar(')');
		}
		printf(", %" PRIu64 " calls\n", f->calls);
		for (k = 0; k < nl; k++) {
			puts(lines[k]);
			free(lines[k]);
		}
		free(lines);
		shown++;
	}
	free(order);
}

static void
lat_json(const struct rblat *l, const struct lat_opts *o,
    const struct lat_losses *s, const char *path)
{
	uint32_t	*order = rbmon_xcalloc(l->n + 1, sizeof *order);
	size_t		 n, i;
	unsigned	 b;
	int		 first;

	n = lat_rows(l, o, order);
	fputs("{\"source\": ", stdout);
	rbmon_json_string(stdout, s->source);
	fputs(", \"path\": ", stdout);
	rbmon_json_string(stdout, path);
	printf(", \"policy\": \"%s\", \"seconds\": ",
	    rb_policy_name(s->policy));
	if (s->seconds > 0)
		printf("%.3f", s->seconds);
	else
		fputs("null", stdout);
	printf(", \"sort\": \"%s\", \"threads\": %zu, \"records\": %" PRIu64
	    ", \"exact\": %s, \"losses\": {\"records\": %" PRIu64
	    ", \"unknown\": %s, \"dropped\": %" PRIu64 ", \"calls_cut\": %"
	    PRIu64 ", \"entries_lost\": %" PRIu64 ", \"torn\": %" PRIu64
	    ", \"incomplete\": %s}, \"functions\": [", rblat_sort_name(o->sort),
	    s->threads, s->records, s->exact ? "true" : "false", s->lost,
	    s->lost_unknown ? "true" : "false", s->dropped, s->cut,
	    s->entries_lost, s->torn, s->incomplete ? "true" : "false");
	for (i = 0; i < n; i++) {
		const struct rblat_func *f = &l->f[order[i]];

		fputs(i == 0 ? "\n  {\"name\": " : ",\n  {\"name\": ", stdout);
		rbmon_json_string(stdout, f->name);
		fputs(", \"file\": ", stdout);
		rbmon_json_string(stdout, f->file);
		printf(", \"calls\": %" PRIu64 ", \"total_ns\": %" PRIu64
		    ", \"mean_ns\": %" PRIu64 ", \"p50_ns\": %" PRIu64
		    ", \"p99_ns\": %" PRIu64 ", \"max_ns\": %" PRIu64
		    ", \"exact_percentiles\": %s, \"unwound\": %" PRIu64
		    ", \"cut\": %" PRIu64 ", \"open\": %" PRIu64
		    ", \"entry_lost\": %" PRIu64 ", \"histogram\": [",
		    f->calls, f->total_ns,
		    f->calls ? f->total_ns / f->calls : 0,
		    f->p50, f->p99, f->max_ns, f->approx ? "false" : "true",
		    f->unwound, f->cut, f->open, f->entry_lost);
		for (b = 0, first = 1; b < RBLAT_BUCKETS; b++) {
			if (f->hist[b] == 0)
				continue;
			printf("%s{\"from_ns\": %" PRIu64 ", \"count\": %" PRIu64
			    "}", first ? "" : ", ", rblat_bucket_lo(b),
			    f->hist[b]);
			first = 0;
		}
		fputs("]}", stdout);
	}
	fputs(n != 0 ? "\n]}\n" : "]}\n", stdout);
	free(order);
}

static int
lat_flush(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "rbmon latency: write error: %s\n",
		    strerror(errno));
		return 1;
	}
	return 0;
}

/* ---- a recording --------------------------------------------------------- */

static int
lat_recording(const char *path, struct lat_opts *o)
{
	struct rbwalk_ctx	 x;
	struct rbread_losses	 rl;
	struct lat_losses	 s;
	struct rblat		 l;
	size_t			 i;
	int			 ok;

	if (rbread_open_or_say(&x, "latency", path, "latency") != 0)
		return 1;
	if (!x.rec.clock_ok) {
		rbmon_esc_line(stderr, "rbmon latency: %s: latency needs times: "
		    "the recording has no clock calibration", path);
		rbwalk_close(&x);
		return 1;
	}
	rblat_init(&l, RBLAT_KEEP_MAX);
	memset(&s, 0, sizeof s);
	s.source = "recording";
	s.policy = x.rec.info.policy;
	s.threads = (size_t)rblat_recording(&l, &x, lat_wanted, o);
	rbread_losses(&x, &rl);
	for (i = 0; i < x.rec.nstreams; i++)
		if (x.counts[i].walked)
			s.records += x.counts[i].records;
	s.lost = rl.lost;
	s.lost_unknown = rl.unknown;
	s.cut = rl.exits_lost;
	s.entries_lost = rl.entries_lost;
	s.incomplete = rl.incomplete;
	s.exact = rl.lost == 0 && !rl.unknown && !rl.incomplete;
	if (!s.exact)
		rbread_lost_say(&x, "latency", "per thread at the end");
	if (o->json)
		lat_json(&l, o, &s, path);
	else
		lat_text(&l, o, &s, path);
	rblat_free(&l);
	ok = lat_flush() == 0;
	return rbread_done(&x, ok);
}

/* ---- a live file --------------------------------------------------------- */

static void
lat_sleep_ns(uint64_t ns)
{
	struct timespec	ts = { (time_t)(ns / 1000000000u),
	    (long)(ns % 1000000000u) };

	nanosleep(&ts, NULL);
}

static int
lat_live(const char *path, struct lat_opts *o)
{
	struct rbmon_model	 m;
	struct rbmon_snapshot	 snap;
	struct rbmon_symbols	*sy;
	struct rbmon_clock	 c;
	struct rblat		 l;
	struct rblat_live	 lv;
	struct lat_losses	 s;
	struct sigaction	 sa;
	char			*cause = NULL;
	uint64_t		 t0, now, until;
	size_t			 i;
	int			 status, passes = 0;

	if (rbmon_safeio_open_trace(&m, path, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon latency: %s: %s", path, cause);
		free(cause);
		return 1;
	}
	if (m.hdr.events == 0) {
		rbmon_esc_line(stderr, "rbmon latency: %s: no event log: the "
		    "program ran with RBTRACE_EVENTS=0", path);
		rbmon_model_close(&m);
		return 1;
	}
	if (m.hdr.clock == RB_CLOCK_NONE) {
		rbmon_esc_line(stderr, "rbmon latency: %s: latency needs times: "
		    "the program ran with RBTRACE_CLOCK=none", path);
		rbmon_model_close(&m);
		return 1;
	}
	if (m.hdr.ev_policy == RB_POLICY_DRAIN)
		rbmon_esc_line(stderr, "rbmon latency: %s: drain policy: "
		    "latency only reads the logs (it is no consumer); with no "
		    "recorder consuming, full logs drop what comes (counted as "
		    "dropped)", path);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = lat_on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sy = rbmon_symbols_new(stderr);
	rblat_init(&l, RBLAT_KEEP_MAX);
	rblat_live_init(&lv, &l, &m, sy);
	lv.wanted = lat_wanted;
	lv.arg = o;
	t0 = rbmon_mono_ns();
	until = t0 + (uint64_t)o->seconds * 1000000000u;
	status = 0;
	for (;;) {
		now = rbmon_mono_ns();
		if (rbmon_model_snapshot(&m, &snap, &cause) != 0) {
			rbmon_esc_line(stderr, "rbmon latency: %s: %s", path,
			    cause);
			free(cause);
			cause = NULL;
			status = 1;
			break;
		}
		rbmon_clock_init(&c, &m.hdr);
		rblat_live_pass(&lv, &snap, &c);
		rbmon_model_free(&snap);
		passes++;
		if (now >= until || lat_stop)
			break;
		now = rbmon_mono_ns();
		lat_sleep_ns(until - now < LAT_PASS_NS ? until - now :
		    LAT_PASS_NS);
	}
	if (status == 0) {
		rblat_finish(&l);
		memset(&s, 0, sizeof s);
		s.source = "live";
		s.policy = m.hdr.ev_policy;
		s.threads = lv.threads;
		s.records = lv.records;
		s.lost = lv.lost;
		s.dropped = lv.dropped;
		s.cut = lv.cut;
		s.torn = lv.torn;
		s.seconds = (double)(rbmon_mono_ns() - t0) / 1e9;
		for (i = 0; i < l.n; i++)
			s.entries_lost += l.f[i].entry_lost;
		s.exact = lv.lost == 0 && lv.dropped == 0 && lv.torn == 0;
		if (!s.exact)
			rbmon_esc_line(stderr, "rbmon latency: %s: %" PRIu64
			    " records overwritten before a copy, %" PRIu64
			    " dropped (log full), %" PRIu64 " calls cut: counts "
			    "are lower bounds", path, lv.lost, lv.dropped,
			    lv.cut);
		if (o->json)
			lat_json(&l, o, &s, path);
		else
			lat_text(&l, o, &s, path);
		status = lat_flush();
	}
	rblat_live_free(&lv);
	rblat_free(&l);
	rbmon_symbols_free(sy);
	rbmon_model_close(&m);
	return status;
}

/* ---- the command --------------------------------------------------------- */

/* Is @path a recording (its magic), rather than a trace file? */
static int
lat_is_recording(const char *path)
{
	char	magic[8];
	int	fd, yes = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1)
		return 0;
	if (read(fd, magic, sizeof magic) == (ssize_t)sizeof magic &&
	    memcmp(magic, RBREC_MAGIC, sizeof magic) == 0)
		yes = 1;
	close(fd);
	return yes;
}

static void
lat_usage(FILE *f)
{
	fputs("Usage: rbmon latency [OPTIONS] FILE|RECORDING\n"
	    "       rbmon latency [OPTIONS] --pid PID\n"
	    "Per function: its calls, their total time, p50, p99 and max "
	    "(whole calls,\nentry to exit), and a histogram of the durations "
	    "(powers of two).  A\nRECORDING (rbmon record) is read whole; a "
	    "live FILE is watched for --seconds,\nits event logs copied as "
	    "they grow.  What was lost is always said.\n"
	    "\n"
	    "      --json              everything as JSON (rbmon(1), LATENCY)\n"
	    "  -t, --tid TID[,TID...]  only these threads\n"
	    "  -p, --pid PID           only this process (and, without FILE, "
	    "its trace file)\n"
	    "  -s, --sort KEY          calls, total, p50, p99, max or name "
	    "(default calls)\n"
	    "  -n, --top N             list N functions (default 20)\n"
	    "  -F, --function PATTERN  only functions matching PATTERN (a name "
	    "or a glob),\n"
	    "                          each with its histogram (default: the "
	    "first row's)\n"
	    "      --seconds N         a live FILE: watch it N seconds "
	    "(default 1)\n"
	    "  -h, --help              show this help\n", f);
}

/** rbmon_cmd_latency - `rbmon latency [OPTIONS] FILE|RECORDING` */
int
rbmon_cmd_latency(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "tid", required_argument, NULL, 't' },
		{ "thread", required_argument, NULL, 't' },
		{ "pid", required_argument, NULL, 'p' },
		{ "sort", required_argument, NULL, 's' },
		{ "top", required_argument, NULL, 'n' },
		{ "function", required_argument, NULL, 'F' },
		{ "seconds", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct lat_opts	 o;
	const char	*file;
	char		*found = NULL;
	int		 ch, k, status;

	memset(&o, 0, sizeof o);
	o.sort = RBLAT_SORT_CALLS;
	o.top = LAT_TOP;
	o.seconds = LAT_SECONDS;
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":t:p:s:n:F:h", opts,
	    NULL)) != -1) {
		switch (ch) {
		case 'J':
			o.json = 1;
			break;
		case 't':
			rbmon_cmd_parse_tids("latency", optarg, &o.tids);
			break;
		case 'p':
			o.pid = rbmon_number("latency", "pid", optarg, 1,
			    0x7fffffff);
			break;
		case 's':
			if ((k = rblat_sort_parse(optarg)) < 0)
				rbmon_cmd_usage("latency", "invalid sort key "
				    "'%s' (calls, total, p50, p99, max, name)",
				    optarg);
			o.sort = (enum rblat_sort)k;
			break;
		case 'n':
			o.top = (size_t)rbmon_number("latency", "count",
			    optarg, 1, 1000000);
			break;
		case 'F':
			o.func = optarg;
			break;
		case 'S':
			o.seconds = rbmon_number("latency", "seconds", optarg,
			    1, LAT_SECONDS_MAX);
			break;
		case 'h':
			lat_usage(stdout);
			return 0;
		case ':':
			rbmon_cmd_usage("latency", "option '%s' needs a value",
			    argv[optind - 1]);
		default:
			rbmon_cmd_usage("latency", "unknown option '%s'",
			    argv[optind - 1]);
		}
	}
	if (argc - optind > 1)
		rbmon_cmd_usage("latency", "too many arguments");
	if (optind == argc && o.pid == 0)
		rbmon_cmd_usage("latency", "no file given");
	file = optind < argc ? argv[optind] : NULL;
	if (file != NULL && lat_is_recording(file))
		status = lat_recording(file, &o);
	else if ((file = rbmon_discover_file(file, file != NULL ? 0 : o.pid,
	    &found)) == NULL)
		status = 1;
	else
		status = lat_live(file, &o);
	free(found);
	free(o.tids.v);
	return status;
}
