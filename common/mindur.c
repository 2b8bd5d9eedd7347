/* SPDX-License-Identifier: MIT */
/*
 * common/mindur.c - the minimum duration of a kept call: parsed, and
 * converted once into the clock units the hooks compare (see mindur.h).
 */
#include "config.h"

#include <string.h>

#include "common/mindur.h"
#include "rbtrace/format.h"

/**
 * rb_mindur_parse - "0", or digits and a unit: ns, us (or µs), ms, s
 * @ns: set to the duration in nanoseconds, at most RB_MINDUR_MAX_NS
 *
 * Return: 0, or -1 with *@ns untouched.
 */
int rb_mindur_parse(const char *s, uint64_t *ns)
{
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "\xc2\xb5s", 1000 }, { "\xce\xbcs", 1000 },
		{ "ms", 1000000 }, { "s", 1000000000ull },
	};
	uint64_t v = 0;
	const char *p;
	size_t i;

	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	for (p = s; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > RB_MINDUR_MAX_NS)
			return -1;
	}
	if (*p == '\0') {
		if (v != 0)
			return -1;	/* a unit is needed: 5 what? */
		*ns = 0;
		return 0;
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(p, units[i].unit) != 0)
			continue;
		if (v > RB_MINDUR_MAX_NS / units[i].ns)
			return -1;
		*ns = v * units[i].ns;
		return 0;
	}
	return -1;
}

/**
 * rb_mindur_units - @ns in the units of @clock (RB_CLOCK_*), counting at
 * @hz for a counter
 *
 * Return: the units, at least 1 for a non-zero @ns; 0 without a clock
 * (no durations to compare) or with a counter of unknown rate.
 */
uint64_t rb_mindur_units(uint32_t clock, uint64_t hz, uint64_t ns)
{
	unsigned __int128 u;

	if (ns == 0 || clock == RB_CLOCK_NONE)
		return 0;
	if (clock == RB_CLOCK_MONO)
		return ns;
	if (hz == 0)
		return 0;
	u = (unsigned __int128)ns * hz / 1000000000u;
	return u == 0 ? 1 : u > UINT64_MAX ? UINT64_MAX : (uint64_t)u;
}
