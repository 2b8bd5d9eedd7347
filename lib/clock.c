/* clock.c - slot timestamps: the invariant TSC where there is one, else CLOCK_MONOTONIC. */
#include "config.h"

#include <cpuid.h>
#include <time.h>
#include <x86intrin.h>

#include "internal.h"

int rb_clock_kind = RB_CLOCK_MONO;

static int rb_clock_tsc_invariant(void)
{
	unsigned int a, b, c, d;

	if (__get_cpuid_max(0x80000000u, NULL) < 0x80000007u)
		return 0;
	__cpuid(0x80000007u, a, b, c, d);
	return (d >> 8) & 1;	/* "invariant TSC": constant rate, runs in all C-states */
}

/**
 * rb_clock_select - choose the slot clock
 * @wanted: RB_CLOCK_TSC or RB_CLOCK_MONO as asked for, 0 to choose
 *
 * Return: the clock in force.
 */
int rb_clock_select(int wanted)
{
	if (wanted == 0)
		wanted = rb_clock_tsc_invariant() ? RB_CLOCK_TSC : RB_CLOCK_MONO;
	rb_clock_kind = wanted;
	return wanted;
}

uint64_t rb_clock_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t rb_clock_raw_slow(void)
{
	return rb_clock_kind == RB_CLOCK_TSC ? __rdtsc() : rb_clock_mono_ns();
}

/*
 * Refresh the header's TSC rate from the creation pair and now, for readers
 * on another boot.  Called on slow paths only; concurrent callers each store
 * a valid estimate, so a plain relaxed store suffices.
 */
void rb_clock_calibrate(struct rb_header *h)
{
	uint64_t tsc, ns, dt, dns;

	if (h->clock != RB_CLOCK_TSC)
		return;
	tsc = __rdtsc();
	ns = rb_clock_mono_ns();
	dns = ns - h->clock_ns0;
	dt = tsc - h->clock_tsc0;
	if (ns <= h->clock_ns0 || tsc <= h->clock_tsc0 || dns < 10000000u)
		return;
	RB_STORE(&h->clock_tsc_hz,
		 (uint64_t)((unsigned __int128)dt * 1000000000u / dns));
}
