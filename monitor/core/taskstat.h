/* SPDX-License-Identifier: MIT */
/* rbmon taskstat: what the kernel says of traced threads (proc(5)). */
#ifndef RBMON_TASKSTAT_H
#define RBMON_TASKSTAT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/procstat.h"

/* A CPU share is taken over at least this long; shorter passes keep the last. */
#define RBMON_CPU_MIN_NS	50000000u
#define RBMON_BLOCKED_MAX	256	/* longest "blocked in" text, with NUL */

/* The stat line of one thread or process as one pass read it. */
struct rbmon_task {
	struct rb_procstat st;
	double		 cpu;		/* % of one core, last interval; -1: none */
	uint64_t	 cpu_ns;	/* utime + stime */
};

struct rbmon_tasks;

struct rbmon_tasks *rbmon_tasks_new(void);
void	rbmon_tasks_free(struct rbmon_tasks *);
void	rbmon_tasks_every(struct rbmon_tasks *, uint64_t);
void	rbmon_tasks_begin(struct rbmon_tasks *);
int	rbmon_tasks_read(struct rbmon_tasks *, pid_t, pid_t,
	    struct rbmon_task *);
int	rbmon_tasks_started_by(const struct rbmon_tasks *, uint64_t, uint64_t);
void	rbmon_tasks_end(struct rbmon_tasks *);
size_t	rbmon_tasks_kept(const struct rbmon_tasks *);

char	*rbmon_task_blocked(pid_t, pid_t);
int	rbmon_syscall_format(const char *, char *, size_t);
const char *rbmon_syscall_name(long);

#endif /* RBMON_TASKSTAT_H */
