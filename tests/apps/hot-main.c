/* SPDX-License-Identifier: MIT */
/*
 * hot-main.c - calls counted exactly, for rbmon hot (tests/integration/hot.sh).
 *
 * main calls walk() 10 times and leaf_add_all() twice; each walk() calls
 * leaf_add() 100 times and leaf_mul() 50 times (both in hot-leaf.c), and
 * sq() 20 times, a static function the compiler inlines at -O2 (walk and
 * leaf_add_all are kept out of line).  So:
 * leaf_add 1000, leaf_mul 500, sq 200, walk 10, leaf_add_all 2, main 1.
 * walk() also works a few microseconds itself.  It prints the sum it
 * computed, so that no call is optimised away.
 */
#include <stdio.h>

int leaf_add(int a, int b);
int leaf_mul(int a, int b);
int leaf_add_all(int n);

static volatile int seed = 3;

static int sq(int x)
{
	return x * x + seed;
}

static __attribute__((noinline)) int walk(int r)
{
	int i, s = 0;

	for (i = 0; i < 100; i++)
		s = leaf_add(s, i + r);
	for (i = 0; i < 50; i++)
		s += leaf_mul(i, seed);
	for (i = 0; i < 20; i++)
		s += sq(i + seed);
	/* Work of its own: microseconds, so never "short" for rbmon hot. */
	for (i = 0; i < 5000; i++)
		s += seed;
	return s;
}

/* Its name holds "leaf_add": GCC's exclusion list matches substrings. */
__attribute__((noinline)) int leaf_add_all(int n)
{
	return n * (n + 1) / 2 + seed;
}

int main(void)
{
	long s = 0;
	int r;

	for (r = 0; r < 10; r++)
		s += walk(r);
	s += leaf_add_all(10) + leaf_add_all(20);
	printf("sum %ld\n", s);
	return 0;
}
