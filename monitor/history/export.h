/* SPDX-License-Identifier: MIT */
/*
 * rbmon exports: a recording in the formats people view traces in, each
 * writer in its file: Chrome's Trace Event JSON (chrome.c), folded stacks
 * (folded.c), speedscope's evented profiles (speedscope.c) and Perfetto's
 * protobuf (perfetto.c).  They walk the streams with walk.c, keep one
 * thread's stack in memory and write as they go.
 */
#ifndef RBMON_EXPORT_H
#define RBMON_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "monitor/history/walk.h"
#include "monitor/util/util.h"

/* Frames a folded stack keeps by default (export -D), about perf's 127. */
#define RBEXP_FOLDED_DEPTH	128

struct rbexp_export {
	struct rbwalk_ctx *x;
	FILE		*out;
	int		 first;		/* no event written yet */
	/* folded: a tree of paths, self time per node */
	struct rbwalk_map kids;		/* (parent node, func) -> node */
	struct rbexp_node {
		uint32_t	 parent, func;
		uint64_t	 self;
	}		*nodes;
	size_t		 nnodes, capnodes;
	uint32_t	 root;		/* the stream's root node */
	size_t		 depth;		/* frames a path keeps (-D) */
	uint32_t	 fold;		/* the function deeper frames go under */
	int		 folded;	/* some did */
	/* speedscope: frames used, profile bounds */
	uint64_t	 lo, hi;
	int		 have_lo;
};


/*
 * An export's size, said before it is written when large (estimate.c):
 * the records the filters keep, times what one costs in the format.
 */
#define RBEXP_WARN_DEFAULT	(256ull << 20)	/* bytes; RBMON_EXPORT_WARN */

uint64_t rbexp_estimate(struct rbwalk_ctx *, const struct rbmon_tids *,
	    uint64_t);
void	rbexp_size_say(const char *, struct rbwalk_ctx *,
	    const struct rbmon_tids *, int);

void	rbexp_chrome(struct rbexp_export *, const struct rbmon_tids *);
void	rbexp_folded(struct rbexp_export *, const struct rbmon_tids *);
void	rbexp_speedscope(struct rbexp_export *, const struct rbmon_tids *);

#endif /* RBMON_EXPORT_H */
