/* SPDX-License-Identifier: MIT */
/*
 * prog.c - instrumented C for tests/sites.sh: inlined instrumented
 * functions, many exits, a switch (jump table), recursion, varargs.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static inline int
sq(int x)
{
	return x * x;
}

static inline int
cube(int x)
{
	return sq(x) * x;
}

__attribute__((noinline)) static int
pick(int x)
{
	switch (x & 7) {
	case 0:
		return sq(x);
	case 1:
		return cube(x) + 1;
	case 2:
		return x - 3;
	case 3:
		return sq(x + 1) - 2;
	case 4:
		return x * 5;
	case 5:
		return cube(x - 1);
	default:
		return -x;
	}
}

__attribute__((noinline)) static int
fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) static int
sum(int n, ...)
{
	va_list	ap;
	int	i, s = 0;

	va_start(ap, n);
	for (i = 0; i < n; i++)
		s += sq(va_arg(ap, int));
	va_end(ap);
	return s;
}

__attribute__((noinline)) static int
search(const int *v, int n, int key)
{
	int	i;

	for (i = 0; i < n; i++) {
		if (v[i] == key)
			return i;
		if (v[i] > key * 4)
			return -2;
	}
	return -1;
}

int
main(int argc, char **argv)
{
	int	v[8], i, r = 0;

	for (i = 0; i < 8; i++)
		v[i] = pick(i + argc);
	r += fib(10 + argc % 2);
	r += sum(3, argc, 2, 3);
	r += search(v, 8, argc > 1 ? atoi(argv[1]) : 1);
	printf("%d\n", r);
	return 0;
}
