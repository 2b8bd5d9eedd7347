/* SPDX-License-Identifier: MIT */
/*
 * rbmon latency: per function, the durations of its whole calls (entry to
 * exit) as the calls engine rebuilds them, from a recording or from live
 * copies of the event logs: calls, total, p50, p99, max and a log2
 * histogram (DTrace's quantize).
 */
#ifndef RBMON_LATENCY_H
#define RBMON_LATENCY_H

#include <stddef.h>
#include <stdint.h>

#include "monitor/core/model.h"
#include "monitor/core/symbols.h"
#include "monitor/history/events.h"
#include "monitor/history/walk.h"

/* Bucket 0 holds 0 ns, bucket b (1..64) [2^(b-1), 2^b) ns. */
#define RBLAT_BUCKETS	65
/* Durations kept for exact percentiles, all functions together (64 MiB). */
#define RBLAT_KEEP_MAX	((size_t)1 << 23)

struct rblat_func {
	char		*name;
	char		*file;		/* "" if unknown */
	uint64_t	 calls;		/* timed: left by their exit (or unwound) */
	uint64_t	 total_ns, max_ns;
	uint64_t	 unwound;	/* of calls: left without their exit hook */
	uint64_t	 cut;		/* exit perhaps among records lost */
	uint64_t	 open;		/* still running at the end */
	uint64_t	 entry_lost;	/* exit seen, entry not */
	uint64_t	 hist[RBLAT_BUCKETS];
	uint64_t	*durs;		/* every timed call's, unless approx */
	size_t		 ndurs, capdurs;
	int		 approx;	/* past RBLAT_KEEP_MAX: from hist */
	uint64_t	 p50, p99;	/* rblat_finish() */
};

struct rblat {
	struct rblat_func *f;
	size_t		 n, cap;
	uint32_t	*slots;		/* (name, file) -> index + 1 */
	size_t		 nslots;
	size_t		 kept, keep_max;
};

enum rblat_sort {
	RBLAT_SORT_CALLS,
	RBLAT_SORT_TOTAL,
	RBLAT_SORT_P50,
	RBLAT_SORT_P99,
	RBLAT_SORT_MAX,
	RBLAT_SORT_NAME,
	RBLAT_SORTS
};

void	rblat_init(struct rblat *, size_t);
void	rblat_free(struct rblat *);
void	rblat_reset(struct rblat *);
uint32_t rblat_func(struct rblat *, const char *, const char *);
void	rblat_call(struct rblat *, uint32_t, uint64_t, int);
void	rblat_entry_lost(struct rblat *, uint32_t);
void	rblat_finish(struct rblat *);
unsigned rblat_bucket(uint64_t);
uint64_t rblat_bucket_lo(unsigned);
uint64_t rblat_quantile(const uint64_t *, size_t, unsigned);
uint64_t rblat_hist_quantile(const uint64_t *, uint64_t, unsigned, uint64_t);
size_t	rblat_order(const struct rblat *, enum rblat_sort, uint32_t *);
int	rblat_sort_parse(const char *);
const char *rblat_sort_name(enum rblat_sort);
void	rblat_time(char *, size_t, uint64_t);
size_t	rblat_hist_lines(const struct rblat_func *, int, char ***);

/* The walk of a recording's streams into a table. */
int	rblat_recording(struct rblat *, struct rbwalk_ctx *,
	    int (*)(void *, int32_t, int32_t), void *);

/*
 * Live copies of every thread's event log, pass after pass: only the
 * records new since the last pass are fed to the calls engine; what the
 * writer overwrote in between is a gap (lost, and the calls open across
 * it cut).  Calls are counted in tab, or handed to call() if it is set.
 */
struct rblat_lthread {
	uint32_t	 ring;
	uint64_t	 gen;
	int32_t		 pid, tid;
	uint64_t	 next;		/* the next record's index */
	uint64_t	 dropped0;	/* ev_dropped when first seen */
	uint64_t	 dropped;	/* ... and since */
	int		 seen;		/* in this pass's snapshot */
	unsigned	 unseen;	/* passes since it last was */
	int		 drop;		/* to forget, this pass */
	struct rbcalls_walk w;
};

struct rblat_live {
	struct rblat	*tab;
	struct rbmon_model *m;
	struct rbmon_symbols *sy;
	int		(*wanted)(void *, int32_t, int32_t);	/* pid, tid */
	void		(*call)(void *, uint32_t, uint64_t, uint64_t, int);
	void		*arg;
	struct rblat_lthread **th;
	size_t		 nth, capth;
	struct rbmon_evcopy c;
	struct rbwalk_map byaddr;	/* (image, fn) -> function */
	struct rbcalls_handler h;
	int		 started;	/* the first pass skips what is there */
	/* the pass's */
	const struct rbmon_snapshot *s;
	const struct rbmon_process *p;
	const struct rbmon_clock *clk;
	/* since the first pass */
	uint64_t	 records;	/* copied */
	uint64_t	 lost;		/* overwritten before a copy */
	uint64_t	 dropped;	/* never stored (log full) */
	uint64_t	 cut;		/* calls cut by a gap */
	uint64_t	 torn;		/* copies of rings taken meanwhile */
	size_t		 threads;	/* followed */
};

void	rblat_live_init(struct rblat_live *, struct rblat *,
	    struct rbmon_model *, struct rbmon_symbols *);
void	rblat_live_pass(struct rblat_live *, const struct rbmon_snapshot *,
	    const struct rbmon_clock *);
void	rblat_live_free(struct rblat_live *);

#endif /* RBMON_LATENCY_H */
