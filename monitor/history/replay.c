/* SPDX-License-Identifier: MIT */
/*
 * rbmon replay, report and export: a recording (rbtrace(5), "RECORDINGS")
 * as a function graph with every thread merged in time order (uftrace
 * replay), a table of functions (uftrace report), and the formats people
 * view traces in: Chrome's Trace Event JSON (Perfetto UI,
 * chrome://tracing, speedscope), Perfetto's protobuf (perfetto.c), folded
 * stacks (flamegraph.pl, inferno, speedscope) and speedscope's own evented
 * profiles.
 *
 * All of them walk the streams with walk.c, so calls nest the same way in
 * every output; the exports keep one thread's stack in memory and write
 * as they go.  Names come from the program: text goes through the escaper,
 * JSON through the JSON string writer.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/outfile.h"
#include "monitor/core/dump.h"
#include "monitor/core/escape.h"
#include "monitor/history/perfetto.h"
#include "monitor/history/profile.h"
#include "monitor/history/replay.h"
#include "monitor/core/safeio.h"
#include "monitor/core/view.h"
#include "monitor/history/walk.h"

/* ---- common --------------------------------------------------------------- */

/* "rbmon CMD: what is wrong", then where help is; exit 2. */
__attribute__((noreturn, format(printf, 2, 3))) void
rbmon_cmd_usage(const char *cmd, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg = NULL;

	fprintf(stderr, "rbmon %s: ", cmd);
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	rbmon_esc_fputs(msg != NULL ? msg : "out of memory", stderr);
	fprintf(stderr, "\nTry 'rbmon %s --help'.\n", cmd);
	free(msg);
	exit(2);
}

/* "10us", "1.5ms", "2s", "500ns", "300" (ns). Return: 0, or -1. */
static int
rp_parse_time(const char *s, uint64_t *ns)
{
	static const struct { const char *unit; double mul; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
		{ "m", 60e9 }, { "", 1 },
	};
	char	*end;
	double	 v;
	size_t	 i;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || !(v >= 0) || isinf(v))
		return -1;
	for (i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strcmp(end, units[i].unit) == 0) {
			v *= units[i].mul;
			if (v > 1e18)
				return -1;
			*ns = (uint64_t)v;
			return 0;
		}
	return -1;
}

/* -t 1240,1241: the thread ids wanted (none: every thread). */
void
rbmon_cmd_parse_tids(const char *cmd, const char *arg, struct rbmon_tids *t)
{
	char	*copy = rbmon_xstrdup(arg), *p, *save = NULL, *end;
	long	 v;

	for (p = strtok_r(copy, ",", &save); p != NULL;
	    p = strtok_r(NULL, ",", &save)) {
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno != 0 || end == p || *end != '\0' || v <= 0 ||
		    v > INT_MAX)
			rbmon_cmd_usage(cmd, "invalid thread id '%s'", p);
		t->v = rbmon_xreallocarray(t->v, t->n + 1, sizeof *t->v);
		t->v[t->n++] = v;
	}
	free(copy);
	if (t->n == 0)
		rbmon_cmd_usage(cmd, "no thread id in '%s'", arg);
}

int
rbmon_cmd_tid_wanted(const struct rbmon_tids *t, int32_t tid)
{
	size_t	i;

	if (t->n == 0)
		return 1;
	for (i = 0; i < t->n; i++)
		if (t->v[i] == tid)
			return 1;
	return 0;
}

/* Recorded without a clock: its stamps are a sequence, no time. */
static int
rp_no_times(const struct rp_ctx *x)
{
	return x->rec.info.clock == RB_CLOCK_NONE;
}

/*
 * Open @path for @cmd, saying what the recording lacks; @needs (what of
 * @cmd needs times, NULL: nothing) refuses one without times.
 */
static int
rp_open_or_say(struct rp_ctx *x, const char *cmd, const char *path,
    const char *needs)
{
	char	*why = NULL;

	if (rp_open(x, path, &why) != 0) {
		rbmon_esc_line(stderr, "rbmon %s: %s: %s", cmd, path, why);
		free(why);
		return -1;
	}
	if (x->rec.warning != NULL)
		rbmon_esc_line(stderr, "rbmon %s: %s: %s", cmd, path,
		    x->rec.warning);
	if (!x->rec.have_end)
		rbmon_esc_line(stderr, "rbmon %s: %s: incomplete: no END chunk "
		    "(its recorder was killed, or could not write): read to "
		    "its last whole chunk; what the threads lost after it is "
		    "unknown", cmd, path);
	if (rp_no_times(x) && needs != NULL) {
		rbmon_esc_line(stderr, "rbmon %s: %s: %s needs times: the "
		    "program ran with RBTRACE_CLOCK=none", cmd, path, needs);
		rp_close(x);
		return -1;
	}
	if (rp_no_times(x))
		rbmon_esc_line(stderr, "rbmon %s: %s: no times: the program ran "
		    "with RBTRACE_CLOCK=none (the calls in order only)", cmd,
		    path);
	else if (!x->rec.clock_ok)
		rbmon_esc_line(stderr, "rbmon %s: %s: no clock calibration: "
		    "times are not shown", cmd, path);
	return 0;
}

static void rp_time(char *, size_t, uint64_t);

/* ---- losses --------------------------------------------------------------- */

/* Read whole, but the recording has no END: exit status 3. */
#define RP_EXIT_INCOMPLETE	3

/* What the walked streams lost, all together. */
struct rp_losses {
	uint64_t	lost;		/* records, as counted */
	size_t		threads;	/* streams that lost any */
	int		unknown;	/* a gap of unknown size */
	int		incomplete;	/* no END: what came after is unknown */
};

static void
rp_losses(const struct rp_ctx *x, struct rp_losses *l)
{
	size_t	i;

	memset(l, 0, sizeof *l);
	l->incomplete = !x->rec.have_end;
	for (i = 0; i < x->rec.nstreams; i++) {
		const struct rp_count	*c = &x->counts[i];

		if (!c->walked || (c->lost == 0 && !c->lost_unknown))
			continue;
		l->lost += c->lost;
		l->unknown |= c->lost_unknown;
		l->threads++;
	}
}

/* Are the counts shown lower bounds? */
static int
rp_lower_bounds(const struct rp_losses *l)
{
	return l->threads != 0 || l->incomplete;
}

/* "5,060 records lost", "at least 5,060 ...", "records lost" (none counted). */
static const char *
rp_lost_text(char *buf, size_t len, uint64_t lost, int unknown)
{
	char	n[32];

	if (lost == 0)
		snprintf(buf, len, "records lost");
	else
		snprintf(buf, len, "%s%s record%s lost", unknown ? "at least " :
		    "", rbmon_group(n, sizeof n, lost), lost == 1 ? "" : "s");
	return buf;
}

/**
 * rp_thread_label - a thread's name as the exports show it, with what it
 * lost: "@name (@more, 5,060 records lost)", "@name (@more)",
 * "@name (5,060 records lost)" or @name
 * @more: NULL, or what the name says besides
 */
void
rp_thread_label(char *buf, size_t len, const struct rp_ctx *x, size_t si,
    const char *name, const char *more)
{
	const struct rp_count	*c = &x->counts[si];
	char			 t[64];
	int			 lost = c->lost != 0 || c->lost_unknown;

	if (lost)
		rp_lost_text(t, sizeof t, c->lost, c->lost_unknown);
	if (more != NULL && lost)
		snprintf(buf, len, "%s (%s, %s)", name, more, t);
	else if (more != NULL || lost)
		snprintf(buf, len, "%s (%s)", name, more != NULL ? more : t);
	else
		snprintf(buf, len, "%s", name);
}

/* A thread's name: its name at the end if it had one, else at the start. */
static const char *
rp_thread_name(const struct rbrec_stream *s)
{
	return s->ended && s->end.name[0] != '\0' ? s->end.name :
	    s->info.name;
}

/*
 * Per thread that lost records, as a table after a text output (each line
 * after @prefix): what it lost and what it kept; and whether the
 * recording is incomplete.
 */
static void
rp_lost_table(FILE *out, const struct rp_ctx *x, const char *prefix)
{
	struct rp_losses	l;
	char			a[64], b[32];
	int			blank = (int)strcspn(prefix, " ");
	size_t			i;

	rp_losses(x, &l);
	/* A blank line first: the prefix without its trailing blanks. */
	if (l.incomplete)
		fprintf(out, "%.*s\n%sThe recording is incomplete (no END "
		    "chunk): the counts above are lower bounds.\n", blank,
		    prefix, prefix);
	if (l.threads == 0)
		return;
	fprintf(out, "%.*s\n%s%s in %zu thread%s (the counts above are lower "
	    "bounds):\n", blank, prefix, prefix, rp_lost_text(a, sizeof a,
	    l.lost, l.unknown), l.threads, l.threads == 1 ? "" : "s");
	fprintf(out, "%s%14s  %12s  %8s  %s\n", prefix, "Lost", "Kept", "TID",
	    "Thread");
	for (i = 0; i < x->rec.nstreams; i++) {
		const struct rp_count	*c = &x->counts[i];

		if (!c->walked || (c->lost == 0 && !c->lost_unknown))
			continue;
		snprintf(a, sizeof a, "%s%s", c->lost_unknown ? ">=" : "",
		    rbmon_group(b, sizeof b, c->lost));
		fprintf(out, "%s%14s  %12s  %8d  ", prefix, a,
		    rbmon_group(b, sizeof b, c->records),
		    (int)x->rec.streams[i].info.tid);
		rbmon_esc_fputs(rp_thread_name(&x->rec.streams[i]), out);
		fputc('\n', out);
	}
}

/*
 * The losses as JSON members, after others: "records", "lost",
 * "lost_unknown", "complete", "lower_bounds" and "threads", one object
 * per thread walked.
 */
static void
rp_lost_json(FILE *out, const struct rp_ctx *x)
{
	struct rp_losses	l;
	uint64_t		records = 0;
	size_t			i, n = 0;

	rp_losses(x, &l);
	for (i = 0; i < x->rec.nstreams; i++)
		if (x->counts[i].walked)
			records += x->counts[i].records;
	fprintf(out, ", \"records\": %" PRIu64 ", \"lost\": %" PRIu64
	    ", \"lost_unknown\": %s, \"complete\": %s, \"lower_bounds\": %s"
	    ", \"threads\": [", records, l.lost, l.unknown ? "true" : "false",
	    l.incomplete ? "false" : "true",
	    rp_lower_bounds(&l) ? "true" : "false");
	for (i = 0; i < x->rec.nstreams; i++) {
		const struct rbrec_stream	*s = &x->rec.streams[i];
		const struct rp_count		*c = &x->counts[i];

		if (!c->walked)
			continue;
		fprintf(out, "%s{\"pid\": %d, \"tid\": %d, \"name\": ",
		    n++ == 0 ? "\n  " : ",\n  ", (int)s->info.pid,
		    (int)s->info.tid);
		rbmon_json_string(out, rp_thread_name(s));
		fprintf(out, ", \"records\": %" PRIu64 ", \"lost\": %" PRIu64
		    ", \"lost_unknown\": %s}", c->records, c->lost,
		    c->lost_unknown ? "true" : "false");
	}
	fputs(n != 0 ? "\n]" : "]", out);
}

/* One line on stderr when counts are lower bounds (the exports). */
static void
rp_lost_say(const struct rp_ctx *x, const char *cmd)
{
	struct rp_losses	l;
	char			a[64];

	rp_losses(x, &l);
	if (l.threads == 0)
		return;
	rbmon_esc_line(stderr, "rbmon %s: %s: %s in %zu thread%s (per thread "
	    "in its name): counts are lower bounds", cmd, x->rec.path,
	    rp_lost_text(a, sizeof a, l.lost, l.unknown), l.threads,
	    l.threads == 1 ? "" : "s");
}

/* Close @x; the exit status: 1 if !@ok, 3 if the recording has no END. */
static int
rp_done(struct rp_ctx *x, int ok)
{
	int	status = !ok ? 1 : x->rec.have_end ? 0 : RP_EXIT_INCOMPLETE;

	rp_close(x);
	return status;
}

/* A duration as uftrace shows it: "  1.234 us", 10 wide. */
static void
rp_duration(char *buf, size_t len, const struct rp_ctx *x, uint64_t a,
    uint64_t b)
{
	uint64_t	na, nb;
	char		t[32];

	if (rp_ns(x, a, &na) != 0 || rp_ns(x, b, &nb) != 0) {
		snprintf(buf, len, "%10s", "");
		return;
	}
	rp_time(t, sizeof t, nb > na ? nb - na : 0);
	snprintf(buf, len, "%10s", t);
}

static uint64_t
rp_dur_ns(const struct rp_ctx *x, uint64_t a, uint64_t b)
{
	uint64_t	na, nb;

	if (rp_ns(x, a, &na) != 0 || rp_ns(x, b, &nb) != 0 || nb < na)
		return 0;
	return nb - na;
}

/* "stopped: breakpoint 3", as rbmon --events says it. */
static void
rp_stop_text(char *buf, size_t len, uint64_t why)
{
	if (RB_WHY_REASON(why) == RB_WHY_BREAKPOINT)
		snprintf(buf, len, "stopped: %s %u", rbmon_why_json((int32_t)why),
		    RB_WHY_ID((uint32_t)why));
	else
		snprintf(buf, len, "stopped: %s", rbmon_why_json((int32_t)why));
}

/* ---- the merge: every stream's walker, in time order -------------------- */

struct rp_merge {
	struct rp_walk	*w;		/* one per stream wanted */
	size_t		*heap;		/* indices into w, by next time */
	size_t		 n, nheap;
};

static uint64_t
rp_next_ts(struct rp_walk *w)
{
	const struct rbrec_rec *k = rp_walk_peek(w);

	return k == NULL ? UINT64_MAX : k->e.ts;
}

static int
rp_heap_less(struct rp_merge *m, size_t a, size_t b)
{
	uint64_t	x = rp_next_ts(&m->w[m->heap[a]]);
	uint64_t	y = rp_next_ts(&m->w[m->heap[b]]);

	return x != y ? x < y : m->heap[a] < m->heap[b];
}

static void
rp_heap_down(struct rp_merge *m, size_t i)
{
	size_t	l, r, s, t;

	for (;;) {
		l = 2 * i + 1;
		r = l + 1;
		s = i;
		if (l < m->nheap && rp_heap_less(m, l, s))
			s = l;
		if (r < m->nheap && rp_heap_less(m, r, s))
			s = r;
		if (s == i)
			return;
		t = m->heap[i];
		m->heap[i] = m->heap[s];
		m->heap[s] = t;
		i = s;
	}
}

/* Walk every stream, records in time order across them. */
static void
rp_merge_run(struct rp_merge *m)
{
	size_t	i;

	m->heap = rbmon_xcalloc(m->n + 1, sizeof *m->heap);
	for (i = 0; i < m->n; i++)
		m->heap[m->nheap++] = i;
	for (i = m->nheap / 2 + 1; i > 0; i--)
		rp_heap_down(m, i - 1);
	while (m->nheap > 0) {
		struct rp_walk	*w = &m->w[m->heap[0]];

		if (!rp_walk_step(w)) {
			rp_walk_finish(w);
			m->heap[0] = m->heap[--m->nheap];
		}
		rp_heap_down(m, 0);
	}
	free(m->heap);
}

/* ---- replay --------------------------------------------------------------- */

struct rp_replay {
	struct rp_ctx	*x;
	const char	*func;		/* -F */
	long		 depth;		/* -D, 0: all */
	uint64_t	 min_ns;	/* --min */
	unsigned char	**keep;		/* per stream, --min: frame shown */
	size_t		*root;		/* per stream: depth of -F's frame,
					   SIZE_MAX: outside */
	FILE		*out;
};

/* rp_frame.user in replay: bit 63 set once the frame's line is printed. */
#define RP_SHOWN	(1ull << 63)
#define RP_LEAF		(1ull << 62)
#define RP_NUM(u)	((u) & ~(RP_SHOWN | RP_LEAF))

static int
rp_func_match(const char *name, const char *want)
{
	size_t	n = strlen(want);

	/* "ns::f" matches "ns::f(int)" as gdb's break does. */
	return strncmp(name, want, n) == 0 && (name[n] == '\0' ||
	    name[n] == '(');
}

/* Is a frame at @depth of walker @w inside what is shown? */
static int
rp_shown_depth(struct rp_replay *rp, struct rp_walk *w, size_t depth,
    size_t *rel)
{
	size_t	root = rp->root[w->si];

	if (rp->func != NULL) {
		if (root == SIZE_MAX || depth < root)
			return 0;
		depth -= root;
	}
	if (rp->depth > 0 && depth >= (size_t)rp->depth)
		return 0;
	*rel = depth;
	return 1;
}

static void
rp_line(struct rp_replay *rp, struct rp_walk *w, const char *dur,
    size_t depth, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void
rp_line(struct rp_replay *rp, struct rp_walk *w, const char *dur,
    size_t depth, const char *fmt, ...)
{
	va_list	 ap;
	char	*text = NULL;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	fprintf(rp->out, "%10s [%7d] | %*s", dur, (int)w->s->info.tid,
	    (int)(depth > 60 ? 120 : depth * 2), "");
	rbmon_esc_fputs(text != NULL ? text : "?", rp->out);
	fputc('\n', rp->out);
	free(text);
}

static int
rp_kept(struct rp_replay *rp, struct rp_walk *w, const struct rp_frame *f)
{
	uint64_t	num = RP_NUM(f->user);

	if (rp->keep == NULL)
		return 1;
	return (rp->keep[w->si][num / 8] >> (num % 8)) & 1;
}

static void
rp_replay_enter(struct rp_walk *w, struct rp_frame *f, size_t depth)
{
	struct rp_replay	*rp = w->h->arg;
	const struct rp_func	*fn = &rp->x->funcs[f->func];
	const struct rbrec_rec	*next;
	char			 dur[32];
	size_t			 rel;
	int			 named = (f->flags & RP_F_NAMED) != 0;

	if (rp->func != NULL && rp->root[w->si] == SIZE_MAX &&
	    rp_func_match(fn->name, rp->func))
		rp->root[w->si] = depth;
	if (!rp_shown_depth(rp, w, depth, &rel) || !rp_kept(rp, w, f))
		return;
	next = rp_walk_peek(w);
	if (next != NULL && !next->lost && !(f->flags & RP_F_ENTRY_LOST) &&
	    (named ? next->e.kind == RB_EV_NAMED_EXIT :
	    next->e.kind == RB_EV_EXIT && next->e.fn == f->fn)) {
		rp_duration(dur, sizeof dur, rp->x, f->start, next->e.ts);
		rp_line(rp, w, dur, rel, "%s();", fn->name);
		f->user |= RP_SHOWN | RP_LEAF;
		return;
	}
	rp_line(rp, w, "", rel, "%s() {%s", fn->name,
	    (f->flags & RP_F_ENTRY_LOST) ? " /* entry lost */" : "");
	f->user |= RP_SHOWN;
}

static void
rp_replay_leave(struct rp_walk *w, struct rp_frame *f, size_t depth,
    uint64_t end, int how)
{
	static const char *const note[] = {
		[RP_L_EXIT] = "", [RP_L_UNWOUND] = ", unwound",
		[RP_L_CUT] = ", records lost after it",
		[RP_L_OPEN] = ", still running",
	};
	struct rp_replay	*rp = w->h->arg;
	char			 dur[32];
	size_t			 rel;

	if ((f->user & RP_SHOWN) && !(f->user & RP_LEAF) &&
	    rp_shown_depth(rp, w, depth, &rel)) {
		rp_duration(dur, sizeof dur, rp->x, f->start, end);
		rp_line(rp, w, how == RP_L_OPEN ? "open" : dur, rel,
		    "} /* %s%s */", rp->x->funcs[f->func].name, note[how]);
	}
	if (rp->func != NULL && rp->root[w->si] == depth)
		rp->root[w->si] = SIZE_MAX;
}

static void
rp_replay_mark(struct rp_walk *w, const struct rbrec_rec *k, size_t depth)
{
	struct rp_replay	*rp = w->h->arg;
	size_t			 rel;

	if (!rp_shown_depth(rp, w, depth, &rel) && !(k->lost ||
	    k->e.kind == RB_EV_LOST))
		return;
	/* Inside a call not shown (--min, -F, -D): not shown either. */
	if (depth > 0 && !(w->stack[depth - 1].user & RP_SHOWN))
		return;
	if (rp->func != NULL && rp->root[w->si] == SIZE_MAX)
		return;
	if (rp->func == NULL && rp->depth > 0 && depth >= (size_t)rp->depth)
		return;
	rel = rp->func != NULL && depth >= rp->root[w->si] ?
	    depth - rp->root[w->si] : depth;
	if (k->lost || k->e.kind == RB_EV_LOST) {
		if (k->e.arg != 0)
			rp_line(rp, w, "", rel, "[LOST %" PRIu64 " EVENTS]",
			    k->e.arg);
		else
			rp_line(rp, w, "", rel, "[LOST EVENTS]");
		return;
	}
	switch (k->e.kind) {
	case RB_EV_LINE:
		rp_line(rp, w, "", rel, "/* line %" PRId64 " */",
		    (int64_t)k->e.arg);
		break;
	case RB_EV_STOP: {
		char	why[64];

		rp_stop_text(why, sizeof why, k->e.arg);
		rp_line(rp, w, "", rel, "/* %s */", why);
		break;
	}
	case RB_EV_RESUME:
		rp_line(rp, w, "", rel, "/* resumed */");
		break;
	case RB_EV_OFF:
		rp_line(rp, w, "", rel, "/* recording off */");
		break;
	case RB_EV_ON:
		rp_line(rp, w, "", rel, "/* recording on */");
		break;
	default:
		rp_line(rp, w, "", rel, "/* record of kind %u */", k->e.kind);
		break;
	}
}

/* --min: a first walk marks the frames that last long enough. */
struct rp_keep {
	struct rp_ctx	*x;
	uint64_t	 min_ns;
	unsigned char	*bits;
	size_t		 cap;
};

static void
rp_keep_leave(struct rp_walk *w, struct rp_frame *f, size_t depth,
    uint64_t end, int how)
{
	struct rp_keep	*k = w->h->arg;
	uint64_t	 num = f->user;

	(void)depth;
	(void)how;
	if (num / 8 >= k->cap) {
		size_t	old = k->cap;

		k->cap = (num / 8 + 1) * 2;
		k->bits = rbmon_xreallocarray(k->bits, k->cap, 1);
		memset(k->bits + old, 0, k->cap - old);
	}
	if (rp_dur_ns(k->x, f->start, end) >= k->min_ns)
		k->bits[num / 8] |= (unsigned char)(1u << (num % 8));
}

static void
rp_replay_usage(FILE *f)
{
	fputs("Usage: rbmon replay [OPTIONS] RECORDING\n"
	    "Print a recording's calls as a function graph, every thread "
	    "merged in time\norder, with durations.\n"
	    "\n"
	    "  -t, --tid TID[,TID...]  only these threads\n"
	    "  -F, --function NAME     only calls of NAME and what they call\n"
	    "  -D, --depth N           only N levels (below NAME with -F)\n"
	    "      --min TIME          only calls that took TIME or more "
	    "(10us, 1.5ms, 2s)\n"
	    "  -h, --help              show this help\n", f);
}

static int
rp_replay(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tid", required_argument, NULL, 't' },
		{ "function", required_argument, NULL, 'F' },
		{ "depth", required_argument, NULL, 'D' },
		{ "min", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct rp_handler	 h = { rp_replay_enter, rp_replay_leave,
				    rp_replay_mark, NULL };
	struct rp_replay	 rp;
	struct rbmon_tids		 tids = { NULL, 0 };
	struct rp_merge		 m;
	struct rp_ctx		 x;
	char			*end;
	size_t			 i;
	int			 ch;

	memset(&rp, 0, sizeof rp);
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":t:F:D:h", opts, NULL)) != -1) {
		switch (ch) {
		case 't':
			rbmon_cmd_parse_tids("replay", optarg, &tids);
			break;
		case 'F':
			if (*optarg == '\0')
				rbmon_cmd_usage("replay", "--function needs a name");
			rp.func = optarg;
			break;
		case 'D':
			errno = 0;
			rp.depth = strtol(optarg, &end, 10);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    rp.depth < 1 || rp.depth > 100000)
				rbmon_cmd_usage("replay", "invalid depth '%s' "
				    "(expected 1..100000)", optarg);
			break;
		case 'm':
			if (rp_parse_time(optarg, &rp.min_ns) != 0)
				rbmon_cmd_usage("replay", "invalid time '%s' (expected "
				    "a number with ns, us, ms or s)", optarg);
			break;
		case 'h':
			rp_replay_usage(stdout);
			return 0;
		case ':':
			rbmon_cmd_usage("replay", "option '%s' needs a value",
			    argv[optind - 1]);
		default:
			rbmon_cmd_usage("replay", "unknown option '%s'",
			    argv[optind - 1]);
		}
	}
	if (optind + 1 != argc)
		rbmon_cmd_usage("replay", optind == argc ? "no recording given" :
		    "too many arguments");
	if (rp_open_or_say(&x, "replay", argv[optind], rp.min_ns > 0 ?
	    "--min" : NULL) != 0)
		return 1;
	rp.x = &x;
	rp.out = stdout;
	h.arg = &rp;
	memset(&m, 0, sizeof m);
	m.w = rbmon_xcalloc(x.rec.nstreams + 1, sizeof *m.w);
	rp.root = rbmon_xcalloc(x.rec.nstreams + 1, sizeof *rp.root);
	if (rp.min_ns > 0)
		rp.keep = rbmon_xcalloc(x.rec.nstreams + 1, sizeof *rp.keep);
	for (i = 0; i < x.rec.nstreams; i++) {
		rp.root[i] = SIZE_MAX;
		if (!rbmon_cmd_tid_wanted(&tids, x.rec.streams[i].info.tid))
			continue;
		if (rp.keep != NULL) {
			struct rp_keep		 k = { &x, rp.min_ns, NULL, 0 };
			struct rp_handler	 kh = { NULL, rp_keep_leave,
						    NULL, &k };
			struct rp_walk		 kw;

			rp_walk_init(&kw, &x, i, &kh);
			while (rp_walk_step(&kw))
				;
			rp_walk_finish(&kw);
			rp_walk_free(&kw);
			rp.keep[i] = k.bits != NULL ? k.bits :
			    rbmon_xcalloc(1, 1);
		}
		rp_walk_init(&m.w[m.n++], &x, i, &h);
		m.w[m.n - 1].si = i;
	}
	fputs("# DURATION      TID     FUNCTION\n", stdout);
	rp_merge_run(&m);
	rp_lost_table(stdout, &x, "# ");
	for (i = 0; i < m.n; i++)
		rp_walk_free(&m.w[i]);
	if (rp.keep != NULL)
		for (i = 0; i < x.rec.nstreams; i++)
			free(rp.keep[i]);
	free(rp.keep);
	free(rp.root);
	free(m.w);
	free(tids.v);
	return rp_done(&x, fflush(stdout) == 0 && !ferror(stdout));
}

/* ---- report --------------------------------------------------------------- */

struct rp_stat {
	uint64_t	calls, total, self;
};

struct rp_report {
	struct rp_ctx	*x;
	struct rp_stat	*st;		/* per function */
	size_t		 nst;
	uint32_t	*active;	/* per function: instances open in the
					   stream being walked */
	size_t		 nactive;
	int		 sort;		/* 't'otal, 's'elf, 'c'alls, 'n'ame */
};

static void
rp_report_grow(struct rp_report *r, uint32_t func)
{
	size_t	n = r->x->nfuncs > (size_t)func + 1 ? r->x->nfuncs : func + 1;

	/* Twice as many: a function at a time would copy them all each time. */
	if (n > r->nst)
		n = n > 2 * r->nst ? n : 2 * r->nst;
	if (n > r->nst) {
		r->st = rbmon_xreallocarray(r->st, n, sizeof *r->st);
		memset(r->st + r->nst, 0, (n - r->nst) * sizeof *r->st);
		r->nst = n;
	}
	if (n > r->nactive) {
		r->active = rbmon_xreallocarray(r->active, n,
		    sizeof *r->active);
		memset(r->active + r->nactive, 0,
		    (n - r->nactive) * sizeof *r->active);
		r->nactive = n;
	}
}

static void
rp_report_enter(struct rp_walk *w, struct rp_frame *f, size_t depth)
{
	struct rp_report	*r = w->h->arg;

	(void)depth;
	rp_report_grow(r, f->func);
	r->active[f->func]++;
	if (!(f->flags & RP_F_ENTRY_LOST))
		r->st[f->func].calls++;
}

static void
rp_report_leave(struct rp_walk *w, struct rp_frame *f, size_t depth,
    uint64_t end, int how)
{
	struct rp_report	*r = w->h->arg;
	uint64_t		 d = rp_rel_ns(r->x, end) - rp_rel_ns(r->x, f->start);

	(void)how;
	rp_report_grow(r, f->func);
	/* A recursive function's time counts once: at its outermost call. */
	if (--r->active[f->func] == 0)
		r->st[f->func].total += d;
	r->st[f->func].self += d > f->aux ? d - f->aux : 0;
	if (depth > 0)
		w->stack[depth - 1].aux += d;
}

static int
rp_report_cmp(const void *a, const void *b, void *arg)
{
	const struct rp_report	*r = arg;
	const struct rp_stat	*x = &r->st[*(const uint32_t *)a];
	const struct rp_stat	*y = &r->st[*(const uint32_t *)b];
	uint64_t		 p, q;

	switch (r->sort) {
	case 's': p = x->self; q = y->self; break;
	case 'c': p = x->calls; q = y->calls; break;
	case 'n':
		return strcmp(r->x->funcs[*(const uint32_t *)a].name,
		    r->x->funcs[*(const uint32_t *)b].name);
	default: p = x->total; q = y->total; break;
	}
	if (p != q)
		return p > q ? -1 : 1;
	return strcmp(r->x->funcs[*(const uint32_t *)a].name,
	    r->x->funcs[*(const uint32_t *)b].name);
}

static void
rp_time(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.3f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.3f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.3f  s", (double)ns / 1e9);
}

static void
rp_report_usage(FILE *f)
{
	fputs("Usage: rbmon report [OPTIONS] RECORDING\n"
	    "Per function: calls, total time (a recursive function's "
	    "outermost calls)\nand self time (without its callees), of every "
	    "thread together.\n"
	    "\n"
	    "  -t, --tid TID[,TID...]  only these threads\n"
	    "  -s, --sort KEY          total (default), self, calls or name\n"
	    "      --json              one object per function\n"
	    "  -h, --help              show this help\n", f);
}

static int
rp_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tid", required_argument, NULL, 't' },
		{ "sort", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct rp_handler	 h = { rp_report_enter, rp_report_leave,
				    NULL, NULL };
	struct rp_report	 r;
	struct rbmon_tids		 tids = { NULL, 0 };
	struct rp_ctx		 x;
	struct rp_walk		 w;
	uint32_t		*order;
	size_t			 i, n;
	int			 ch, json = 0, sort = 't', notimes;
	char			 a[32], b[32];

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":t:s:h", opts, NULL)) != -1) {
		switch (ch) {
		case 't':
			rbmon_cmd_parse_tids("report", optarg, &tids);
			break;
		case 's':
			if (strcmp(optarg, "total") == 0 ||
			    strcmp(optarg, "self") == 0 ||
			    strcmp(optarg, "calls") == 0 ||
			    strcmp(optarg, "name") == 0)
				sort = optarg[0];
			else
				rbmon_cmd_usage("report", "invalid sort key '%s' "
				    "(total, self, calls or name)", optarg);
			break;
		case 'J':
			json = 1;
			break;
		case 'h':
			rp_report_usage(stdout);
			return 0;
		case ':':
			rbmon_cmd_usage("report", "option '%s' needs a value",
			    argv[optind - 1]);
		default:
			rbmon_cmd_usage("report", "unknown option '%s'",
			    argv[optind - 1]);
		}
	}
	if (optind + 1 != argc)
		rbmon_cmd_usage("report", optind == argc ? "no recording given" :
		    "too many arguments");
	if (rp_open_or_say(&x, "report", argv[optind], NULL) != 0)
		return 1;
	notimes = rp_no_times(&x);
	memset(&r, 0, sizeof r);
	r.x = &x;
	/* No times: by calls, unless by name. */
	r.sort = notimes && sort != 'n' ? 'c' : sort;
	h.arg = &r;
	for (i = 0; i < x.rec.nstreams; i++) {
		if (!rbmon_cmd_tid_wanted(&tids, x.rec.streams[i].info.tid))
			continue;
		rp_walk_init(&w, &x, i, &h);
		while (rp_walk_step(&w))
			;
		rp_walk_finish(&w);
		rp_walk_free(&w);
	}
	order = rbmon_xcalloc(r.nst + 1, sizeof *order);
	for (i = 0, n = 0; i < r.nst; i++)
		if (r.st[i].calls != 0 || r.st[i].total != 0 ||
		    r.st[i].self != 0)
			order[n++] = (uint32_t)i;
	qsort_r(order, n, sizeof *order, rp_report_cmp, &r);
	if (json) {
		fputs("{\"functions\": [", stdout);
		for (i = 0; i < n; i++) {
			const struct rp_func	*f = &x.funcs[order[i]];
			const struct rp_stat	*s = &r.st[order[i]];

			fputs(i == 0 ? "\n  {\"function\": " : ",\n  "
			    "{\"function\": ", stdout);
			rbmon_json_string(stdout, f->name);
			fputs(", \"file\": ", stdout);
			rbmon_json_string(stdout, f->file);
			printf(", \"line\": %d, \"calls\": %" PRIu64,
			    f->line, s->calls);
			if (notimes)
				fputs(", \"total_ns\": null, \"self_ns\": null}",
				    stdout);
			else
				printf(", \"total_ns\": %" PRIu64 ", \"self_ns\": %"
				    PRIu64 "}", s->total, s->self);
		}
		fputs("\n]", stdout);
		rp_lost_json(stdout, &x);
		fputs("}\n", stdout);
	} else {
		printf("%12s  %12s  %10s  %s\n", "Total time", "Self time",
		    "Calls", "Function");
		printf("%12s  %12s  %10s  %s\n", "==========", "=========",
		    "=====", "========");
		for (i = 0; i < n; i++) {
			const struct rp_stat	*s = &r.st[order[i]];

			if (notimes) {
				snprintf(a, sizeof a, "-");
				snprintf(b, sizeof b, "-");
			} else {
				rp_time(a, sizeof a, s->total);
				rp_time(b, sizeof b, s->self);
			}
			printf("%12s  %12s  %10" PRIu64 "  ", a, b, s->calls);
			rbmon_esc_fputs(x.funcs[order[i]].name, stdout);
			putchar('\n');
		}
		rp_lost_table(stdout, &x, "");
	}
	free(order);
	free(r.st);
	free(r.active);
	free(tids.v);
	return rp_done(&x, fflush(stdout) == 0 && !ferror(stdout));
}

/* ---- hot ------------------------------------------------------------------ */

/*
 * The functions called most often, what their hooks cost, and the compiler
 * flags that would stop instrumenting them.  GCC matches
 * -finstrument-functions-exclude-function-list entries as substrings of
 * the user-visible name (C++: qualified, without parameters will do), and
 * file-list entries as substrings of the file's path; a comma inside an
 * entry is written "\,".
 */

/* Worth excluding: its own time per call under this many hook costs. */
#define RP_HOT_SHORT	20
/* Own times per call by power of two of ns, for a median that a thread
   preempted in a call does not move. */
#define RP_HOT_BUCKETS	48

struct rp_hot {
	struct rp_ctx	*x;
	uint64_t	*calls;		/* per function */
	uint64_t	*self;
	uint32_t	(*hist)[RP_HOT_BUCKETS];
	size_t		 n;
	uint64_t	 span;		/* the threads' recorded time, summed */
	uint64_t	 first, last;	/* the stream being walked, raw */
	int		 have_first;
};

static void
rp_hot_grow(struct rp_hot *h, uint32_t func)
{
	size_t	n = h->x->nfuncs > (size_t)func + 1 ? h->x->nfuncs : func + 1;

	if (n <= h->n)
		return;
	n = n > 2 * h->n ? n : 2 * h->n;
	h->calls = rbmon_xreallocarray(h->calls, n, sizeof *h->calls);
	h->self = rbmon_xreallocarray(h->self, n, sizeof *h->self);
	h->hist = rbmon_xreallocarray(h->hist, n, sizeof *h->hist);
	memset(h->calls + h->n, 0, (n - h->n) * sizeof *h->calls);
	memset(h->self + h->n, 0, (n - h->n) * sizeof *h->self);
	memset(h->hist + h->n, 0, (n - h->n) * sizeof *h->hist);
	h->n = n;
}

static void
rp_hot_enter(struct rp_walk *w, struct rp_frame *f, size_t depth)
{
	struct rp_hot	*h = w->h->arg;

	(void)depth;
	rp_hot_grow(h, f->func);
	if (!h->have_first || f->start < h->first) {
		h->first = f->start;
		h->have_first = 1;
	}
	if (!(f->flags & RP_F_ENTRY_LOST))
		h->calls[f->func]++;
}

static void
rp_hot_leave(struct rp_walk *w, struct rp_frame *f, size_t depth,
    uint64_t end, int how)
{
	struct rp_hot	*h = w->h->arg;
	uint64_t	 d = rp_rel_ns(h->x, end) - rp_rel_ns(h->x, f->start);
	uint64_t	 own = d > f->aux ? d - f->aux : 0;
	unsigned	 b = own == 0 ? 0 : 64 - (unsigned)__builtin_clzll(own);

	(void)how;
	rp_hot_grow(h, f->func);
	h->self[f->func] += own;
	if (!(f->flags & RP_F_ENTRY_LOST) && how != RP_L_CUT &&
	    how != RP_L_OPEN) {
		b = b < RP_HOT_BUCKETS ? b : RP_HOT_BUCKETS - 1;
		if (h->hist[f->func][b] < UINT32_MAX)
			h->hist[f->func][b]++;
	}
	if (depth > 0)
		w->stack[depth - 1].aux += d;
	if (end > h->last)
		h->last = end;
}

/* The median of a function's own times per call, to a power of two
   (the bucket's middle). */
static uint64_t
rp_hot_median(const struct rp_hot *h, uint32_t func)
{
	uint64_t	all = 0, seen = 0;
	unsigned	b;

	for (b = 0; b < RP_HOT_BUCKETS; b++)
		all += h->hist[func][b];
	for (b = 0; b < RP_HOT_BUCKETS; b++) {
		seen += h->hist[func][b];
		if (all != 0 && 2 * seen >= all)
			return b == 0 ? 0 : (3ull << (b - 1)) / 2;
	}
	return 0;
}

static int
rp_hot_cmp(const void *a, const void *b, void *arg)
{
	const struct rp_hot	*h = arg;
	uint32_t		 i = *(const uint32_t *)a, j = *(const uint32_t *)b;

	if (h->calls[i] != h->calls[j])
		return h->calls[i] > h->calls[j] ? -1 : 1;
	return strcmp(h->x->funcs[i].name, h->x->funcs[j].name);
}

/*
 * The part of a name GCC's list can match: a C++ name without its
 * parameters ("ns::f(int) const" -> "ns::f"), commas escaped.  Empty when
 * the function cannot be excluded by name.
 */
static char *
rp_hot_key(const struct rp_func *f)
{
	const char	*s = f->name;
	size_t		 i, n, depth = 0;
	char		*out, *o;

	if (f->named || strncmp(s, "0x", 2) == 0)
		return rbmon_xstrdup("");
	/* The parameter list: the first '(' outside template brackets. */
	for (n = 0; s[n] != '\0'; n++) {
		if (s[n] == '<')
			depth++;
		else if (s[n] == '>' && depth > 0)
			depth--;
		else if (s[n] == '(' && depth == 0 && n > 0)
			break;
	}
	out = o = rbmon_xcalloc(2 * n + 1, 1);
	for (i = 0; i < n; i++) {
		if (s[i] == ',')
			*o++ = '\\';
		*o++ = s[i];
	}
	return out;
}

/* Would @key, as GCC matches it, exclude @name too? */
static int
rp_hot_matches(const char *key, const char *name)
{
	char	*plain = rbmon_xstrdup(key), *p, *q;
	int	 hit;

	for (p = q = plain; *p != '\0'; p++)
		if (!(p[0] == '\\' && p[1] == ','))
			*q++ = *p;
	*q = '\0';
	hit = plain[0] != '\0' && strstr(name, plain) != NULL;
	free(plain);
	return hit;
}

/*
 * The files every called function of which is marked: excluding them
 * (-finstrument-functions-exclude-file-list) loses nothing this run
 * called beyond the marked functions.  @listed: per function, marked.
 * Return: how many, in @files.
 */
static size_t
rp_hot_files(const struct rp_hot *h, const uint32_t *order,
    const unsigned char *pick, size_t n, const unsigned char *listed,
    const char **files)
{
	const struct rp_ctx	*x = h->x;
	size_t			 i, j, k, nf = 0;
	int			 whole;

	/* At most 100 marked (1% of the calls each): files scanned as often. */
	for (i = 0; i < n; i++) {
		const char	*file = x->funcs[order[i]].file;

		if (!pick[i] || file[0] == '\0')
			continue;
		for (k = 0; k < nf && strcmp(files[k], file) != 0; k++)
			;
		if (k < nf)
			continue;
		whole = 1;
		for (j = 0; j < h->n && whole; j++)
			if (h->calls[j] != 0 && !listed[j] &&
			    strcmp(x->funcs[j].file, file) == 0)
				whole = 0;
		if (whole)
			files[nf++] = file;
	}
	return nf;
}

static void
rp_hot_usage(FILE *f)
{
	fputs("Usage: rbmon hot [OPTIONS] RECORDING\n"
	    "The functions called most often, their share of the calls (and "
	    "so of the\nhooks' cost), and the compiler flags that would stop "
	    "instrumenting them.\n"
	    "\n"
	    "  -n, --top N         list N functions (default 20) and suggest "
	    "excluding\n"
	    "                      those of them with 1% of the calls or "
	    "more whose own\n"
	    "                      time per call (the median) is under 20 "
	    "times the\n"
	    "                      hook cost\n"
	    "      --cost NS       what a call costs in the hooks (default 15; "
	    "`make bench'\n"
	    "                      measures it: bench/overhead.sh)\n"
	    "      --flags         print only the GCC flags, on one line\n"
	    "  -t, --tid TID[,TID...]  only these threads\n"
	    "      --json          the table, the estimate and the flags as JSON\n"
	    "  -h, --help          show this help\n", f);
}

static int
rp_hot(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "top", required_argument, NULL, 'n' },
		{ "cost", required_argument, NULL, 'C' },
		{ "flags", no_argument, NULL, 'F' },
		{ "tid", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct rp_handler	 hd = { rp_hot_enter, rp_hot_leave, NULL, NULL };
	struct rp_hot		 h;
	struct rp_losses	 lost;
	struct rbmon_tids		 tids = { NULL, 0 };
	struct rp_ctx		 x;
	struct rp_walk		 w;
	uint32_t		*order;
	char			**keys, *end;
	const char		**files;
	unsigned char		*pick, *listed;
	uint64_t		 all = 0, picked = 0;
	double			 cost = 15, hook, left;
	size_t			 i, j, n, nfiles, npick = 0, top = 20;
	int			 ch, json = 0, flags_only = 0, first;
	char			 a[32], b[32];

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":n:t:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'n':
			errno = 0;
			top = (size_t)strtoul(optarg, &end, 10);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    optarg[0] == '-' || top == 0 || top > 100000)
				rbmon_cmd_usage("hot", "invalid count '%s' (1 to "
				    "100000)", optarg);
			break;
		case 'C':
			errno = 0;
			cost = strtod(optarg, &end);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    !(cost >= 0 && cost <= 1e6))
				rbmon_cmd_usage("hot", "invalid cost '%s' (ns per "
				    "call, 0 to 1000000)", optarg);
			break;
		case 'F':
			flags_only = 1;
			break;
		case 't':
			rbmon_cmd_parse_tids("hot", optarg, &tids);
			break;
		case 'J':
			json = 1;
			break;
		case 'h':
			rp_hot_usage(stdout);
			return 0;
		case ':':
			rbmon_cmd_usage("hot", "option '%s' needs a value",
			    argv[optind - 1]);
		default:
			rbmon_cmd_usage("hot", "unknown option '%s'",
			    argv[optind - 1]);
		}
	}
	if (optind + 1 != argc)
		rbmon_cmd_usage("hot", optind == argc ? "no recording given" :
		    "too many arguments");
	if (json && flags_only)
		rbmon_cmd_usage("hot", "give --json or --flags, not both");
	if (rp_open_or_say(&x, "hot", argv[optind], "hot") != 0)
		return 1;
	memset(&h, 0, sizeof h);
	h.x = &x;
	hd.arg = &h;
	for (i = 0; i < x.rec.nstreams; i++) {
		if (!rbmon_cmd_tid_wanted(&tids, x.rec.streams[i].info.tid))
			continue;
		h.have_first = 0;
		h.last = 0;
		rp_walk_init(&w, &x, i, &hd);
		while (rp_walk_step(&w))
			;
		rp_walk_finish(&w);
		rp_walk_free(&w);
		if (h.have_first && h.last > h.first)
			h.span += rp_rel_ns(&x, h.last) -
			    rp_rel_ns(&x, h.first);
	}
	order = rbmon_xcalloc(h.n + 1, sizeof *order);
	for (i = 0, n = 0; i < h.n; i++)
		if (h.calls[i] != 0) {
			order[n++] = (uint32_t)i;
			all += h.calls[i];
		}
	qsort_r(order, n, sizeof *order, rp_hot_cmp, &h);
	if (n > top)
		n = top;
	rp_losses(&x, &lost);

	/*
	 * The suggestion: listed, 1% of the calls or more, short (the
	 * median of its own time per call under RP_HOT_SHORT hook costs, so
	 * that the hooks are a good part of it), and nameable.
	 */
	keys = rbmon_xcalloc(n + 1, sizeof *keys);
	pick = rbmon_xcalloc(n + 1, 1);
	for (i = 0; i < n; i++) {
		const struct rp_func	*f = &x.funcs[order[i]];

		keys[i] = rp_hot_key(f);
		if (keys[i][0] != '\0' && strcmp(keys[i], "main") != 0 &&
		    h.calls[order[i]] * 100 >= all && all != 0 &&
		    (double)rp_hot_median(&h, order[i]) <=
		    RP_HOT_SHORT * cost) {
			pick[i] = 1;
			npick++;
			picked += h.calls[order[i]];
		}
	}
	listed = rbmon_xcalloc(h.n + 1, 1);
	for (i = 0; i < n; i++)
		listed[order[i]] = pick[i];
	files = rbmon_xcalloc(n + 1, sizeof *files);
	nfiles = rp_hot_files(&h, order, pick, n, listed, files);
	hook = (double)all * cost;
	left = (double)(all - picked) * cost;

	if (flags_only) {
		if (npick != 0) {
			fputs("-finstrument-functions-exclude-function-list=",
			    stdout);
			for (i = 0, first = 1; i < n; i++)
				if (pick[i]) {
					if (!first)
						putchar(',');
					rbmon_esc_fputs(keys[i], stdout);
					first = 0;
				}
			putchar('\n');
		}
	} else if (json) {
		printf("{\"calls\": %" PRIu64
		    ", \"thread_ns\": %" PRIu64 ", \"cost_ns\": %g"
		    ", \"hook_ns\": %.0f, \"hook_ns_after\": %.0f"
		    ", \"functions\": [", all, h.span, cost, hook, left);
		for (i = 0; i < n; i++) {
			const struct rp_func	*f = &x.funcs[order[i]];

			fputs(i == 0 ? "\n  {\"function\": " : ",\n  "
			    "{\"function\": ", stdout);
			rbmon_json_string(stdout, f->name);
			fputs(", \"file\": ", stdout);
			rbmon_json_string(stdout, f->file);
			printf(", \"line\": %d, \"calls\": %" PRIu64
			    ", \"self_ns\": %" PRIu64 ", \"self_median_ns\": %"
			    PRIu64 ", \"exclude\": %s}",
			    f->line, h.calls[order[i]], h.self[order[i]],
			    rp_hot_median(&h, order[i]),
			    pick[i] ? "true" : "false");
		}
		fputs("\n], \"gcc_exclude_function_list\": [", stdout);
		for (i = 0, first = 1; i < n; i++)
			if (pick[i]) {
				fputs(first ? "" : ", ", stdout);
				rbmon_json_string(stdout, keys[i]);
				first = 0;
			}
		fputs("], \"gcc_exclude_file_list\": [", stdout);
		for (i = 0; i < nfiles; i++) {
			fputs(i == 0 ? "" : ", ", stdout);
			rbmon_json_string(stdout, files[i]);
		}
		fputs("]", stdout);
		rp_lost_json(stdout, &x);
		fputs("}\n", stdout);
	} else {
		rp_time(a, sizeof a, (uint64_t)hook);
		rp_time(b, sizeof b, h.span);
		printf("%" PRIu64 " calls", all);
		if (lost.lost != 0)
			printf(" (and %s%" PRIu64 " records lost: counts are "
			    "lower bounds)", lost.unknown ? "at least " : "",
			    lost.lost);
		else if (lost.unknown)
			printf(" (and records lost: counts are lower bounds)");
		else if (lost.incomplete)
			printf(" (the recording is incomplete: counts are lower "
			    "bounds)");
		printf("; at %g ns a call the hooks took about %s of the "
		    "threads' %s", cost, a, b);
		if (h.span != 0)
			printf(" (%.1f%%)", 100.0 * hook / (double)h.span);
		printf(".\n\n%10s  %6s  %6s  %11s  %s\n", "Calls", "Share",
		    "Cumul", "Self/call", "Function");
		for (i = 0, picked = 0; i < n; i++) {
			uint64_t		 c = h.calls[order[i]];
			const struct rp_func	*f = &x.funcs[order[i]];

			picked += c;
			rp_time(a + 1, sizeof a - 1, rp_hot_median(&h,
			    order[i]));
			a[0] = '~';
			printf("%10" PRIu64 "  %5.1f%%  %5.1f%%  %11s  %c ",
			    c, 100.0 * (double)c / (double)all,
			    100.0 * (double)picked / (double)all, a,
			    pick[i] ? '*' : ' ');
			rbmon_esc_fputs(f->name, stdout);
			if (f->file[0] != '\0') {
				fputs("  ", stdout);
				rbmon_esc_fputs(f->file, stdout);
				printf(":%d", f->line);
			}
			putchar('\n');
		}
		if (npick == 0) {
			puts("\nNo short function takes 1% of the calls or "
			    "more: nothing worth excluding.");
		} else {
			picked = 0;
			for (i = 0; i < n; i++)
				if (pick[i])
					picked += h.calls[order[i]];
			rp_time(a, sizeof a, (uint64_t)left);
			printf("\nNot instrumenting the %zu marked * would "
			    "remove %.1f%% of the calls (hooks: about %s).\n"
			    "GCC:\n  -finstrument-functions-exclude-function-"
			    "list=", npick,
			    100.0 * (double)picked / (double)all, a);
			for (i = 0, first = 1; i < n; i++)
				if (pick[i]) {
					if (!first)
						putchar(',');
					rbmon_esc_fputs(keys[i], stdout);
					first = 0;
				}
			putchar('\n');
			/* GCC matches substrings: say what else goes. */
			for (i = 0; i < n; i++) {
				if (!pick[i])
					continue;
				for (j = 0; j < h.n; j++) {
					if (h.calls[j] == 0 || listed[j] ||
					    !rp_hot_matches(keys[i],
					    x.funcs[j].name))
						continue;
					fputs("  (note: '", stdout);
					rbmon_esc_fputs(keys[i], stdout);
					fputs("' also excludes ", stdout);
					rbmon_esc_fputs(x.funcs[j].name,
					    stdout);
					puts(": GCC matches substrings)");
				}
			}
			if (nfiles != 0) {
				fputs("or, leaving out whole files (every "
				    "function in them, called here or not):\n"
				    "  -finstrument-functions-exclude-file-"
				    "list=", stdout);
				for (i = 0; i < nfiles; i++) {
					if (i != 0)
						putchar(',');
					rbmon_esc_fputs(files[i], stdout);
				}
				putchar('\n');
			}
			puts("Clang has no exclusion list: build with "
			    "-finstrument-functions-after-inlining,\nwhich "
			    "instruments only the calls left after inlining "
			    "(most small, hot\nfunctions are inlined at -O2).");
		}
		rp_lost_table(stdout, &x, "");
	}
	for (i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
	free(files);
	free(listed);
	free(pick);
	free(order);
	free(h.calls);
	free(h.self);
	free(h.hist);
	free(tids.v);
	return rp_done(&x, fflush(stdout) == 0 && !ferror(stdout));
}

/* ---- exports -------------------------------------------------------------- */

/* Frames a folded stack keeps by default (export -D), about perf's 127. */
#define RP_FOLDED_DEPTH	128

struct rp_export {
	struct rp_ctx	*x;
	FILE		*out;
	int		 first;		/* no event written yet */
	/* folded: a tree of paths, self time per node */
	struct rp_map	 kids;		/* (parent node, func) -> node */
	struct rp_node { uint32_t parent, func; uint64_t self; } *nodes;
	size_t		 nnodes, capnodes;
	uint32_t	 root;		/* the stream's root node */
	size_t		 depth;		/* frames a path keeps (-D) */
	uint32_t	 fold;		/* the function deeper frames go under */
	int		 folded;	/* some did */
	/* speedscope: frames used, profile bounds */
	uint64_t	 lo, hi;
	int		 have_lo;
};

/* A time in µs for Chrome JSON, to the ns, from the recording's start. */
static void
rp_us(FILE *out, const struct rp_ctx *x, uint64_t ts)
{
	uint64_t	ns = rp_rel_ns(x, ts);

	fprintf(out, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
}

static void
rp_chrome_leave(struct rp_walk *w, struct rp_frame *f, size_t depth,
    uint64_t end, int how)
{
	static const char *const note[] = {
		[RP_L_EXIT] = NULL, [RP_L_UNWOUND] = "unwound",
		[RP_L_CUT] = "cut", [RP_L_OPEN] = "open",
	};
	struct rp_export	*e = w->h->arg;
	const struct rp_func	*fn = &e->x->funcs[f->func];
	const char		*cf;
	int			 cl;
	uint64_t		 d;

	(void)depth;
	fputs(e->first ? "\n" : ",\n", e->out);
	e->first = 0;
	fputs("{\"name\": ", e->out);
	rbmon_json_string(e->out, fn->name);
	fprintf(e->out, ", \"cat\": \"%s\", \"ph\": \"X\", \"ts\": ",
	    fn->named ? "named" : "function");
	rp_us(e->out, e->x, f->start);
	d = rp_rel_ns(e->x, end) - rp_rel_ns(e->x, f->start);
	fprintf(e->out, ", \"dur\": %" PRIu64 ".%03" PRIu64 ", \"pid\": %d, "
	    "\"tid\": %d, \"args\": {", d / 1000, d % 1000,
	    (int)w->s->info.pid, (int)w->s->info.tid);
	fputs("\"file\": ", e->out);
	rbmon_json_string(e->out, fn->file);
	fprintf(e->out, ", \"line\": %d", fn->line);
	if (f->site != 0 && !fn->named) {
		rp_site(e->x, w->si, f->site, &cf, &cl);
		fputs(", \"call_file\": ", e->out);
		rbmon_json_string(e->out, cf);
		fprintf(e->out, ", \"call_line\": %d", cl);
	}
	if (f->flags & RP_F_ENTRY_LOST)
		fputs(", \"entry_lost\": true", e->out);
	if (note[how] != NULL)
		fprintf(e->out, ", \"%s\": true", note[how]);
	fputs("}}", e->out);
}

/**
 * rp_mark_name - what a mark (a line, a stop, lost records) is called in
 * the exports
 *
 * Return: 0, or -1 if @k is no mark they show.
 */
int
rp_mark_name(char *name, size_t len, const struct rbrec_rec *k)
{
	if (k->lost || k->e.kind == RB_EV_LOST)
		snprintf(name, len, "[LOST %" PRIu64 " EVENTS]", k->e.arg);
	else if (k->e.kind == RB_EV_LINE)
		snprintf(name, len, "line %" PRId64, (int64_t)k->e.arg);
	else if (k->e.kind == RB_EV_STOP)
		rp_stop_text(name, len, k->e.arg);
	else if (k->e.kind == RB_EV_RESUME)
		snprintf(name, len, "resumed");
	else if (k->e.kind == RB_EV_OFF)
		snprintf(name, len, "recording off");
	else if (k->e.kind == RB_EV_ON)
		snprintf(name, len, "recording on");
	else
		return -1;
	return 0;
}

static void
rp_chrome_mark(struct rp_walk *w, const struct rbrec_rec *k, size_t depth)
{
	struct rp_export	*e = w->h->arg;
	char			 name[64];

	(void)depth;
	if (rp_mark_name(name, sizeof name, k) != 0)
		return;
	fputs(e->first ? "\n" : ",\n", e->out);
	e->first = 0;
	fputs("{\"name\": ", e->out);
	rbmon_json_string(e->out, name);
	fputs(", \"cat\": \"rbtrace\", \"ph\": \"i\", \"s\": \"t\", \"ts\": ",
	    e->out);
	rp_us(e->out, e->x, k->lost ? w->last : k->e.ts);
	fprintf(e->out, ", \"pid\": %d, \"tid\": %d}", (int)w->s->info.pid,
	    (int)w->s->info.tid);
}

static void
rp_chrome_meta(struct rp_export *e, const char *what, int pid, int tid,
    const char *name)
{
	fputs(e->first ? "\n" : ",\n", e->out);
	e->first = 0;
	fprintf(e->out, "{\"name\": \"%s\", \"ph\": \"M\", \"pid\": %d, "
	    "\"tid\": %d, \"args\": {\"name\": ", what, pid, tid);
	rbmon_json_string(e->out, name);
	fputs("}}", e->out);
}

static void
rp_chrome(struct rp_export *e, const struct rbmon_tids *tids)
{
	struct rp_handler	 h = { NULL, rp_chrome_leave, rp_chrome_mark,
				    e };
	struct rp_ctx		*x = e->x;
	struct rp_walk		 w;
	struct rp_map		 pids;	/* (pid, 0): named already */
	char			 name[RB_PROGRAM_MAX + 32];
	char			 label[RB_THREAD_NAME_MAX + 64];
	uint32_t		 v;
	size_t			 i;

	fputs("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [", e->out);
	e->first = 1;
	memset(&pids, 0, sizeof pids);
	for (i = 0; i < x->rec.nstreams; i++) {
		const struct rbrec_stream	*s = &x->rec.streams[i];

		if (!rbmon_cmd_tid_wanted(tids, s->info.tid))
			continue;
		if (!rp_map_get(&pids, (uint32_t)s->info.pid, 0, &v)) {
			rp_map_put(&pids, (uint32_t)s->info.pid, 0, 0);
			snprintf(name, sizeof name, "%s (%d)",
			    x->rec.info.program, (int)s->info.pid);
			rp_chrome_meta(e, "process_name", s->info.pid, 0, name);
		}
		/* Its first pass counts what it lost, for its name. */
		rp_walk_init(&w, x, i, &h);
		rp_thread_label(label, sizeof label, x, i, rp_thread_name(s),
		    NULL);
		rp_chrome_meta(e, "thread_name", s->info.pid, s->info.tid,
		    label);
		while (rp_walk_step(&w))
			;
		rp_walk_finish(&w);
		rp_walk_free(&w);
	}
	rp_map_free(&pids);
	/* Last: what the walk counted. */
	fputs("\n], \"otherData\": {\"program\": ", e->out);
	rbmon_json_string(e->out, x->rec.info.program);
	fputs(", \"recorded_by\": \"rbtrace\"", e->out);
	rp_lost_json(e->out, x);
	fputs("}}\n", e->out);
}

/* Folded stacks: "program (pid);thread (tid);outer;...;inner NS". */
static uint32_t
rp_node(struct rp_export *e, uint32_t parent, uint32_t func)
{
	uint32_t	v;

	if (rp_map_get(&e->kids, parent, func, &v))
		return v;
	if (e->nnodes == e->capnodes) {
		e->capnodes = e->capnodes == 0 ? 1024 : e->capnodes * 2;
		e->nodes = rbmon_xreallocarray(e->nodes, e->capnodes,
		    sizeof *e->nodes);
	}
	e->nodes[e->nnodes].parent = parent;
	e->nodes[e->nnodes].func = func;
	e->nodes[e->nnodes].self = 0;
	rp_map_put(&e->kids, parent, func, (uint32_t)e->nnodes);
	return (uint32_t)e->nnodes++;
}

/*
 * A frame's node.  Below e->depth frames, paths are folded: every deeper
 * frame is a child of one "[folded: ...]" node under the last frame kept,
 * so that a line names at most e->depth + 4 (the program, the thread, the
 * frames kept, the fold and one under it): however deep a stack, the
 * lines are as many as its records' frames and each of bounded length.
 */
static void
rp_folded_enter(struct rp_walk *w, struct rp_frame *f, size_t depth)
{
	struct rp_export	*e = w->h->arg;
	uint32_t		 parent;

	if (depth < e->depth) {
		parent = depth == 0 ? e->root :
		    (uint32_t)w->stack[depth - 1].user;
	} else {
		parent = rp_node(e, (uint32_t)w->stack[e->depth - 1].user,
		    e->fold);
		e->folded = 1;
	}
	f->user = rp_node(e, parent, f->func);
}

static void
rp_folded_leave(struct rp_walk *w, struct rp_frame *f, size_t depth,
    uint64_t end, int how)
{
	struct rp_export	*e = w->h->arg;
	uint64_t		 d = rp_rel_ns(e->x, end) - rp_rel_ns(e->x, f->start);

	(void)how;
	/* In ns as the Chrome export has them: the weights add up exactly. */
	e->nodes[f->user].self += d > f->aux ? d - f->aux : 0;
	if (depth > 0)
		w->stack[depth - 1].aux += d;
}

/* A node's path, outermost first; @path holds e->depth + 4 nodes. */
static void
rp_folded_path(struct rp_export *e, uint32_t node, uint32_t *path)
{
	size_t	n = 0;

	for (; node != UINT32_MAX; node = e->nodes[node].parent)
		path[n++] = node;
	while (n > 0) {
		rbmon_prof_folded_name(e->out,
		    e->x->funcs[e->nodes[path[--n]].func].name);
		if (n > 0)
			fputc(';', e->out);
	}
}

static void
rp_folded(struct rp_export *e, const struct rbmon_tids *tids)
{
	struct rp_handler	 h = { rp_folded_enter, rp_folded_leave, NULL,
				    e };
	struct rp_ctx		*x = e->x;
	struct rp_walk		 w;
	char			 name[RB_PROGRAM_MAX + RB_THREAD_NAME_MAX + 128];
	char			 label[32];
	uint32_t		 pnode, f, *path;
	size_t			 i;

	snprintf(name, sizeof name, "[folded: frames deeper than %zu]",
	    e->depth);
	e->fold = rp_func_named(x, name, "", -3);
	for (i = 0; i < x->rec.nstreams; i++) {
		const struct rbrec_stream	*s = &x->rec.streams[i];

		if (!rbmon_cmd_tid_wanted(tids, s->info.tid))
			continue;
		snprintf(name, sizeof name, "%s (%d)", x->rec.info.program,
		    (int)s->info.pid);
		f = rp_func_named(x, name, "", -1);
		pnode = rp_node(e, UINT32_MAX, f);
		rp_walk_init(&w, x, i, &h);
		snprintf(label, sizeof label, "%d", (int)s->info.tid);
		rp_thread_label(name, sizeof name, x, i, rp_thread_name(s),
		    label);
		f = rp_func_named(x, name, "", -2);
		e->root = rp_node(e, pnode, f);
		while (rp_walk_step(&w))
			;
		rp_walk_finish(&w);
		rp_walk_free(&w);
	}
	/* Program, thread, e->depth frames, the fold and one more. */
	path = rbmon_xcalloc(e->depth + 4, sizeof *path);
	for (i = 0; i < e->nnodes; i++) {
		if (e->nodes[i].self == 0)
			continue;
		rp_folded_path(e, (uint32_t)i, path);
		fprintf(e->out, " %" PRIu64 "\n", e->nodes[i].self);
	}
	free(path);
}

/* speedscope: one evented profile per thread, frames shared. */
static void
rp_ss_event(struct rp_walk *w, const char *type, uint32_t func, uint64_t ts)
{
	struct rp_export	*e = w->h->arg;
	uint64_t		 ns = rp_rel_ns(e->x, ts);

	if (!e->have_lo || ns < e->lo)
		e->lo = ns;
	if (ns > e->hi)
		e->hi = ns;
	e->have_lo = 1;
	fprintf(e->out, "%s{\"type\": \"%s\", \"frame\": %u, \"at\": %" PRIu64
	    "}", e->first ? "\n" : ",\n", type, func, ns);
	e->first = 0;
}

static void
rp_ss_enter(struct rp_walk *w, struct rp_frame *f, size_t depth)
{
	(void)depth;
	rp_ss_event(w, "O", f->func, f->start);
}

static void
rp_ss_leave(struct rp_walk *w, struct rp_frame *f, size_t depth,
    uint64_t end, int how)
{
	(void)depth;
	(void)how;
	rp_ss_event(w, "C", f->func, end);
}

static void
rp_speedscope(struct rp_export *e, const struct rbmon_tids *tids)
{
	struct rp_handler	 h = { rp_ss_enter, rp_ss_leave, NULL, e };
	struct rp_ctx		*x = e->x;
	struct rp_walk		 w;
	char			 name[RB_THREAD_NAME_MAX + 64];
	char			 label[RB_THREAD_NAME_MAX + 128];
	size_t			 i, n = 0;

	fputs("{\"$schema\": \"https://www.speedscope.app/file-format-"
	    "schema.json\",\n\"exporter\": \"rbtrace\", \"name\": ", e->out);
	rbmon_json_string(e->out, x->rec.info.program);
	fputs(",\n\"activeProfileIndex\": 0,\n\"profiles\": [", e->out);
	for (i = 0; i < x->rec.nstreams; i++) {
		const struct rbrec_stream	*s = &x->rec.streams[i];

		if (!rbmon_cmd_tid_wanted(tids, s->info.tid))
			continue;
		rp_walk_init(&w, x, i, &h);
		snprintf(name, sizeof name, "pid %d, tid %d", (int)s->info.pid,
		    (int)s->info.tid);
		rp_thread_label(label, sizeof label, x, i, rp_thread_name(s),
		    name);
		fputs(n++ == 0 ? "\n{" : ",\n{", e->out);
		fputs("\"type\": \"evented\", \"name\": ", e->out);
		rbmon_json_string(e->out, label);
		fputs(", \"unit\": \"nanoseconds\", \"events\": [", e->out);
		e->first = 1;
		e->have_lo = 0;
		e->lo = e->hi = 0;
		while (rp_walk_step(&w))
			;
		rp_walk_finish(&w);
		rp_walk_free(&w);
		fprintf(e->out, "\n], \"startValue\": %" PRIu64 ", \"endValue\": %"
		    PRIu64 "}", e->lo, e->hi);
	}
	fputs("\n],\n\"shared\": {\"frames\": [", e->out);
	for (i = 0; i < x->nfuncs; i++) {
		fputs(i == 0 ? "\n{\"name\": " : ",\n{\"name\": ", e->out);
		rbmon_json_string(e->out, x->funcs[i].name[0] != '\0' ?
		    x->funcs[i].name : "?");
		if (x->funcs[i].file[0] != '\0') {
			fputs(", \"file\": ", e->out);
			rbmon_json_string(e->out, x->funcs[i].file);
		}
		if (x->funcs[i].line > 0)
			fprintf(e->out, ", \"line\": %d", x->funcs[i].line);
		fputc('}', e->out);
	}
	fputs("\n]}}\n", e->out);
}

static void
rp_export_usage(FILE *f)
{
	fputs("Usage: rbmon export FORMAT [OPTIONS] RECORDING\n"
	    "Write a recording in a format other tools read, to standard "
	    "output.\n"
	    "\n"
	    "  --chrome            Chrome Trace Event JSON: Perfetto UI, "
	    "chrome://tracing,\n"
	    "                      speedscope (complete events, in us, per "
	    "thread); fine up\n"
	    "                      to about a hundred MB\n"
	    "  --perfetto          Perfetto's protobuf trace (TrackEvent "
	    "slices, names\n"
	    "                      interned): Perfetto UI, trace_processor; "
	    "for larger\n"
	    "                      traces (binary: give -o FILE or redirect)\n"
	    "  --folded            folded stacks: flamegraph.pl, inferno, "
	    "speedscope\n"
	    "                      (\"program (pid);thread (tid);outer;...;inner "
	    "NS\", NS the\n"
	    "                      nanoseconds spent in inner itself)\n"
	    "  -D, --depth N       --folded: frames a stack keeps (default "
	    "128); deeper\n"
	    "                      ones go under one \"[folded: ...]\" frame\n"
	    "  --speedscope        speedscope's JSON: one evented profile per "
	    "thread\n"
	    "  -t, --tid TID[,TID...]  only these threads\n"
	    "  -o, --output FILE   write to FILE instead\n"
	    "  -h, --help          show this help\n", f);
}

static int
rp_export_cmd(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "chrome", no_argument, NULL, 'c' },
		{ "folded", no_argument, NULL, 'f' },
		{ "speedscope", no_argument, NULL, 's' },
		{ "perfetto", no_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "depth", required_argument, NULL, 'D' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct rp_export	 e;
	struct rbmon_tids		 tids = { NULL, 0 };
	struct rp_ctx		 x;
	struct rb_outfile	 of;
	const char		*output = NULL;
	char			*cause = NULL, *end;
	long			 depth = 0;
	int			 ch, format = 0, status = 0;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":t:D:o:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'c':
		case 'f':
		case 's':
		case 'p':
			if (format != 0 && format != ch)
				rbmon_cmd_usage("export", "give one format");
			format = ch;
			break;
		case 't':
			rbmon_cmd_parse_tids("export", optarg, &tids);
			break;
		case 'D':
			errno = 0;
			depth = strtol(optarg, &end, 10);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    depth < 1 || depth > 100000)
				rbmon_cmd_usage("export", "invalid depth '%s' "
				    "(expected 1..100000)", optarg);
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			rp_export_usage(stdout);
			return 0;
		case ':':
			rbmon_cmd_usage("export", "option '%s' needs a value",
			    argv[optind - 1]);
		default:
			rbmon_cmd_usage("export", "unknown option '%s'",
			    argv[optind - 1]);
		}
	}
	if (format == 0)
		rbmon_cmd_usage("export", "no format given (--chrome, --perfetto, "
		    "--folded or --speedscope)");
	if (optind + 1 != argc)
		rbmon_cmd_usage("export", optind == argc ? "no recording given" :
		    "too many arguments");
	if (depth != 0 && format != 'f')
		rbmon_cmd_usage("export", "--depth is for --folded");
	if (format == 'p' && output == NULL && isatty(STDOUT_FILENO))
		rbmon_cmd_usage("export", "--perfetto writes binary data, not for a "
		    "terminal: give -o FILE or redirect standard output");
	memset(&e, 0, sizeof e);
	e.x = &x;
	e.out = stdout;
	e.depth = depth != 0 ? (size_t)depth : RP_FOLDED_DEPTH;
	/* Created as the user, before rp_open() reads as the file's owner. */
	if (output != NULL &&
	    (e.out = rbmon_safeio_output(&of, output, &cause)) == NULL) {
		rbmon_esc_line(stderr, "rbmon export: cannot write %s: %s",
		    output, cause);
		free(cause);
		free(tids.v);
		return 1;
	}
	if (rp_open_or_say(&x, "export", argv[optind], "an export") != 0) {
		if (output != NULL)
			rbmon_safeio_output_done(&of, e.out, 0, NULL);
		free(tids.v);
		return 1;
	}
	if (format == 'c')
		rp_chrome(&e, &tids);
	else if (format == 'p')
		rbmon_perfetto_write(&x, e.out, tids.v, tids.n);
	else if (format == 'f')
		rp_folded(&e, &tids);
	else
		rp_speedscope(&e, &tids);
	if (output == NULL && (fflush(e.out) != 0 || ferror(e.out))) {
		rbmon_esc_line(stderr, "rbmon export: standard output: %s",
		    strerror(errno));
		status = 1;
	}
	if (e.folded)
		rbmon_esc_line(stderr, "rbmon export: %s: stacks deeper than "
		    "%zu frames: their deeper frames are folded under \"[folded: "
		    "frames deeper than %zu]\" (-D to keep more)", argv[optind],
		    e.depth, e.depth);
	if (output != NULL &&
	    rbmon_safeio_output_done(&of, e.out, 1, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon export: cannot write %s: %s",
		    output, cause);
		free(cause);
		status = 1;
	}
	rp_lost_say(&x, "export");
	free(e.nodes);
	rp_map_free(&e.kids);
	free(tids.v);
	return rp_done(&x, status == 0);
}

/* ---- dispatch ------------------------------------------------------------- */

/**
 * rbmon_subcommand - run `rbmon replay|report|export|hot ...`
 * @argv: argv[0] is the subcommand
 *
 * Return: the exit status, or -1 if argv[0] is no subcommand.
 */
int
rbmon_subcommand(int argc, char **argv)
{
	if (strcmp(argv[0], "replay") == 0)
		return rp_replay(argc, argv);
	if (strcmp(argv[0], "report") == 0)
		return rp_report(argc, argv);
	if (strcmp(argv[0], "export") == 0)
		return rp_export_cmd(argc, argv);
	if (strcmp(argv[0], "hot") == 0)
		return rp_hot(argc, argv);
	return -1;
}
