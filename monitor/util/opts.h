/* SPDX-License-Identifier: MIT */
/*
 * rbmon opts: the options of rbmon's trace-file commands (live, dump,
 * events, send, record, list, prune), read once, the same way whether a
 * command is spelled (rbmon record FILE) or given as its flag (rbmon
 * --record FILE).
 */
#ifndef RBMON_OPTS_H
#define RBMON_OPTS_H

#include <stdint.h>
#include <stdio.h>

#define RBMON_DELAY_MAX	36000	/* tenths: an hour */
#define RBMON_BLOCKING_MS	1000	/* --blocking without a time */

struct rbmon_opts {
	const char	*cmd;		/* the command spelled, or NULL */
	int		 dump, json, follow, events, record, list, prune;
	int		 dry, have_older;
	uint64_t	 older;		/* --older-than, ns */
	const char	*output;
	uint32_t	 block_ms;	/* --blocking: record's wait, ms */
	long		 pid, tid, delay;
	int		 color, ascii, hide_exited;
	const char	*send;
	char		**sets;
	int		 nsets;
	char		**watches;
	int		 nwatches;
	double		 timeout;	/* s */
	const char	*file;		/* or NULL */
	char		**args;		/* the operands (--prune's directories) */
	int		 nargs;
	int		 interactive;	/* live: on a terminal, no mode */
	int		 help, version;
};

void		 rbmon_opts_parse(struct rbmon_opts *, const char *, int,
		    char **);
const char	*rbmon_opts_command(const struct rbmon_opts *);
void		 rbmon_opts_free(struct rbmon_opts *);
int		 rbmon_opts_answered(struct rbmon_opts *, void (*)(FILE *));

#endif /* RBMON_OPTS_H */
