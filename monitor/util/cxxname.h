/* SPDX-License-Identifier: MIT */
/* rbmon cxxname: a demangled C++ name shortened to fit a width. */
#ifndef RBMON_UTIL_CXXNAME_H
#define RBMON_UTIL_CXXNAME_H

#include <stddef.h>

#define RBMON_CXX_ELL_UTF8	"\xe2\x80\xa6"	/* "…", one column */
#define RBMON_CXX_ELL_ASCII	"..."

size_t	rbmon_cxxname_cols(const char *);
char	*rbmon_cxxname_gdb(const char *);
size_t	rbmon_cxxname_fit(char *, size_t, const char *, const char *,
	    size_t, const char *);

#endif /* RBMON_UTIL_CXXNAME_H */
