/* SPDX-License-Identifier: MIT */
/* procstat.c - read and parse the kernel's stat lines (proc(5)). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "common/procstat.h"

/*
 * The library calls these from hooks, fork handlers and signal handlers:
 * only async-signal-safe calls (open, pread, close), no allocation, no
 * stdio, nothing kept between calls.
 */

/* A decimal field [p, end) that fits in a uint64_t; -1 if it is not one. */
static int
procstat_u64(const char *p, const char *end, uint64_t *v)
{
	uint64_t	x = 0;
	unsigned	d;

	if (p >= end)
		return -1;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		d = (unsigned)(*p - '0');
		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

/**
 * rb_procstat_parse - the fields of a stat line that callers use
 * @buf: the text as the kernel wrote it ("PID (COMM) S PPID ...")
 * @len: its length (a NUL ends it earlier)
 * @st: filled in on success only
 *
 * The comm is whatever lies between the first '(' and the last ')': a
 * thread may name itself "a) R 1 (b", but nothing the kernel prints after
 * the comm holds a parenthesis.  Fields 3 to 22 must all be there, each
 * ended by a space or the newline: a line cut short is refused, as is a
 * number that is not decimal or does not fit.
 *
 * Return: 0, or -1 if @buf is not such a line.
 */
int
rb_procstat_parse(const char *buf, size_t len, struct rb_procstat *st)
{
	struct rb_procstat	 s;
	const char		*end, *open, *close, *p, *q;
	uint64_t		 v;
	size_t			 n;
	int			 field;

	end = buf + strnlen(buf, len);
	open = memchr(buf, '(', (size_t)(end - buf));
	if (open == NULL || open < buf + 2 || open[-1] != ' ' ||
	    procstat_u64(buf, open - 1, &v) != 0)
		return -1;
	for (close = end; close > open + 1 && close[-1] != ')'; close--)
		continue;
	if (close == open + 1)
		return -1;
	close--;
	memset(&s, 0, sizeof s);
	n = (size_t)(close - open - 1);
	if (n > RB_PROCSTAT_COMM_MAX)
		n = RB_PROCSTAT_COMM_MAX;
	memcpy(s.comm, open + 1, n);
	s.comm[n] = '\0';

	p = close + 1;
	if (end - p < 3 || p[0] != ' ' || p[2] != ' ')
		return -1;
	s.state = p[1];
	if (!((s.state >= 'A' && s.state <= 'Z') ||
	    (s.state >= 'a' && s.state <= 'z')))
		return -1;
	p += 3;
	for (field = 4; field <= 22; field++) {
		for (q = p; q < end && *q != ' ' && *q != '\n'; q++)
			continue;
		if (q == p || q == end || (*q == '\n' && field < 22))
			return -1;
		switch (field) {
		case 4:
			if (procstat_u64(p, q, &v) != 0 || v > INT32_MAX)
				return -1;
			s.ppid = (int32_t)v;
			break;
		case 14:
			if (procstat_u64(p, q, &s.utime) != 0)
				return -1;
			break;
		case 15:
			if (procstat_u64(p, q, &s.stime) != 0)
				return -1;
			break;
		case 20:
			if (procstat_u64(p, q, &s.num_threads) != 0)
				return -1;
			break;
		case 22:
			if (procstat_u64(p, q, &s.starttime) != 0)
				return -1;
			break;
		}
		p = q + 1;
	}
	*st = s;
	return 0;
}

static char *
procfs_put(char *p, const char *end, const char *s)
{
	while (p != NULL && *s != '\0') {
		if (p == end)
			return NULL;
		*p++ = *s++;
	}
	return p;
}

static char *
procfs_put_id(char *p, const char *end, pid_t id)
{
	char	d[16];
	int	n = 0;

	do
		d[n++] = (char)('0' + id % 10);
	while ((id /= 10) != 0);
	while (p != NULL && n > 0) {
		if (p == end)
			return NULL;
		*p++ = d[--n];
	}
	return p;
}

/**
 * rb_procfs_path - "/proc/PID/NAME", or with @tid "/proc/PID/task/TID/NAME"
 * @buf: output
 * @size: its size
 * @pid: the process, > 0
 * @tid: the thread, or 0 for the process's own file
 * @name: the file ("stat", "syscall", ...)
 *
 * Return: the length, or 0 if an id is not positive or @buf is too small.
 */
size_t
rb_procfs_path(char *buf, size_t size, pid_t pid, pid_t tid, const char *name)
{
	const char	*end = buf + size;
	char		*p = buf;

	if (pid <= 0 || tid < 0 || size == 0)
		return 0;
	p = procfs_put(p, end, "/proc/");
	p = procfs_put_id(p, end, pid);
	if (tid > 0) {
		p = procfs_put(p, end, "/task/");
		p = procfs_put_id(p, end, tid);
	}
	p = procfs_put(p, end, "/");
	p = procfs_put(p, end, name);
	if (p == NULL || p == end)
		return 0;
	*p = '\0';
	return (size_t)(p - buf);
}

/**
 * rb_procfs_pread - the text of an open /proc file, from its start
 * @fd: the file (a proc file is generated anew by each read at offset 0)
 * @buf: output, NUL-terminated
 * @size: its size; at most @size - 1 bytes are read, in one read
 *
 * Return: the length, or -1 with errno set.
 */
ssize_t
rb_procfs_pread(int fd, char *buf, size_t size)
{
	ssize_t	n;

	if (size == 0) {
		errno = EINVAL;
		return -1;
	}
	do
		n = pread(fd, buf, size - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/**
 * rb_procfs_read - the text of a /proc file
 * @path: the file
 * @buf: output, NUL-terminated
 * @size: its size; at most @size - 1 bytes are read
 *
 * Return: the length, or -1 with errno set.
 */
ssize_t
rb_procfs_read(const char *path, char *buf, size_t size)
{
	ssize_t	n;
	int	fd, saved;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -1;
	n = rb_procfs_pread(fd, buf, size);
	saved = errno;
	close(fd);
	errno = saved;
	return n;
}

/**
 * rb_procstat_read - read and parse a process's or a thread's stat line
 * @pid: the process
 * @tid: the thread, or 0 for /proc/PID/stat (the whole process)
 * @st: filled in on success
 *
 * errno is left as it was.
 *
 * Return: 0, or -1 if the file cannot be read (gone) or is not a stat line.
 */
int
rb_procstat_read(pid_t pid, pid_t tid, struct rb_procstat *st)
{
	char	path[64], buf[RB_PROCSTAT_BUF];
	ssize_t	n;
	int	saved = errno, r = -1;

	if (rb_procfs_path(path, sizeof path, pid, tid, "stat") != 0 &&
	    (n = rb_procfs_read(path, buf, sizeof buf)) > 0)
		r = rb_procstat_parse(buf, (size_t)n, st);
	errno = saved;
	return r;
}
