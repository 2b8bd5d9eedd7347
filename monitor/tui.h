/* rbmon tui: the interactive monitor's state, main loop and panels. */
#ifndef RBMON_TUI_H
#define RBMON_TUI_H

#include <stdint.h>
#include <stdio.h>

#include "breakpoint.h"
#include "control.h"
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

/* What an answer is for (tuictl.c). */
#define TUICTL_PLAIN	0
#define TUICTL_STOPPER	1	/* STOP, STEP, NEXT, FINI: the thread is ours */
#define TUICTL_BREAK	2	/* BRKP: remember the breakpoint */
#define TUICTL_CLEAR	3	/* BCLR: forget it */
#define TUICTL_LIST	4	/* BLST: show the list */
#define TUICTL_WATCH	5	/* prompting: w, a watch for the thread */
#define TUICTL_WATCH_ALL 6	/* prompting: W, for every thread */
#define TUICTL_WATCH_EDIT 7	/* prompting: e, a watch changed */
#define TUICTL_HIST	16
#define TUICTL_LINE	RB_EXPR_MAX	/* a prompt line, NUL included */

/* Lines typed at one kind of prompt, oldest first. */
struct rbmon_tui_hist {
	char		 line[TUICTL_HIST][TUICTL_LINE];
	size_t		 n;
};

/* A thread as a watch entry names it: its ring while it lived. */
struct rbmon_tui_wid {
	uint32_t	 ring;
	uint64_t	 gen;
	int32_t		 pid, tid;
};

/* A watch's value as this rbmon last read it (tuiwatch.c). */
struct rbmon_tui_wval {
	struct rbmon_tui_wid id;
	int		 entry;
	char		 expr[RB_EXPR_MAX + 1];
	char		*text;		/* NULL: none read yet */
	int		 error;		/* text is an error message */
	int		 truncated;
	uint64_t	 seen_ns;	/* first seen in use */
	uint64_t	 got_ns;	/* when text was read */
	int		 live;		/* in use in the last snapshot */
};

/* A watch this rbmon added: removed again when it ends. */
struct rbmon_tui_wmine {
	struct rbmon_tui_wid id;
	int		 entry;
	char		 expr[RB_EXPR_MAX + 1];
};

/* How one row of the watch pane reads (rbmon_tuiwatch_row). */
enum rbmon_wrow_kind {
	RBMON_WROW_VALUE,
	RBMON_WROW_ERROR,
	RBMON_WROW_WAITING,	/* no value read yet */
	RBMON_WROW_REMOVING,	/* inuse -2: the thread has not freed it */
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

	/* control, see tuictl.c */
	struct rbmon_ctl	 ctl;
	int			 ctl_ok;
	char			*ctl_error;	/* why the file is not writable */
	uint64_t		 beat_ns;	/* last heartbeat */
	struct rbmon_cmd	 cmd;		/* the command in flight */
	int			 cmd_busy, cmd_kind;
	uint64_t		 cmd_deadline;
	struct rbmon_ident	*mine;		/* threads stopped from here */
	size_t			 nmine;
	struct rbmon_tui_bp {
		struct rbmon_bp_scope sc;
		uint32_t	 id;
	}			*bps;		/* breakpoints set from here */
	size_t			 nbps;
	int			 set_single, set_soc;	/* turned on from here */
	int			 prompting;	/* TUICTL_BREAK...: editing */
	char			 prompt[TUICTL_LINE];
	char			 complete[512];	/* what Tab found */
	struct rbmon_tui_hist	 bhist;		/* breakpoints typed */
	struct rbmon_tui_hist	 whist;		/* watch expressions typed */
	size_t			 hist_pos;
	int			 blist;		/* breakpoint list */
	char			**bl_lines;
	size_t			 bl_n, bl_sel;
	int32_t			 bl_pid, bl_tid;
	struct rbmon_bp_scope	 bl_scope;	/* whose it is */
	int			 asking_quit, quit_undo;

	/* watches, see tuiwatch.c */
	struct rbmon_tui_wval	*wvals;		/* values read */
	size_t			 nwvals;
	struct rbmon_tui_wmine	*wmine;		/* watches added from here */
	size_t			 nwmine;
	int			 wsel;		/* the watch pane's cursor entry */
	int32_t			 wsel_pid, wsel_tid;
	int32_t			 wall_pid;	/* W: the process */
	struct rbmon_tui_wmine	 wedit;		/* e: the watch edited */
	int			 wpending;	/* e: adding once freed */
	struct rbmon_tui_wmine	 wpend;		/* the entry being freed */
	char			 wpend_expr[TUICTL_LINE];
	uint64_t		 wpend_deadline;
};

int	rbmon_tui_run(struct rbmon_model *, const struct rbmon_tui_opts *);
int	rbmon_pick_run(const struct rbmon_tui_opts *, const char *,
	    const char *, char **);

void	rbmon_tui_message(struct rbmon_tui *, enum rbmon_msg, const char *,
	    ...) __attribute__((format(printf, 3, 4)));

void	rbmon_tuictl_init(struct rbmon_tui *);
int	rbmon_tuictl_usable(struct rbmon_tui *);
size_t	rbmon_tuictl_complete_word(struct rbmon_tui *, char *const *, size_t,
	    char *, size_t, const char *);
const struct rbmon_thread *rbmon_tuictl_thread(struct rbmon_tui *,
	    const struct rbmon_process **);
int	rbmon_tuictl_tick(struct rbmon_tui *);
int	rbmon_tuictl_key(struct rbmon_tui *, int, int);
int	rbmon_tuictl_quit(struct rbmon_tui *);
void	rbmon_tuictl_end(struct rbmon_tui *, int);
void	rbmon_tuictl_prompt(struct rbmon_tui *, int, const char *);

void	rbmon_tuiwatch_refresh(struct rbmon_tui *);
int	rbmon_tuiwatch_tick(struct rbmon_tui *);
int	rbmon_tuiwatch_key(struct rbmon_tui *, int, int);
int	rbmon_tuiwatch_submit(struct rbmon_tui *, int, const char *);
void	rbmon_tuiwatch_complete(struct rbmon_tui *);
void	rbmon_tuiwatch_move(struct rbmon_tui *, long);
void	rbmon_tuiwatch_select_row(struct rbmon_tui *, int);
int	rbmon_tuiwatch_selected(const struct rbmon_tui *,
	    const struct rbmon_thread *);
int	rbmon_tuiwatch_row(const struct rbmon_tui *,
	    const struct rbmon_process *, const struct rbmon_thread *, int,
	    struct rbmon_tui_wrow *);
void	rbmon_tuiwatch_end(struct rbmon_tui *);

void	rbmon_panel_draw(struct rbmon_tui *);
void	rbmon_panel_breaks(struct rbmon_tui *);
void	rbmon_panel_help(struct rbmon_tui *);
int	rbmon_panel_bar_key(const struct rbmon_tui *, int);

#endif /* RBMON_TUI_H */
