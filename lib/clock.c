/* SPDX-License-Identifier: MIT */
/*
 * clock.c - slot timestamps: the CPU's counter where it is a clock (the
 * invariant TSC, aarch64's CNTVCT), else CLOCK_MONOTONIC; or none at all.
 */
#include "config.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <time.h>

#include "internal.h"

int rb_clock_kind = RB_CLOCK_MONO;

/* Does the counter run at a constant rate, in every C-state? */
static int rb_clock_counter_invariant(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d;

	if (__get_cpuid_max(0x80000000u, NULL) < 0x80000007u)
		return 0;
	__cpuid(0x80000007u, a, b, c, d);
	return (d >> 8) & 1;	/* "invariant TSC": constant rate, runs in all C-states */
#else
	/* The generic timer's system counter is constant-rate by definition. */
	return RB_CLOCK_COUNTER != 0;
#endif
}

/**
 * rb_clock_select - choose the slot clock
 * @wanted: RB_CLOCK_* as asked for, 0 to choose
 *
 * Return: the clock in force.
 */
int rb_clock_select(int wanted)
{
	if (wanted == 0)
		wanted = rb_clock_counter_invariant() ? RB_CLOCK_COUNTER :
			 RB_CLOCK_MONO;
	rb_clock_kind = wanted;
	return wanted;
}

/**
 * rb_clock_mode - how the hooks stamp with @clock: RB_TCLOCK_*
 */
uint32_t rb_clock_mode(uint32_t clock)
{
	if (clock == RB_CLOCK_NONE)
		return RB_TCLOCK_NONE;
	return RB_CLOCK_COUNTER != 0 && clock == RB_CLOCK_COUNTER ?
	       RB_TCLOCK_INLINE : RB_TCLOCK_CALL;
}

uint64_t rb_clock_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A timestamp of the clock in force, out of line; 0 for none. */
uint64_t rb_clock_raw_slow(void)
{
	if (rb_clock_kind == RB_CLOCK_NONE)
		return 0;
	if (RB_CLOCK_COUNTER != 0 && rb_clock_kind == RB_CLOCK_COUNTER)
		return rb_counter_read();
	return rb_clock_mono_ns();
}

/*
 * Refresh the header's counter rate from the creation pair and now, for
 * readers on another boot (an architectural rate, CNTFRQ, stays as the
 * creator stored it).  Called on slow paths only; concurrent callers each
 * store a valid estimate, so a plain relaxed store suffices.
 */
void rb_clock_calibrate(struct rb_header *h)
{
	uint64_t tsc, ns, dt, dns;

	if (RB_CLOCK_COUNTER == 0 || h->clock != RB_CLOCK_COUNTER ||
	    rb_counter_hz() != 0)
		return;
	tsc = rb_counter_read();
	ns = rb_clock_mono_ns();
	dns = ns - h->clock_ns0;
	dt = tsc - h->clock_tsc0;
	if (ns <= h->clock_ns0 || tsc <= h->clock_tsc0 || dns < 10000000u)
		return;
	RB_STORE(&h->clock_tsc_hz,
		 (uint64_t)((unsigned __int128)dt * 1000000000u / dns));
}

/**
 * rb_clock_rate - the counter's rate for the file of header @h: the
 * architectural one, the writers' estimate, or else measured now over a
 * couple of milliseconds (once, where a setting wants it: never on a hook)
 *
 * Return: ticks per second, 0 if the clock is no counter.
 */
uint64_t rb_clock_rate(const struct rb_header *h)
{
	uint64_t tsc0, ns0, tsc, ns;

	if (RB_CLOCK_COUNTER == 0 || h->clock != RB_CLOCK_COUNTER)
		return 0;
	if (rb_counter_hz() != 0)
		return rb_counter_hz();
	if (RB_LOAD(&h->clock_tsc_hz) != 0)
		return RB_LOAD(&h->clock_tsc_hz);
	tsc0 = rb_counter_read();
	ns0 = rb_clock_mono_ns();
	do {
		tsc = rb_counter_read();
		ns = rb_clock_mono_ns();
	} while (ns - ns0 < 2000000u);
	return tsc > tsc0 ? (uint64_t)((unsigned __int128)(tsc - tsc0) *
				       1000000000u / (ns - ns0)) : 0;
}
