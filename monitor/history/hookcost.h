/* SPDX-License-Identifier: MIT */
/*
 * rbmon hookcost: what the hooks cost a call in a recorded run, for the
 * estimate of rbmon hot.
 */
#ifndef RBMON_HOOKCOST_H
#define RBMON_HOOKCOST_H

#include <stdint.h>

#include "monitor/history/walk.h"

/* The shortest calls' times, to the ns, up to this. */
#define RBHOOK_LEAF_NS	4095

struct rbhook_cost {
	uint64_t	 leaf[RBHOOK_LEAF_NS + 1];	/* leaf calls by ns */
	uint64_t	 leaves;
	double		 leaf_ns;	/* their median */
	double		 clock_ns;	/* a read of its clock */
	double		 call_ns;	/* a call to an empty function */
	int		 here;		/* those two timed here */
	double		 pair_ns;	/* a call's hooks; 0: not measured */
	double		 drop_ns;	/* theirs when a full log dropped both */
};

void	rbhook_leaf(struct rbhook_cost *, uint64_t);
void	rbhook_estimate(struct rbhook_cost *, const struct rbwalk_ctx *);

#endif /* RBMON_HOOKCOST_H */
