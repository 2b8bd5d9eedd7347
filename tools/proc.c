/* SPDX-License-Identifier: MIT */
/*
 * proc.c - a process seen through /proc (proc(5)): its small files, its
 * status fields, its threads' states, its maps and the files they map,
 * and whether a library here is the same file inside its root.  Nothing
 * here stops or traces the process.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <unistd.h>

#include "common/escape.h"
#include "tools/proc.h"

/* rb_err_set - one line into @err (of @errlen bytes, 0: none wanted). */
void rb_err_set(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Read a whole (small) file into @buf, NUL-terminated.  Return: its length, or -1. */
ssize_t rb_proc_slurp(const char *path, char *buf, size_t size)
{
	size_t n = 0;
	ssize_t r = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (n + 1 < size && (r = read(fd, buf + n, size - n - 1)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			n = 0;
			break;
		}
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	return r < 0 ? -1 : (ssize_t)n;
}

/* A whole /proc file of any length, malloc'ed.  Return: it, or NULL (errno). */
char *rb_proc_slurp_all(const char *path)
{
	size_t n = 0, size = 16384;
	char *buf = malloc(size), *p;
	ssize_t r;
	int fd, e;

	if (buf == NULL)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	for (;;) {
		if (size - n < 4096) {
			p = realloc(buf, size * 2);
			if (p == NULL)
				goto fail;
			buf = p;
			size *= 2;
		}
		r = read(fd, buf + n, size - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto fail;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	return buf;
fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	free(buf);
	errno = e;
	return NULL;
}

/* The value after "@key:" in /proc/PID/status (or a task's), or "". */
void rb_proc_status_field(const char *status, const char *key, char *out, size_t size)
{
	size_t klen = strlen(key), len;
	const char *s;

	*out = '\0';
	for (s = status; *s != '\0'; s += len + (s[len] == '\n')) {
		len = strcspn(s, "\n");
		if (strncmp(s, key, klen) != 0 || s[klen] != ':')
			continue;
		s += klen + 1;
		s += strspn(s, " \t");
		snprintf(out, size, "%.*s", (int)strcspn(s, "\n"), s);
		return;
	}
}

/* The state letter of a thread (its stat line after the comm), or 0. */
char rb_proc_task_state(pid_t pid, pid_t tid)
{
	char path[64], buf[1024], *p;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	if (rb_proc_slurp(path, buf, sizeof(buf)) <= 0 || (p = strrchr(buf, ')')) == NULL)
		return 0;
	return p[1] == ' ' ? p[2] : 0;
}

void rb_proc_comm(pid_t pid, char *out, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	if (rb_proc_slurp(path, out, size) <= 0)
		snprintf(out, size, "?");
	out[strcspn(out, "\n")] = '\0';
}

/* The next line of maps text @buf from *@pos, parsed; its path NUL-terminated in place. */
bool rb_map_next(char *buf, size_t *pos, struct rb_map *m)
{
	char *line, *nl, *p;
	unsigned long long start, end, off, ino;
	int n;

	while (buf[*pos] != '\0') {
		line = buf + *pos;
		nl = strchr(line, '\n');
		if (nl != NULL) {
			*nl = '\0';
			*pos = (size_t)(nl + 1 - buf);
		} else {
			*pos += strlen(line);
		}
		n = 0;
		if (sscanf(line, "%llx-%llx %*s %llx %x:%x %llu %n", &start, &end, &off,
			   &m->maj, &m->min, &ino, &n) < 6 || n == 0)
			continue;
		p = line + n;
		m->start = start;
		m->end = end;
		m->off = off;
		m->ino = ino;
		m->path = p;
		return true;
	}
	return false;
}

/*
 * The object's file of mapping @m, opened: through the process's root at
 * its path if that is still the file mapped (the same inode: overlayfs
 * before Linux 6.8 shows the lower file's device in maps), else
 * /proc/PID/map_files/.  Return: the descriptor, or -1.
 */
int rb_map_open(pid_t pid, const struct rb_map *m)
{
	char path[PATH_MAX + 64];
	struct stat sb;
	int fd, i;

	for (i = 0; i < 2; i++) {
		if (i == 0 && m->path[0] == '/')
			snprintf(path, sizeof(path), "/proc/%d/root%s", pid, m->path);
		else if (i == 1)
			snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", pid,
				 (unsigned long long)m->start, (unsigned long long)m->end);
		else
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
		    (uint64_t)sb.st_ino == m->ino &&
		    (i == 0 || (major(sb.st_dev) == m->maj && minor(sb.st_dev) == m->min)))
			return fd;
		close(fd);
	}
	return -1;
}


/* The mapping of file offset 0 of the file @sb in @pid's maps text. */
bool rb_map_of(char *maps, const struct stat *sb, const char *abs, struct rb_map *out)
{
	struct rb_map m;
	size_t pos = 0;
	bool byname = false;

	while (rb_map_next(maps, &pos, &m)) {
		if (m.off != 0)
			continue;
		if (m.ino == (uint64_t)sb->st_ino && m.maj == major(sb->st_dev) &&
		    m.min == minor(sb->st_dev)) {
			*out = m;
			return true;
		}
		/* overlayfs before Linux 6.8 shows the lower file's device here */
		if (!byname && m.ino == (uint64_t)sb->st_ino && strcmp(m.path, abs) == 0) {
			*out = m;
			byname = true;
		}
	}
	return byname;
}

/* Is @path inside process @pid the same file as @lib here? */
bool rb_proc_same_file(pid_t pid, const char *path, const struct stat *lib)
{
	char in[PATH_MAX + 32];
	struct stat sb;

	snprintf(in, sizeof(in), "/proc/%d/root%s", (int)pid, path);
	return stat(in, &sb) == 0 && sb.st_dev == lib->st_dev &&
	       sb.st_ino == lib->st_ino;
}

/* Does @pid see another file system than we do (a container)? */
bool rb_proc_other_mounts(pid_t pid)
{
	char a[64], b[64], x[64] = "", y[64] = "";

	snprintf(a, sizeof(a), "/proc/%d/ns/mnt", (int)pid);
	snprintf(b, sizeof(b), "/proc/self/ns/mnt");
	if (readlink(a, x, sizeof(x) - 1) < 0 || readlink(b, y, sizeof(y) - 1) < 0)
		return false;
	return strcmp(x, y) != 0;
}
