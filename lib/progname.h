/* progname.h - trace file paths as lib and launcher spell them (they agree). */
#ifndef RB_PROGNAME_H
#define RB_PROGNAME_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* @out gets @path's last component, characters outside [A-Za-z0-9._+-] as '_'. */
static inline void rb_progname(const char *path, char *out, size_t size)
{
	const char *base = path ? strrchr(path, '/') : NULL;
	size_t i;

	base = base ? base + 1 : path;
	if (base == NULL || *base == '\0')
		base = "prog";
	for (i = 0; base[i] && i + 1 < size; i++) {
		char c = base[i];

		out[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '.' || c == '_' ||
			 c == '-' || c == '+' ? c : '_';
	}
	out[i] = '\0';
}

/*
 * @path made absolute against the current directory into @out, leading
 * "./" dropped, so that a child that changes directory names the same file.
 * Return: 0, or -1 (no current directory, or @out too small).
 */
static inline int rb_path_absolute(const char *path, char *out, size_t size)
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

#endif
