/* SPDX-License-Identifier: MIT */
/*
 * tracepath.c - the default trace file, ${TMPDIR:-/tmp}/PROG.PID.trace
 * (rbtrace(5), "ENVIRONMENT"), and the program name in it.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/tracepath.h"
#include "rbtrace/format.h"

/* The last component of @path's first @len bytes, as rb_progname(). */
static void rb_progname_len(const char *path, size_t len, char *out,
			    size_t size)
{
	const char *base = path;
	size_t i, n;

	if (size == 0)
		return;
	for (i = 0; path != NULL && i < len; i++) {
		if (path[i] == '/')
			base = path + i + 1;
	}
	n = base != NULL ? len - (size_t)(base - path) : 0;
	if (n == 0) {
		base = "prog";
		n = 4;
	}
	for (i = 0; i < n && i + 1 < size; i++) {
		char c = base[i];

		out[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '.' || c == '_' ||
			 c == '-' || c == '+' ? c : '_';
	}
	out[i] = '\0';
}

/**
 * rb_progname - @path's last component, as trace file names spell it
 * @path: a program's path or name; NULL or empty gives "prog"
 * @out: the name, characters outside [A-Za-z0-9._+-] as '_'
 * @size: its size; the name is cut to @size - 1 bytes
 */
void rb_progname(const char *path, char *out, size_t size)
{
	rb_progname_len(path, path != NULL ? strlen(path) : 0, out, size);
}

/**
 * rb_exe_progname - the program's name from its executable's path
 * @exe: the target of /proc/PID/exe, as readlink(2) gave it: a file
 *       deleted since the exec ends in " (deleted)", which is not its name
 * @out: rb_progname() of the path without that ending
 * @size: the size of @out
 *
 * The executable names the program, not argv[0]: setproctitle() rewrites
 * argv's memory (rbtrace(5), "ENVIRONMENT").
 */
void rb_exe_progname(const char *exe, char *out, size_t size)
{
	static const char deleted[] = " (deleted)";
	size_t len = exe != NULL ? strlen(exe) : 0;

	if (len > sizeof(deleted) - 1 &&
	    strcmp(exe + len - (sizeof(deleted) - 1), deleted) == 0)
		len -= sizeof(deleted) - 1;
	rb_progname_len(exe, len, out, size);
}

/**
 * rb_path_absolute - @path made absolute against the current directory
 * @out: the result, leading "./" dropped, so that a child that changes
 *       directory names the same file
 *
 * Return: 0, or -1 (no current directory, or @out too small).
 */
int rb_path_absolute(const char *path, char *out, size_t size)
{
	char cwd[4096];
	int n;

	if (*path == '/') {
		n = snprintf(out, size, "%s", path);
	} else {
		/* "(unreachable)/...": a directory outside our root */
		if (getcwd(cwd, sizeof(cwd)) == NULL || cwd[0] != '/')
			return -1;
		while (path[0] == '.' && path[1] == '/') {
			path += 2;
			while (*path == '/')
				path++;
		}
		n = snprintf(out, size, "%s%s%s", cwd, cwd[1] ? "/" : "", path);
	}
	return n >= 0 && (size_t)n < size ? 0 : -1;
}

/**
 * rb_trace_dir - the directory of default trace files
 * @tmpdir: $TMPDIR as the caller read it, or NULL
 *
 * Return: @tmpdir when it is an absolute path, else /tmp (unset, empty or
 * relative: a relative one would name another file in every directory).
 */
const char *rb_trace_dir(const char *tmpdir)
{
	return tmpdir != NULL && *tmpdir == '/' ? tmpdir : RB_TRACE_DIR_DEFAULT;
}

/**
 * rb_trace_path - the default trace file of @program's process @pid
 * @out: DIR/NAME.PID.trace, DIR from rb_trace_dir(@tmpdir), NAME from
 *       rb_progname(@program) cut to RB_PROGRAM_MAX - 1 bytes as the header
 *       keeps it
 * @size: the size of @out
 * @tmpdir: $TMPDIR as the caller read it, or NULL
 * @program: the program's path or name
 * @pid: the process
 *
 * A path under @tmpdir that does not fit @size goes under /tmp instead,
 * rather than be cut short.
 * Return: 0, or -1 when not even that fits (@out is then cut short).
 */
int rb_trace_path(char *out, size_t size, const char *tmpdir,
		  const char *program, pid_t pid)
{
	char name[RB_PROGRAM_MAX];
	int n;

	rb_progname(program, name, sizeof(name));
	n = snprintf(out, size, "%s/%s.%d.trace", rb_trace_dir(tmpdir), name,
		     (int)pid);
	if (n >= 0 && (size_t)n < size)
		return 0;
	n = snprintf(out, size, "%s/%s.%d.trace", RB_TRACE_DIR_DEFAULT, name,
		     (int)pid);
	return n >= 0 && (size_t)n < size ? 0 : -1;
}
