/* SPDX-License-Identifier: MIT */
/*
 * rbmon snapshot: the snapshot writer (rbtrace(5), "SNAPSHOTS"), which
 * waits for triggers and writes each frozen process's event logs into a
 * recording of its own.
 */
#ifndef RBMON_SNAP_H
#define RBMON_SNAP_H

#include <stdint.h>

#define RBMON_SNAP_COUNT	100	/* recordings per writer, by default */
#define RBMON_SNAP_INTERVAL_NS	1000000000ull	/* between freezes */
#define RBMON_SNAP_POLL_NS	1000000ull	/* a watch's value asked for */

struct rbmon_snap_opts {
	const char	*trace;		/* the trace file */
	const char	*dir;		/* where the recordings go */
	uint32_t	 count;		/* stop after this many */
	uint64_t	 interval_ns;	/* the least time between two freezes */
	uint64_t	 timeout_ns;	/* stop after this long, 0: never */
	int		 now;		/* trigger one at once, write it, stop */
	int32_t		 pid;		/* --now: the process, 0: the creator */
	const char	*watch;		/* a watch expression that triggers */
	int32_t		 tid;		/* the thread evaluating it, 0: the
					   creator's main thread */
};

int	rbmon_snap_run(const struct rbmon_snap_opts *);

#endif /* RBMON_SNAP_H */
