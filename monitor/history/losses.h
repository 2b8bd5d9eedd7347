/* SPDX-License-Identifier: MIT */
/*
 * rbmon losses: what a thread of a recording lost, as the calls engine's
 * first pass finds it (calls.c), for every reader to state (readback.c).
 */
#ifndef RBMON_LOSSES_H
#define RBMON_LOSSES_H

#include <stddef.h>

#include "monitor/history/recfile.h"

struct rbwalk_ctx;

/* The frames a loss leaves incomplete (rbloss_frame). */
#define RBLOSS_EXIT	0	/* closed at a cut: its exit may be lost */
#define RBLOSS_ENTRY	1	/* left without an entry in its region */

void	rbloss_record(struct rbwalk_ctx *, size_t,
	    const struct rbrec_rec *);
void	rbloss_frame(struct rbwalk_ctx *, size_t, int);

#endif /* RBMON_LOSSES_H */
