/* SPDX-License-Identifier: MIT */
/*
 * rbmon readback: what the commands that read a recording back (replay,
 * report, hot, export) and the exports share.
 */
#ifndef RBMON_READBACK_H
#define RBMON_READBACK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "monitor/history/walk.h"

/* Read whole, but the recording has no END: exit status 3. */
#define RP_EXIT_INCOMPLETE	3

/* What the walked streams lost, all together. */
struct rp_losses {
	uint64_t	lost;		/* records, as counted */
	size_t		threads;	/* streams that lost any */
	int		unknown;	/* a gap of unknown size */
	int		incomplete;	/* no END: what came after is unknown */
};

int	rp_no_times(const struct rp_ctx *);
int	rp_open_or_say(struct rp_ctx *, const char *, const char *,
	    const char *);
void	rp_time(char *, size_t, uint64_t);
void	rp_losses(const struct rp_ctx *, struct rp_losses *);
const char *rp_thread_name(const struct rbrec_stream *);
void	rp_thread_label(char *, size_t, const struct rp_ctx *, size_t,
	    const char *, const char *);
void	rp_lost_table(FILE *, const struct rp_ctx *, const char *);
void	rp_lost_json(FILE *, const struct rp_ctx *);
void	rp_lost_say(const struct rp_ctx *, const char *);
int	rp_done(struct rp_ctx *, int);
void	rp_duration(char *, size_t, const struct rp_ctx *, uint64_t,
	    uint64_t);
uint64_t rp_dur_ns(const struct rp_ctx *, uint64_t, uint64_t);
void	rp_stop_text(char *, size_t, uint64_t);
int	rp_mark_name(char *, size_t, const struct rbrec_rec *);

#endif /* RBMON_READBACK_H */
