/* SPDX-License-Identifier: MIT */
/*
 * clock.h - the clocks of slot and event timestamps (rbtrace(5), the
 * header's clock): their names, and the CPU's counter, read inline by the
 * library's hooks and by readers that relate it to CLOCK_MONOTONIC.
 *
 * x86-64: the TSC (rdtsc).  aarch64: the generic timer's virtual count
 * (CNTVCT_EL0), after an isb so that the read is not taken ahead of the
 * instructions before it, as the kernel's vDSO reads it; its rate is
 * CNTFRQ_EL0.  Anything else has no counter here: RB_CLOCK_COUNTER is 0
 * and the clock is CLOCK_MONOTONIC.
 */
#ifndef RB_COMMON_CLOCK_H
#define RB_COMMON_CLOCK_H

#include <stdint.h>
#include <string.h>

#include "rbtrace/format.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>

#define RB_CLOCK_COUNTER	RB_CLOCK_TSC

static inline uint64_t rb_counter_read(void)
{
	return __rdtsc();
}

/* The TSC's rate is not architectural: writers and readers measure it. */
static inline uint64_t rb_counter_hz(void)
{
	return 0;
}

static inline void rb_cpu_relax(void)
{
	__builtin_ia32_pause();
}

#elif defined(__aarch64__)

#define RB_CLOCK_COUNTER	RB_CLOCK_CNTVCT

static inline uint64_t rb_counter_read(void)
{
	uint64_t v;

	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v));
	return v;
}

static inline uint64_t rb_counter_hz(void)
{
	uint64_t f;

	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(f));
	return f;
}

static inline void rb_cpu_relax(void)
{
	__asm__ __volatile__("yield");
}

#else

#define RB_CLOCK_COUNTER	0	/* no counter: CLOCK_MONOTONIC */

static inline uint64_t rb_counter_read(void)
{
	return 0;
}

static inline uint64_t rb_counter_hz(void)
{
	return 0;
}

static inline void rb_cpu_relax(void)
{
}

#endif

/* Is @clock a CPU counter (ticks at a constant rate, see clock_tsc_hz)? */
static inline int rb_clock_is_counter(uint32_t clock)
{
	return clock == RB_CLOCK_TSC || clock == RB_CLOCK_CNTVCT;
}

/* RBTRACE_CLOCK's word for @clock, NULL for no clock of the format. */
static inline const char *rb_clock_name(uint32_t clock)
{
	switch (clock) {
	case RB_CLOCK_MONO:	return "mono";
	case RB_CLOCK_TSC:	return "tsc";
	case RB_CLOCK_NONE:	return "none";
	case RB_CLOCK_CNTVCT:	return "cntvct";
	default:		return NULL;
	}
}

/*
 * The clock RBTRACE_CLOCK=@s asks for: mono, none, or this machine's
 * counter (tsc on x86-64, cntvct on aarch64).  Return: RB_CLOCK_*, or 0.
 */
static inline uint32_t rb_clock_parse(const char *s)
{
	if (strcmp(s, "mono") == 0)
		return RB_CLOCK_MONO;
	if (strcmp(s, "none") == 0)
		return RB_CLOCK_NONE;
#if RB_CLOCK_COUNTER != 0
	if (strcmp(s, rb_clock_name(RB_CLOCK_COUNTER)) == 0)
		return RB_CLOCK_COUNTER;
#endif
	return 0;
}

/* The words rb_clock_parse() takes, for messages. */
#if defined(__x86_64__) || defined(__i386__)
#define RB_CLOCK_WORDS	"tsc, mono or none"
#elif defined(__aarch64__)
#define RB_CLOCK_WORDS	"cntvct, mono or none"
#else
#define RB_CLOCK_WORDS	"mono or none"
#endif

#endif /* RB_COMMON_CLOCK_H */
