/* SPDX-License-Identifier: MIT */
/* rbmon discover: find this user's trace files (--list, -p). */
#ifndef RBMON_DISCOVER_H
#define RBMON_DISCOVER_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "rbtrace/format.h"

struct rbmon_model;
struct rbmon_snapshot;

struct rbmon_found {
	char		*path;		/* realpath */
	char		*reason;	/* NULL if valid */
	uid_t		 uid;		/* the file's owner */
	int32_t		 creator_pid;
	char		 program[RB_PROGRAM_MAX];
	int		 alive;		/* some process of it is alive */
	unsigned	 threads;	/* live rings of alive processes */
	uint64_t	 created_ns;	/* CLOCK_REALTIME */
	int		 has_pid;	/* the pid asked for writes to it */
	int		 pid_alive;	/* ... and is that process still */
	int		 dormant;	/* a live process of it is asleep
					   (dynamic tracing: every site off) */
};

struct rbmon_found_list {
	size_t		 n;
	struct rbmon_found *v;
	char		*dirs;		/* the directories searched, for messages */
};

void	rbmon_discover_scan(struct rbmon_found_list *, pid_t);
void	rbmon_discover_free(struct rbmon_found_list *);
int	rbmon_discover_list(FILE *, FILE *);
int	rbmon_discover_prune(FILE *, FILE *, const char *const *, size_t,
	    uint64_t, int);
char	*rbmon_discover_pid(pid_t, FILE *, char **);
const char *rbmon_discover_file(const char *, long, char **);
int	rbmon_any_alive(const struct rbmon_model *,
	    const struct rbmon_snapshot *);

#endif /* RBMON_DISCOVER_H */
