/* SPDX-License-Identifier: MIT */
/* capspec.c - a capture's condition, "FUNC>DURATION" or "FUNC>max". */
#include "config.h"

#include <string.h>

#include "common/capspec.h"
#include "rbtrace/format.h"

/**
 * rb_capspec_parse - one "FUNC>DURATION" or "FUNC>max" into @name, @ns, @flags
 *
 * The last '>' ends the name (C++ names hold others).  DURATION is a
 * number with a unit: ns, us, µs, ms or s.
 * Return: 0, or -1.
 */
int rb_capspec_parse(const char *spec, char *name, size_t size, uint64_t *ns,
		     uint32_t *flags)
{
	static const struct { const char *u; uint64_t mul; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "\xc2\xb5s", 1000 },
		{ "ms", 1000000 }, { "s", 1000000000 },
	};
	const char *gt = strrchr(spec, '>'), *p;
	uint64_t v = 0;
	size_t n, i;

	if (gt == NULL || gt == spec)
		return -1;
	n = (size_t)(gt - spec);
	while (n > 0 && (spec[n - 1] == ' ' || spec[n - 1] == '\t'))
		n--;
	while (n > 0 && (*spec == ' ' || *spec == '\t')) {
		spec++;
		n--;
	}
	if (n == 0 || n >= size)
		return -1;
	memcpy(name, spec, n);
	name[n] = '\0';
	p = gt + 1;
	while (*p == ' ')
		p++;
	*flags = 0;
	*ns = 0;
	if (strcmp(p, "max") == 0) {
		*flags = RB_CAPF_MAX;
		return 0;
	}
	if (*p < '0' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9') {
		if (v > 1000000000000ull)
			return -1;
		v = v * 10 + (uint64_t)(*p++ - '0');
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(p, units[i].u) == 0) {
			if (v > UINT64_MAX / 2 / units[i].mul)
				return -1;
			*ns = v * units[i].mul;
			return 0;
		}
	return -1;
}
