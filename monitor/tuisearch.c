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

#include <bsd/string.h>

#include "dump.h"
#include "panel.h"
#include "tty.h"
#include "tuimodes.h"

#define SEARCH_LINE	128

struct search_state {
	char			 text[SEARCH_LINE];
	struct rbmon_ident	 from;		/* the selection it started at */
	int			 had_sel;
};

static char search_last[SEARCH_LINE];	/* what Enter kept, for F3 */

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
	size_t			 len = strlen(ss->text);
	char			 text[SEARCH_LINE];

	switch (key) {
	case RBMON_KEY_ESC:
		t->have_match = 0;
		search_restore(t, ss);
		rbmon_tui_relayout(t);
		rbmon_tui_pop(t);
		rbmon_tui_message(t, RBMON_MSG_NONE, " ");
		return RBMON_REDRAW;
	case '\r':
	case '\n':
	case RBMON_KEY_ENTER:
		strlcpy(text, ss->text, sizeof text);
		rbmon_tui_pop(t);
		if (len == 0 && search_last[0] != '\0') {
			rbmon_search_again(t);	/* "/" Enter: the next match */
			return RBMON_REDRAW;
		}
		if (len == 0) {
			rbmon_tui_message(t, RBMON_MSG_NONE, " ");
			return RBMON_REDRAW;
		}
		strlcpy(search_last, text, sizeof search_last);
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
	case RBMON_KEY_BACKSPACE:
	case RBMON_KEY_DC:
	case RBMON_KEY_DEL:
	case RBMON_CTRL('h'):
		if (len > 0)
			ss->text[len - 1] = '\0';
		t->have_match = 0;
		search_restore(t, ss);
		if (len > 1)
			search_step(t, ss->text, 0);
		return RBMON_REDRAW;
	case RBMON_KEY_F(3):
	case RBMON_KEY_DOWN:
	case RBMON_CTRL('n'):
		search_step(t, ss->text, 1);
		return RBMON_REDRAW;
	case RBMON_CTRL('u'):
		ss->text[0] = '\0';
		t->have_match = 0;
		search_restore(t, ss);
		return RBMON_REDRAW;
	}
	if (key < 0x20 || key > 0x7e || len + 1 >= sizeof ss->text)
		return 0;
	ss->text[len] = (char)key;
	ss->text[len + 1] = '\0';
	if (!search_step(t, ss->text, 0))
		search_restore(t, ss);	/* no longer matches: back to start */
	return RBMON_REDRAW;
}

static void
search_draw(struct rbmon_tui *t, void *arg)
{
	struct search_state	*ss = arg;
	int			 y = t->lay.msg_y, x;

	if (t->lay.too_small || !t->have_snap)
		return;
	move(y, 0);
	clrtoeol();
	x = rbmon_panel_text(y, 0, t->lay.cols, A_BOLD, "Search: ");
	x += rbmon_panel_text(y, x, t->lay.cols - x - 1, A_NORMAL, ss->text);
	if (ss->text[0] != '\0' && !t->have_match)
		rbmon_panel_text(y, x + 2, t->lay.cols - x - 2,
		    rbmon_tty_attr(RBMON_A_ERROR), "(no match)");
	move(y, x);
	curs_set(1);
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
