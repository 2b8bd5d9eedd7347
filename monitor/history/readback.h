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
#define RBREAD_EXIT_INCOMPLETE	3

/* What the walked streams lost, all together. */
struct rbread_losses {
	uint64_t	lost;		/* records, as counted */
	size_t		threads;	/* streams that lost any */
	int		unknown;	/* a gap of unknown size */
	int		incomplete;	/* no END: what came after is unknown */
	uint64_t	gaps, gap_ns;	/* losses.c */
	uint64_t	exits_lost, entries_lost;
	uint64_t	short_calls;	/* taken back at record time: not lost */
};

/*
 * What the recording's processes did not trace: functions switched off
 * while it was made (DYN chunks, rbtrace(5) "RECORDINGS").
 */
#define RBREAD_DYN_NAMES	1024	/* names resolved, at most */
#define RBREAD_DYN_SHOWN	10	/* named in a line of text */

struct rbread_dyn {
	int		 any;		/* the recording has DYN chunks */
	size_t		 processes;	/* images with functions off, or asleep */
	uint64_t	 functions;	/* off at some time: nnames + more */
	uint64_t	 at_end;	/* off in each image's last chunk */
	uint64_t	 more;		/* off and not named */
	int		 dormant;	/* some process slept (every site off) */
	int		 refused;	/* some could not switch its sites */
	char		**names;	/* distinct, sorted, resolved */
	size_t		 nnames;
};

int	rbread_no_times(const struct rbwalk_ctx *);
int	rbread_open_or_say(struct rbwalk_ctx *, const char *, const char *,
	    const char *);
void	rbread_time(char *, size_t, uint64_t);
void	rbread_losses(const struct rbwalk_ctx *, struct rbread_losses *);
const char *rbread_thread_name(const struct rbrec_stream *);
void	rbread_thread_label(char *, size_t, const struct rbwalk_ctx *, size_t,
	    const char *, const char *);
void	rbread_lost_table(FILE *, const struct rbwalk_ctx *, const char *);
void	rbread_lost_json(FILE *, const struct rbwalk_ctx *);
void	rbread_lost_say(const struct rbwalk_ctx *, const char *,
	    const char *);
void	rbread_dyn(struct rbwalk_ctx *, int32_t, struct rbread_dyn *);
void	rbread_dyn_free(struct rbread_dyn *);
char	*rbread_dyn_text(const struct rbread_dyn *, size_t, int);
void	rbread_dyn_table(FILE *, struct rbwalk_ctx *, const char *);
void	rbread_dyn_json(FILE *, struct rbwalk_ctx *);
void	rbread_dyn_say(struct rbwalk_ctx *, const char *);
int	rbread_lower(const struct rbwalk_ctx *);
char	*rbread_ge(char *, size_t, int);
int	rbread_done(struct rbwalk_ctx *, int);
void	rbread_duration(char *, size_t, const struct rbwalk_ctx *, uint64_t,
	    uint64_t);
uint64_t rbread_dur_ns(const struct rbwalk_ctx *, uint64_t, uint64_t);
void	rbread_stop_text(char *, size_t, uint64_t);
int	rbread_mark_name(char *, size_t, const struct rbrec_rec *);

#endif /* RBMON_READBACK_H */
