/* SPDX-License-Identifier: MIT */
/* log.c - the library's voice: single lines on stderr, errno untouched. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

void rb_warn(const char *line)
{
	int saved = errno;
	size_t len = strlen(line);

	/* one write(2) per line: no stdio state of the host is touched */
	char buf[600];

	if (len > sizeof(buf) - 2)
		len = sizeof(buf) - 2;
	memcpy(buf, line, len);
	buf[len++] = '\n';
	if (write(STDERR_FILENO, buf, len) < 0) {
		/* nowhere left to say it */
	}
	errno = saved;
}

void rb_warnf(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	rb_warn(line);
	errno = saved;
}

void rb_strlcpy(char *dst, const char *src, size_t size)
{
	size_t n;

	if (size == 0)
		return;
	n = strnlen(src, size - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}
