/* progname.h - the program name as trace file paths spell it (lib and launcher agree). */
#ifndef RB_PROGNAME_H
#define RB_PROGNAME_H

#include <stddef.h>
#include <string.h>

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

#endif
