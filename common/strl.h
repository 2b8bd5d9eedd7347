/* SPDX-License-Identifier: MIT */
/* strlcpy and strlcat: glibc's since 2.38, else libbsd's. */
#ifndef RB_STRL_H
#define RB_STRL_H

#include <string.h>

#if !defined(HAVE_STRLCPY) || !defined(HAVE_STRLCAT)
#include <bsd/string.h>
#endif

#endif /* RB_STRL_H */
