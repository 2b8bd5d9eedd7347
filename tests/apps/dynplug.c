/* SPDX-License-Identifier: MIT */
/*
 * dynplug.c - an instrumented plugin for dynload: plugin_calc() calls
 * plugin_mid(), which calls plugin_leaf() 8 times.  Built twice: with
 * DYNPLUG_B, padding before them moves every function and every site, so
 * that the two builds loaded at the same address have their sites in
 * different places.
 */
#include "app.h"

unsigned long plugin_calc(unsigned long x);

#ifdef DYNPLUG_B
__attribute__((noinline)) unsigned long plugin_pad(unsigned long x)
{
	__asm__ volatile(".skip 37, 0x90");
	return x + 1;
}
#endif

__attribute__((noinline)) unsigned long plugin_leaf(unsigned long x)
{
	return (x ^ (x >> 7)) + 3;
}

__attribute__((noinline)) unsigned long plugin_mid(unsigned long x)
{
	int i;

	for (i = 0; i < 8; i++)
		x = plugin_leaf(x);
	return x;
}

unsigned long plugin_calc(unsigned long x)
{
	return plugin_mid(x) + 1;
}
