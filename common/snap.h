/* SPDX-License-Identifier: MIT */
/*
 * common/snap.h - trigger snapshots (rbtrace(5), "SNAPSHOTS"): the trigger's
 * rules, the freeze and the thaw, the same for the library (a signal
 * handler, a watch, a capture) and rbmon (snapshot --now, the writer).
 * Async-signal-safe: loads, stores, atomics, kill(2) and a futex wake.
 */
#ifndef RB_COMMON_SNAP_H
#define RB_COMMON_SNAP_H

#include <stdbool.h>
#include <stdint.h>

#include "common/defs.h"
#include "rbtrace/format.h"

/* What a trigger came to. */
#define RB_SNAP_TAKEN		0	/* frozen, the writer woken */
#define RB_SNAP_MISSED		1	/* no writer attached: nothing frozen */
#define RB_SNAP_SUPPRESSED	2	/* one in flight, or too soon */

/* rb_snap_req.flags */
#define RB_SNAP_REQ_FORCE	0x1u	/* asked for by hand: no spacing */

#define RB_SNAP_INTERVAL_MAX_NS	(3600ull * 1000000000ull)

struct rb_snap_req {
	uint32_t	reason;		/* RB_SNAPR_* */
	int32_t		pid;		/* the process to freeze */
	int32_t		tid;
	uint32_t	flags;		/* RB_SNAP_REQ_* */
	uint64_t	fn, arg;
	uint64_t	ts;		/* the file's clock units */
};

/* The trigger's fields, as a reader copies them. */
struct rb_snap_info {
	uint32_t	reason;
	int32_t		pid, tid;
	uint64_t	fn, arg, ts, ns;
};

RB_HIDDEN int	rb_snap_trigger(void *, const struct rb_header *,
		    const struct rb_snap_req *, uint64_t);
RB_HIDDEN uint32_t rb_snap_thaw(void *, const struct rb_header *);
RB_HIDDEN bool	rb_snap_heal(void *, const struct rb_header *, uint64_t);
RB_HIDDEN bool	rb_snap_writer_gone(int32_t);
RB_HIDDEN int	rb_snap_read(const struct rb_header *, struct rb_snap_info *);
RB_HIDDEN const char *rb_snap_reason_name(uint32_t);

#endif /* RB_COMMON_SNAP_H */
