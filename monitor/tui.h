/* rbmon tui: the interactive monitor's state, main loop and panels. */
#ifndef RBMON_TUI_H
#define RBMON_TUI_H

#include <stdint.h>
#include <stdio.h>

#include "model.h"
#include "symbols.h"
#include "view.h"

/* What a key handler asks of the loop. */
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

struct rbmon_tui {
	struct rbmon_model	*m;
	struct rbmon_snapshot	 s;
	int			 have_snap;
	struct rbmon_symbols	*sy;
	FILE			*notes;		/* what symbols say, shown */
	char			*notes_buf;
	size_t			 notes_len, notes_shown;
	struct rbmon_clock	 c;
	struct rbmon_view	 v;
	struct rbmon_layout	 lay;
	struct rbmon_tui_opts	 o;

	enum rbmon_pane		 focus;
	int			 frozen;
	int			 help;
	int			 help_top;
	int			 all_gone;
	uint64_t		 snap_ns;	/* when s was taken */
	uint64_t		 next_ns;	/* next refresh */
	char			*read_error;	/* last snapshot failure */

	int			 searching;
	char			 search[128];
	char			 last_search[128];
	size_t			 match_frame;	/* SIZE_MAX: by thread name */
	int			 have_match;
	struct rbmon_ident	 search_from;
	int			 search_had_sel;

	char			 msg[256];
	enum rbmon_msg		 msg_kind;
};

int	rbmon_tui_run(struct rbmon_model *, const struct rbmon_tui_opts *);
int	rbmon_pick_run(const struct rbmon_tui_opts *, const char *,
	    const char *, char **);

void	rbmon_tui_message(struct rbmon_tui *, enum rbmon_msg, const char *,
	    ...) __attribute__((format(printf, 3, 4)));

void	rbmon_panel_draw(struct rbmon_tui *);
void	rbmon_panel_help(struct rbmon_tui *);
int	rbmon_panel_bar_key(const struct rbmon_tui *, int);

#endif /* RBMON_TUI_H */
