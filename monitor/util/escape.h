/* SPDX-License-Identifier: MIT */
/* rbmon escape: how bytes from a trace file or a traced program are shown. */
#ifndef RBMON_UTIL_ESCAPE_H
#define RBMON_UTIL_ESCAPE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define RBMON_ESC_NL	0x1	/* a newline stays one (multi-line answers) */
#define RBMON_ESC_ASCII	0x2	/* other printable characters become '?' */

#define RBMON_ESC_MAX	8	/* longest form of one character, with NUL */

size_t	rbmon_utf8_decode(const char *, uint32_t *);
int	rbmon_esc_unsafe(uint32_t);
size_t	rbmon_esc_next(const char *, int, char *);
void	rbmon_esc_fputs(const char *, FILE *);
void	rbmon_esc_write(FILE *, const char *, int);
char	*rbmon_esc_dup(const char *);
void	rbmon_esc_line(FILE *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));

#endif /* RBMON_UTIL_ESCAPE_H */
