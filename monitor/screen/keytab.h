/* SPDX-License-Identifier: MIT */
/*
 * rbmon keytab: the one key table.  Each row binds a key, in one mode, to
 * an action, with its label on the function bar and its line on the help
 * screen; dispatch, the bar and the help screen are all made from it.
 * Curses-free (keys as in keys.h).
 */
#ifndef RBMON_KEYTAB_H
#define RBMON_KEYTAB_H

#include <stddef.h>

#include "monitor/screen/keys.h"

/* Where a key is read: the modes that have keys of their own. */
enum rbmon_kmode {
	RBMON_KM_MAIN,		/* the thread list, stack and watch panes */
	RBMON_KM_HELP,
	RBMON_KM_BLIST,		/* the breakpoint list */
	RBMON_KM_SOURCE,	/* a frame's source file */
	RBMON_KM_VALUE,		/* a watch's whole value */
	RBMON_KM_HIST,		/* a thread's history (its event log) */
	RBMON_KM_TOP,		/* the top functions of sampled stacks */
	RBMON_KM_EDIT,		/* a line being edited: prompts, search, filter */
	RBMON_KM_SEARCH,	/* the search's own keys, before the editor's */
	RBMON_KM_PICK,		/* the list of trace files, before the screen */
	RBMON_KM_QUIT,		/* the question before quitting */
	RBMON_KM_DLIST,		/* the functions not traced (dynamic) */
	RBMON_KM_LAT,		/* latency per function, live */
	RBMON_KM_CAPS,		/* the captures of slow calls */
	RBMON_KM_COUNT
};

/* What the help screen files a key under. */
enum rbmon_ksection {
	RBMON_KS_KEYS,
	RBMON_KS_CONTROL,
	RBMON_KS_WATCH,
	RBMON_KS_EDIT,
	RBMON_KS_COUNT
};

enum rbmon_action {
	RBMON_ACT_NONE,
	/* moving */
	RBMON_ACT_UP,
	RBMON_ACT_DOWN,
	RBMON_ACT_PGUP,
	RBMON_ACT_PGDN,
	RBMON_ACT_HOME,
	RBMON_ACT_END,
	RBMON_ACT_NEXT_PANE,
	RBMON_ACT_PREV_PANE,
	RBMON_ACT_STACK,	/* focus the stack */
	RBMON_ACT_LIST,		/* focus the thread list */
	RBMON_ACT_ENTER,	/* stack from the list, the list from elsewhere */
	RBMON_ACT_MOUSE,
	/* the display */
	RBMON_ACT_SEARCH,
	RBMON_ACT_SEARCH_NEXT,
	RBMON_ACT_FILTER,
	RBMON_ACT_SORT,
	RBMON_ACT_FOLD,
	RBMON_ACT_SOURCE,
	RBMON_ACT_NAME,		/* the selected frame's full name */
	RBMON_ACT_VALUE,
	RBMON_ACT_HISTORY,	/* the selected thread's event log */
	RBMON_ACT_TOP,		/* the top functions, sampled */
	RBMON_ACT_LATENCY,	/* latency per function, from the logs */
	RBMON_ACT_SAVE,
	RBMON_ACT_HIDE_EXITED,
	RBMON_ACT_FREEZE,
	RBMON_ACT_SLOWER,
	RBMON_ACT_FASTER,
	RBMON_ACT_REDRAW,
	RBMON_ACT_HELP,
	RBMON_ACT_SUSPEND,
	RBMON_ACT_QUIT,
	/* control */
	RBMON_ACT_BREAK,
	RBMON_ACT_BLIST,
	RBMON_ACT_PAUSE,
	RBMON_ACT_CONT,
	RBMON_ACT_STEP,
	RBMON_ACT_NEXT,
	RBMON_ACT_FINISH,
	RBMON_ACT_TRACE,
	RBMON_ACT_SINGLE,
	RBMON_ACT_SOC,
	RBMON_ACT_TOC,
	RBMON_ACT_DYN_OFF,	/* the selected frame's function off */
	RBMON_ACT_DLIST,	/* the functions not traced */
	RBMON_ACT_CAP_ARM,	/* captures of the selected frame's function */
	RBMON_ACT_CAP_LIST,	/* the captures of slow calls */
	/* watches */
	RBMON_ACT_WATCH,
	RBMON_ACT_WATCH_ALL,
	RBMON_ACT_WATCH_EDIT,
	RBMON_ACT_WATCH_DEL,
	RBMON_ACT_WATCH_DEL_PANE,	/* only with the watch pane focused */
	/* a text screen: help, the source view, a watch's value */
	RBMON_ACT_TEXT_UP,
	RBMON_ACT_TEXT_DOWN,
	RBMON_ACT_TEXT_PGUP,
	RBMON_ACT_TEXT_PGDN,
	RBMON_ACT_TEXT_HOME,
	RBMON_ACT_TEXT_END,
	RBMON_ACT_RECORD,	/* the history's thread: recording on/off */
	/* the top view */
	RBMON_ACT_TOP_SCOPE,
	RBMON_ACT_TOP_CPU,
	RBMON_ACT_TOP_SORT,
	RBMON_ACT_TOP_RESET,
	/* the line editor */
	RBMON_ACT_ED_LEFT,
	RBMON_ACT_ED_RIGHT,
	RBMON_ACT_ED_HOME,
	RBMON_ACT_ED_END,
	RBMON_ACT_ED_BACK,
	RBMON_ACT_ED_DELETE,
	RBMON_ACT_ED_WORD,
	RBMON_ACT_ED_KILL_START,
	RBMON_ACT_ED_KILL_END,
	RBMON_ACT_ED_OLDER,
	RBMON_ACT_ED_NEWER,
	RBMON_ACT_ED_TAB,
	RBMON_ACT_ED_ENTER,
	RBMON_ACT_ED_CANCEL,
	/* the file picker */
	RBMON_ACT_PICK_UP,
	RBMON_ACT_PICK_DOWN,
	RBMON_ACT_PICK_HOME,
	RBMON_ACT_PICK_END,
	RBMON_ACT_PICK_OPEN,
	RBMON_ACT_PICK_RESCAN,
	RBMON_ACT_PICK_QUIT,
	/* the question before quitting */
	RBMON_ACT_QUIT_UNDO,
	RBMON_ACT_QUIT_LEAVE,
	/* the breakpoint list */
	RBMON_ACT_BL_UP,
	RBMON_ACT_BL_DOWN,
	RBMON_ACT_BL_DELETE,
	RBMON_ACT_BL_DELETE_ALL,
	RBMON_ACT_BL_ADD,
	RBMON_ACT_BL_REFRESH,
	/* the list of functions not traced */
	RBMON_ACT_DL_UP,
	RBMON_ACT_DL_DOWN,
	RBMON_ACT_DL_INCLUDE,
	RBMON_ACT_DL_INCLUDE_ALL,
	/* the latency view */
	RBMON_ACT_LAT_SORT,
	/* the captures */
	RBMON_ACT_CL_UP,
	RBMON_ACT_CL_DOWN,
	RBMON_ACT_COUNT
};

struct rbmon_binding {
	int			 key;
	enum rbmon_kmode	 mode;
	enum rbmon_action	 act;
	enum rbmon_ksection	 section;
	/*
	 * On the function bar (bar_pos > 0, the place from the left):
	 * bar_key names the key there
	 * (NULL: its own name), bar_on is the label while the action's
	 * toggle is on, bar_cols the narrowest terminal that shows it.
	 */
	int			 bar_pos;
	const char		*bar;
	const char		*bar_on;
	const char		*bar_key;
	int			 bar_cols;
	/*
	 * On the help screen: the first row of an action carries its text
	 * (lines after '\n' are continued under it); pair_with puts two
	 * actions on one line ("Up/Down, k/j").
	 */
	const char		*help;
	enum rbmon_action	 pair_with;
};

/* One item of the function bar, for drawing and for mouse clicks. */
struct rbmon_bar_item {
	char			 key[16];	/* "F1", "Tab" */
	const char		*label;
	int			 code;	/* what a click on it types, or 0 */
	enum rbmon_action	 act;
};

/* Is @act's toggle on (the bar shows bar_on)?  @arg is the caller's. */
typedef int (*rbmon_keytab_on_fn)(void *arg, enum rbmon_action act);

enum rbmon_action rbmon_keytab_action(enum rbmon_kmode, int key);
const char *rbmon_key_name(int key, char *buf, size_t size);
size_t	rbmon_keytab_bar(enum rbmon_kmode, int cols, rbmon_keytab_on_fn,
	    void *, struct rbmon_bar_item *, size_t);
int	rbmon_keytab_bar_click(const struct rbmon_bar_item *, size_t, int x);
size_t	rbmon_keytab_help(enum rbmon_kmode, enum rbmon_ksection, char ***);
const struct rbmon_binding *rbmon_keytab_rows(size_t *);

#endif /* RBMON_KEYTAB_H */
