/* SPDX-License-Identifier: MIT */
/*
 * rbmon estimate: how large an export of a recording will be, said before
 * it is written when it is large (rbmon(1), EXPORT SIZES).  A recording of
 * 500 MiB makes 10 GB of Chrome JSON, and the viewers give up on JSON
 * between 256 MB and 1 GB: better to hear it before than after.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/history/calls.h"
#include "monitor/history/export.h"
#include "monitor/history/walk.h"
#include "monitor/util/escape.h"
#include "monitor/util/util.h"

/*
 * Bytes a record makes (a call is two: its entry and its exit), as a
 * recording of 97 M records of a real program made them, names of a
 * dozen characters or so; bench/exports.sh measures them on fib (94, 45,
 * 23 and 44 there, its one name short).
 */
static const struct {
	int		 format;	/* export's letter */
	unsigned	 bytes;
	const char	*name;
} estimate_formats[] = {
	{ 'c', 105, "Chrome JSON" },
	{ 's', 46, "speedscope JSON" },
	{ 'p', 24, "Perfetto protobuf" },
	{ 'r', 45, "replay text" },
};

/* A counting walk: the records the filters keep. */
static void
estimate_enter(struct rbcalls_walk *w, struct rbcalls_frame *f, size_t depth)
{
	uint64_t	*n = w->h->arg;

	(void)f;
	(void)depth;
	*n += 2;
}

static void
estimate_mark(struct rbcalls_walk *w, const struct rbrec_rec *k, size_t depth)
{
	uint64_t	*n = w->h->arg;

	(void)k;
	(void)depth;
	(*n)++;
}

/**
 * rbexp_estimate - the records of @x an export of threads @tids will
 * write, through @x's filter
 * @over: below it, the records the threads have (cheap, from the index)
 * are answer enough; above it, a filter is walked to count what it keeps
 */
uint64_t
rbexp_estimate(struct rbwalk_ctx *x, const struct rbmon_tids *tids,
    uint64_t over)
{
	struct rbcalls_handler	 h = { estimate_enter, NULL, estimate_mark,
				    NULL };
	struct rbcalls_walk	 w;
	uint64_t		 n = 0;
	size_t			 i;

	for (i = 0; i < x->rec.nstreams; i++)
		if (rbmon_cmd_tid_wanted(tids, x->rec.streams[i].info.tid))
			n += x->rec.streams[i].records;
	if (n <= over || !rbcalls_filter_active(x->filter))
		return n;
	n = 0;
	h.arg = &n;
	for (i = 0; i < x->rec.nstreams; i++) {
		if (!rbmon_cmd_tid_wanted(tids, x->rec.streams[i].info.tid))
			continue;
		rbcalls_walk_init(&w, x, i, &h);
		while (rbcalls_walk_step(&w))
			;
		rbcalls_walk_finish(&w);
		rbcalls_walk_free(&w);
	}
	return n;
}

/* RBMON_EXPORT_WARN: bytes, or with k, M, G (powers of 1024); 0: never. */
static uint64_t
estimate_threshold(const char *cmd)
{
	const char		*s = getenv("RBMON_EXPORT_WARN");
	char			*end;
	unsigned long long	 v;
	unsigned		 shift = 0;

	if (s == NULL || *s == '\0')
		return RBEXP_WARN_DEFAULT;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end == 'k' || *end == 'K')
		shift = 10;
	else if (*end == 'M')
		shift = 20;
	else if (*end == 'G')
		shift = 30;
	if (shift != 0)
		end++;
	if (errno != 0 || end == s || *end != '\0' || s[0] == '-' ||
	    v > (UINT64_MAX >> shift)) {
		rbmon_esc_line(stderr, "rbmon %s: RBMON_EXPORT_WARN=%s is no "
		    "size (bytes, or with k, M or G): warning over %llu MiB",
		    cmd, s, RBEXP_WARN_DEFAULT >> 20);
		return RBEXP_WARN_DEFAULT;
	}
	return (uint64_t)v << shift;
}

static void
estimate_size(char *buf, size_t len, uint64_t bytes)
{
	if (bytes >= (1ull << 30))
		snprintf(buf, len, "%.1f GiB", (double)bytes / (1ull << 30));
	else if (bytes >= (1ull << 20))
		snprintf(buf, len, "%.0f MiB", (double)bytes / (1ull << 20));
	else if (bytes >= 1024)
		snprintf(buf, len, "%.0f KiB", (double)bytes / 1024);
	else
		snprintf(buf, len, "%" PRIu64 " bytes", bytes);
}

/* 12345678 -> "12,345,678" */
static void
estimate_count(char *buf, size_t len, uint64_t n)
{
	char	digits[32];
	size_t	nd, i, o = 0;

	nd = (size_t)snprintf(digits, sizeof digits, "%" PRIu64, n);
	for (i = 0; i < nd && o + 2 < len; i++) {
		if (i > 0 && (nd - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
}

/**
 * rbexp_size_say - before an export in @format (export's letter, 'r' for
 * replay) of @x, threads @tids, say on standard error how large it will
 * be when that is over the threshold (RBMON_EXPORT_WARN)
 */
void
rbexp_size_say(const char *cmd, struct rbwalk_ctx *x,
    const struct rbmon_tids *tids, int format)
{
	uint64_t	 limit, n, bytes;
	size_t		 i;
	char		 size[32], count[32];

	for (i = 0; i < sizeof estimate_formats / sizeof estimate_formats[0];
	    i++)
		if (estimate_formats[i].format == format)
			break;
	if (i == sizeof estimate_formats / sizeof estimate_formats[0])
		return;
	if ((limit = estimate_threshold(cmd)) == 0)
		return;
	n = rbexp_estimate(x, tids, limit / estimate_formats[i].bytes);
	bytes = n * estimate_formats[i].bytes;
	if (bytes <= limit)
		return;
	estimate_size(size, sizeof size, bytes);
	estimate_count(count, sizeof count, n);
	if (format == 'p')
		fprintf(stderr, "rbmon %s: ~%s events, about %s of %s; to "
		    "make it smaller: filters (--time-range, -t, "
		    "--min-duration, -D, -F, -N)\n", cmd, count, size,
		    estimate_formats[i].name);
	else
		fprintf(stderr, "rbmon %s: ~%s events, about %s of %s; %s: "
		    "use --perfetto or filters (--time-range, -t, "
		    "--min-duration, -D, -F, -N)\n", cmd, count, size,
		    estimate_formats[i].name, format == 'r' ?
		    "for a trace viewer" :
		    "viewers fail on JSON over 256 MB-1 GB");
}
