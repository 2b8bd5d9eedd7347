/* SPDX-License-Identifier: MIT */
/*
 * rbmon export --folded: a recording as folded stacks (flamegraph.pl,
 * inferno, speedscope), each weighed by its self time in ns.
 */
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
#include "monitor/history/profile.h"

/* Folded stacks: "program (pid);thread (tid);outer;...;inner NS". */
static uint32_t
rbexp_node(struct rbexp_export *e, uint32_t parent, uint32_t func)
{
	uint32_t	v;

	if (rbwalk_map_get(&e->kids, parent, func, &v))
		return v;
	if (e->nnodes == e->capnodes) {
		e->capnodes = e->capnodes == 0 ? 1024 : e->capnodes * 2;
		e->nodes = rbmon_xreallocarray(e->nodes, e->capnodes,
		    sizeof *e->nodes);
	}
	e->nodes[e->nnodes].parent = parent;
	e->nodes[e->nnodes].func = func;
	e->nodes[e->nnodes].self = 0;
	rbwalk_map_put(&e->kids, parent, func, (uint32_t)e->nnodes);
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
folded_enter(struct rbcalls_walk *w, struct rbcalls_frame *f, size_t depth)
{
	struct rbexp_export	*e = w->h->arg;
	uint32_t		 parent;

	if (depth < e->depth) {
		parent = depth == 0 ? e->root :
		    (uint32_t)rbcalls_walk_frame(w, depth - 1)->user;
	} else {
		parent = rbexp_node(e,
		    (uint32_t)rbcalls_walk_frame(w, e->depth - 1)->user,
		    e->fold);
		e->folded = 1;
	}
	f->user = rbexp_node(e, parent, f->func);
}

static void
folded_leave(struct rbcalls_walk *w, struct rbcalls_frame *f, size_t depth,
    uint64_t end, int how)
{
	struct rbexp_export	*e = w->h->arg;
	uint64_t		 d = rbwalk_rel_ns(e->x, end) - rbwalk_rel_ns(e->x, f->start);

	(void)how;
	/* In ns as the Chrome export has them: the weights add up exactly. */
	e->nodes[f->user].self += d > f->aux ? d - f->aux : 0;
	if (depth > 0)
		rbcalls_walk_frame(w, depth - 1)->aux += d;
}

/* A node's path, outermost first; @path holds e->depth + 4 nodes. */
static void
folded_path(struct rbexp_export *e, uint32_t node, uint32_t *path)
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

void
rbexp_folded(struct rbexp_export *e, const struct rbmon_tids *tids)
{
	struct rbcalls_handler	 h = { folded_enter, folded_leave, NULL,
				    e };
	struct rbwalk_ctx	*x = e->x;
	struct rbcalls_walk	 w;
	char			 name[RB_PROGRAM_MAX + RB_THREAD_NAME_MAX + 128];
	char			 label[32];
	uint32_t		 pnode, f, *path;
	size_t			 i;

	snprintf(name, sizeof name, "[folded: frames deeper than %zu]",
	    e->depth);
	e->fold = rbwalk_func_named(x, name, "", -3);
	for (i = 0; i < x->rec.nstreams; i++) {
		const struct rbrec_stream	*s = &x->rec.streams[i];

		if (!rbmon_cmd_tid_wanted(tids, s->info.tid))
			continue;
		snprintf(name, sizeof name, "%s (%d)", x->rec.info.program,
		    (int)s->info.pid);
		f = rbwalk_func_named(x, name, "", -1);
		pnode = rbexp_node(e, UINT32_MAX, f);
		rbcalls_walk_init(&w, x, i, &h);
		snprintf(label, sizeof label, "%d", (int)s->info.tid);
		rbread_thread_label(name, sizeof name, x, i,
		    rbread_thread_name(s), label);
		f = rbwalk_func_named(x, name, "", -2);
		e->root = rbexp_node(e, pnode, f);
		while (rbcalls_walk_step(&w))
			;
		rbcalls_walk_finish(&w);
		rbcalls_walk_free(&w);
	}
	/* Program, thread, e->depth frames, the fold and one more. */
	path = rbmon_xcalloc(e->depth + 4, sizeof *path);
	for (i = 0; i < e->nnodes; i++) {
		if (e->nodes[i].self == 0)
			continue;
		folded_path(e, (uint32_t)i, path);
		fprintf(e->out, " %" PRIu64 "\n", e->nodes[i].self);
	}
	free(path);
}

