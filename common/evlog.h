/* SPDX-License-Identifier: MIT */
/*
 * common/evlog.h - the event log's ring of records (rbtrace/format.h,
 * struct rb_evlog): one writer (the thread that owns it), any number of
 * readers that copy it without stopping the writer, in another process too
 * (the log lives in shared memory).
 *
 * The writer stores a record, then publishes the count of records stored
 * (head) with release; a reader copies a window, re-reads head and keeps
 * only what the writer cannot have been overwriting meanwhile.  Policies
 * are DTrace's: ring (overwrite the oldest), fill (keep the first, then
 * drop), drain (a consumer advances tail; the writer never overwrites
 * what is not consumed and drops when full, marking the gap with a lost
 * record once there is room).  Accounting, in records, for every log:
 *	written == consumed + overwritten + dropped + still_buffered
 * where written counts every record offered, dropped those never stored,
 * and a short call taken back (rbtrace(5), "EVENT LOG", "Short calls")
 * counts its two records in neither: written - 2 * rewinds on the left.
 *
 * Blocking (drain, rbtrace(5), "EVENT LOG"): when the consumer asks for it
 * in rb_header.ev_consumer, an owner whose log is full waits for room, a
 * bounded time, instead of dropping; never for a consumer that is gone.
 *
 * The size and the policy are never read from the shared words: both
 * sides take them from their own validated copy of the header (struct
 * rb_evq), so a stray write into the file cannot send an index outside
 * the records.
 */
#ifndef RB_COMMON_EVLOG_H
#define RB_COMMON_EVLOG_H

#include <stddef.h>
#include <stdint.h>

#include "common/defs.h"
#include "rbtrace/format.h"

/* A log as one side sees it: the shared words, its private geometry. */
struct rb_evq {
	struct rb_evlog	*log;
	struct rb_event	*rec;
	uint32_t	 size;		/* records, a power of two, or 0 */
	uint32_t	 policy;	/* RB_POLICY_* */
	uint64_t	*consumer;	/* rb_header.ev_consumer: the owner may
					   wait when full (drain); NULL never */
};

/* What one copy of a log gave. */
struct rb_ev_window {
	uint64_t	first;		/* index of the first record copied */
	size_t		n;		/* records copied, whole */
	uint64_t	head;		/* head after the copy */
	uint64_t	tail;		/* drain: tail after the copy */
	uint64_t	overwritten;	/* ring: records lost to the writer, ever */
	uint64_t	dropped;	/* records never stored, ever */
	uint64_t	rewinds;	/* short calls taken back, ever */
	size_t		settled;	/* of n, the first that no rewind can
					   take back any more (all but a run
					   of entries at the end) */
};

RB_HIDDEN int	rb_policy_parse(const char *);
RB_HIDDEN const char *rb_policy_name(uint32_t);
RB_HIDDEN void	rb_evq_attach(struct rb_evq *, struct rb_evlog *, uint32_t,
		    uint32_t);
RB_HIDDEN void	rb_evq_consumer(struct rb_evq *, uint64_t *);
RB_HIDDEN void	rb_evlog_reset(const struct rb_evq *);
RB_HIDDEN int	rb_evlog_put(const struct rb_evq *, uint32_t, uint64_t,
		    uint64_t, uint64_t);
RB_HIDDEN int	rb_evlog_full(const struct rb_evq *, uint32_t);
RB_HIDDEN void	rb_evlog_drop(const struct rb_evq *, uint32_t);
RB_HIDDEN int	rb_evlog_putv(const struct rb_evq *, const struct rb_event *,
		    uint32_t);
RB_HIDDEN void	rb_evlog_rewind(const struct rb_evq *, uint64_t);
RB_HIDDEN size_t rb_evlog_copy(const struct rb_evq *, uint64_t,
		    struct rb_event *, size_t, struct rb_ev_window *);
RB_HIDDEN int	rb_evlog_consume(const struct rb_evq *, uint64_t, uint64_t);
RB_HIDDEN int	rb_evlog_wake(const struct rb_evq *);

#endif /* RB_COMMON_EVLOG_H */
