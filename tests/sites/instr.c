/* SPDX-License-Identifier: MIT */
/*
 * instr.c - instrumented code for check_sites: functions whose calls of
 * the hooks the site table must find, one inlined into another (its sites
 * pass its own address, not its caller's), one with many exits.
 */
#include <stdint.h>

int	sites_leaf(int);
int	sites_outer(int);
int	sites_many(int);

static inline __attribute__((always_inline)) int
sites_inlined(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int
sites_leaf(int x)
{
	return x + 1;
}

__attribute__((noinline)) int
sites_outer(int x)
{
	return sites_inlined(x) + sites_leaf(x);
}

__attribute__((noinline)) int
sites_many(int x)
{
	int	i, s = 0;

	if (x < 0)
		return -1;
	for (i = 0; i < x; i++) {
		if (i % 7 == 3)
			return s + sites_leaf(i);
		s += sites_inlined(i);
	}
	return s;
}

/* The address of the inlined function, as its sites pass it. */
uintptr_t
sites_inlined_addr(void)
{
	return (uintptr_t)&sites_inlined;
}
