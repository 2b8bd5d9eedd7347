/* SPDX-License-Identifier: MIT */
/* check_lib.h - the library's Check suites. */
#ifndef CHECK_LIB_H
#define CHECK_LIB_H

#include <check.h>

Suite *suite_lib(void);

#endif
