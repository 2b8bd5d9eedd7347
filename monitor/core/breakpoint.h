/* SPDX-License-Identifier: MIT */
/* rbmon breakpoints: names to entry addresses, and the file's table. */
#ifndef RBMON_BREAKPOINT_H
#define RBMON_BREAKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "monitor/core/control.h"
#include "monitor/core/symbols.h"

/* Whose breakpoints: a process image, and the thread a command names. */
struct rbmon_bp_scope {
	int32_t		 pid, tid;
	uint64_t	 pstart, image;
};

int	rbmon_bp_is_command(const char *);
int	rbmon_bp_scope_of(struct rbmon_ctl *, const struct rbmon_cmd *,
	    struct rbmon_bp_scope *, char **);
int	rbmon_bp_run(struct rbmon_ctl *, struct rbmon_symbols *,
	    const struct rbmon_bp_scope *, const char *, const char *, char **);
int	rbmon_bp_name_match(const char *, const char *);
int	rbmon_bp_symbol_kind(const char *, size_t *);

/* rbmon_bp_symbol_kind(): what a symbol's suffix makes it. */
#define RBMON_BP_SYM_FUNC	0	/* a function (or an alias of one) */
#define RBMON_BP_SYM_CLONE	1	/* .constprop/.isra: hooks see the original */
#define RBMON_BP_SYM_FRAGMENT	2	/* .cold/.part: receives no hooks */

#endif /* RBMON_BREAKPOINT_H */
