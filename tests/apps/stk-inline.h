/* SPDX-License-Identifier: MIT */
/*
 * stk-inline.h - hot helpers of stk-inline.c, inlined at -O2: the call
 * sites of the functions inlined here lie in this file, not in the
 * function they end up in.
 */
#ifndef RBT_STK_INLINE_H
#define RBT_STK_INLINE_H

NOINLINE int decode_block(int n);

static INLINE int
ring_pop(int n)
{
	int v = decode_block(n * 2);

	return v + n;
}

static INLINE int
ring_next(int n)
{
	if (n < 0)
		return 0;
	return ring_pop(n + 1) * 3;
}

#endif
