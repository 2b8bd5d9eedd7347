/* SPDX-License-Identifier: MIT */
/*
 * stk-line0.c - calls whose line-table row says line 0: clang -O2 merges
 * the calls of several switch cases into one call instruction, which it
 * gives no line, as it does in Lua's g_read(); gdb shows the line of the
 * row before it.  main() -> dispatch() -> read_format() -> read_item()
 * (two cases, one call) -> run_hook() -> stk_hook() through a pointer
 * -> stk_park().
 */
#include "stk.h"

static volatile int stk_sink;

NOINLINE static int
stk_hook(int n)
{
	return stk_park() + n;
}

static int (*volatile stk_hookp)(int) = stk_hook;

NOINLINE static int
run_hook(int (*fn)(int), int n)
{
	int r;

	if (n > 1000)
		r = fn(n - 1);
	else
		r = fn(n + 1);
	return r + stk_sink;
}

NOINLINE static int
read_number(int n)
{
	stk_sink += n;
	return n & 1;
}

NOINLINE static int
read_item(int n, int chop)
{
	int c = run_hook(stk_hookp, n + chop);

	return c != 0;
}

NOINLINE static int
read_format(int n, const char *fmt)
{
	int success = 1;

	for (; n-- > 0 && success; fmt++) {
		switch (*fmt) {
		case 'n':
			success = read_number(n);
			break;
		case 'l':
			success = read_item(n, 1);
			break;
		case 'L':
			success = read_item(n, 0);
			break;
		default:
			return -1;
		}
	}
	return success;
}

NOINLINE static int
dispatch(int argc)
{
	return read_format(argc + 3, argc > 5 ? "nnL" : "nl") + 1;
}

int
main(int argc, char **argv)
{
	(void)argv;
	stk_init(1);
	return dispatch(argc);
}
