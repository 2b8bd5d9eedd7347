/* SPDX-License-Identifier: MIT */
/*
 * rbmon losses: per thread of a recording (rbtrace(5), "RECORDINGS"), what
 * its records say was lost and where: the records lost (LOST chunks,
 * lost marks in its stream, gaps in the indexes), the gaps they make and
 * the time between the last record before each and the first after it,
 * and the calls those gaps leave incomplete: closed at a cut (their exit
 * may be among the records lost) or left without their entry.  The calls
 * engine's first pass tells every record and every such frame; the
 * readers state the sums (readback.c).
 */
#include "config.h"

#include "monitor/history/losses.h"
#include "monitor/history/walk.h"

/* Record @k of stream @si, as the first pass takes it. */
void
rbloss_record(struct rbwalk_ctx *x, size_t si, const struct rbrec_rec *k)
{
	struct rbwalk_count	*c = &x->counts[si];
	uint64_t		 a, b;

	if (k->lost || k->e.kind == RB_EV_LOST) {
		c->lost += k->e.arg;
		c->lost_unknown |= k->e.arg == 0;
		/* Consecutive marks are one gap. */
		if (!c->in_gap)
			c->gaps++;
		c->in_gap = 1;
		return;
	}
	c->records++;
	if (c->in_gap && c->have_last) {
		/* The gap ends: the time it spans is known. */
		a = rbwalk_rel_ns(x, c->last);
		b = rbwalk_rel_ns(x, k->e.ts);
		if (b > a)
			c->gap_ns += b - a;
		if (!c->have_first_gap) {
			c->first_gap_ns = a;
			c->have_first_gap = 1;
		}
	}
	c->in_gap = 0;
	c->last = k->e.ts;
	c->have_last = 1;
}

/* A frame of stream @si that a gap left incomplete: @how RBLOSS_*. */
void
rbloss_frame(struct rbwalk_ctx *x, size_t si, int how)
{
	if (how == RBLOSS_EXIT)
		x->counts[si].exits_lost++;
	else
		x->counts[si].entries_lost++;
}
