/* SPDX-License-Identifier: MIT */
/*
 * rbmon walk: a recording's streams as calls: names resolved once per
 * function, and a walker that turns one thread's records into entered and
 * left frames that always nest, across losses and to the end.
 */
#ifndef RBMON_WALK_H
#define RBMON_WALK_H

#include <stddef.h>
#include <stdint.h>

#include "monitor/core/model.h"
#include "monitor/history/recfile.h"
#include "monitor/core/symbols.h"

/* A function as the outputs name it: one per name, file and line. */
struct rp_func {
	char		*name;		/* demangled, or "0x..." */
	char		*file;		/* basename, "" if unknown */
	int		 line;		/* definition line, 0 if unknown */
	int		 named;		/* from rbtrace_push() */
};

/* What a stream kept and lost, as its walker's first pass counted. */
struct rp_count {
	uint64_t	 records;	/* kept, lost marks aside */
	uint64_t	 lost;		/* lost, as counted */
	int		 lost_unknown;	/* and gaps of unknown size */
	int		 walked;	/* counted */
};

/*
 * A recording opened for reading, and what its names resolve to.  Names
 * are looked up by file, not by process image: every object file is one
 * image of its own in snap, at bias 0, and an address of a stream is
 * looked up as its offset in the object of the stream's image that holds
 * it, so that a library loaded by a thousand processes is read once.
 */
struct rp_ctx {
	struct rbrec	 rec;
	struct rp_count	*counts;	/* per stream */
	struct rbmon_symbols *sy;
	struct rbmon_snapshot snap;	/* one object per file, at bias 0 */
	struct rbmon_process *files;	/* per file: a process of its image */
	struct rp_obj {
		uint64_t	 image, lo, hi, base;
		uint32_t	 file;	/* index in snap.objects and files */
	}		*objs;		/* the recording's, by image then lo */
	size_t		 nobjs;
	struct rbmon_process *procs;	/* one per stream: pid and image */
	struct rp_func	*funcs;
	size_t		 nfuncs, capfuncs;
	/* (image, address) -> function, and name -> function */
	struct rp_map {
		uint64_t	*k1, *k2;
		uint32_t	*v;
		size_t		 n, cap;
	}		 byaddr, bysite;
	struct rp_smap {
		char		**k;
		size_t		*klen;
		uint32_t	*v;
		size_t		 n, cap;
	}		 byname;
	uint64_t	 t0;		/* the earliest record's time, raw */
	int		 have_t0;
};

/* rp_frame.flags */
#define RP_F_ENTRY_LOST	0x1	/* its entry is not in the recording */
#define RP_F_NAMED	0x2	/* rbtrace_push() */

struct rp_frame {
	uint32_t	 func;		/* index in ctx->funcs */
	uint8_t		 flags;
	uint64_t	 fn, site;	/* raw, 0 when unknown */
	uint64_t	 start;		/* raw time */
	uint64_t	 cend;		/* when its last callee was left */
	uint64_t	 user;		/* the frame's number in the stream (0 on),
					   then the handler's to change */
	uint64_t	 aux;		/* the handler's, 0 at entry */
};

/* How a frame was left (rp_leave). */
#define RP_L_EXIT	0	/* its exit record */
#define RP_L_UNWOUND	1	/* an outer frame's exit came first */
#define RP_L_CUT	2	/* records were lost: closed at the last
				   time before the gap */
#define RP_L_OPEN	3	/* still running at the end of the stream */

struct rp_walk;

struct rp_handler {
	void	(*enter)(struct rp_walk *, struct rp_frame *, size_t);
	void	(*leave)(struct rp_walk *, struct rp_frame *, size_t,
		    uint64_t, int);
	void	(*mark)(struct rp_walk *, const struct rbrec_rec *, size_t);
	void	*arg;
};

struct rp_walk {
	struct rp_ctx	*ctx;
	size_t		 si;		/* stream index */
	const struct rbrec_stream *s;
	struct rbrec_cursor c;
	struct rbrec_rec peek;
	int		 have_peek, done;
	struct rp_frame	*stack;
	size_t		 n, cap;
	uint64_t	 last;		/* the last record's time, raw */
	int		 have_last;
	/* Frames whose entries a region will miss (see walk.c). */
	uint32_t	*plan;
	size_t		*plan_at;	/* region k: plan[plan_at[k]..[k+1]) */
	size_t		 nregions, capregions, region;
	int		 region_open;	/* its frames pushed already */
	const struct rp_handler *h;
	uint64_t	 entered;	/* frames entered so far */
};

int	rp_map_get(const struct rp_map *, uint64_t, uint64_t, uint32_t *);
void	rp_map_put(struct rp_map *, uint64_t, uint64_t, uint32_t);
void	rp_map_free(struct rp_map *);

int	rp_open(struct rp_ctx *, const char *, char **);
void	rp_close(struct rp_ctx *);
uint32_t rp_func_of(struct rp_ctx *, size_t, uint64_t);
uint32_t rp_func_named(struct rp_ctx *, const char *, const char *, int);
void	rp_site(struct rp_ctx *, size_t, uint64_t, const char **, int *);
int	rp_ns(const struct rp_ctx *, uint64_t, uint64_t *);
uint64_t rp_rel_ns(const struct rp_ctx *, uint64_t);

void	rp_walk_init(struct rp_walk *, struct rp_ctx *, size_t,
	    const struct rp_handler *);
int	rp_walk_step(struct rp_walk *);
const struct rbrec_rec *rp_walk_peek(struct rp_walk *);
void	rp_walk_finish(struct rp_walk *);
void	rp_walk_free(struct rp_walk *);

#endif /* RBMON_WALK_H */
