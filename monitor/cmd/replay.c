/* SPDX-License-Identifier: MIT */
/*
 * rbmon replay: a recording's calls as a function graph with every thread
 * merged in time order (uftrace replay).
 */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/cmd/cmd.h"
#include "monitor/core/dump.h"
#include "monitor/core/model.h"
#include "monitor/history/calls.h"
#include "monitor/history/readback.h"
#include "monitor/history/walk.h"
#include "monitor/util/escape.h"
#include "monitor/util/opts.h"
#include "monitor/util/util.h"

/* The merge: every stream's walker, records in time order across them. */
struct replay_merge {
	struct rbcalls_walk *w;		/* one per stream wanted */
	size_t		*heap;		/* indices into w, by next time */
	size_t		 n, nheap;
};

static uint64_t
replay_next_ts(struct rbcalls_walk *w)
{
	const struct rbrec_rec *k = rbcalls_walk_peek(w);

	return k == NULL ? UINT64_MAX : k->e.ts;
}

static int
replay_heap_less(struct replay_merge *m, size_t a, size_t b)
{
	uint64_t	x = replay_next_ts(&m->w[m->heap[a]]);
	uint64_t	y = replay_next_ts(&m->w[m->heap[b]]);

	return x != y ? x < y : m->heap[a] < m->heap[b];
}

static void
replay_heap_down(struct replay_merge *m, size_t i)
{
	size_t	l, r, s, t;

	for (;;) {
		l = 2 * i + 1;
		r = l + 1;
		s = i;
		if (l < m->nheap && replay_heap_less(m, l, s))
			s = l;
		if (r < m->nheap && replay_heap_less(m, r, s))
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
replay_merge_run(struct replay_merge *m)
{
	size_t	i;

	m->heap = rbmon_xcalloc(m->n + 1, sizeof *m->heap);
	for (i = 0; i < m->n; i++)
		m->heap[m->nheap++] = i;
	for (i = m->nheap / 2 + 1; i > 0; i--)
		replay_heap_down(m, i - 1);
	while (m->nheap > 0) {
		struct rbcalls_walk	*w = &m->w[m->heap[0]];

		if (!rbcalls_walk_step(w)) {
			rbcalls_walk_finish(w);
			m->heap[0] = m->heap[--m->nheap];
		}
		replay_heap_down(m, 0);
	}
	free(m->heap);
}

/* The filters (-F, -D, --min, ...) are the engine's (calls.h). */
struct replay_run {
	struct rbwalk_ctx *x;
	FILE		*out;
};

/* rbcalls_frame.user in replay: bit 63 set once the frame's line is printed. */
#define REPLAY_SHOWN	(1ull << 63)
#define REPLAY_LEAF		(1ull << 62)

static void
replay_line(struct replay_run *rp, struct rbcalls_walk *w, const char *dur,
    size_t depth, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void
replay_line(struct replay_run *rp, struct rbcalls_walk *w, const char *dur,
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

static void
replay_enter(struct rbcalls_walk *w, struct rbcalls_frame *f, size_t depth)
{
	struct replay_run	*rp = w->h->arg;
	const struct rbwalk_func *fn = &rp->x->funcs[f->func];
	const struct rbrec_rec	*next;
	char			 dur[32];
	size_t			 rel = depth;
	int			 named = (f->flags & RBCALLS_F_NAMED) != 0;

	next = rbcalls_walk_peek(w);
	if (next != NULL && !next->lost && !(f->flags & RBCALLS_F_ENTRY_LOST) &&
	    (named ? next->e.kind == RB_EV_NAMED_EXIT :
	    next->e.kind == RB_EV_EXIT && next->e.fn == f->fn)) {
		rbread_duration(dur, sizeof dur, rp->x, f->start, next->e.ts);
		replay_line(rp, w, dur, rel, "%s();", fn->name);
		f->user |= REPLAY_SHOWN | REPLAY_LEAF;
		return;
	}
	replay_line(rp, w, "", rel, "%s() {%s", fn->name,
	    (f->flags & RBCALLS_F_ENTRY_LOST) ? " /* entry lost */" : "");
	f->user |= REPLAY_SHOWN;
}

static void
replay_leave(struct rbcalls_walk *w, struct rbcalls_frame *f, size_t depth,
    uint64_t end, int how)
{
	static const char *const note[] = {
		[RBCALLS_L_EXIT] = "", [RBCALLS_L_UNWOUND] = ", unwound",
		[RBCALLS_L_CUT] = ", records lost after it",
		[RBCALLS_L_OPEN] = ", still running",
	};
	struct replay_run	*rp = w->h->arg;
	char			 dur[32];

	if ((f->user & REPLAY_SHOWN) && !(f->user & REPLAY_LEAF)) {
		rbread_duration(dur, sizeof dur, rp->x, f->start, end);
		replay_line(rp, w, how == RBCALLS_L_OPEN ? "open" : dur, depth,
		    "} /* %s%s */", rp->x->funcs[f->func].name, note[how]);
	}
}

static void
replay_mark(struct rbcalls_walk *w, const struct rbrec_rec *k, size_t depth)
{
	struct replay_run	*rp = w->h->arg;
	size_t			 rel = depth;

	if (k->lost || k->e.kind == RB_EV_LOST) {
		if (k->e.arg != 0)
			replay_line(rp, w, "", rel, "[LOST %" PRIu64 " EVENTS]",
			    k->e.arg);
		else
			replay_line(rp, w, "", rel, "[LOST EVENTS]");
		return;
	}
	switch (k->e.kind) {
	case RB_EV_LINE:
		replay_line(rp, w, "", rel, "/* line %" PRId64 " */",
		    (int64_t)k->e.arg);
		break;
	case RB_EV_STOP: {
		char	why[64];

		rbread_stop_text(why, sizeof why, k->e.arg);
		replay_line(rp, w, "", rel, "/* %s */", why);
		break;
	}
	case RB_EV_RESUME:
		replay_line(rp, w, "", rel, "/* resumed */");
		break;
	case RB_EV_OFF:
		replay_line(rp, w, "", rel, "/* recording off */");
		break;
	case RB_EV_ON:
		replay_line(rp, w, "", rel, "/* recording on */");
		break;
	default:
		replay_line(rp, w, "", rel, "/* record of kind %u */",
		    k->e.kind);
		break;
	}
}

static void
replay_usage(FILE *f)
{
	fputs("Usage: rbmon replay [OPTIONS] RECORDING\n"
	    "Print a recording's calls as a function graph, every thread "
	    "merged in time\norder, with durations.\n"
	    "\n"
	    "  -h, --help              show this help\n", f);
	rbmon_filter_usage(f, 1);
}

int
rbmon_cmd_replay(int argc, char **argv)
{
	static const struct option opts[] = {
		RBMON_FILTER_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct rbcalls_handler	 h = { replay_enter, replay_leave,
				    replay_mark, NULL };
	struct replay_run	 rp;
	struct rbmon_tids	 tids = { NULL, 0 };
	struct rbmon_filter	 fl;
	struct replay_merge	 m;
	struct rbwalk_ctx	 x;
	size_t			 i;
	int			 ch;

	memset(&rp, 0, sizeof rp);
	memset(&fl, 0, sizeof fl);
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":" RBMON_FILTER_SHORTOPTS "h",
	    opts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			replay_usage(stdout);
			return 0;
		case ':':
			rbmon_cmd_usage("replay", "option '%s' needs a value",
			    argv[optind - 1]);
		default:
			if (rbmon_filter_option("replay", ch, argv, optarg,
			    &tids, &fl))
				break;
			rbmon_cmd_usage("replay", "unknown option '%s'",
			    argv[optind - 1]);
		}
	}
	if (optind + 1 != argc)
		rbmon_cmd_usage("replay", optind == argc ? "no recording given" :
		    "too many arguments");
	if (rbread_open_or_say(&x, "replay", argv[optind],
	    rbmon_filter_needs(&fl)) != 0) {
		free(tids.v);
		rbmon_filter_free(&fl);
		return 1;
	}
	x.filter = &fl;
	rp.x = &x;
	rp.out = stdout;
	h.arg = &rp;
	memset(&m, 0, sizeof m);
	m.w = rbmon_xcalloc(x.rec.nstreams + 1, sizeof *m.w);
	for (i = 0; i < x.rec.nstreams; i++) {
		if (!rbmon_cmd_tid_wanted(&tids, x.rec.streams[i].info.tid))
			continue;
		rbcalls_walk_init(&m.w[m.n++], &x, i, &h);
		m.w[m.n - 1].si = i;
	}
	fputs("# DURATION      TID     FUNCTION\n", stdout);
	replay_merge_run(&m);
	rbmon_filter_unmatched("replay", &fl);
	rbread_lost_table(stdout, &x, "# ");
	rbread_dyn_table(stdout, &x, "# ");
	rbread_lost_say(&x, "replay", "per thread at the end");
	for (i = 0; i < m.n; i++)
		rbcalls_walk_free(&m.w[i]);
	free(m.w);
	free(tids.v);
	rbmon_filter_free(&fl);
	return rbread_done(&x, fflush(stdout) == 0 && !ferror(stdout));
}
