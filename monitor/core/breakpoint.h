/* SPDX-License-Identifier: MIT */
/* rbmon breakpoints: names to entry addresses, and the file's table. */
#ifndef RBMON_BREAKPOINT_H
#define RBMON_BREAKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "common/namematch.h"
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
uint64_t *rbmon_bp_resolve(struct rbmon_ctl *, struct rbmon_symbols *,
	    const struct rbmon_bp_scope *, const char *, size_t *, char **);
int	rbmon_bp_name_match(const char *, const char *);
int	rbmon_bp_symbol_kind(const char *, size_t *);

/* rbmon_bp_symbol_kind(): what a symbol's suffix makes it (RB_SYM_*). */
#define RBMON_BP_SYM_FUNC	RB_SYM_FUNC
#define RBMON_BP_SYM_CLONE	RB_SYM_CLONE
#define RBMON_BP_SYM_FRAGMENT	RB_SYM_FRAGMENT

#endif /* RBMON_BREAKPOINT_H */
