/* SPDX-License-Identifier: MIT */
/*
 * rbmon walk: a recording opened for the readers that walk its streams as
 * calls (calls.h), its names resolved once per function.
 */
#ifndef RBMON_WALK_H
#define RBMON_WALK_H

#include <stddef.h>
#include <stdint.h>

#include "monitor/core/model.h"
#include "monitor/history/recfile.h"
#include "monitor/core/symbols.h"

struct rbmon_filter;

/* A function as the outputs name it: one per name, file and line. */
struct rbwalk_func {
	char		*name;		/* demangled, or "0x..." */
	char		*file;		/* basename, "" if unknown */
	int		 line;		/* definition line, 0 if unknown */
	int		 named;		/* from rbtrace_push() */
};

/* What a stream kept and lost, as its walker's first pass counted. */
struct rbwalk_count {
	uint64_t	 records;	/* kept, lost marks aside */
	uint64_t	 lost;		/* lost, as counted */
	int		 lost_unknown;	/* and gaps of unknown size */
	int		 walked;	/* counted */
	/* Where it lost them (losses.c). */
	uint64_t	 gaps;		/* runs of records lost */
	uint64_t	 gap_ns;	/* between the records around them */
	uint64_t	 first_gap_ns;	/* the first's start, from t0 */
	uint64_t	 exits_lost;	/* frames closed at a gap */
	uint64_t	 entries_lost;	/* frames left without entry */
	uint64_t	 last;		/* the last record's time, raw */
	int		 have_last, in_gap, have_first_gap;
};

/*
 * A recording opened for reading, and what its names resolve to.  Names
 * are looked up by file, not by process image: every object file is one
 * image of its own in snap, at bias 0, and an address of a stream is
 * looked up as its offset in the object of the stream's image that holds
 * it, so that a library loaded by a thousand processes is read once.
 */
struct rbwalk_ctx {
	struct rbrec	 rec;
	struct rbwalk_count *counts;	/* per stream */
	struct rbmon_symbols *sy;
	struct rbmon_snapshot snap;	/* one object per file, at bias 0 */
	struct rbmon_process *files;	/* per file: a process of its image */
	struct rbwalk_obj {
		uint64_t	 image, lo, hi, base;
		uint32_t	 file;	/* index in snap.objects and files */
	}		*objs;		/* the recording's, by image then lo */
	size_t		 nobjs;
	struct rbmon_process *procs;	/* one per stream: pid and image */
	struct rbwalk_func *funcs;
	size_t		 nfuncs, capfuncs;
	/* (image, address) -> function, and name -> function */
	struct rbwalk_map {
		uint64_t	*k1, *k2;
		uint32_t	*v;
		size_t		 n, cap;
	}		 byaddr, bysite;
	struct rbwalk_smap {
		char		**k;
		size_t		*klen;
		uint32_t	*v;
		size_t		 n, cap;
	}		 byname;
	uint64_t	 t0;		/* the earliest record's time, raw */
	int		 have_t0;
	struct rbmon_filter *filter;	/* the readers' filters, or NULL */
};

int	rbwalk_map_get(const struct rbwalk_map *, uint64_t, uint64_t,
	    uint32_t *);
void	rbwalk_map_put(struct rbwalk_map *, uint64_t, uint64_t, uint32_t);
void	rbwalk_map_free(struct rbwalk_map *);

int	rbwalk_open(struct rbwalk_ctx *, const char *, char **);
void	rbwalk_close(struct rbwalk_ctx *);
uint32_t rbwalk_func_of(struct rbwalk_ctx *, size_t, uint64_t);
void	rbwalk_name_at(struct rbwalk_ctx *, uint64_t, uint64_t, char *,
	    size_t);
uint32_t rbwalk_func_named(struct rbwalk_ctx *, const char *, const char *,
	    int);
void	rbwalk_site(struct rbwalk_ctx *, size_t, uint64_t, const char **,
	    int *);
int	rbwalk_ns(const struct rbwalk_ctx *, uint64_t, uint64_t *);
uint64_t rbwalk_rel_ns(const struct rbwalk_ctx *, uint64_t);

#endif /* RBMON_WALK_H */
