/* SPDX-License-Identifier: MIT */
/* proc.h - a process seen through /proc: files, status, threads, maps. */
#ifndef RBTRACE_PROC_H
#define RBTRACE_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* A line of /proc/PID/maps. */
struct rb_map {
	uint64_t	 start;
	uint64_t	 end;
	uint64_t	 off;
	unsigned	 maj;
	unsigned	 min;
	uint64_t	 ino;
	const char	*path;		/* "" for an anonymous mapping */
};

void	rb_err_set(char *err, size_t errlen, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
ssize_t	rb_proc_slurp(const char *path, char *buf, size_t size);
char	*rb_proc_slurp_all(const char *path);
void	rb_proc_status_field(const char *status, const char *key, char *out,
	    size_t size);
char	rb_proc_task_state(pid_t pid, pid_t tid);
void	rb_proc_comm(pid_t pid, char *out, size_t size);
bool	rb_map_next(char *buf, size_t *pos, struct rb_map *m);
int	rb_map_open(pid_t pid, const struct rb_map *m);
bool	rb_map_of(char *maps, const struct stat *sb, const char *abs,
	    struct rb_map *out);
bool	rb_proc_same_file(pid_t pid, const char *path, const struct stat *lib);
bool	rb_proc_other_mounts(pid_t pid);

#endif
