/* SPDX-License-Identifier: MIT */
/* b/util.c - level 3, mode 8 and scale (x * 3), all static. */
#include "../watchsyms.h"

static int level __attribute__((used)) = 3;
static int mode __attribute__((used)) = 8;

static int scale(int x)
{
	return x * level;
}

int (*b_scale)(int) = scale;

int util_b(void)
{
	return scale(mode);
}
