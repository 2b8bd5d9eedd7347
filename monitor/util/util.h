/* SPDX-License-Identifier: MIT */
/*
 * rbmon util: what every part of rbmon shares: allocation that exits on
 * failure (alloc.h), usage errors, numbers, thread lists and durations
 * read from the command line.
 */
#ifndef RBMON_UTIL_H
#define RBMON_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "monitor/util/alloc.h"

/* The thread ids a command's -t keeps (none: every thread). */
struct rbmon_tids {
	long	*v;
	size_t	 n;
};

const char *rbmon_basename(const char *);

void	rbmon_bad_usage(const char *, ...)
	    __attribute__((noreturn, format(printf, 1, 2)));
void	rbmon_cmd_usage(const char *, const char *, ...)
	    __attribute__((noreturn, format(printf, 2, 3)));
long	rbmon_number(const char *, const char *, const char *, long, long);
void	rbmon_cmd_parse_tids(const char *, const char *, struct rbmon_tids *);
int	rbmon_cmd_tid_wanted(const struct rbmon_tids *, int32_t);

/* rbmon_duration_parse() */
#define RBMON_DUR_OK	0
#define RBMON_DUR_BAD	-1	/* not a duration */
#define RBMON_DUR_BARE	-2	/* a number without its unit */
#define RBMON_DUR_RANGE	-3	/* more than a uint64_t of ns */

#define RBMON_DUR_UNITS	"ns, us, ms, s, m, h, d"

int	rbmon_duration_parse(const char *, uint64_t *);
void	rbmon_duration_bare(const char *, const char *, const char *,
	    const char *)
	    __attribute__((noreturn));

const char *rbmon_group(char *, size_t, uint64_t);

#endif /* RBMON_UTIL_H */
