/* SPDX-License-Identifier: MIT */
/* rbmon dynamic tracing: the file's per-process table, copied and shown. */
#ifndef RBMON_DYN_H
#define RBMON_DYN_H

#include <stddef.h>
#include <stdint.h>

#include "rbtrace/format.h"

#define RBMON_DYN_TRIES		100	/* gen rereads before an entry is torn */

/* A claimed entry of the table, copied out (rbtrace(5), "DYNAMIC TRACING"). */
struct rbmon_dyn {
	int32_t		 pid;
	uint64_t	 pstart, image;
	int		 torn;		/* changing at every try: only the
					   identity above is known */
	int		 linked;	/* a process of the snapshot has it */
	uint32_t	 flags;		/* RB_DYNF_*, unknown bits cleared */
	uint32_t	 objects, funcs;
	uint64_t	 sites, sites_off;
	uint32_t	 off_name, off_auto;
	uint64_t	 batches, traps;	/* batches written, traps sent on */
	uint64_t	 private_bytes;	/* text made private by them */
	uint64_t	 last_ns;	/* how long the last batch took */
	size_t		 nfns;		/* listed, known reasons only */
	struct rb_dynfn	*fns;		/* reason: RB_DYN_BY_* bits only */
	char		 why[RB_DYN_WHY_MAX + 1];
};

/* A snapshot's copies of the table (in struct rbmon_snapshot). */
struct rbmon_dyns {
	size_t		 n;
	struct rbmon_dyn *v;
	struct rb_dynfn	*scratch;	/* a copy's list, before the checks */
};

void	rbmon_dyn_read(void *, const struct rb_header *, struct rbmon_dyns *);
void	rbmon_dyn_free(struct rbmon_dyns *);
const struct rbmon_dyn *rbmon_dyn_find(const struct rbmon_dyns *, int32_t,
	    uint64_t);
uint64_t rbmon_dyn_off(const struct rbmon_dyn *);
uint64_t rbmon_dyn_more(const struct rbmon_dyn *);
const char *rbmon_dyn_reason(uint32_t);
void	rbmon_dyn_summary(const struct rbmon_dyn *, char *, size_t);

#endif /* RBMON_DYN_H */
