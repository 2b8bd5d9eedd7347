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
#include "monitor/history/calls.h"
#include "monitor/history/readback.h"
#include "monitor/history/walk.h"
#include "monitor/util/escape.h"
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

struct replay_run {
	struct rbwalk_ctx *x;
	const char	*func;		/* -F */
	long		 depth;		/* -D, 0: all */
	uint64_t	 min_ns;	/* --min */
	unsigned char	**keep;		/* per stream, --min: frame shown */
	size_t		*root;		/* per stream: depth of -F's frame,
					   SIZE_MAX: outside */
	FILE		*out;
};

/* rbcalls_frame.user in replay: bit 63 set once the frame's line is printed. */
#define REPLAY_SHOWN	(1ull << 63)
#define REPLAY_LEAF		(1ull << 62)
#define REPLAY_NUM(u)	((u) & ~(REPLAY_SHOWN | REPLAY_LEAF))

static int
replay_func_match(const char *name, const char *want)
{
	size_t	n = strlen(want);

	/* "ns::f" matches "ns::f(int)" as gdb's break does. */
	return strncmp(name, want, n) == 0 && (name[n] == '\0' ||
	    name[n] == '(');
}

/* Is a frame at @depth of walker @w inside what is shown? */
static int
replay_shown_depth(struct replay_run *rp, struct rbcalls_walk *w, size_t depth,
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

static int
replay_kept(struct replay_run *rp, struct rbcalls_walk *w,
    const struct rbcalls_frame *f)
{
	uint64_t	num = REPLAY_NUM(f->user);

	if (rp->keep == NULL)
		return 1;
	return (rp->keep[w->si][num / 8] >> (num % 8)) & 1;
}

static void
replay_enter(struct rbcalls_walk *w, struct rbcalls_frame *f, size_t depth)
{
	struct replay_run	*rp = w->h->arg;
	const struct rbwalk_func *fn = &rp->x->funcs[f->func];
	const struct rbrec_rec	*next;
	char			 dur[32];
	size_t			 rel;
	int			 named = (f->flags & RBCALLS_F_NAMED) != 0;

	if (rp->func != NULL && rp->root[w->si] == SIZE_MAX &&
	    replay_func_match(fn->name, rp->func))
		rp->root[w->si] = depth;
	if (!replay_shown_depth(rp, w, depth, &rel) || !replay_kept(rp, w, f))
		return;
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
	size_t			 rel;

	if ((f->user & REPLAY_SHOWN) && !(f->user & REPLAY_LEAF) &&
	    replay_shown_depth(rp, w, depth, &rel)) {
		rbread_duration(dur, sizeof dur, rp->x, f->start, end);
		replay_line(rp, w, how == RBCALLS_L_OPEN ? "open" : dur, rel,
		    "} /* %s%s */", rp->x->funcs[f->func].name, note[how]);
	}
	if (rp->func != NULL && rp->root[w->si] == depth)
		rp->root[w->si] = SIZE_MAX;
}

static void
replay_mark(struct rbcalls_walk *w, const struct rbrec_rec *k, size_t depth)
{
	struct replay_run	*rp = w->h->arg;
	size_t			 rel;

	if (!replay_shown_depth(rp, w, depth, &rel) && !(k->lost ||
	    k->e.kind == RB_EV_LOST))
		return;
	/* Inside a call not shown (--min, -F, -D): not shown either. */
	if (depth > 0 && !(w->stack[depth - 1].user & REPLAY_SHOWN))
		return;
	if (rp->func != NULL && rp->root[w->si] == SIZE_MAX)
		return;
	if (rp->func == NULL && rp->depth > 0 && depth >= (size_t)rp->depth)
		return;
	rel = rp->func != NULL && depth >= rp->root[w->si] ?
	    depth - rp->root[w->si] : depth;
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

/* --min: a first walk marks the frames that last long enough. */
struct replay_keep {
	struct rbwalk_ctx *x;
	uint64_t	 min_ns;
	unsigned char	*bits;
	size_t		 cap;
};

static void
replay_keep_leave(struct rbcalls_walk *w, struct rbcalls_frame *f, size_t depth,
    uint64_t end, int how)
{
	struct replay_keep *k = w->h->arg;
	uint64_t	 num = f->user;

	(void)depth;
	(void)how;
	if (num / 8 >= k->cap) {
		size_t	old = k->cap;

		k->cap = (num / 8 + 1) * 2;
		k->bits = rbmon_xreallocarray(k->bits, k->cap, 1);
		memset(k->bits + old, 0, k->cap - old);
	}
	if (rbread_dur_ns(k->x, f->start, end) >= k->min_ns)
		k->bits[num / 8] |= (unsigned char)(1u << (num % 8));
}

static void
replay_usage(FILE *f)
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
	struct rbcalls_handler	 h = { replay_enter, replay_leave,
				    replay_mark, NULL };
	struct replay_run	 rp;
	struct rbmon_tids	 tids = { NULL, 0 };
	struct replay_merge	 m;
	struct rbwalk_ctx	 x;
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
			replay_usage(stdout);
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
	if (rbread_open_or_say(&x, "replay", argv[optind], rp.min_ns > 0 ?
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
			struct replay_keep	 k = { &x, rp.min_ns, NULL, 0 };
			struct rbcalls_handler	 kh = { NULL, replay_keep_leave,
						    NULL, &k };
			struct rbcalls_walk	 kw;

			rbcalls_walk_init(&kw, &x, i, &kh);
			while (rbcalls_walk_step(&kw))
				;
			rbcalls_walk_finish(&kw);
			rbcalls_walk_free(&kw);
			rp.keep[i] = k.bits != NULL ? k.bits :
			    rbmon_xcalloc(1, 1);
		}
		rbcalls_walk_init(&m.w[m.n++], &x, i, &h);
		m.w[m.n - 1].si = i;
	}
	fputs("# DURATION      TID     FUNCTION\n", stdout);
	replay_merge_run(&m);
	rbread_lost_table(stdout, &x, "# ");
	rbread_lost_say(&x, "replay", "per thread at the end");
	for (i = 0; i < m.n; i++)
		rbcalls_walk_free(&m.w[i]);
	if (rp.keep != NULL)
		for (i = 0; i < x.rec.nstreams; i++)
			free(rp.keep[i]);
	free(rp.keep);
	free(rp.root);
	free(m.w);
	free(tids.v);
	return rbread_done(&x, fflush(stdout) == 0 && !ferror(stdout));
}

