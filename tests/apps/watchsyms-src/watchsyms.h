/* SPDX-License-Identifier: MIT */
/* watchsyms.h - what the files of tests/apps/watchsyms share. */
#ifndef WATCHSYMS_H
#define WATCHSYMS_H

extern int (*a_scale)(int);
extern int (*b_scale)(int);

int util_a(void);
int util_b(void);
int display(void);

#endif
