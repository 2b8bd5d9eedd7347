/* SPDX-License-Identifier: MIT */
/* rbmon stack: a thread's ring frames as the rows a debugger would show. */
#ifndef RBMON_STACK_H
#define RBMON_STACK_H

#include "monitor/core/model.h"
#include "monitor/core/symbols.h"

void	rbmon_stack_resolve(struct rbmon_symbols *,
	    const struct rbmon_snapshot *, const struct rbmon_process *,
	    struct rbmon_thread *);
void	rbmon_stack_resolve_all(struct rbmon_symbols *,
	    struct rbmon_snapshot *);

#endif /* RBMON_STACK_H */
