/* SPDX-License-Identifier: MIT */
/* rbmon record: drain every thread's event log into a recording. */
#ifndef RBMON_RECORD_H
#define RBMON_RECORD_H

#include <stdint.h>

struct rbrec_snap;

struct rbmon_record_opts {
	const char	*trace;		/* the trace file */
	const char	*out;		/* the recording to write */
	int		 replace;	/* the user named it: replace a file of
					   theirs (rbmon(1), "FILES IT WRITES") */
	int		 quiet;		/* no summary */
	int		 wait_ms;	/* for the trace file to be ready */
	uint32_t	 block_ms;	/* a thread whose log is full waits
					   this long for room; 0: it drops */
	/* A snapshot (rbmon snapshot): one sweep of what the logs hold. */
	int		 once;		/* consumes nothing, ends at once */
	int32_t		 pid;		/* only this process's rings, 0: all */
	const struct rbrec_snap *snap;	/* its SNAP chunk, after INFO */
	void		(*copied)(void *);	/* the logs are copied: thaw */
	void		*copied_arg;
};

int	rbmon_record(const struct rbmon_record_opts *);

#endif /* RBMON_RECORD_H */
