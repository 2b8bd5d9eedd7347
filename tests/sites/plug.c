/* SPDX-License-Identifier: MIT */
/*
 * plug.c - an instrumented shared object for check_sites, dlopen()ed: its
 * calls of the hooks go through its PLT, to check_sites' own hooks.
 */
__attribute__((noinline)) int
sites_plug(int x)
{
	return x * 2 + 1;
}
