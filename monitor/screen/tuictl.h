/* SPDX-License-Identifier: MIT */
/*
 * rbmon tuictl: control from the full-screen monitor: commands to the
 * selected thread, breakpoints, the global flags, and what quitting
 * undoes.  Its state is its own (struct rbmon_tuictl, in tuictl.c).
 */
#ifndef RBMON_TUICTL_H
#define RBMON_TUICTL_H

#include <stddef.h>

#include "monitor/core/breakpoint.h"
#include "monitor/core/control.h"
#include "monitor/screen/keytab.h"
#include "monitor/screen/tui.h"

void	rbmon_tuictl_init(struct rbmon_tui *);
int	rbmon_tuictl_usable(struct rbmon_tui *);
struct rbmon_ctl *rbmon_tuictl_ctl(struct rbmon_tui *);
const struct rbmon_thread *rbmon_tuictl_thread(struct rbmon_tui *,
	    const struct rbmon_process **);
const struct rbmon_thread *rbmon_tuictl_target(struct rbmon_tui *,
	    const struct rbmon_process **, char *, size_t);
int	rbmon_tuictl_tick(struct rbmon_tui *);
int	rbmon_tuictl_action(struct rbmon_tui *, enum rbmon_action);
int	rbmon_tuictl_scope(struct rbmon_tui *, int32_t,
	    struct rbmon_bp_scope *);
int	rbmon_tuictl_bp(struct rbmon_tui *, const struct rbmon_bp_scope *,
	    const char *, const char *, char **);
void	rbmon_tuictl_break_prompt(struct rbmon_tui *);
int	rbmon_tuictl_dyn(struct rbmon_tui *, int32_t, const char *);
int	rbmon_tuictl_quit(struct rbmon_tui *);
void	rbmon_tuictl_end(struct rbmon_tui *, int);

#endif /* RBMON_TUICTL_H */
