/* SPDX-License-Identifier: MIT */
/*
 * rbmon tuiprompt: the one prompt (tmux's status_prompt_set): a line
 * edited on the message line with the one line editor (edit.c), a history
 * per kind kept across runs (linehist.c) and Tab completion through the
 * caller's callback.  Breakpoints, watches and the filter use it; the
 * search uses its editor and history too.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/strl.h"

#include "monitor/screen/edit.h"
#include "monitor/screen/linehist.h"
#include "monitor/screen/tuidraw.h"
#include "monitor/screen/tty.h"
#include "monitor/screen/tuimodes.h"

static const char *const prompt_kinds[RBMON_HIST_KINDS] = {
	[RBMON_HIST_SEARCH] = "search",
	[RBMON_HIST_BREAK] = "break",
	[RBMON_HIST_WATCH] = "watch",
	[RBMON_HIST_FILTER] = "filter",
};

/* Each kind's lines, read from its file at its first prompt. */
static struct rbmon_hist	prompt_hists[RBMON_HIST_KINDS];
static int			prompt_loaded[RBMON_HIST_KINDS];

struct prompt_state {
	struct rbmon_prompt	 p;
	struct rbmon_edit	 ed;
	char			 note[512];	/* what Tab found */
};

/**
 * rbmon_prompt_hist - the history of prompts of @kind, read from its
 * file the first time; a failure to read it is said on the message line
 */
struct rbmon_hist *
rbmon_prompt_hist(struct rbmon_tui *t, enum rbmon_hist_kind kind)
{
	char	*cause = NULL;

	if (!prompt_loaded[kind]) {
		prompt_loaded[kind] = 1;
		if (rbmon_hist_load(&prompt_hists[kind], prompt_kinds[kind],
		    &cause) != 0) {
			rbmon_tui_message(t, RBMON_MSG_ERROR, "%s history: %s",
			    prompt_kinds[kind], cause);
			free(cause);
		}
	}
	return &prompt_hists[kind];
}

/* Keep @line in its kind's history file; a failure is said once. */
void
rbmon_prompt_remember(struct rbmon_tui *t, enum rbmon_hist_kind kind,
    const char *line)
{
	char	*cause = NULL;

	if (rbmon_hist_add(rbmon_prompt_hist(t, kind), line, &cause) != 0 &&
	    cause != NULL) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "%s history not saved: %s",
		    prompt_kinds[kind], cause);
		free(cause);
	}
}

/* Every history, at exit. */
void
rbmon_prompt_free_all(void)
{
	int	k;

	for (k = 0; k < RBMON_HIST_KINDS; k++) {
		if (prompt_loaded[k])
			rbmon_hist_free(&prompt_hists[k]);
		prompt_loaded[k] = 0;
	}
}

static void
prompt_free(void *arg)
{
	struct prompt_state	*ps = arg;

	if (ps->p.free_arg != NULL)
		ps->p.free_arg(ps->p.arg);
	free(ps);
}

static int
prompt_enter(struct rbmon_tui *t, struct prompt_state *ps)
{
	struct rbmon_prompt	 p = ps->p;
	char			 line[RBMON_EDIT_MAX + 1];
	size_t			 n;
	int			 r;

	memcpy(line, ps->ed.text, sizeof line);
	for (n = strlen(line); n > 0 && line[n - 1] == ' '; n--)
		line[n - 1] = '\0';
	/* The callback may open a mode of its own: close this one first. */
	ps->p.free_arg = NULL;
	rbmon_tui_pop(t);
	rbmon_tui_message(t, RBMON_MSG_NONE, " ");
	if (line[0] != '\0')
		rbmon_prompt_remember(t, p.hist, line);
	if (line[0] == '\0') {
		r = RBMON_REDRAW;
	} else if (p.problem[0] != '\0') {
		/* Known when the prompt opened: the line goes nowhere. */
		rbmon_tui_message(t, RBMON_MSG_ERROR, "%s: \"%.40s\" not used",
		    p.problem, line);
		r = RBMON_REDRAW;
	} else
		r = p.enter(t, p.arg, line);
	if (p.free_arg != NULL)
		p.free_arg(p.arg);
	return r;
}

static int
prompt_key(struct rbmon_tui *t, void *arg, int key)
{
	struct prompt_state	*ps = arg;

	switch (rbmon_edit_key(&ps->ed, key)) {
	case RBMON_EDIT_ENTER:
		return prompt_enter(t, ps);
	case RBMON_EDIT_CANCEL:
		if (ps->p.cancel != NULL)
			ps->p.cancel(t, ps->p.arg);
		rbmon_tui_pop(t);
		rbmon_tui_message(t, RBMON_MSG_NONE, " ");
		return RBMON_REDRAW;
	case RBMON_EDIT_TAB:
		ps->note[0] = '\0';
		if (ps->p.tab != NULL)
			ps->p.tab(t, ps->p.arg, &ps->ed, ps->note,
			    sizeof ps->note);
		if (ps->p.change != NULL)
			ps->p.change(t, ps->p.arg, ps->ed.text);
		return RBMON_REDRAW;
	case RBMON_EDIT_CHANGED:
		if (ps->p.change != NULL)
			ps->p.change(t, ps->p.arg, ps->ed.text);
		return RBMON_REDRAW;
	case RBMON_EDIT_MOVED:
		return RBMON_REDRAW;
	default:
		/* Not an editing key: nothing, and nothing under the prompt. */
		return 0;
	}
}

/*
 * The editor's line at (y, x) in @width columns, the cursor in it.  The
 * text is the user's (or a history file's, checked), made only of
 * characters safe to draw (rbmon_edit_safe()): drawn as it is, UTF-8.
 * Returns the column after the text drawn.
 */
int
rbmon_prompt_draw_line(struct rbmon_edit *ed, int y, int x, int width,
    attr_t a)
{
	size_t	first, bytes;
	int	col, end;

	if (width < 1)
		return x;
	rbmon_edit_window(ed, width, &first, &bytes, &col);
	attrset(a);
	mvaddnstr(y, x, ed->text + first, (int)bytes);
	end = getcurx(stdscr);
	move(y, x + col);
	curs_set(1);
	return end;
}

static void
prompt_draw(struct rbmon_tui *t, void *arg)
{
	struct prompt_state	*ps = arg;
	const char		*bar;
	int			 y = t->lay.msg_y, x;

	if (t->lay.too_small)
		return;
	bar = ps->note[0] != '\0' ? ps->note : ps->p.problem[0] != '\0' ?
	    ps->p.problem : ps->p.hint;
	rbmon_draw_bar_text(t, bar, ps->p.problem[0] != '\0' &&
	    ps->note[0] == '\0');
	move(y, 0);
	clrtoeol();
	x = rbmon_draw_text(y, 0, t->lay.cols, A_BOLD, ps->p.label);
	rbmon_prompt_draw_line(&ps->ed, y, x, t->lay.cols - x - 1, A_NORMAL);
}

static const struct rbmon_mode_ops prompt_ops = {
	.name = "prompt",
	.overlay = 1,
	.key = prompt_key,
	.draw = prompt_draw,
	.free = prompt_free,
};

/**
 * rbmon_prompt_open - edit a line on the message line
 * @p: what the prompt is for; copied (its arg is the prompt's from now on)
 * @initial: the line to start from, or NULL
 */
void
rbmon_prompt_open(struct rbmon_tui *t, const struct rbmon_prompt *p,
    const char *initial)
{
	struct prompt_state	*ps = rbmon_xcalloc(1, sizeof *ps);

	ps->p = *p;
	rbmon_edit_start(&ps->ed, initial, rbmon_prompt_hist(t, p->hist));
	if (rbmon_tui_push(t, &prompt_ops, ps) != 0)
		prompt_free(ps);
}

