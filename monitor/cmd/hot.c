/* SPDX-License-Identifier: MIT */
/* rbmon hot: the functions called most, and how to stop instrumenting them. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/cmd/cmd.h"
#include "monitor/core/dump.h"
#include "monitor/core/model.h"
#include "monitor/history/calls.h"
#include "monitor/history/hookcost.h"
#include "monitor/history/readback.h"
#include "monitor/history/walk.h"
#include "monitor/util/escape.h"
#include "monitor/util/opts.h"
#include "monitor/util/util.h"

/*
 * The functions called most often, what their hooks cost, and the compiler
 * flags that would stop instrumenting them.  GCC matches
 * -finstrument-functions-exclude-function-list entries as substrings of
 * the user-visible name (C++: qualified, without parameters will do), and
 * file-list entries as substrings of the file's path; a comma inside an
 * entry is written "\,".
 */

/* Worth excluding: its own time per call under this many hook costs. */
#define HOT_SHORT	20
/* Own times per call by power of two of ns, for a median that a thread
   preempted in a call does not move. */
#define HOT_BUCKETS	48

struct hot_run {
	struct rbwalk_ctx *x;
	uint64_t	*calls;		/* per function */
	uint64_t	*self;
	uint32_t	(*hist)[HOT_BUCKETS];
	size_t		 n;
	uint64_t	 span;		/* the threads' recorded time, summed */
	uint64_t	 tcalls;	/* the stream being walked: its calls */
	uint64_t	*tspan;		/* per stream: its recorded time */
	double		*tmade;		/* per stream: calls kept */
	double		*tlost;		/* per stream: calls lost (records / 2) */
	uint64_t	 first, last;	/* the stream being walked, raw */
	int		 have_first;
	struct rbhook_cost *cost;	/* what the run's hooks cost */
};

static void
hot_grow(struct hot_run *h, uint32_t func)
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
hot_enter(struct rbcalls_walk *w, struct rbcalls_frame *f, size_t depth)
{
	struct hot_run	*h = w->h->arg;

	(void)depth;
	hot_grow(h, f->func);
	if (!h->have_first || f->start < h->first) {
		h->first = f->start;
		h->have_first = 1;
	}
	if (!(f->flags & RBCALLS_F_ENTRY_LOST)) {
		h->calls[f->func]++;
		h->tcalls++;
	}
}

static void
hot_leave(struct rbcalls_walk *w, struct rbcalls_frame *f, size_t depth,
    uint64_t end, int how)
{
	struct hot_run	*h = w->h->arg;
	uint64_t	 d = rbwalk_rel_ns(h->x, end) -
	    rbwalk_rel_ns(h->x, f->start);
	uint64_t	 own = d > f->aux ? d - f->aux : 0;
	unsigned	 b = own == 0 ? 0 : 64 - (unsigned)__builtin_clzll(own);

	(void)how;
	hot_grow(h, f->func);
	h->self[f->func] += own;
	if (!(f->flags & (RBCALLS_F_ENTRY_LOST | RBCALLS_F_NAMED)) &&
	    how == RBCALLS_L_EXIT && f->cend == f->start)
		rbhook_leaf(h->cost, d);	/* it called nothing */
	if (!(f->flags & RBCALLS_F_ENTRY_LOST) && how != RBCALLS_L_CUT &&
	    how != RBCALLS_L_OPEN) {
		b = b < HOT_BUCKETS ? b : HOT_BUCKETS - 1;
		if (h->hist[f->func][b] < UINT32_MAX)
			h->hist[f->func][b]++;
	}
	if (depth > 0)
		rbcalls_walk_frame(w, depth - 1)->aux += d;
	if (end > h->last)
		h->last = end;
}

/* The median of a function's own times per call, to a power of two
   (the bucket's middle). */
static uint64_t
hot_median(const struct hot_run *h, uint32_t func)
{
	uint64_t	all = 0, seen = 0;
	unsigned	b;

	for (b = 0; b < HOT_BUCKETS; b++)
		all += h->hist[func][b];
	for (b = 0; b < HOT_BUCKETS; b++) {
		seen += h->hist[func][b];
		if (all != 0 && 2 * seen >= all)
			return b == 0 ? 0 : (3ull << (b - 1)) / 2;
	}
	return 0;
}

static int
hot_cmp(const void *a, const void *b, void *arg)
{
	const struct hot_run	*h = arg;
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
hot_key(const struct rbwalk_func *f)
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

/* @key as it was before hot_key() escaped its commas, in place. */
static void
hot_unescape(char *key)
{
	char	*p, *q;

	for (p = q = key; *p != '\0'; p++)
		if (!(p[0] == '\\' && p[1] == ','))
			*q++ = *p;
	*q = '\0';
}

/* Would @key, as GCC matches it, exclude @name too? */
static int
hot_matches(const char *key, const char *name)
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
hot_files(const struct hot_run *h, const uint32_t *order,
    const unsigned char *pick, size_t n, const unsigned char *listed,
    const char **files)
{
	const struct rbwalk_ctx	*x = h->x;
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

/* A time in ns as a double, for rbread_time(): beyond 2^64 ns it says the most. */
static uint64_t
hot_ns(double ns)
{
	if (!(ns > 0))
		return 0;
	return ns >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)ns;
}

/*
 * The hooks' time in the threads: each thread's calls kept at @cost ns a
 * call and those whose records were lost at @drop, but never more than
 * the time it was recorded for (from its first record to its last, which
 * calls lost after its last record fall outside of).  Sets @capped when
 * some thread's estimate was more than its time.
 */
static double
hot_bounded(const struct hot_run *h, double cost, double drop, int *capped)
{
	double	sum = 0, v;
	size_t	i;

	*capped = 0;
	for (i = 0; i < h->x->rec.nstreams; i++) {
		v = h->tmade[i] * cost + h->tlost[i] * drop;
		if (v > (double)h->tspan[i]) {
			v = (double)h->tspan[i];
			if (v < h->tmade[i] * cost + h->tlost[i] * drop)
				*capped = 1;
		}
		sum += v;
	}
	return sum;
}

/*
 * The hooks' share of the threads' time, and what it makes of them.  The
 * threads' time is wall time, their waits included: busy all along, they
 * used span / (span - hooks) times the CPU time they would without the
 * hooks; the more they waited, the more than that (the hooks are a larger
 * part of less CPU time).  Said only when no thread's estimate was capped.
 */
static void
hot_share_text(const struct hot_run *h, double hook, int capped)
{
	char	a[32], b[32];

	rbread_time(a, sizeof a, hot_ns(hook));
	rbread_time(b, sizeof b, h->span);
	printf("about %s of the threads' %s", a, b);
	if (h->span == 0) {
		printf(".\n");
		return;
	}
	printf(" (%.1f%%", 100.0 * hook / (double)h->span);
	if (capped)
		printf(": a thread's estimate exceeded its time and was "
		    "taken as all of it;\nno slowdown can be told");
	else if (hook < (double)h->span)
		printf("; their time is wall time, waits included:\nbusy all "
		    "along, they used %.2fx the CPU time they would without "
		    "the hooks,\nand more where they waited",
		    (double)h->span / ((double)h->span - hook));
	printf(").\n");
}

/* How the hooks' cost a call was measured (hookcost.c). */
static void
hot_measured_text(const struct hot_run *h)
{
	const struct rbhook_cost *c = h->cost;

	if (c->pair_ns <= 0) {
		puts("The hooks' cost was not measured: no call in the "
		    "recording called nothing\n(and returned in a time "
		    "the clock could tell).");
		return;
	}
	printf("Measured in this run: about %.0f ns a call in the hooks "
	    "(2 x its shortest\ncalls' median, %.0f ns from the entry's "
	    "clock read to the exit's: one whole\nhook and a short body",
	    c->pair_ns, c->leaf_ns);
	if (c->here)
		printf("; a clock read %.1f ns and a call %.1f ns, timed here",
		    c->clock_ns, c->call_ns);
	printf(").\n");
	if (c->here && c->drop_ns < c->pair_ns)
		printf("A call whose records a full log dropped: about %.0f ns "
		    "(its hooks read no clock).\n", c->drop_ns);
}

static void
hot_measured_json(const struct hot_run *h, uint64_t made, double mhook)
{
	const struct rbhook_cost *c = h->cost;
	double			 bound;
	int			 capped;

	bound = hot_bounded(h, c->pair_ns, c->drop_ns, &capped);
	printf(", \"measured\": {\"cost_ns\": %.1f, \"leaf_median_ns\": %.0f"
	    ", \"leaves\": %" PRIu64 ", \"timed_here\": %s"
	    ", \"clock_read_ns\": %.1f, \"call_ns\": %.1f, \"calls\": %"
	    PRIu64 ", \"hook_ns\": %.0f, \"hook_bounded_ns\": %.0f"
	    ", \"lost_cost_ns\": %.1f, \"capped\": %s, \"share\": ",
	    c->pair_ns, c->leaf_ns, c->leaves, c->here ? "true" : "false",
	    c->clock_ns, c->call_ns, made, mhook, bound, c->drop_ns,
	    capped ? "true" : "false");
	if (h->span != 0 && c->pair_ns > 0)
		printf("%.4f", bound / (double)h->span);
	else
		fputs("null", stdout);
	fputs(", \"slowdown\": ", stdout);
	if (h->span != 0 && c->pair_ns > 0 && !capped &&
	    bound < (double)h->span)
		printf("%.2f}", (double)h->span / ((double)h->span - bound));
	else
		fputs("null}", stdout);
}

static void
hot_usage(FILE *f)
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
	    "      --cost NS       what a call costs in the hooks, for the "
	    "estimate and the\n"
	    "                      advice (default: as measured in the run, "
	    "else 15)\n"
	    "      --flags         print only the GCC flags, on one line\n"
	    "      --names         print only the functions to exclude, one a "
	    "line, for\n"
	    "                      rbtrace --exclude @FILE\n"
	    "      --json          the table, the estimate and the flags as JSON\n"
	    "  -h, --help          show this help\n", f);
	rbmon_filter_usage(f, 0);
}

int
rbmon_cmd_hot(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "top", required_argument, NULL, 'n' },
		{ "cost", required_argument, NULL, 'C' },
		{ "flags", no_argument, NULL, 'f' },
		{ "names", no_argument, NULL, 'L' },
		RBMON_FILTER_LONGOPTS_BUT_F,
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct rbcalls_handler	 hd = { hot_enter, hot_leave, NULL, NULL };
	struct hot_run		 h;
	struct rbread_losses	 lost;
	struct rbmon_tids	 tids = { NULL, 0 };
	struct rbmon_filter	 fl;
	struct rbwalk_ctx	 x;
	struct rbcalls_walk	 w;
	uint32_t		*order;
	char			**keys, *end;
	const char		**files;
	unsigned char		*pick, *listed;
	uint64_t		 all = 0, picked = 0;
	double			 cost = 15, drop, hook, left;
	size_t			 i, j, n, nfiles, npick = 0, top = 20;
	int			 ch, json = 0, flags_only = 0, first, lower;
	int			 names_only = 0;
	int			 given = 0, capped;
	char			 a[32], b[32];
	const char		*basis;
	uint64_t		 made;
	double			 mhook;

	memset(&fl, 0, sizeof fl);
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":" RBMON_FILTER_SHORTOPTS "n:h",
	    opts, NULL)) != -1) {
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
			given = 1;
			break;
		case 'f':
			flags_only = 1;
			break;
		case 'L':
			names_only = 1;
			break;
		case 'J':
			json = 1;
			break;
		case 'h':
			hot_usage(stdout);
			return 0;
		case ':':
			rbmon_cmd_usage("hot", "option '%s' needs a value",
			    argv[optind - 1]);
		default:
			if (rbmon_filter_option("hot", ch, argv, optarg,
			    &tids, &fl))
				break;
			rbmon_cmd_usage("hot", "unknown option '%s'",
			    argv[optind - 1]);
		}
	}
	if (optind + 1 != argc)
		rbmon_cmd_usage("hot", optind == argc ? "no recording given" :
		    "too many arguments");
	if (json + flags_only + names_only > 1)
		rbmon_cmd_usage("hot", "give one of --json, --flags and "
		    "--names");
	if (rbread_open_or_say(&x, "hot", argv[optind], "hot") != 0) {
		free(tids.v);
		rbmon_filter_free(&fl);
		return 1;
	}
	x.filter = &fl;
	memset(&h, 0, sizeof h);
	h.x = &x;
	h.cost = rbmon_xcalloc(1, sizeof *h.cost);
	h.tspan = rbmon_xcalloc(x.rec.nstreams + 1, sizeof *h.tspan);
	h.tmade = rbmon_xcalloc(x.rec.nstreams + 1, sizeof *h.tmade);
	h.tlost = rbmon_xcalloc(x.rec.nstreams + 1, sizeof *h.tlost);
	hd.arg = &h;
	for (i = 0; i < x.rec.nstreams; i++) {
		if (!rbmon_cmd_tid_wanted(&tids, x.rec.streams[i].info.tid))
			continue;
		h.have_first = 0;
		h.last = 0;
		h.tcalls = 0;
		rbcalls_walk_init(&w, &x, i, &hd);
		while (rbcalls_walk_step(&w))
			;
		rbcalls_walk_finish(&w);
		rbcalls_walk_free(&w);
		if (h.have_first && h.last > h.first)
			h.tspan[i] = rbwalk_rel_ns(&x, h.last) -
			    rbwalk_rel_ns(&x, h.first);
		h.span += h.tspan[i];
		h.tmade[i] = (double)h.tcalls;
		if (x.counts[i].walked)
			h.tlost[i] = (double)x.counts[i].lost / 2;
	}
	rbmon_filter_unmatched("hot", &fl);
	order = rbmon_xcalloc(h.n + 1, sizeof *order);
	for (i = 0, n = 0; i < h.n; i++)
		if (h.calls[i] != 0) {
			order[n++] = (uint32_t)i;
			all += h.calls[i];
		}
	qsort_r(order, n, sizeof *order, hot_cmp, &h);
	if (n > top)
		n = top;
	rbread_losses(&x, &lost);
	rbread_lost_say(&x, "hot", "per thread at the end");
	lower = rbread_lower(&x);
	/*
	 * What the hooks cost a call: as given, else as measured in this
	 * run, else the nominal cost.  For every call made, those whose
	 * records were lost too.
	 */
	rbhook_estimate(h.cost, &x);
	if (given)
		basis = "given";
	else if (h.cost->pair_ns > 0) {
		cost = h.cost->pair_ns;
		basis = "measured";
	} else
		basis = "nominal";
	drop = basis[0] == 'm' ? h.cost->drop_ns : cost;
	made = all + lost.lost / 2;
	mhook = (double)made * h.cost->pair_ns;

	/*
	 * The suggestion: listed, 1% of the calls or more, short (the
	 * median of its own time per call under HOT_SHORT hook costs, so
	 * that the hooks are a good part of it), and nameable.
	 */
	keys = rbmon_xcalloc(n + 1, sizeof *keys);
	pick = rbmon_xcalloc(n + 1, 1);
	for (i = 0; i < n; i++) {
		const struct rbwalk_func	*f = &x.funcs[order[i]];

		keys[i] = hot_key(f);
		if (keys[i][0] != '\0' && strcmp(keys[i], "main") != 0 &&
		    h.calls[order[i]] * 100 >= all && all != 0 &&
		    (double)hot_median(&h, order[i]) <=
		    HOT_SHORT * cost) {
			pick[i] = 1;
			npick++;
			picked += h.calls[order[i]];
		}
	}
	listed = rbmon_xcalloc(h.n + 1, 1);
	for (i = 0; i < n; i++)
		listed[order[i]] = pick[i];
	files = rbmon_xcalloc(n + 1, sizeof *files);
	nfiles = hot_files(&h, order, pick, n, listed, files);
	hook = hot_bounded(&h, cost, drop, &capped);
	left = (double)(all - picked) * cost;

	if (names_only) {
		/* The names --flags gives, GCC's escaping of commas undone. */
		for (i = 0; i < n; i++) {
			if (!pick[i])
				continue;
			hot_unescape(keys[i]);
			rbmon_esc_fputs(keys[i], stdout);
			putchar('\n');
		}
	} else if (flags_only) {
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
		    ", \"thread_ns\": %" PRIu64 ", \"cost_ns\": %.1f"
		    ", \"cost_basis\": \"%s\", \"hook_ns\": %.0f"
		    ", \"hook_ns_after\": %.0f, \"functions\": [", all,
		    h.span, cost, basis, hook, left);
		for (i = 0; i < n; i++) {
			const struct rbwalk_func	*f = &x.funcs[order[i]];

			fputs(i == 0 ? "\n  {\"function\": " : ",\n  "
			    "{\"function\": ", stdout);
			rbmon_json_string(stdout, f->name);
			fputs(", \"file\": ", stdout);
			rbmon_json_string(stdout, f->file);
			printf(", \"line\": %d, \"calls\": %" PRIu64
			    ", \"self_ns\": %" PRIu64 ", \"self_median_ns\": %"
			    PRIu64 ", \"exclude\": %s, \"lower_bound\": %s}",
			    f->line, h.calls[order[i]], h.self[order[i]],
			    hot_median(&h, order[i]),
			    pick[i] ? "true" : "false",
			    lower ? "true" : "false");
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
		hot_measured_json(&h, made, mhook);
		rbread_lost_json(stdout, &x);
		rbread_dyn_json(stdout, &x);
		fputs("}\n", stdout);
	} else {
		printf("%s call%s", rbmon_group(a, sizeof a, all),
		    all == 1 ? "" : "s");
		if (lost.lost != 0)
			printf(" (and %s%" PRIu64 " record%s lost: counts are "
			    "lower bounds)", lost.unknown ? "at least " : "",
			    lost.lost, lost.lost == 1 ? "" : "s");
		else if (lost.unknown)
			printf(" (and records lost: counts are lower bounds)");
		else if (lost.incomplete)
			printf(" (the recording is incomplete: counts are lower "
			    "bounds)");
		if (given)
			printf("; the hooks, at %g ns a call (given)", cost);
		else if (h.cost->pair_ns > 0)
			printf("; the hooks, at %.0f ns a call (measured in this "
			    "run, below)", cost);
		else
			printf("; the hooks, at %g ns a call (nominal: not "
			    "measurable, below)", cost);
		if (lost.lost != 0)
			printf(", for these and the %s calls in the records "
			    "lost (at %.0f ns)", rbmon_group(b, sizeof b,
			    lost.lost / 2), drop);
		printf(", took\n");
		hot_share_text(&h, hook, capped);
		hot_measured_text(&h);
		printf("\n%10s  %6s  %6s  %11s  %s\n", "Calls", "Share",
		    "Cumul", "Self/call", "Function");
		for (i = 0, picked = 0; i < n; i++) {
			uint64_t		 c = h.calls[order[i]];
			const struct rbwalk_func *f = &x.funcs[order[i]];

			picked += c;
			rbread_time(a + 1, sizeof a - 1, hot_median(&h,
			    order[i]));
			a[0] = '~';
			snprintf(b, sizeof b, "%s%" PRIu64, lower ? ">=" : "",
			    c);
			printf("%10s  %5.1f%%  %5.1f%%  %11s  %c ",
			    b, 100.0 * (double)c / (double)all,
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
			rbread_time(a, sizeof a, hot_ns(left));
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
					    !hot_matches(keys[i],
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
		rbread_lost_table(stdout, &x, "");
		rbread_dyn_table(stdout, &x, "");
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
	free(h.cost);
	free(h.tspan);
	free(h.tmade);
	free(h.tlost);
	free(tids.v);
	rbmon_filter_free(&fl);
	return rbread_done(&x, fflush(stdout) == 0 && !ferror(stdout));
}

