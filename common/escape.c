/* SPDX-License-Identifier: MIT */
/* escape.c - text for the launcher's messages, escaped (common/escape.h). */
#include "config.h"

#include <stdio.h>

#include "common/escape.h"

/**
 * rb_escape - @s with every byte outside printable ASCII, and the
 * backslash, as \xHH
 * @out: the result, cut to fit @size (at least 1)
 */
void rb_escape(const char *s, char *out, size_t size)
{
	size_t n = 0;

	for (; *s != '\0' && n + 5 < size; s++) {
		unsigned char c = (unsigned char)*s;

		if (c >= 0x20 && c < 0x7f && c != '\\')
			out[n++] = (char)c;
		else
			n += (size_t)snprintf(out + n, size - n, "\\x%02x", c);
	}
	out[n] = '\0';
}
