/* SPDX-License-Identifier: MIT */
/* defs.h - what every part of common/ declares with: the library keeps it to itself. */
#ifndef RB_COMMON_DEFS_H
#define RB_COMMON_DEFS_H

/*
 * Not exported from librbtrace (built with -fvisibility=hidden anyway);
 * in the monitor and the launcher, which export nothing, it changes
 * nothing.
 */
#define RB_HIDDEN	__attribute__((visibility("hidden")))

#endif /* RB_COMMON_DEFS_H */
