/* SPDX-License-Identifier: MIT */
/* rbmon alloc: allocation that says "out of memory" and exits. */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/util/alloc.h"

void *
rbmon_xcalloc(size_t n, size_t size)
{
	void	*p;

	p = calloc(n == 0 ? 1 : n, size == 0 ? 1 : size);
	if (p == NULL) {
		fputs("rbmon: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

void *
rbmon_xreallocarray(void *p, size_t n, size_t size)
{
	if (size != 0 && n > SIZE_MAX / size) {
		fputs("rbmon: out of memory\n", stderr);
		exit(1);
	}
	p = realloc(p, n * size == 0 ? 1 : n * size);
	if (p == NULL) {
		fputs("rbmon: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

char *
rbmon_xstrdup(const char *s)
{
	char	*p;

	p = strdup(s);
	if (p == NULL) {
		fputs("rbmon: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

void
rbmon_xasprintf(char **ret, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	if (vasprintf(ret, fmt, ap) < 0) {
		fputs("rbmon: out of memory\n", stderr);
		exit(1);
	}
	va_end(ap);
}
