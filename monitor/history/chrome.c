/* SPDX-License-Identifier: MIT */
/*
 * rbmon export --chrome: a recording as Chrome's Trace Event JSON
 * (Perfetto UI, chrome://tracing, speedscope): complete events in µs.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/core/dump.h"
#include "monitor/core/model.h"
#include "monitor/history/calls.h"
#include "monitor/history/export.h"
#include "monitor/history/readback.h"
#include "monitor/history/walk.h"
#include "monitor/util/escape.h"

/* A time in µs for Chrome JSON, to the ns, from the recording's start. */
static void
chrome_us(FILE *out, const struct rbwalk_ctx *x, uint64_t ts)
{
	uint64_t	ns = rbwalk_rel_ns(x, ts);

	fprintf(out, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
}

static void
chrome_leave(struct rbcalls_walk *w, struct rbcalls_frame *f, size_t depth,
    uint64_t end, int how)
{
	static const char *const note[] = {
		[RBCALLS_L_EXIT] = NULL, [RBCALLS_L_UNWOUND] = "unwound",
		[RBCALLS_L_CUT] = "cut", [RBCALLS_L_OPEN] = "open",
	};
	struct rbexp_export	*e = w->h->arg;
	const struct rbwalk_func *fn = &e->x->funcs[f->func];
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
	chrome_us(e->out, e->x, f->start);
	d = rbwalk_rel_ns(e->x, end) - rbwalk_rel_ns(e->x, f->start);
	fprintf(e->out, ", \"dur\": %" PRIu64 ".%03" PRIu64 ", \"pid\": %d, "
	    "\"tid\": %d, \"args\": {", d / 1000, d % 1000,
	    (int)w->s->info.pid, (int)w->s->info.tid);
	fputs("\"file\": ", e->out);
	rbmon_json_string(e->out, fn->file);
	fprintf(e->out, ", \"line\": %d", fn->line);
	if (f->site != 0 && !fn->named) {
		rbwalk_site(e->x, w->si, f->site, &cf, &cl);
		fputs(", \"call_file\": ", e->out);
		rbmon_json_string(e->out, cf);
		fprintf(e->out, ", \"call_line\": %d", cl);
	}
	if (f->flags & RBCALLS_F_ENTRY_LOST)
		fputs(", \"entry_lost\": true", e->out);
	if (note[how] != NULL)
		fprintf(e->out, ", \"%s\": true", note[how]);
	fputs("}}", e->out);
}

static void
chrome_mark(struct rbcalls_walk *w, const struct rbrec_rec *k, size_t depth)
{
	struct rbexp_export	*e = w->h->arg;
	char			 name[64];

	(void)depth;
	if (rbread_mark_name(name, sizeof name, k) != 0)
		return;
	fputs(e->first ? "\n" : ",\n", e->out);
	e->first = 0;
	fputs("{\"name\": ", e->out);
	rbmon_json_string(e->out, name);
	fputs(", \"cat\": \"rbtrace\", \"ph\": \"i\", \"s\": \"t\", \"ts\": ",
	    e->out);
	chrome_us(e->out, e->x, k->lost ? w->last : k->e.ts);
	fprintf(e->out, ", \"pid\": %d, \"tid\": %d}", (int)w->s->info.pid,
	    (int)w->s->info.tid);
}

static void
chrome_meta(struct rbexp_export *e, const char *what, int pid, int tid,
    const char *name)
{
	fputs(e->first ? "\n" : ",\n", e->out);
	e->first = 0;
	fprintf(e->out, "{\"name\": \"%s\", \"ph\": \"M\", \"pid\": %d, "
	    "\"tid\": %d, \"args\": {\"name\": ", what, pid, tid);
	rbmon_json_string(e->out, name);
	fputs("}}", e->out);
}

/* "program (pid)", with what the process did not trace. */
static void
chrome_process(struct rbexp_export *e, int32_t pid)
{
	struct rbread_dyn	 d;
	char			*t, *name;

	rbread_dyn(e->x, pid, &d);
	t = rbread_dyn_text(&d, RBREAD_DYN_SHOWN, 1);
	if (t != NULL)
		rbmon_xasprintf(&name, "%s (%d; %s)", e->x->rec.info.program,
		    (int)pid, t);
	else
		rbmon_xasprintf(&name, "%s (%d)", e->x->rec.info.program,
		    (int)pid);
	chrome_meta(e, "process_name", pid, 0, name);
	free(name);
	free(t);
	rbread_dyn_free(&d);
}

void
rbexp_chrome(struct rbexp_export *e, const struct rbmon_tids *tids)
{
	struct rbcalls_handler	 h = { NULL, chrome_leave, chrome_mark,
				    e };
	struct rbwalk_ctx	*x = e->x;
	struct rbcalls_walk	 w;
	struct rbwalk_map	 pids;	/* (pid, 0): named already */
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
		if (!rbwalk_map_get(&pids, (uint32_t)s->info.pid, 0, &v)) {
			rbwalk_map_put(&pids, (uint32_t)s->info.pid, 0, 0);
			chrome_process(e, s->info.pid);
		}
		/* Its first pass counts what it lost, for its name. */
		rbcalls_walk_init(&w, x, i, &h);
		rbread_thread_label(label, sizeof label, x, i,
		    rbread_thread_name(s), NULL);
		chrome_meta(e, "thread_name", s->info.pid, s->info.tid,
		    label);
		while (rbcalls_walk_step(&w))
			;
		rbcalls_walk_finish(&w);
		rbcalls_walk_free(&w);
	}
	rbwalk_map_free(&pids);
	/* Last: what the walk counted. */
	fputs("\n], \"otherData\": {\"program\": ", e->out);
	rbmon_json_string(e->out, x->rec.info.program);
	fputs(", \"recorded_by\": \"rbtrace\"", e->out);
	rbread_lost_json(e->out, x);
	rbread_dyn_json(e->out, x);
	fputs("}}\n", e->out);
}

