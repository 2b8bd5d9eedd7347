/* SPDX-License-Identifier: MIT */
/*
 * namematch.h - function names as users write them, matched against the
 * demangled names of symbols: rbmon's breakpoints and the library's
 * dynamic tracing (rbtrace(5), "DYNAMIC TRACING") agree on what a name
 * names.  No allocation: the library calls these from its worker thread.
 */
#ifndef RB_COMMON_NAMEMATCH_H
#define RB_COMMON_NAMEMATCH_H

#include <stddef.h>

#include "common/defs.h"

/* rb_symbol_kind(): what a symbol's suffix makes it. */
#define RB_SYM_FUNC		0	/* a function (or an alias of one) */
#define RB_SYM_CLONE		1	/* .constprop/.isra: hooks see the original */
#define RB_SYM_FRAGMENT		2	/* .cold/.part: receives no hooks */

/* Longest name (and glob), whitespace folded, that a glob is matched on. */
#define RB_NAME_GLOB_MAX	4096

/* rb_patterns_split()'s answer for a list it refuses. */
#define RB_PATTERNS_BAD		((size_t)-1)

RB_HIDDEN int	 rb_name_equal(const char *name, const char *demangled);
RB_HIDDEN int	 rb_name_is_glob(const char *pattern);
RB_HIDDEN int	 rb_name_match(const char *pattern, const char *demangled);
RB_HIDDEN int	 rb_symbol_kind(const char *sym, size_t *base);
RB_HIDDEN size_t rb_patterns_split(const char *list, char *out, size_t size);

#endif /* RB_COMMON_NAMEMATCH_H */
