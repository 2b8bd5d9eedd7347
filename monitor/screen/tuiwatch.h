/* SPDX-License-Identifier: MIT */
/*
 * rbmon tuiwatch: watch expressions in the full-screen monitor: the
 * values read, the watch pane's rows and cursor, and w, W, e, d.  Its
 * state is its own (struct rbmon_tuiwatch, in tuiwatch.c).
 */
#ifndef RBMON_TUIWATCH_H
#define RBMON_TUIWATCH_H

#include "monitor/screen/keytab.h"
#include "monitor/screen/tui.h"

/* How one row of the watch pane reads (rbmon_tuiwatch_row). */
enum rbmon_wrow_kind {
	RBMON_WROW_VALUE,
	RBMON_WROW_ERROR,
	RBMON_WROW_WAITING,	/* no value read yet */
	RBMON_WROW_REMOVING,	/* being removed: the thread has not freed it */
};

struct rbmon_tui_wrow {
	int			 entry;
	enum rbmon_wrow_kind	 kind;
	const char		*expr;
	const char		*text;	/* value or error message, or NULL */
	int			 truncated;	/* text is not all of it */
	int			 stale;	/* not refreshed for too long */
	char			 age[32];	/* "0.3s", "stale 12s" or "" */
};

void	rbmon_tuiwatch_init(struct rbmon_tui *);
void	rbmon_tuiwatch_refresh(struct rbmon_tui *);
int	rbmon_tuiwatch_tick(struct rbmon_tui *);
int	rbmon_tuiwatch_action(struct rbmon_tui *, enum rbmon_action);
void	rbmon_tuiwatch_move(struct rbmon_tui *, long);
void	rbmon_tuiwatch_select_row(struct rbmon_tui *, int);
int	rbmon_tuiwatch_selected(const struct rbmon_tui *,
	    const struct rbmon_thread *);
int	rbmon_tuiwatch_row(const struct rbmon_tui *,
	    const struct rbmon_process *, const struct rbmon_thread *, int,
	    struct rbmon_tui_wrow *);
void	rbmon_tuiwatch_end(struct rbmon_tui *);

#endif /* RBMON_TUIWATCH_H */
