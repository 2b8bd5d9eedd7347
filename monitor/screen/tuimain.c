/* SPDX-License-Identifier: MIT */
/*
 * rbmon tuimain: the main screen's mode, at the bottom of the stack: the
 * key table's actions for moving, the display, and the keys that control
 * (tuictl.c) and watch (tuiwatch.c) or open another mode.
 */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/screen/keytab.h"
#include "monitor/screen/tuidraw.h"
#include "monitor/screen/tty.h"
#include "monitor/screen/tuictl.h"
#include "monitor/screen/tuimodes.h"
#include "monitor/screen/tuiwatch.h"

/* Move the focused pane's cursor. */
static void
main_move(struct rbmon_tui *t, long delta)
{
	if (!t->have_snap)
		return;
	t->have_match = 0;
	if (t->focus == RBMON_PANE_THREADS) {
		rbmon_view_move(&t->v, &t->s, delta);
		rbmon_tui_relayout(t);
		return;
	}
	if (t->focus == RBMON_PANE_WATCH) {
		rbmon_tuiwatch_move(t, delta);
		return;
	}
	rbmon_view_stack_move(&t->v, rbmon_tui_selected(t, NULL), delta,
	    (size_t)t->lay.stack_h);
}

static long
main_page(const struct rbmon_tui *t)
{
	int	h = t->focus == RBMON_PANE_THREADS ? t->lay.list_h :
		    t->focus == RBMON_PANE_WATCH ? t->lay.watch_h :
		    t->lay.stack_h;

	return h > 1 ? h - 1 : 1;
}

static int
main_mouse(struct rbmon_tui *t)
{
	MEVENT	ev;
	int	y, key;
	size_t	row;

	if (getmouse(&ev) != OK || t->lay.too_small)
		return 0;
	y = ev.y;
	if (ev.bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED)) {
		if (y > t->lay.stack_y && y < t->lay.watch_y)
			t->focus = RBMON_PANE_STACK;
		else if (y > t->lay.list_y && y <= t->lay.list_y +
		    t->lay.list_h)
			t->focus = RBMON_PANE_THREADS;
		main_move(t, (ev.bstate & BUTTON4_PRESSED) ? -3 : 3);
		return RBMON_REDRAW;
	}
	if (!(ev.bstate & BUTTON1_PRESSED))
		return 0;
	if (y == t->lay.bar_y) {
		/* A click on the bar types its key. */
		key = rbmon_draw_bar_key(t, ev.x);
		return key != 0 ? rbmon_mode_main.key(t, NULL, key) : 0;
	}
	if (y > t->lay.list_y && y <= t->lay.list_y + t->lay.list_h) {
		t->focus = RBMON_PANE_THREADS;
		row = t->v.top + (size_t)(y - t->lay.list_y - 1);
		if (row < t->v.nrows) {
			rbmon_view_select_row(&t->v, &t->s, row);
			rbmon_tui_relayout(t);
		}
		return RBMON_REDRAW;
	}
	if (y >= t->lay.stack_y && y < t->lay.watch_y) {
		t->focus = RBMON_PANE_STACK;
		if (y > t->lay.stack_y) {
			row = t->v.stack_top + (size_t)(y - t->lay.stack_y - 1);
			t->v.stack_sel = row;
			main_move(t, 0);
		}
		return RBMON_REDRAW;
	}
	if (y >= t->lay.watch_y && y < t->lay.msg_y) {
		t->focus = RBMON_PANE_WATCH;
		if (y > t->lay.watch_y)
			rbmon_tuiwatch_select_row(t, y - t->lay.watch_y - 1);
		return RBMON_REDRAW;
	}
	return 0;
}

static int
main_delay(struct rbmon_tui *t, int slower)
{
	char	buf[32];

	t->o.delay = rbmon_delay_step(t->o.delay, slower ? 1 : -1);
	rbmon_delay_format(buf, sizeof buf, t->o.delay);
	rbmon_tui_message(t, RBMON_MSG_INFO, "refresh every %s", buf);
	t->next_ns = t->snap_ns + (uint64_t)t->o.delay * 100000000u;
	return RBMON_REDRAW;
}

/* F6, >: the next sort order. */
static void
main_sort(struct rbmon_tui *t)
{
	t->v.sort = (t->v.sort + 1) % RBMON_SORTS;
	if (t->have_snap)
		rbmon_view_rebuild(&t->v, &t->s);
	rbmon_tui_relayout(t);
	rbmon_tui_message(t, RBMON_MSG_INFO, "threads sorted by %s (F6 or >: "
	    "by %s)", rbmon_sort_name(t->v.sort),
	    rbmon_sort_name((t->v.sort + 1) % RBMON_SORTS));
}

static void
main_filter_set(struct rbmon_tui *t, const char *text)
{
	snprintf(t->v.filter, sizeof t->v.filter, "%s", text);
	if (t->have_snap)
		rbmon_view_rebuild(&t->v, &t->s);
	rbmon_tui_relayout(t);
}

/* The filter follows the line as it is typed. */
static void
main_filter_change(struct rbmon_tui *t, void *arg, const char *line)
{
	(void)arg;
	main_filter_set(t, line);
}

/* Esc: the filter there was before. */
static void
main_filter_cancel(struct rbmon_tui *t, void *arg)
{
	main_filter_set(t, arg);
}

static int
main_filter_enter(struct rbmon_tui *t, void *arg, const char *line)
{
	(void)arg;
	main_filter_set(t, line);
	if (t->v.nrows == 0)
		rbmon_tui_message(t, RBMON_MSG_ERROR, "no thread or function "
		    "matches \"%s\" (F4 or \\ changes the filter)", line);
	else
		rbmon_tui_message(t, RBMON_MSG_INFO, "showing threads matching "
		    "\"%s\" (F4 or \\ then Enter on an empty line: all)",
		    line);
	return RBMON_REDRAW;
}

/* An empty line: every thread again (the prompt calls no enter() then). */
static void
main_filter(struct rbmon_tui *t)
{
	struct rbmon_prompt	p;

	memset(&p, 0, sizeof p);
	snprintf(p.label, sizeof p.label, "Filter: ");
	p.hint = "a thread name or function, any case  Up/Down history, "
	    "Enter keeps, Esc goes back";
	p.hist = RBMON_HIST_FILTER;
	p.enter = main_filter_enter;
	p.change = main_filter_change;
	p.cancel = main_filter_cancel;
	p.arg = rbmon_xstrdup(t->v.filter);
	p.free_arg = free;
	rbmon_prompt_open(t, &p, t->v.filter);
}

static int
main_key(struct rbmon_tui *t, void *arg, int key)
{
	enum rbmon_action	act = rbmon_keytab_action(RBMON_KM_MAIN, key);
	int			r;

	(void)arg;
	switch (act) {
	case RBMON_ACT_NONE:
		return 0;
	case RBMON_ACT_UP:
		main_move(t, -1);
		break;
	case RBMON_ACT_DOWN:
		main_move(t, 1);
		break;
	case RBMON_ACT_PGUP:
		main_move(t, -main_page(t));
		break;
	case RBMON_ACT_PGDN:
		main_move(t, main_page(t));
		break;
	case RBMON_ACT_HOME:
		main_move(t, LONG_MIN / 2);
		break;
	case RBMON_ACT_END:
		main_move(t, LONG_MAX / 2);
		break;
	case RBMON_ACT_NEXT_PANE:
		t->focus = (t->focus + 1) % RBMON_PANES;
		break;
	case RBMON_ACT_PREV_PANE:
		t->focus = (t->focus + RBMON_PANES - 1) % RBMON_PANES;
		break;
	case RBMON_ACT_STACK:
		t->focus = RBMON_PANE_STACK;
		break;
	case RBMON_ACT_LIST:
		t->focus = RBMON_PANE_THREADS;
		break;
	case RBMON_ACT_ENTER:
		t->focus = t->focus == RBMON_PANE_THREADS ? RBMON_PANE_STACK :
		    RBMON_PANE_THREADS;
		break;
	case RBMON_ACT_MOUSE:
		return main_mouse(t);
	case RBMON_ACT_SEARCH:
		rbmon_search_open(t);
		break;
	case RBMON_ACT_SEARCH_NEXT:
		rbmon_search_again(t);
		break;
	case RBMON_ACT_FILTER:
		main_filter(t);
		break;
	case RBMON_ACT_SORT:
		main_sort(t);
		break;
	case RBMON_ACT_SOURCE:
		rbmon_source_open(t);
		break;
	case RBMON_ACT_NAME:
		rbmon_name_open(t);
		break;
	case RBMON_ACT_HISTORY:
		rbmon_hist_open(t);
		break;
	case RBMON_ACT_TOP:
		rbmon_top_open(t);
		break;
	case RBMON_ACT_LATENCY:
		rbmon_lat_open(t);
		break;
	case RBMON_ACT_VALUE:
		rbmon_value_open(t);
		break;
	case RBMON_ACT_SAVE:
		rbmon_save_stacks(t);
		break;
	case RBMON_ACT_FOLD:
		if (t->focus != RBMON_PANE_STACK) {
			rbmon_tui_message(t, RBMON_MSG_INFO, "o opens and folds "
			    "recursion in the stack pane (Enter or Tab goes "
			    "there)");
			break;
		}
		if (!rbmon_view_stack_fold(&t->v, rbmon_tui_selected(t, NULL),
		    t->v.stack_sel))
			rbmon_tui_message(t, RBMON_MSG_INFO, "no recursion "
			    "here: o opens a row marked with its count");
		rbmon_tui_relayout(t);
		break;
	case RBMON_ACT_HIDE_EXITED:
		t->v.hide_exited = !t->v.hide_exited;
		if (t->have_snap)
			rbmon_view_rebuild(&t->v, &t->s);
		rbmon_tui_relayout(t);
		rbmon_tui_message(t, RBMON_MSG_INFO, t->v.hide_exited ?
		    "exited threads hidden (h shows them)" :
		    "exited threads shown (h hides them)");
		break;
	case RBMON_ACT_FREEZE:
		t->frozen = !t->frozen;
		rbmon_tui_message(t, RBMON_MSG_INFO, t->frozen ?
		    "display frozen (space resumes)" : "display live");
		return RBMON_REDRAW | (t->frozen ? 0 : RBMON_RESCAN);
	case RBMON_ACT_SLOWER:
	case RBMON_ACT_FASTER:
		return main_delay(t, act == RBMON_ACT_SLOWER);
	case RBMON_ACT_REDRAW:
		clearok(curscr, TRUE);
		return RBMON_REDRAW | RBMON_RESCAN;
	case RBMON_ACT_HELP:
		rbmon_help_open(t);
		break;
	case RBMON_ACT_SUSPEND:
		rbmon_tty_suspend();
		break;
	case RBMON_ACT_QUIT:
		return rbmon_tuictl_quit(t);
	default:
		if ((r = rbmon_tuictl_action(t, act)) >= 0)
			return r;
		if ((r = rbmon_tuiwatch_action(t, act)) >= 0)
			return r;
		return 0;
	}
	return RBMON_REDRAW;
}

static void
main_draw(struct rbmon_tui *t, void *arg)
{
	(void)arg;
	rbmon_draw_draw(t);
}

const struct rbmon_mode_ops rbmon_mode_main = {
	.name = "main",
	.key = main_key,
	.draw = main_draw,
};
