/* SPDX-License-Identifier: MIT */
/*
 * rbmon opts: the options of rbmon's trace-file commands (live, dump,
 * events, send, record, list, prune), read once, the same way whether a
 * command is spelled (rbmon record FILE) or given as its flag (rbmon
 * --record FILE).
 */
#ifndef RBMON_OPTS_H
#define RBMON_OPTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define RBMON_DELAY_MAX	36000	/* tenths: an hour */
#define RBMON_BLOCKING_MS	1000	/* --blocking without a time */

struct rbmon_tids;

/*
 * The filters every reader of a recording shares (rbmon(1), FILTERS), as
 * the options give them; the calls engine applies them (calls.h).
 */
struct rbmon_filter {
	uint64_t	 from, to;	/* --time-range: ns from the recording's
					   start, [from, to) */
	int		 have_range;
	uint64_t	 min_ns;	/* --min-duration, 0: none */
	size_t		 depth;		/* -D, 0: all */
	char		**funcs;	/* -F */
	size_t		 nfuncs;
	char		**nots;		/* -N */
	size_t		 nnots;
	/* Per function of the recording: RBCALLS_M_*, 0 not looked at. */
	unsigned char	*match;
	size_t		 nmatch;
	unsigned char	*used;		/* per pattern, -F then -N: matched */
};


/*
 * The filters of the commands that read a recording (replay, report, hot,
 * export; rbmon(1), FILTERS): their options, read by rbmon_filter_option().
 */
#define RBMON_FILTER_SHORTOPTS	"t:F:N:D:"
#define RBMON_OPT_MIN		0x100
#define RBMON_OPT_RANGE		0x101
/* hot has --flags: its -F has no long form, so that --f stays --flags. */
#define RBMON_FILTER_LONGOPTS \
	{ "function",		required_argument, NULL, 'F' }, \
	RBMON_FILTER_LONGOPTS_BUT_F
#define RBMON_FILTER_LONGOPTS_BUT_F \
	{ "tid",		required_argument, NULL, 't' }, \
	{ "thread",		required_argument, NULL, 't' }, \
	{ "exclude",		required_argument, NULL, 'N' }, \
	{ "depth",		required_argument, NULL, 'D' }, \
	{ "min-duration",	required_argument, NULL, RBMON_OPT_MIN }, \
	{ "min",		required_argument, NULL, RBMON_OPT_MIN }, \
	{ "time-range",		required_argument, NULL, RBMON_OPT_RANGE }

int		 rbmon_filter_option(const char *, int, char **,
		    const char *, struct rbmon_tids *,
		    struct rbmon_filter *);
void		 rbmon_filter_free(struct rbmon_filter *);
void		 rbmon_filter_usage(FILE *, int);
const char	*rbmon_filter_needs(const struct rbmon_filter *);
void		 rbmon_filter_unmatched(const char *,
		    const struct rbmon_filter *);

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
