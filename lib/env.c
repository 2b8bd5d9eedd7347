/* SPDX-License-Identifier: MIT */
/* env.c - the RBTRACE_* settings, read and checked once at start-up. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mindur.h"
#include "internal.h"

void rb_settings_defaults(struct rb_settings *s)
{
	s->geo.rings = RB_DEF_RINGS;
	s->geo.slots = RB_DEF_SLOTS;
	s->geo.slot_sz = RB_DEF_SLOT_SZ;
	s->geo.msg_sz = RB_DEF_MSG_SZ;
	s->geo.global_sz = RB_DEF_GLOBAL_SZ;
	s->geo.objects = RB_DEF_OBJECTS;
	s->geo.events = RB_DEF_EVENTS;
	s->geo.ev_policy = RB_POLICY_RING;
	s->stop_on_create = 0;
	s->trace_on_create = 1;
	s->clock = 0;
	s->orphan_timeout = RB_DEF_ORPHAN_TIMEOUT;
	s->record_wait = 0;
	s->watch_worker = RB_WW_LAZY;
	s->min_duration_ns = 0;
}

/**
 * rb_parse_uint - parse a decimal number in [lo, hi]
 *
 * Only digits are accepted: no sign, no spaces, no suffix, no hex.
 * Return: 0, or -1 with *out untouched.
 */
int rb_parse_uint(const char *str, uint32_t lo, uint32_t hi, uint32_t *out)
{
	uint64_t v = 0;
	const char *p;

	if (str == NULL || *str == '\0')
		return -1;
	for (p = str; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > hi)
			return -1;
	}
	if (v < lo)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

struct rb_env_uint {
	const char	*name;
	uint32_t	lo, hi;
	size_t		off;
};

#define GEO(f)	offsetof(struct rb_settings, geo.f)
static const struct rb_env_uint rb_env_uints[] = {
	{ "RBTRACE_RINGS", RB_MIN_RINGS, RB_MAX_RINGS, GEO(rings) },
	{ "RBTRACE_SLOTS", RB_MIN_SLOTS, RB_MAX_SLOTS, GEO(slots) },
	{ "RBTRACE_SLOTSZ", RB_MIN_SLOT_SZ, RB_MAX_SLOT_SZ, GEO(slot_sz) },
	{ "RBTRACE_MSGSZ", RB_MIN_MSG_SZ, RB_MAX_MSG_SZ, GEO(msg_sz) },
	{ "RBTRACE_GLOBALSZ", RB_MIN_GLOBAL_SZ, RB_MAX_GLOBAL_SZ, GEO(global_sz) },
};
#undef GEO

static void rb_env_bad(rb_warn_fn warn, const char *name, const char *val,
		       const char *what, const char *dflt)
{
	char line[512];

	snprintf(line, sizeof(line), "rbtrace: %s=%.64s%s: %s; using %s",
		 name, val, strlen(val) > 64 ? "..." : "", what, dflt);
	warn(line);
}

static int rb_env_flag(const char *name, const char *val, int *out,
		       rb_warn_fn warn)
{
	if (val == NULL)
		return 0;
	if (strcmp(val, "0") == 0 || strcmp(val, "1") == 0) {
		*out = val[0] - '0';
		return 0;
	}
	rb_env_bad(warn, name, val, "not 0 or 1", *out ? "1" : "0");
	return -1;
}

/**
 * rb_settings_from_env - read RBTRACE_* through @get into @s
 *
 * A bad value costs one line through @warn and keeps the default.
 * Return: the number of bad values.
 */
int rb_settings_from_env(struct rb_settings *s,
			 const char *(*get)(const char *), rb_warn_fn warn)
{
	struct rb_layout l;
	const char *val;
	size_t i;
	int bad = 0;

	for (i = 0; i < sizeof(rb_env_uints) / sizeof(rb_env_uints[0]); i++) {
		const struct rb_env_uint *e = &rb_env_uints[i];
		uint32_t *field = (uint32_t *)((char *)s + e->off);
		char what[64], dflt[16];

		val = get(e->name);
		if (val == NULL || rb_parse_uint(val, e->lo, e->hi, field) == 0)
			continue;
		snprintf(what, sizeof(what), "not a number from %u to %u",
			 e->lo, e->hi);
		snprintf(dflt, sizeof(dflt), "%u", *field);
		rb_env_bad(warn, e->name, val, what, dflt);
		bad++;
	}
	bad -= rb_env_flag("RBTRACE_SOC", get("RBTRACE_SOC"),
			   &s->stop_on_create, warn);
	bad -= rb_env_flag("RBTRACE_TOC", get("RBTRACE_TOC"),
			   &s->trace_on_create, warn);

	val = get("RBTRACE_ORPHAN_TIMEOUT");
	if (val != NULL && rb_parse_uint(val, 0, RB_MAX_ORPHAN_TIMEOUT,
					 &s->orphan_timeout) != 0) {
		char what[64], dflt[16];

		snprintf(what, sizeof(what),
			 "not a number of seconds from 0 to %u",
			 RB_MAX_ORPHAN_TIMEOUT);
		snprintf(dflt, sizeof(dflt), "%u", s->orphan_timeout);
		rb_env_bad(warn, "RBTRACE_ORPHAN_TIMEOUT", val, what, dflt);
		bad++;
	}

	val = get("RBTRACE_RECORD_WAIT");
	if (val != NULL && rb_parse_uint(val, 0, RB_MAX_RECORD_WAIT,
					 &s->record_wait) != 0) {
		char what[64];

		snprintf(what, sizeof(what),
			 "not a number of seconds from 0 to %u",
			 RB_MAX_RECORD_WAIT);
		rb_env_bad(warn, "RBTRACE_RECORD_WAIT", val, what, "0");
		bad++;
	}

	val = get("RBTRACE_EVENTS");
	if (val != NULL) {
		uint32_t v;

		if (rb_parse_uint(val, 0, RB_MAX_EVENTS, &v) == 0 &&
		    rb_events_valid(v)) {
			s->geo.events = v;
		} else {
			char what[96], dflt[16];

			snprintf(what, sizeof(what),
				 "not 0 or a power of two from %u to %u",
				 RB_MIN_EVENTS, RB_MAX_EVENTS);
			snprintf(dflt, sizeof(dflt), "%u", s->geo.events);
			rb_env_bad(warn, "RBTRACE_EVENTS", val, what, dflt);
			bad++;
		}
	}

	val = get("RBTRACE_POLICY");
	if (val != NULL) {
		int p = rb_policy_parse(val);

		if (p >= 0) {
			s->geo.ev_policy = (uint32_t)p;
		} else {
			rb_env_bad(warn, "RBTRACE_POLICY", val,
				   "not ring, fill or drain",
				   rb_policy_name(s->geo.ev_policy));
			bad++;
		}
	}

	val = get("RBTRACE_CLOCK");
	if (val != NULL) {
		uint32_t c = rb_clock_parse(val);

		if (c != 0) {
			s->clock = (int)c;
		} else {
			rb_env_bad(warn, "RBTRACE_CLOCK", val,
				   "not " RB_CLOCK_WORDS, "the default");
			bad++;
		}
	}

	val = get("RBTRACE_WATCH_WORKER");
	if (val != NULL) {
		if (strcmp(val, "lazy") == 0) {
			s->watch_worker = RB_WW_LAZY;
		} else if (strcmp(val, "start") == 0) {
			s->watch_worker = RB_WW_START;
		} else {
			rb_env_bad(warn, "RBTRACE_WATCH_WORKER", val,
				   "not lazy or start",
				   s->watch_worker == RB_WW_START ? "start" : "lazy");
			bad++;
		}
	}

	val = get("RBTRACE_MIN_DURATION");
	if (val != NULL) {
		if (rb_mindur_parse(val, &s->min_duration_ns) != 0) {
			rb_env_bad(warn, "RBTRACE_MIN_DURATION", val,
				   "not " RB_MINDUR_WORDS, "0 (off)");
			bad++;
		} else if (s->min_duration_ns != 0 &&
			   s->geo.ev_policy == RB_POLICY_DRAIN) {
			/* A drained record may be consumed before its call returns. */
			rb_env_bad(warn, "RBTRACE_MIN_DURATION", val,
				   "not with RBTRACE_POLICY=drain", "0 (off)");
			s->min_duration_ns = 0;
			bad++;
		}
	}

	if (rb_layout_compute(&s->geo, &l) < 0) {
		char line[192];

		snprintf(line, sizeof(line),
			 "rbtrace: %u rings of %u slots and %u events make a file over %llu bytes; using the default geometry",
			 s->geo.rings, s->geo.slots, s->geo.events,
			 (unsigned long long)RB_MAX_FILE_SIZE);
		warn(line);
		s->geo.rings = RB_DEF_RINGS;
		s->geo.slots = RB_DEF_SLOTS;
		s->geo.slot_sz = RB_DEF_SLOT_SZ;
		s->geo.msg_sz = RB_DEF_MSG_SZ;
		s->geo.global_sz = RB_DEF_GLOBAL_SZ;
		s->geo.events = RB_DEF_EVENTS;
		bad++;
	}
	return bad;
}
