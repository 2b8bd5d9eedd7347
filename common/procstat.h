/* SPDX-License-Identifier: MIT */
/* procstat: the kernel's stat line of a process or a thread (proc(5)). */
#ifndef RB_COMMON_PROCSTAT_H
#define RB_COMMON_PROCSTAT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define RB_PROCSTAT_BUF		1024	/* a line is ~300 bytes; fields 1-22 fit */
#define RB_PROCSTAT_COMM_MAX	64	/* the longest comm the kernel prints */

/* The fields of /proc/PID/stat or /proc/PID/task/TID/stat callers use. */
struct rb_procstat {
	char		comm[RB_PROCSTAT_COMM_MAX + 1];	/* 2, unparenthesised */
	char		state;		/* 3: R S D T t Z X I ... */
	int32_t		ppid;		/* 4 */
	uint64_t	utime;		/* 14: clock ticks */
	uint64_t	stime;		/* 15: clock ticks */
	uint64_t	num_threads;	/* 20 */
	uint64_t	starttime;	/* 22: clock ticks after boot */
};

int	rb_procstat_parse(const char *, size_t, struct rb_procstat *);
size_t	rb_procfs_path(char *, size_t, pid_t, pid_t, const char *);
ssize_t	rb_procfs_read(const char *, char *, size_t);
ssize_t	rb_procfs_pread(int, char *, size_t);
int	rb_procstat_read(pid_t, pid_t, struct rb_procstat *);

#endif /* RB_COMMON_PROCSTAT_H */
