/* SPDX-License-Identifier: MIT */
/* rbmon alloc: allocation that says "out of memory" and exits. */
#ifndef RBMON_ALLOC_H
#define RBMON_ALLOC_H

#include <stddef.h>

void	rbmon_xasprintf(char **, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
void	*rbmon_xcalloc(size_t, size_t);
void	*rbmon_xreallocarray(void *, size_t, size_t);
char	*rbmon_xstrdup(const char *);

#endif /* RBMON_ALLOC_H */
