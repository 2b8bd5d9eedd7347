/* SPDX-License-Identifier: MIT */
/*
 * rbmon report: a recording's functions in a table: calls, total and self
 * time (uftrace report).
 */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
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

struct report_stat {
	uint64_t	calls, total, self;
};

struct report_run {
	struct rbwalk_ctx *x;
	struct report_stat *st;		/* per function */
	size_t		 nst;
	uint32_t	*active;	/* per function: instances open in the
					   stream being walked */
	size_t		 nactive;
	int		 sort;		/* 't'otal, 's'elf, 'c'alls, 'n'ame */
};

static void
report_grow(struct report_run *r, uint32_t func)
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
report_enter(struct rbcalls_walk *w, struct rbcalls_frame *f, size_t depth)
{
	struct report_run	*r = w->h->arg;

	(void)depth;
	report_grow(r, f->func);
	r->active[f->func]++;
	if (!(f->flags & RBCALLS_F_ENTRY_LOST))
		r->st[f->func].calls++;
}

static void
report_leave(struct rbcalls_walk *w, struct rbcalls_frame *f, size_t depth,
    uint64_t end, int how)
{
	struct report_run	*r = w->h->arg;
	uint64_t		 d = rbwalk_rel_ns(r->x, end) - rbwalk_rel_ns(r->x, f->start);

	(void)how;
	report_grow(r, f->func);
	/* A recursive function's time counts once: at its outermost call. */
	if (--r->active[f->func] == 0)
		r->st[f->func].total += d;
	r->st[f->func].self += d > f->aux ? d - f->aux : 0;
	if (depth > 0)
		rbcalls_walk_frame(w, depth - 1)->aux += d;
}

static int
report_cmp(const void *a, const void *b, void *arg)
{
	const struct report_run	*r = arg;
	const struct report_stat *x = &r->st[*(const uint32_t *)a];
	const struct report_stat *y = &r->st[*(const uint32_t *)b];
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
report_usage(FILE *f)
{
	fputs("Usage: rbmon report [OPTIONS] RECORDING\n"
	    "Per function: calls, total time (a recursive function's "
	    "outermost calls)\nand self time (without its callees), of every "
	    "thread together.\n"
	    "\n"
	    "  -s, --sort KEY          total (default), self, calls or name\n"
	    "      --json              one object per function\n"
	    "  -h, --help              show this help\n"
	    "\n"
	    "A call a filter drops counts in its caller's self time.\n", f);
	rbmon_filter_usage(f, 1);
}

int
rbmon_cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		RBMON_FILTER_LONGOPTS,
		{ "sort", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct rbcalls_handler	 h = { report_enter, report_leave,
				    NULL, NULL };
	struct report_run	 r;
	struct rbmon_tids	 tids = { NULL, 0 };
	struct rbmon_filter	 fl;
	struct rbwalk_ctx	 x;
	struct rbcalls_walk	 w;
	uint32_t		*order;
	size_t			 i, n;
	int			 ch, json = 0, sort = 't', notimes, lower;
	char			 a[32], b[32], c[32];

	memset(&fl, 0, sizeof fl);
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":" RBMON_FILTER_SHORTOPTS "s:h",
	    opts, NULL)) != -1) {
		switch (ch) {
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
			report_usage(stdout);
			return 0;
		case ':':
			rbmon_cmd_usage("report", "option '%s' needs a value",
			    argv[optind - 1]);
		default:
			if (rbmon_filter_option("report", ch, argv, optarg,
			    &tids, &fl))
				break;
			rbmon_cmd_usage("report", "unknown option '%s'",
			    argv[optind - 1]);
		}
	}
	if (optind + 1 != argc)
		rbmon_cmd_usage("report", optind == argc ? "no recording given" :
		    "too many arguments");
	if (rbread_open_or_say(&x, "report", argv[optind],
	    rbmon_filter_needs(&fl)) != 0) {
		free(tids.v);
		rbmon_filter_free(&fl);
		return 1;
	}
	x.filter = &fl;
	notimes = rbread_no_times(&x);
	memset(&r, 0, sizeof r);
	r.x = &x;
	/* No times: by calls, unless by name. */
	r.sort = notimes && sort != 'n' ? 'c' : sort;
	h.arg = &r;
	for (i = 0; i < x.rec.nstreams; i++) {
		if (!rbmon_cmd_tid_wanted(&tids, x.rec.streams[i].info.tid))
			continue;
		rbcalls_walk_init(&w, &x, i, &h);
		while (rbcalls_walk_step(&w))
			;
		rbcalls_walk_finish(&w);
		rbcalls_walk_free(&w);
	}
	rbmon_filter_unmatched("report", &fl);
	lower = rbread_lower(&x);
	rbread_lost_say(&x, "report", "per thread at the end");
	order = rbmon_xcalloc(r.nst + 1, sizeof *order);
	for (i = 0, n = 0; i < r.nst; i++)
		if (r.st[i].calls != 0 || r.st[i].total != 0 ||
		    r.st[i].self != 0)
			order[n++] = (uint32_t)i;
	qsort_r(order, n, sizeof *order, report_cmp, &r);
	if (json) {
		fputs("{\"functions\": [", stdout);
		for (i = 0; i < n; i++) {
			const struct rbwalk_func	*f = &x.funcs[order[i]];
			const struct report_stat	*s = &r.st[order[i]];

			fputs(i == 0 ? "\n  {\"function\": " : ",\n  "
			    "{\"function\": ", stdout);
			rbmon_json_string(stdout, f->name);
			fputs(", \"file\": ", stdout);
			rbmon_json_string(stdout, f->file);
			printf(", \"line\": %d, \"calls\": %" PRIu64,
			    f->line, s->calls);
			if (notimes)
				fputs(", \"total_ns\": null, \"self_ns\": null",
				    stdout);
			else
				printf(", \"total_ns\": %" PRIu64 ", \"self_ns\": %"
				    PRIu64, s->total, s->self);
			printf(", \"lower_bound\": %s}",
			    lower ? "true" : "false");
		}
		fputs("\n]", stdout);
		rbread_lost_json(stdout, &x);
		rbread_dyn_json(stdout, &x);
		fputs("}\n", stdout);
	} else {
		printf("%12s  %12s  %10s  %s\n", "Total time", "Self time",
		    "Calls", "Function");
		printf("%12s  %12s  %10s  %s\n", "==========", "=========",
		    "=====", "========");
		for (i = 0; i < n; i++) {
			const struct report_stat	*s = &r.st[order[i]];

			if (notimes) {
				snprintf(a, sizeof a, "-");
				snprintf(b, sizeof b, "-");
			} else {
				rbread_time(a, sizeof a, s->total);
				rbread_time(b, sizeof b, s->self);
			}
			/* Records lost: every count may be short (">="). */
			snprintf(c, sizeof c, "%s%" PRIu64, lower ? ">=" : "",
			    s->calls);
			printf("%12s  %12s  %10s  ",
			    rbread_ge(a, sizeof a, lower), b, c);
			rbmon_esc_fputs(x.funcs[order[i]].name, stdout);
			putchar('\n');
		}
		rbread_lost_table(stdout, &x, "");
		rbread_dyn_table(stdout, &x, "");
	}
	free(order);
	free(r.st);
	free(r.active);
	free(tids.v);
	rbmon_filter_free(&fl);
	return rbread_done(&x, fflush(stdout) == 0 && !ferror(stdout));
}

