/* SPDX-License-Identifier: MIT */
/*
 * rbmon escape: the one rule for showing text that came from a trace file
 * or a traced program (names, paths, answers, values).  Printable UTF-8
 * passes; control characters (C0, DEL, C1, ESC among them), the Unicode
 * controls that reorder or break lines, and bytes that are not UTF-8 are
 * shown as backslash escapes, so nothing reaches a terminal raw.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/util/escape.h"
#include "monitor/util/alloc.h"

/**
 * rbmon_utf8_decode - the UTF-8 sequence at @s
 * @s: NUL-terminated bytes, not at the NUL
 * @cp: set to its code point
 *
 * Overlong forms, surrogates and code points past U+10FFFF are not valid.
 * Return: its length in bytes, or 0 if @s does not start a valid one.
 */
size_t
rbmon_utf8_decode(const char *s, uint32_t *cp)
{
	const unsigned char	*u = (const unsigned char *)s;
	uint32_t		 c;
	size_t			 n, i;

	if (u[0] < 0x80) {
		*cp = u[0];
		return 1;
	}
	if (u[0] >= 0xc2 && u[0] <= 0xdf) {
		n = 2;
		c = u[0] & 0x1f;
	} else if (u[0] >= 0xe0 && u[0] <= 0xef) {
		n = 3;
		c = u[0] & 0x0f;
	} else if (u[0] >= 0xf0 && u[0] <= 0xf4) {
		n = 4;
		c = u[0] & 0x07;
	} else
		return 0;
	for (i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		c = (c << 6) | (u[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/**
 * rbmon_esc_unsafe - must code point @cp be escaped?
 * @cp: a code point
 *
 * Return: 1 for C0 controls, DEL, C1 controls (U+0080..U+009F, which
 * terminals obey like their escape sequences), the line and paragraph
 * separators and the bidirectional controls that reorder a line.
 */
int
rbmon_esc_unsafe(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) ||
	    cp == 0x200e || cp == 0x200f || cp == 0x2028 || cp == 0x2029 ||
	    (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/**
 * rbmon_esc_next - the character at @s as it may be shown
 * @s: NUL-terminated bytes
 * @flags: RBMON_ESC_NL, RBMON_ESC_ASCII
 * @out: RBMON_ESC_MAX bytes, set to what to show (NUL-terminated): the
 *	character itself, or \n, \t, \r, \xNN (a control or a byte that is
 *	not UTF-8), \uNNNN (a Unicode control)
 *
 * Return: how many bytes of @s it stands for; 0 at the NUL.
 */
size_t
rbmon_esc_next(const char *s, int flags, char *out)
{
	uint32_t	cp = 0;
	size_t		n;

	out[0] = '\0';
	if (*s == '\0')
		return 0;
	n = rbmon_utf8_decode(s, &cp);
	if (n == 0) {
		snprintf(out, RBMON_ESC_MAX, "\\x%02x", (unsigned char)*s);
		return 1;
	}
	if (!rbmon_esc_unsafe(cp)) {
		if (n > 1 && (flags & RBMON_ESC_ASCII)) {
			strcpy(out, "?");
			return n;
		}
		memcpy(out, s, n);
		out[n] = '\0';
		return n;
	}
	switch (cp) {
	case '\n':
		strcpy(out, (flags & RBMON_ESC_NL) ? "\n" : "\\n");
		break;
	case '\t':
		strcpy(out, "\\t");
		break;
	case '\r':
		strcpy(out, "\\r");
		break;
	default:
		snprintf(out, RBMON_ESC_MAX, cp < 0x80 ? "\\x%02x" : "\\u%04x",
		    (unsigned)cp);
		break;
	}
	return n;
}

/**
 * rbmon_esc_write - print @s escaped
 * @f: stream
 * @s: NUL-terminated bytes; NULL prints nothing
 * @flags: RBMON_ESC_*
 */
void
rbmon_esc_write(FILE *f, const char *s, int flags)
{
	char	buf[RBMON_ESC_MAX];
	size_t	n;

	if (s == NULL)
		return;
	while ((n = rbmon_esc_next(s, flags, buf)) != 0) {
		fputs(buf, f);
		s += n;
	}
}

/**
 * rbmon_esc_fputs - fputs() for text from a file or a program: escaped
 * @s: NUL-terminated bytes; NULL prints nothing
 * @f: stream
 */
void
rbmon_esc_fputs(const char *s, FILE *f)
{
	rbmon_esc_write(f, s, 0);
}

/**
 * rbmon_esc_dup - an escaped copy
 * @s: NUL-terminated bytes
 *
 * Return: a malloc'd string that is safe to print as it is.
 */
char *
rbmon_esc_dup(const char *s)
{
	char	buf[RBMON_ESC_MAX], *d = NULL;
	size_t	n, len = 0, cap = 0, k;

	for (;;) {
		n = rbmon_esc_next(s, 0, buf);
		k = strlen(buf);
		if (len + k + 1 > cap) {
			cap = cap == 0 ? strlen(s) + 16 : cap * 2;
			if (cap < len + k + 1)
				cap = len + k + 1;
			d = rbmon_xreallocarray(d, cap, 1);
		}
		memcpy(d + len, buf, k + 1);
		len += k;
		if (n == 0)
			return d;
		s += n;
	}
}

/**
 * rbmon_esc_line - print one line, escaped as a whole
 * @f: stream
 * @fmt: printf format of the line, without its newline
 *
 * For messages that carry names, paths and answers: whatever they hold,
 * the line stays one line and nothing in it reaches the terminal raw.
 */
void
rbmon_esc_line(FILE *f, const char *fmt, ...)
{
	va_list	 ap;
	char	*line = NULL;
	int	 r;

	va_start(ap, fmt);
	r = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (r < 0) {
		fputs("rbmon: out of memory\n", f);
		return;
	}
	rbmon_esc_write(f, line, 0);
	fputc('\n', f);
	free(line);
}
