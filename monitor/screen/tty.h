/* SPDX-License-Identifier: MIT */
/* rbmon tty: the one place that includes curses; terminal set-up and reset. */
#ifndef RBMON_TTY_H
#define RBMON_TTY_H

#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <curses.h>
#include <signal.h>

#include "monitor/screen/keys.h"

/* What each part of the screen is drawn with. */
enum rbmon_attr {
	RBMON_A_NORMAL,
	RBMON_A_TITLE,		/* a pane's title bar */
	RBMON_A_TITLE_FOCUS,	/* the focused pane's title bar */
	RBMON_A_SELECT,		/* the cursor row in the focused pane */
	RBMON_A_SELECT_DIM,	/* the cursor row elsewhere */
	RBMON_A_PROCESS,	/* a process row */
	RBMON_A_RUNNING,
	RBMON_A_UNTRACED,
	RBMON_A_STOPPED,
	RBMON_A_EXITED,
	RBMON_A_GONE,
	RBMON_A_LABEL,		/* header labels */
	RBMON_A_KEY,		/* function bar key */
	RBMON_A_BAR,		/* function bar label */
	RBMON_A_ERROR,
	RBMON_A_INFO,
	RBMON_A_MATCH,		/* the search match */
	RBMON_A_STALE,		/* a watch value not refreshed */
	RBMON_A_COUNT
};

enum rbmon_glyph {
	RBMON_G_TREE_MID,	/* a row with more below under its parent */
	RBMON_G_TREE_END,	/* the last row under its parent */
	RBMON_G_TREE_BAR,	/* an ancestor's line going on below */
	RBMON_G_TIMES,		/* "×31": a run of recursion */
	RBMON_G_ELLIPSIS,	/* what a shortened name left out */
	RBMON_G_COUNT
};

extern volatile sig_atomic_t rbmon_tty_quit;	/* SIGINT, SIGTERM, SIGHUP */

int	rbmon_tty_start(int, int, char **);
void	rbmon_tty_end(void);
attr_t	rbmon_tty_attr(enum rbmon_attr);
const char *rbmon_tty_glyph(enum rbmon_glyph);
void	rbmon_tty_suspend(void);
int	rbmon_tty_getkey(int);

#endif /* RBMON_TTY_H */
