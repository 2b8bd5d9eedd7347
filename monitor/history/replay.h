/* SPDX-License-Identifier: MIT */
/* rbmon replay, report and export: a recording read back. */
#ifndef RBMON_REPLAY_H
#define RBMON_REPLAY_H

#include <stddef.h>
#include <stdint.h>

struct rbrec_rec;
struct rp_ctx;

/* The thread ids a command's -t keeps (none: every thread). */
struct rbmon_tids {
	long	*v;
	size_t	 n;
};

int	rbmon_subcommand(int, char **);
void	rbmon_cmd_usage(const char *, const char *, ...)
	    __attribute__((noreturn, format(printf, 2, 3)));
void	rbmon_cmd_parse_tids(const char *, const char *, struct rbmon_tids *);
int	rbmon_cmd_tid_wanted(const struct rbmon_tids *, int32_t);
int	rp_mark_name(char *, size_t, const struct rbrec_rec *);
void	rp_thread_label(char *, size_t, const struct rp_ctx *, size_t,
	    const char *, const char *);

#endif /* RBMON_REPLAY_H */
