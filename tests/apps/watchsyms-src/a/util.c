/* SPDX-License-Identifier: MIT */
/* a/util.c - level 2, verbose 5 and scale (x + 2), all static. */
#include "../watchsyms.h"

static int level __attribute__((used)) = 2;
static int verbose __attribute__((used)) = 5;

static int scale(int x)
{
	return x + level;
}

int (*a_scale)(int) = scale;

int util_a(void)
{
	return scale(verbose);
}
