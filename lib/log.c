/* SPDX-License-Identifier: MIT */
/* log.c - the library's voice: single lines on stderr, errno untouched. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* An attach's reply (attach.c): the attaching thread's lines go there instead. */
static __thread char *rb_capture;
static __thread size_t rb_capture_size;

/**
 * rb_warn_capture - send the following lines to @buf (@size bytes, kept
 * NUL-terminated, lines joined by "; "), or to stderr again with NULL
 */
void rb_warn_capture(char *buf, size_t size)
{
	rb_capture = buf;
	rb_capture_size = buf != NULL ? size : 0;
	if (buf != NULL && size != 0)
		buf[0] = '\0';
}

void rb_warn(const char *line)
{
	int saved = errno;
	size_t len = strlen(line), have;
	char buf[600];

	if (rb_capture != NULL && rb_capture_size != 0) {
		have = strlen(rb_capture);
		if (have != 0 && have + 2 < rb_capture_size) {
			memcpy(rb_capture + have, "; ", 3);
			have += 2;
		}
		rb_strlcpy(rb_capture + have, line, rb_capture_size - have);
		return;
	}
	/* one write(2) per line: no stdio state of the host is touched */
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
