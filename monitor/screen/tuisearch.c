/* SPDX-License-Identifier: MIT */
/*
 * rbmon tuisearch: incremental search of thread names and the functions
 * on the stacks.  Typing jumps to the first match; Enter keeps it, Esc
 * goes back to where the search started; F3 (or / then Enter) finds the
 * next match of the last search.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/strl.h"

#include "monitor/core/dump.h"
#include "monitor/screen/linehist.h"
#include "monitor/screen/keytab.h"
#include "monitor/screen/tuidraw.h"
#include "monitor/screen/tty.h"
#include "monitor/screen/tuimodes.h"

struct search_state {
	struct rbmon_edit	 ed;
	struct rbmon_hist	*hist;
	struct rbmon_ident	 from;		/* the selection it started at */
	int			 had_sel;
};

static char search_last[RBMON_EDIT_MAX + 1];	/* what Enter kept, for F3 */

static int
search_step(struct rbmon_tui *t, const char *text, int next)
{
	size_t	frame;

	if (!t->have_snap)
		return 0;
	if (rbmon_view_search(&t->v, &t->s, text, next, rbmon_tui_frame_name, t,
	    &frame)) {
		t->have_match = 1;
		t->match_frame = frame;
		rbmon_tui_relayout(t);
		if (frame != SIZE_MAX)
			rbmon_view_stack_move(&t->v, rbmon_tui_selected(t, NULL),
			    0, (size_t)t->lay.stack_h);
		return 1;
	}
	t->have_match = 0;
	return 0;
}

static void
search_restore(struct rbmon_tui *t, struct search_state *ss)
{
	if (ss->had_sel)
		rbmon_view_select_ident(&t->v, &t->s, &ss->from);
}

static int
search_key(struct rbmon_tui *t, void *arg, int key)
{
	struct search_state	*ss = arg;
	char			 text[RBMON_EDIT_MAX + 1];
	int			 browsing = ss->ed.hpos < ss->hist->n;

	/* The next match: F3, and Down or ^N unless going through history. */
	if (rbmon_keytab_action(RBMON_KM_SEARCH, key) == RBMON_ACT_SEARCH_NEXT &&
	    (key == RBMON_KEY_F(3) || !browsing)) {
		search_step(t, ss->ed.text, 1);
		return RBMON_REDRAW;
	}
	switch (rbmon_edit_key(&ss->ed, key)) {
	case RBMON_EDIT_CANCEL:
		t->have_match = 0;
		search_restore(t, ss);
		rbmon_tui_relayout(t);
		rbmon_tui_pop(t);
		rbmon_tui_message(t, RBMON_MSG_NONE, " ");
		return RBMON_REDRAW;
	case RBMON_EDIT_ENTER:
		memcpy(text, ss->ed.text, sizeof text);
		rbmon_tui_pop(t);
		if (text[0] == '\0' && search_last[0] != '\0') {
			rbmon_search_again(t);	/* "/" Enter: the next match */
			return RBMON_REDRAW;
		}
		if (text[0] == '\0') {
			rbmon_tui_message(t, RBMON_MSG_NONE, " ");
			return RBMON_REDRAW;
		}
		memcpy(search_last, text, sizeof search_last);
		rbmon_prompt_remember(t, RBMON_HIST_SEARCH, text);
		if (!t->have_match)
			rbmon_tui_message(t, RBMON_MSG_ERROR, "no thread or "
			    "function matches \"%s\"", text);
		else {
			rbmon_tui_message(t, RBMON_MSG_INFO, "found \"%s\" "
			    "(F3 or / then Enter: next)", text);
			if (t->match_frame != SIZE_MAX)
				t->focus = RBMON_PANE_STACK;
		}
		return RBMON_REDRAW;
	case RBMON_EDIT_CHANGED:
		/* From where the search started, the first match as typed. */
		t->have_match = 0;
		search_restore(t, ss);
		if (ss->ed.text[0] != '\0' && !search_step(t, ss->ed.text, 0))
			search_restore(t, ss);
		return RBMON_REDRAW;
	case RBMON_EDIT_MOVED:
		return RBMON_REDRAW;
	default:
		return 0;
	}
}

static void
search_draw(struct rbmon_tui *t, void *arg)
{
	struct search_state	*ss = arg;
	int			 y = t->lay.msg_y, x, end;

	if (t->lay.too_small || !t->have_snap)
		return;
	move(y, 0);
	clrtoeol();
	x = rbmon_draw_text(y, 0, t->lay.cols, A_BOLD, "Search: ");
	end = rbmon_prompt_draw_line(&ss->ed, y, x, t->lay.cols - x - 13,
	    A_NORMAL);
	if (ss->ed.text[0] != '\0' && !t->have_match) {
		rbmon_draw_text(y, end + 2, t->lay.cols - end - 2,
		    rbmon_tty_attr(RBMON_A_ERROR), "(no match)");
		/* The cursor back where typing goes. */
		rbmon_prompt_draw_line(&ss->ed, y, x, t->lay.cols - x - 13,
		    A_NORMAL);
	}
}

static const struct rbmon_mode_ops search_ops = {
	.name = "search",
	.overlay = 1,
	.key = search_key,
	.draw = search_draw,
	.free = free,
};

void
rbmon_search_open(struct rbmon_tui *t)
{
	struct search_state	*ss = rbmon_xcalloc(1, sizeof *ss);

	ss->hist = rbmon_prompt_hist(t, RBMON_HIST_SEARCH);
	rbmon_edit_start(&ss->ed, NULL, ss->hist);
	t->have_match = 0;
	ss->had_sel = t->v.have_sel;
	ss->from = t->v.sel;
	if (rbmon_tui_push(t, &search_ops, ss) != 0)
		free(ss);
}

/* F3: the next match of the last search. */
void
rbmon_search_again(struct rbmon_tui *t)
{
	if (search_last[0] == '\0') {
		rbmon_tui_message(t, RBMON_MSG_INFO, "nothing searched yet "
		    "(/ searches)");
		return;
	}
	if (search_step(t, search_last, 1)) {
		rbmon_tui_message(t, RBMON_MSG_INFO, "found \"%s\"",
		    search_last);
		if (t->match_frame != SIZE_MAX)
			t->focus = RBMON_PANE_STACK;
	} else
		rbmon_tui_message(t, RBMON_MSG_ERROR, "no thread or function "
		    "matches \"%s\"", search_last);
}
