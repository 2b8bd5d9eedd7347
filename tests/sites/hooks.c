/* SPDX-License-Identifier: MIT */
/* hooks.c - hooks that count, for the programs of tests/sites.sh. */
void	__cyg_profile_func_enter(void *, void *)
	    __attribute__((no_instrument_function));
void	__cyg_profile_func_exit(void *, void *)
	    __attribute__((no_instrument_function));

volatile unsigned long sites_hooks_called;

void
__cyg_profile_func_enter(void *fn, void *site)
{
	(void)fn;
	(void)site;
	sites_hooks_called++;
}

void
__cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
	sites_hooks_called++;
}
