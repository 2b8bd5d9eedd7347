/* SPDX-License-Identifier: MIT */
/* rbmon export --speedscope: one evented profile per thread, frames shared. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "monitor/core/dump.h"
#include "monitor/core/model.h"
#include "monitor/history/calls.h"
#include "monitor/history/export.h"
#include "monitor/history/readback.h"
#include "monitor/history/walk.h"
#include "monitor/util/escape.h"

/* speedscope: one evented profile per thread, frames shared. */
static void
ss_event(struct rbcalls_walk *w, const char *type, uint32_t func, uint64_t ts)
{
	struct rbexp_export	*e = w->h->arg;
	uint64_t		 ns = rbwalk_rel_ns(e->x, ts);

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
ss_enter(struct rbcalls_walk *w, struct rbcalls_frame *f, size_t depth)
{
	(void)depth;
	ss_event(w, "O", f->func, f->start);
}

static void
ss_leave(struct rbcalls_walk *w, struct rbcalls_frame *f, size_t depth,
    uint64_t end, int how)
{
	(void)depth;
	(void)how;
	ss_event(w, "C", f->func, end);
}

void
rbexp_speedscope(struct rbexp_export *e, const struct rbmon_tids *tids)
{
	struct rbcalls_handler	 h = { ss_enter, ss_leave, NULL, e };
	struct rbwalk_ctx	*x = e->x;
	struct rbcalls_walk	 w;
	struct rbread_dyn	 d;
	char			*t, *title;
	char			 name[RB_THREAD_NAME_MAX + 64];
	char			 label[RB_THREAD_NAME_MAX + 128];
	size_t			 i, n = 0;

	fputs("{\"$schema\": \"https://www.speedscope.app/file-format-"
	    "schema.json\",\n\"exporter\": \"rbtrace\", \"name\": ", e->out);
	/* The program, with what its processes did not trace. */
	rbread_dyn(x, -1, &d);
	t = rbread_dyn_text(&d, RBREAD_DYN_SHOWN, 1);
	if (t != NULL) {
		rbmon_xasprintf(&title, "%s (%s)", x->rec.info.program, t);
		rbmon_json_string(e->out, title);
		free(title);
		free(t);
	} else {
		rbmon_json_string(e->out, x->rec.info.program);
	}
	rbread_dyn_free(&d);
	fputs(",\n\"activeProfileIndex\": 0,\n\"profiles\": [", e->out);
	for (i = 0; i < x->rec.nstreams; i++) {
		const struct rbrec_stream	*s = &x->rec.streams[i];

		if (!rbmon_cmd_tid_wanted(tids, s->info.tid))
			continue;
		rbcalls_walk_init(&w, x, i, &h);
		snprintf(name, sizeof name, "pid %d, tid %d", (int)s->info.pid,
		    (int)s->info.tid);
		rbread_thread_label(label, sizeof label, x, i,
		    rbread_thread_name(s), name);
		fputs(n++ == 0 ? "\n{" : ",\n{", e->out);
		fputs("\"type\": \"evented\", \"name\": ", e->out);
		rbmon_json_string(e->out, label);
		fputs(", \"unit\": \"nanoseconds\", \"events\": [", e->out);
		e->first = 1;
		e->have_lo = 0;
		e->lo = e->hi = 0;
		while (rbcalls_walk_step(&w))
			;
		rbcalls_walk_finish(&w);
		rbcalls_walk_free(&w);
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

