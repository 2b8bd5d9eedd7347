/* SPDX-License-Identifier: MIT */
/*
 * stk-longjmp.c - longjmp: run_parser() sets a jump buffer, parse_value()
 * -> parse_number() -> bail_out() jumps back to it three calls up, then
 * run_parser() recovers and parks.  The frames the jump skipped must be
 * gone.
 */
#include <setjmp.h>

#include "stk.h"

static jmp_buf stk_env;
static volatile int stk_depth;

NOINLINE static void
bail_out(int n)
{
	stk_depth = n;
	longjmp(stk_env, n + 1);
}

NOINLINE static int
parse_number(int n)
{
	bail_out(n + 1);
	return n;
}

NOINLINE static int
parse_value(int n)
{
	return parse_number(n * 2) + 1;
}

NOINLINE static int
wait_input(int n)
{
	return stk_park() + n;
}

NOINLINE static int
recover(int n)
{
	return wait_input(n - 1) * 2;
}

NOINLINE static int
run_parser(int n)
{
	volatile int r = 0;

	if (setjmp(stk_env) == 0)
		r = parse_value(n);
	else
		r = recover(stk_depth);
	return r;
}

int
main(int argc, char **argv)
{
	stk_init(1);
	return run_parser(argc) == 0;
}
