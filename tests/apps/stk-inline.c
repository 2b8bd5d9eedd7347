/* SPDX-License-Identifier: MIT */
/*
 * stk-inline.c - inlined hot helpers at -O2: consume_all() runs
 * fetch_item() (inlined, this file) -> ring_next() -> ring_pop() (inlined,
 * stk-inline.h) -> decode_block(), a real call; decode_block() runs
 * check_header() (inlined) -> stk_park() on its fourth call.
 */
#include "stk.h"
#include "stk-inline.h"

static volatile int stk_calls;

static INLINE int
check_header(int n)
{
	if (++stk_calls < 4)
		return n & 7;
	return stk_park() + n;
}

NOINLINE int
decode_block(int n)
{
	int h = check_header(n);

	return h ^ 5;
}

static INLINE int
fetch_item(int n)
{
	int v = ring_next(n);

	return v - 1;
}

NOINLINE static int
consume_all(int n)
{
	int i, sum = 0;

	for (i = 0; i < n; i++)
		sum += fetch_item(i);
	return sum;
}

int
main(int argc, char **argv)
{
	stk_init(1);
	return consume_all(argc + 10) == 0;
}
