/*
 * common/evlog.h - the event log's ring of records: one writer (the thread
 * that owns it), any number of readers that copy it without stopping the
 * writer, in another process too (the log lives in shared memory).
 *
 * The writer stores a record, then publishes the count of records stored
 * (head) with release; a reader copies a window, re-reads head and keeps
 * only what the writer cannot have been overwriting meanwhile.  Policies
 * are DTrace's: ring (overwrite the oldest), fill (keep the first, then
 * drop), drain (a consumer advances tail; the writer never overwrites
 * what is not consumed and drops when full, marking the gap with a lost
 * record once there is room).  Accounting, for every log:
 *	written == consumed + overwritten + dropped + still_buffered
 * where written counts every event offered, dropped those never stored.
 */
#ifndef RB_COMMON_EVLOG_H
#define RB_COMMON_EVLOG_H

#include <stddef.h>
#include <stdint.h>

#include "common/defs.h"

enum rb_ev_policy {
	RB_EV_RING,
	RB_EV_FILL,
	RB_EV_DRAIN,
};

/* What a record says. */
enum rb_ev_kind {
	RB_EV_NONE,
	RB_EV_ENTRY,		/* fn entered */
	RB_EV_EXIT,		/* fn left */
	RB_EV_LOST,		/* arg: events dropped just before this one */
};

/* One record: 32 bytes, written by the log's owner only. */
struct rb_event {
	uint64_t	ts;		/* the ring's clock */
	uint64_t	fn;		/* function, or what the kind says */
	uint64_t	arg;		/* call site; for RB_EV_LOST, the count */
	uint32_t	kind;		/* enum rb_ev_kind */
	uint32_t	pad;
};

/*
 * The log's control words, next to its records.  head, dropped and lost
 * are the writer's; tail is the consumer's (drain).
 */
struct rb_evlog {
	uint64_t	head;		/* records stored, ever (release) */
	uint64_t	tail;		/* drain: records consumed (release) */
	uint64_t	dropped;	/* events offered and not stored */
	uint64_t	pending_lost;	/* drain: dropped, not yet marked */
	uint32_t	size;		/* records, a power of two */
	uint32_t	policy;		/* enum rb_ev_policy */
	uint32_t	off;		/* recording off: nothing is offered */
	uint32_t	pad;
	/* struct rb_event records[size] follow */
};

static inline struct rb_event *
rb_evlog_records(struct rb_evlog *l)
{
	return (struct rb_event *)(l + 1);
}

/* What one copy of a log gave. */
struct rb_ev_window {
	uint64_t	first;		/* index of the first record copied */
	size_t		n;		/* records copied, whole */
	uint64_t	head;		/* head after the copy */
	uint64_t	overwritten;	/* records lost to the writer, ever */
	uint64_t	dropped;	/* events never stored, ever */
};

RB_HIDDEN void	rb_evlog_init(struct rb_evlog *, uint32_t, enum rb_ev_policy);
RB_HIDDEN int	rb_evlog_put(struct rb_evlog *, uint32_t, uint64_t, uint64_t,
		    uint64_t);
RB_HIDDEN size_t rb_evlog_copy(const struct rb_evlog *, uint64_t,
		    struct rb_event *, size_t, struct rb_ev_window *);
RB_HIDDEN void	rb_evlog_consume(struct rb_evlog *, uint64_t);

#endif /* RB_COMMON_EVLOG_H */
