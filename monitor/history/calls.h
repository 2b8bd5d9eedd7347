/* SPDX-License-Identifier: MIT */
/*
 * rbmon calls: the one engine that rebuilds calls from a thread's records,
 * whether they come from a recording's stream or from a live copy of its
 * event log; every reader of records sees frames nest the same way.
 */
#ifndef RBMON_CALLS_H
#define RBMON_CALLS_H

#include <stddef.h>
#include <stdint.h>

#include "common/evlog.h"
#include "monitor/history/recfile.h"
#include "monitor/util/opts.h"

struct rbwalk_ctx;

/* rbcalls_frame.flags */
#define RBCALLS_F_ENTRY_LOST	0x1	/* its entry is not in the records */
#define RBCALLS_F_NAMED	0x2	/* rbtrace_push() */
#define RBCALLS_F_HIDDEN	0x4	/* not told; its callees may be */
#define RBCALLS_F_PRUNED	0x8	/* not told, nor any of its callees */

struct rbcalls_frame {
	uint32_t	 func;		/* index in ctx->funcs (0: a live copy) */
	uint8_t		 flags;
	uint64_t	 fn, site;	/* raw, 0 when unknown */
	uint64_t	 start;		/* raw time */
	uint64_t	 cend;		/* when its last callee was left */
	uint64_t	 user;		/* the frame's number in the stream (0 on),
					   then the handler's to change */
	uint64_t	 aux;		/* the handler's, 0 at entry */
};

/* How a frame was left (rbcalls_handler.leave). */
#define RBCALLS_L_EXIT	0	/* its exit record */
#define RBCALLS_L_UNWOUND	1	/* an outer frame's exit came first */
#define RBCALLS_L_CUT	2	/* records were lost: closed at the last
				   time before the gap */
#define RBCALLS_L_OPEN	3	/* still running at the end of the stream */

struct rbcalls_walk;

/*
 * The filters (opts.h, struct rbmon_filter): the engine tells the handler
 * only the frames they keep, at the depth of the frames kept around them,
 * and the marks inside those.  A recording's walks take them from
 * rbwalk_ctx.filter.
 */
int	rbcalls_filter_active(const struct rbmon_filter *);
int	rbcalls_filter_match(const char *, const char *);
void	rbmon_filter_free(struct rbmon_filter *);

/*
 * What the engine tells its user: a frame entered (at @depth, 0 the
 * outermost), a frame left (at time @end, how as RBCALLS_L_*), and every other
 * record (line marks, stops, switches, gaps: after the frames a gap cuts).
 */
struct rbcalls_handler {
	void	(*enter)(struct rbcalls_walk *, struct rbcalls_frame *, size_t);
	void	(*leave)(struct rbcalls_walk *, struct rbcalls_frame *, size_t,
		    uint64_t, int);
	void	(*mark)(struct rbcalls_walk *, const struct rbrec_rec *,
		    size_t);
	void	*arg;
};

struct rbcalls_walk {
	/* The source: a recording's stream ... */
	struct rbwalk_ctx *ctx;		/* NULL: a live copy */
	size_t		 si;		/* stream index */
	const struct rbrec_stream *s;
	struct rbrec_cursor c;
	/* ... or a live copy of an event log, fed in pieces */
	const struct rb_event *ev;
	size_t		 nev, iev;
	uint64_t	 evfirst;	/* ev[0]'s index in the log */
	struct rbrec_rec peek;
	int		 have_peek, done;
	/* The engine. */
	struct rbcalls_frame *stack;
	size_t		 n, cap;
	uint64_t	 last;		/* the last record's time, raw */
	int		 have_last;
	/* Frames whose entries a region will miss (see calls.c). */
	uint32_t	*plan;
	size_t		 capplan;
	size_t		*plan_at;	/* region k: plan[plan_at[k]..[k+1]) */
	size_t		 nregions, capregions, region;
	int		 region_open;	/* its frames pushed already */
	int		 planning;	/* the first pass: nothing resolved */
	const struct rbcalls_handler *h;
	uint64_t	 entered;	/* frames entered so far */
	const struct rbrec_rec *rec;	/* the record being taken */
	/* While a named frame is entered: its text (rbtrace_push()). */
	const char	*named_name, *named_file;
	int		 named_whole;	/* every text record it announced */
	/* A filter (ctx->filter): the frames told, by stack index. */
	struct rbmon_filter *filter;
	size_t		*vis;
	size_t		 nvis, capvis;
	size_t		 froot;		/* -F's frame: its stack index + 1 */
	unsigned char	*keep;		/* --min-duration: frames long enough,
					   by number */
	size_t		 capkeep;
};

/*
 * The frame told at @depth (the handler's), whether or not a filter hides
 * frames between it and the outermost.
 */
static inline struct rbcalls_frame *
rbcalls_walk_frame(struct rbcalls_walk *w, size_t depth)
{
	return w->filter != NULL ? &w->stack[w->vis[depth]] : &w->stack[depth];
}

/* A recording's stream (walk.h: rbwalk_open()). */
void	rbcalls_walk_init(struct rbcalls_walk *, struct rbwalk_ctx *, size_t,
	    const struct rbcalls_handler *);
/* A live event log: records fed copy by copy, gaps between them. */
void	rbcalls_walk_live(struct rbcalls_walk *,
	    const struct rbcalls_handler *);
void	rbcalls_walk_feed(struct rbcalls_walk *, const struct rb_event *,
	    size_t, uint64_t);
void	rbcalls_walk_gap(struct rbcalls_walk *, uint64_t, uint64_t);

int	rbcalls_walk_step(struct rbcalls_walk *);
const struct rbrec_rec *rbcalls_walk_peek(struct rbcalls_walk *);
void	rbcalls_walk_finish(struct rbcalls_walk *);
void	rbcalls_walk_free(struct rbcalls_walk *);

#endif /* RBMON_CALLS_H */
