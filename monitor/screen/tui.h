/* SPDX-License-Identifier: MIT */
/*
 * rbmon tui: what the interactive monitor's loop keeps (the model, the
 * snapshot, the view, the layout, the message line) and its stack of
 * modes.  Each mode keeps its own state in its own file and is reached
 * only through its rbmon_mode_ops; control (tuictl.c) and watches
 * (tuiwatch.c) keep theirs behind the opaque pointers below.
 */
#ifndef RBMON_TUI_H
#define RBMON_TUI_H

#include <stdint.h>
#include <stdio.h>

#include "monitor/screen/keys.h"
#include "monitor/core/model.h"
#include "monitor/core/symbols.h"
#include "monitor/core/view.h"

/* What a key handler or a tick asks of the loop. */
#define RBMON_REDRAW	0x1
#define RBMON_RESCAN	0x2
#define RBMON_QUIT	0x4

enum rbmon_pane {
	RBMON_PANE_THREADS,
	RBMON_PANE_STACK,
	RBMON_PANE_WATCH,
	RBMON_PANES
};

enum rbmon_msg {
	RBMON_MSG_NONE,
	RBMON_MSG_INFO,
	RBMON_MSG_ERROR,
};

struct rbmon_tui_opts {
	long		 delay;		/* tenths of a second */
	int		 color;
	int		 ascii;
	int		 hide_exited;
};

struct rbmon_tui;

/*
 * A mode: the main screen, a full screen of its own (help, breakpoint
 * list) or an overlay drawn over the mode under it (a prompt, the search,
 * the quit question).  The top mode gets every key; key() returns the
 * loop's flags.  draw() may be NULL for an overlay that only changes the
 * message line; tick() runs before each pass while the mode is on top,
 * and at least every tick_ms if that is set; free() releases the state
 * the mode was pushed with.
 */
struct rbmon_mode_ops {
	const char	*name;
	int		 overlay;
	int		 tick_ms;
	int		(*key)(struct rbmon_tui *, void *, int);
	void		(*draw)(struct rbmon_tui *, void *);
	int		(*tick)(struct rbmon_tui *, void *);
	void		(*free)(void *);
};

struct rbmon_mode {
	const struct rbmon_mode_ops	*ops;
	void				*state;
};

#define RBMON_MODES_MAX	8

struct rbmon_tuictl;
struct rbmon_tuiwatch;

struct rbmon_tui {
	struct rbmon_model	*m;
	struct rbmon_snapshot	 s;
	int			 have_snap;
	uint64_t		 snap_ns;	/* when s was taken */
	uint64_t		 next_ns;	/* next refresh */
	char			*read_error;	/* last snapshot failure */
	int			 frozen;
	int			 all_gone;
	uint64_t		 orphaned;	/* resumes by themselves seen */
	struct rbmon_symbols	*sy;
	FILE			*notes;		/* what symbols say, shown */
	char			*notes_buf;
	size_t			 notes_len, notes_shown;
	struct rbmon_clock	 c;
	struct rbmon_seen	 seen;		/* no clock: frames' first sight */
	struct rbmon_view	 v;
	enum rbmon_pane		 focus;
	const struct rbmon_thread *blocked_for;	/* blocked_in read for it */
	int			 have_match;	/* a search match to mark */
	size_t			 match_frame;	/* SIZE_MAX: a thread name */
	struct rbmon_layout	 lay;
	struct rbmon_tui_opts	 o;
	char			 msg[256];
	enum rbmon_msg		 msg_kind;
	struct rbmon_mode	 modes[RBMON_MODES_MAX];
	int			 nmodes;
	struct rbmon_tuictl	*ctl;		/* tuictl.c's */
	struct rbmon_tuiwatch	*w;		/* tuiwatch.c's */
};

int	rbmon_tui_run(struct rbmon_model *, const struct rbmon_tui_opts *);
int	rbmon_pick_run(const struct rbmon_tui_opts *, const char *,
	    const char *, char **);

void	rbmon_tui_message(struct rbmon_tui *, enum rbmon_msg, const char *,
	    ...) __attribute__((format(printf, 3, 4)));
int	rbmon_tui_push(struct rbmon_tui *, const struct rbmon_mode_ops *,
	    void *);
void	rbmon_tui_pop(struct rbmon_tui *);
void	rbmon_tui_relayout(struct rbmon_tui *);
const char *rbmon_tui_frame_name(void *, const struct rbmon_process *,
	    const struct rbmon_thread *, size_t);
const struct rbmon_thread *rbmon_tui_selected(const struct rbmon_tui *,
	    const struct rbmon_process **);

#endif /* RBMON_TUI_H */
