/* SPDX-License-Identifier: MIT */
/*
 * rbmon tuimodes: how the modes are opened.  Each mode's state is private
 * to its file (tuimain.c, tuihelp.c, tuisearch.c, tuiprompt.c, tuiblist.c;
 * the quit question in tuictl.c).
 */
#ifndef RBMON_TUIMODES_H
#define RBMON_TUIMODES_H

#include <stddef.h>

#include "monitor/core/breakpoint.h"
#include "monitor/screen/edit.h"
#include "monitor/screen/keytab.h"
#include "monitor/screen/tty.h"
#include "monitor/screen/tui.h"

extern const struct rbmon_mode_ops rbmon_mode_main;

void	rbmon_help_open(struct rbmon_tui *);

void	rbmon_search_open(struct rbmon_tui *);
void	rbmon_search_again(struct rbmon_tui *);

/* What a prompt's lines are kept apart by, from one rbmon to the next. */
enum rbmon_hist_kind {
	RBMON_HIST_SEARCH,
	RBMON_HIST_BREAK,
	RBMON_HIST_WATCH,
	RBMON_HIST_FILTER,
	RBMON_HIST_KINDS
};

/*
 * A prompt on the message line.  Enter hands the line (not empty, blanks
 * at the end removed) to enter(), which returns the loop's flags (an
 * empty line closes the prompt and does nothing); Tab calls tab() with the editor, which
 * may complete the word before the cursor (rbmon_edit_complete()), and a
 * note for the bar.  A problem known when the
 * prompt opens (the thread has ended, the file is not writable) shows on
 * the bar; the prompt still takes what is typed, and enter() says it
 * again.  change(), if set, sees the line after every edit; cancel(), if
 * set, is called when Esc closes the prompt.  arg is freed with
 * free_arg() when the prompt closes.
 */
struct rbmon_prompt {
	char			 label[96];
	const char		*hint;
	enum rbmon_hist_kind	 hist;
	int			(*enter)(struct rbmon_tui *, void *, const char *);
	void			(*tab)(struct rbmon_tui *, void *,
				    struct rbmon_edit *, char *, size_t);
	void			(*change)(struct rbmon_tui *, void *,
				    const char *);
	void			(*cancel)(struct rbmon_tui *, void *);
	void			*arg;
	void			(*free_arg)(void *);
	char			 problem[160];
};

void	rbmon_prompt_open(struct rbmon_tui *, const struct rbmon_prompt *,
	    const char *);
struct rbmon_hist *rbmon_prompt_hist(struct rbmon_tui *,
	    enum rbmon_hist_kind);
void	rbmon_prompt_remember(struct rbmon_tui *, enum rbmon_hist_kind,
	    const char *);
int	rbmon_prompt_draw_line(struct rbmon_edit *, int, int, int, attr_t);
void	rbmon_prompt_free_all(void);

/* A screen of text lines, scrolled with @km's keys; any other key closes it. */
struct rbmon_text;
struct rbmon_text *rbmon_text_new(enum rbmon_kmode, int);
void	rbmon_text_add(struct rbmon_text *, const char *, int);
void	rbmon_text_show(struct rbmon_tui *, struct rbmon_text *);
int	rbmon_text_scroll(enum rbmon_action, long *, long, long);

void	rbmon_source_open(struct rbmon_tui *);
void	rbmon_name_open(struct rbmon_tui *);
void	rbmon_hist_open(struct rbmon_tui *);
void	rbmon_top_open(struct rbmon_tui *);
void	rbmon_lat_open(struct rbmon_tui *);
void	rbmon_value_open(struct rbmon_tui *);
void	rbmon_save_stacks(struct rbmon_tui *);

void	rbmon_blist_open(struct rbmon_tui *, const struct rbmon_bp_scope *,
	    int32_t, const char *);
void	rbmon_dlist_open(struct rbmon_tui *);
void	rbmon_caps_open(struct rbmon_tui *);
void	rbmon_cap_prompt(struct rbmon_tui *);

#endif /* RBMON_TUIMODES_H */
