/* SPDX-License-Identifier: MIT */
/*
 * rbmon util: what every command reads from its command line the same
 * way: usage errors, numbers, thread lists and durations (rbmon(1),
 * "DURATIONS"); and a path's last name.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/util/escape.h"
#include "monitor/util/util.h"

const char *
rbmon_basename(const char *path)
{
	const char	*p;

	p = strrchr(path, '/');
	return p == NULL ? path : p + 1;
}

static __attribute__((noreturn)) void
rbmon_vusage(const char *cmd, const char *fmt, va_list ap)
{
	char	*msg = NULL;

	if (cmd == NULL)
		fputs("rbmon: ", stderr);
	else
		fprintf(stderr, "rbmon %s: ", cmd);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	rbmon_esc_fputs(msg != NULL ? msg : "out of memory", stderr);
	if (cmd == NULL)
		fputs("\nTry 'rbmon --help'.\n", stderr);
	else
		fprintf(stderr, "\nTry 'rbmon %s --help'.\n", cmd);
	free(msg);
	exit(2);
}

/* "rbmon: what is wrong", then where help is; exit 2. */
__attribute__((noreturn, format(printf, 1, 2))) void
rbmon_bad_usage(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	rbmon_vusage(NULL, fmt, ap);
}

/* "rbmon CMD: what is wrong", then where help is; exit 2. */
__attribute__((noreturn, format(printf, 2, 3))) void
rbmon_cmd_usage(const char *cmd, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	rbmon_vusage(cmd, fmt, ap);
}

/**
 * rbmon_number - a decimal number in @lo..@hi, or a usage error
 * @cmd: the command ("rbmon CMD: ..."), NULL for rbmon itself
 * @what: what the number is, for the message
 */
long
rbmon_number(const char *cmd, const char *what, const char *s, long lo,
    long hi)
{
	char	*end;
	long	 v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
		rbmon_cmd_usage(cmd, "invalid %s '%s' (expected %ld..%ld)", what,
		    s, lo, hi);
	return v;
}

/* -t 1240,1241: the thread ids wanted (none: every thread). */
void
rbmon_cmd_parse_tids(const char *cmd, const char *arg, struct rbmon_tids *t)
{
	char	*copy = rbmon_xstrdup(arg), *p, *save = NULL, *end;
	long	 v;

	for (p = strtok_r(copy, ",", &save); p != NULL;
	    p = strtok_r(NULL, ",", &save)) {
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno != 0 || end == p || *end != '\0' || v <= 0 ||
		    v > INT_MAX)
			rbmon_cmd_usage(cmd, "invalid thread id '%s'", p);
		t->v = rbmon_xreallocarray(t->v, t->n + 1, sizeof *t->v);
		t->v[t->n++] = v;
	}
	free(copy);
	if (t->n == 0)
		rbmon_cmd_usage(cmd, "no thread id in '%s'", arg);
}

int
rbmon_cmd_tid_wanted(const struct rbmon_tids *t, int32_t tid)
{
	size_t	i;

	if (t->n == 0)
		return 1;
	for (i = 0; i < t->n; i++)
		if (t->v[i] == tid)
			return 1;
	return 0;
}

/**
 * rbmon_duration_parse - a duration as every option of rbmon reads one:
 * digits, maybe a fraction, and a unit: ns, us, ms, s, m, h or d ("500ns",
 * "1.5ms", "90s", "30m", "12h", "7d"); "0" alone is no time at all
 * @ns: set to the duration in nanoseconds, the fraction below 1 ns dropped
 *
 * A number without a unit is refused: is 5 five seconds, or five
 * nanoseconds?  The caller says so with rbmon_duration_bare().
 *
 * Return: RBMON_DUR_OK, or RBMON_DUR_BARE for a non-zero number without
 * a unit, RBMON_DUR_RANGE past 2^64 - 1 ns, RBMON_DUR_BAD for anything else.
 */
int
rbmon_duration_parse(const char *s, uint64_t *ns)
{
	static const struct { const char *name; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000ull }, { "m", 60000000000ull },
		{ "h", 3600000000000ull }, { "d", 86400000000000ull },
	};
	const char	*p = s, *frac = NULL;
	uint64_t	 whole = 0, mul = 0, part = 0, scale = 1, d;
	size_t		 i, nfrac = 0;
	int		 zero = 1, over = 0;

	if (*p < '0' || *p > '9')
		return RBMON_DUR_BAD;
	for (; *p >= '0' && *p <= '9'; p++) {
		d = (uint64_t)(*p - '0');
		if (whole > UINT64_MAX / 10 || whole * 10 > UINT64_MAX - d)
			over = 1;
		else
			whole = whole * 10 + d;
		zero &= *p == '0';
	}
	if (*p == '.') {
		frac = ++p;
		for (; *p >= '0' && *p <= '9'; p++) {
			nfrac++;
			zero &= *p == '0';
		}
		if (nfrac == 0)
			return RBMON_DUR_BAD;
	}
	if (*p == '\0') {
		if (!zero)
			return RBMON_DUR_BARE;
		*ns = 0;
		return RBMON_DUR_OK;
	}
	for (i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strcmp(p, units[i].name) == 0)
			mul = units[i].ns;
	if (mul == 0)
		return RBMON_DUR_BAD;
	if (over || whole > UINT64_MAX / mul)
		return RBMON_DUR_RANGE;
	whole *= mul;
	/* The fraction, to the ns: 18 digits are more than a day has ns. */
	for (i = 0; frac != NULL && i < nfrac && i < 18; i++) {
		part = part * 10 + (uint64_t)(frac[i] - '0');
		scale *= 10;
	}
	part = (uint64_t)((unsigned __int128)part * mul / scale);
	if (part > UINT64_MAX - whole)
		return RBMON_DUR_RANGE;
	*ns = whole + part;
	return RBMON_DUR_OK;
}

/**
 * rbmon_duration_bare - the usage error for a duration without its unit:
 * "rbmon CMD: --min 5: a duration needs a unit (ns, ...), as in 5ms"
 * @cmd: the command, NULL for rbmon itself
 * @opt: the option, as given ("--min")
 * @unit: the unit of the example
 */
void
rbmon_duration_bare(const char *cmd, const char *opt, const char *arg,
    const char *unit)
{
	rbmon_cmd_usage(cmd, "%s %s: a duration needs a unit (" RBMON_DUR_UNITS
	    "), as in %s%s", opt, arg, arg, unit);
}

/**
 * rbmon_group - @v with its thousands grouped, "48,113,201", into @buf
 *
 * Return: @buf.
 */
const char *
rbmon_group(char *buf, size_t len, uint64_t v)
{
	char	tmp[32];
	size_t	n, i, o = 0;

	n = (size_t)snprintf(tmp, sizeof tmp, "%" PRIu64, v);
	for (i = 0; i < n && o + 2 < len; i++) {
		if (i > 0 && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}
