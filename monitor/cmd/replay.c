/* SPDX-License-Identifier: MIT */
/*
 * rbmon replay: a recording's calls as a function graph with every thread
 * merged in time order (uftrace replay).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/cmd/cmd.h"
#include "monitor/core/dump.h"
#include "monitor/core/model.h"
#include "monitor/history/readback.h"
#include "monitor/history/walk.h"
#include "monitor/util/escape.h"
#include "monitor/util/util.h"

/* The merge: every stream's walker, records in time order across them. */
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
	    "(10us, 1.5ms, 2s;\n"
	    "                          a number needs its unit)\n"
	    "  -h, --help              show this help\n", f);
}

int
rbmon_cmd_replay(int argc, char **argv)
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
			switch (rbmon_duration_parse(optarg, &rp.min_ns)) {
			case RBMON_DUR_OK:
				break;
			case RBMON_DUR_BARE:
				rbmon_duration_bare("replay", "--min", optarg,
				    "us");
			default:
				rbmon_cmd_usage("replay", "invalid time '%s' "
				    "(expected a number and a unit: "
				    RBMON_DUR_UNITS ")", optarg);
			}
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

