/* rbmon tui: the interactive monitor's loop: rescan, draw, read a key. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dump.h"
#include "stack.h"
#include "tty.h"
#include "tui.h"

#define TUI_KEY_WAIT_MS	100	/* longest key wait: signals are seen */
#define TUI_CTRL(c)	((c) & 0x1f)
#define TUI_ESC		0x1b

void
rbmon_tui_message(struct rbmon_tui *t, enum rbmon_msg kind, const char *fmt,
    ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(t->msg, sizeof t->msg, fmt, ap);
	va_end(ap);
	t->msg_kind = kind;
}

static int
tui_watch_rows(const struct rbmon_thread *th)
{
	int	i, n = 0;

	if (th == NULL || th->watches == NULL)
		return 0;
	for (i = 0; i < RB_WATCHES; i++)
		n += th->watches[i].inuse != 0;
	return n;
}

static void
tui_relayout(struct rbmon_tui *t)
{
	const struct rbmon_thread	*th;

	th = t->have_snap ? rbmon_view_selected(&t->v, &t->s, NULL) : NULL;
	rbmon_layout_compute(&t->lay, LINES, COLS, (int)t->v.nrows,
	    (int)rbmon_view_stack_rows(th) + (th != NULL && th->nframes == 0),
	    tui_watch_rows(th));
	rbmon_view_scroll(&t->v, (size_t)(t->lay.list_h > 0 ?
	    t->lay.list_h : 1));
	rbmon_view_stack_move(&t->v, th, 0, (size_t)(t->lay.stack_h > 0 ?
	    t->lay.stack_h : 1));
}

/* The function a frame runs, for search: resolved through the cache. */
static const char *
tui_frame_name(void *arg, const struct rbmon_process *p,
    const struct rbmon_thread *th, size_t i)
{
	struct rbmon_tui	*t = arg;
	struct rbmon_shown	 sh;

	rbmon_dump_resolve(t->sy, &t->s, p, th, i, &t->c, &sh);
	return sh.function;
}

static void
tui_notes(struct rbmon_tui *t)
{
	char	*line, *end;

	/* Show the newest line the symbol reader wrote, once. */
	if (t->notes == NULL || fflush(t->notes) != 0 ||
	    t->notes_len == t->notes_shown)
		return;
	line = t->notes_buf + t->notes_shown;
	t->notes_shown = t->notes_len;
	end = t->notes_buf + t->notes_len;
	while (end > line && end[-1] == '\n')
		end--;
	for (char *p = line; p < end; p++) {
		if (*p == '\n')
			line = p + 1;
	}
	if (end > line)
		rbmon_tui_message(t, RBMON_MSG_INFO, "%.*s", (int)(end - line),
		    line);
}

static void
tui_rescan(struct rbmon_tui *t)
{
	struct rbmon_snapshot	 s;
	char			*cause = NULL;
	size_t			 i;
	int			 gone;

	if (rbmon_model_snapshot(t->m, &s, &cause) != 0) {
		/* Keep the last good snapshot on screen; say why it is old. */
		free(t->read_error);
		t->read_error = cause;
		rbmon_tui_message(t, RBMON_MSG_ERROR, "%s: %s (showing the last "
		    "good read)", rbmon_basename(t->m->path), cause);
		return;
	}
	if (t->read_error != NULL) {
		free(t->read_error);
		t->read_error = NULL;
		rbmon_tui_message(t, RBMON_MSG_INFO, "reading the file again");
	}
	if (t->have_snap)
		rbmon_model_free(&t->s);
	t->s = s;
	t->have_snap = 1;
	t->snap_ns = rbmon_mono_ns();
	rbmon_clock_init(&t->c, &t->m->hdr);
	rbmon_stack_resolve_all(t->sy, &t->s);
	rbmon_view_rebuild(&t->v, &t->s);

	gone = t->s.nprocs > 0 && !rbmon_model_pid_alive(
	    t->m->hdr.creator_pid, t->m->hdr.creator_start);
	for (i = 0; gone && i < t->s.nprocs; i++)
		gone = !t->s.procs[i].alive;
	if (gone && !t->all_gone)
		rbmon_tui_message(t, RBMON_MSG_INFO, "the program is gone; "
		    "its last stacks stay on screen");
	t->all_gone = gone;
	tui_relayout(t);
	rbmon_tuiwatch_refresh(t);
	tui_notes(t);
}

static void
tui_focus(struct rbmon_tui *t, enum rbmon_pane p)
{
	t->focus = p;
}

static int
tui_search_step(struct rbmon_tui *t, int next)
{
	size_t	frame;

	if (!t->have_snap)
		return 0;
	if (rbmon_view_search(&t->v, &t->s, t->search, next,
	    tui_frame_name, t, &frame)) {
		t->have_match = 1;
		t->match_frame = frame;
		tui_relayout(t);
		if (frame != SIZE_MAX)
			rbmon_view_stack_move(&t->v, rbmon_view_selected(&t->v,
			    &t->s, NULL), 0, (size_t)t->lay.stack_h);
		return 1;
	}
	t->have_match = 0;
	return 0;
}

static void
tui_search_restore(struct rbmon_tui *t)
{
	if (t->search_had_sel)
		rbmon_view_select_ident(&t->v, &t->s, &t->search_from);
}

static void tui_search_again(struct rbmon_tui *);

static int
tui_search_key(struct rbmon_tui *t, int key, int is_key)
{
	size_t	len = strlen(t->search);

	if (is_key && key == KEY_RESIZE) {
		clear();
		tui_relayout(t);
		return RBMON_REDRAW;
	}
	if (!is_key && key == TUI_ESC) {
		t->searching = 0;
		t->have_match = 0;
		tui_search_restore(t);
		tui_relayout(t);
		rbmon_tui_message(t, RBMON_MSG_NONE, " ");
		return RBMON_REDRAW;
	}
	if ((!is_key && (key == '\r' || key == '\n')) ||
	    (is_key && key == KEY_ENTER)) {
		t->searching = 0;
		if (len == 0 && t->last_search[0] != '\0') {
			tui_search_again(t);	/* "/" Enter: the next match */
			return RBMON_REDRAW;
		}
		if (len != 0)
			memcpy(t->last_search, t->search, len + 1);
		if (len != 0 && !t->have_match)
			rbmon_tui_message(t, RBMON_MSG_ERROR, "no thread or "
			    "function matches \"%s\"", t->search);
		else if (len != 0)
			rbmon_tui_message(t, RBMON_MSG_INFO, "found \"%s\" "
			    "(F3 or / then Enter: next)", t->search);
		else
			rbmon_tui_message(t, RBMON_MSG_NONE, " ");
		if (t->have_match && t->match_frame != SIZE_MAX)
			tui_focus(t, RBMON_PANE_STACK);
		return RBMON_REDRAW;
	}
	if ((is_key && (key == KEY_BACKSPACE || key == KEY_DC)) ||
	    (!is_key && (key == 0x7f || key == TUI_CTRL('h')))) {
		if (len > 0)
			t->search[len - 1] = '\0';
		t->have_match = 0;
		tui_search_restore(t);
		if (len > 1)
			tui_search_step(t, 0);
		return RBMON_REDRAW;
	}
	if ((is_key && (key == KEY_F(3) || key == KEY_DOWN)) ||
	    (!is_key && key == TUI_CTRL('n'))) {
		tui_search_step(t, 1);
		return RBMON_REDRAW;
	}
	if (!is_key && key == TUI_CTRL('u')) {
		t->search[0] = '\0';
		t->have_match = 0;
		tui_search_restore(t);
		return RBMON_REDRAW;
	}
	if (is_key || key < 0x20 || key > 0x7e || len + 1 >= sizeof t->search)
		return 0;
	t->search[len] = (char)key;
	t->search[len + 1] = '\0';
	if (!tui_search_step(t, 0))
		tui_search_restore(t);	/* no longer matches: back to start */
	return RBMON_REDRAW;
}

static void
tui_search_start(struct rbmon_tui *t)
{
	t->searching = 1;
	t->search[0] = '\0';
	t->have_match = 0;
	t->search_had_sel = t->v.have_sel;
	t->search_from = t->v.sel;
}

static void
tui_search_again(struct rbmon_tui *t)
{
	if (t->last_search[0] == '\0') {
		rbmon_tui_message(t, RBMON_MSG_INFO, "nothing searched yet "
		    "(/ searches)");
		return;
	}
	memcpy(t->search, t->last_search, sizeof t->search);
	if (tui_search_step(t, 1)) {
		rbmon_tui_message(t, RBMON_MSG_INFO, "found \"%s\"", t->search);
		if (t->match_frame != SIZE_MAX)
			tui_focus(t, RBMON_PANE_STACK);
	} else
		rbmon_tui_message(t, RBMON_MSG_ERROR, "no thread or function "
		    "matches \"%s\"", t->search);
}

/* Move the focused pane's cursor. */
static void
tui_move(struct rbmon_tui *t, long delta)
{
	const struct rbmon_thread	*th;

	if (!t->have_snap)
		return;
	t->have_match = 0;
	if (t->focus == RBMON_PANE_THREADS) {
		rbmon_view_move(&t->v, &t->s, delta);
		tui_relayout(t);
		return;
	}
	if (t->focus == RBMON_PANE_WATCH) {
		rbmon_tuiwatch_move(t, delta);
		return;
	}
	th = rbmon_view_selected(&t->v, &t->s, NULL);
	rbmon_view_stack_move(&t->v, th, delta, (size_t)t->lay.stack_h);
}

static long
tui_page(const struct rbmon_tui *t)
{
	int	h = t->focus == RBMON_PANE_THREADS ? t->lay.list_h :
		    t->focus == RBMON_PANE_WATCH ? t->lay.watch_h :
		    t->lay.stack_h;

	return h > 1 ? h - 1 : 1;
}

static int
tui_mouse(struct rbmon_tui *t)
{
	MEVENT	ev;
	int	y, key;
	size_t	row;

	if (getmouse(&ev) != OK || t->lay.too_small)
		return 0;
	y = ev.y;
	if (ev.bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED)) {
		if (y > t->lay.stack_y && y < t->lay.watch_y)
			tui_focus(t, RBMON_PANE_STACK);
		else if (y > t->lay.list_y && y <= t->lay.list_y +
		    t->lay.list_h)
			tui_focus(t, RBMON_PANE_THREADS);
		tui_move(t, (ev.bstate & BUTTON4_PRESSED) ? -3 : 3);
		return RBMON_REDRAW;
	}
	if (!(ev.bstate & BUTTON1_PRESSED))
		return 0;
	if (y == t->lay.bar_y) {
		key = rbmon_panel_bar_key(t, ev.x);
		if (key != 0)
			ungetch(key);
		return 0;
	}
	if (y > t->lay.list_y && y <= t->lay.list_y + t->lay.list_h) {
		tui_focus(t, RBMON_PANE_THREADS);
		row = t->v.top + (size_t)(y - t->lay.list_y - 1);
		if (row < t->v.nrows) {
			rbmon_view_select_row(&t->v, &t->s, row);
			tui_relayout(t);
		}
		return RBMON_REDRAW;
	}
	if (y >= t->lay.stack_y && y < t->lay.watch_y) {
		tui_focus(t, RBMON_PANE_STACK);
		if (y > t->lay.stack_y) {
			row = t->v.stack_top + (size_t)(y - t->lay.stack_y - 1);
			t->v.stack_sel = row;
			tui_move(t, 0);
		}
		return RBMON_REDRAW;
	}
	if (y >= t->lay.watch_y && y < t->lay.msg_y) {
		tui_focus(t, RBMON_PANE_WATCH);
		if (y > t->lay.watch_y)
			rbmon_tuiwatch_select_row(t, y - t->lay.watch_y - 1);
		return RBMON_REDRAW;
	}
	return 0;
}

static int
tui_help_key(struct rbmon_tui *t, int key, int is_key)
{
	if (is_key && (key == KEY_DOWN || key == KEY_NPAGE)) {
		t->help_top += key == KEY_DOWN ? 1 : LINES - 2;
		return RBMON_REDRAW;
	}
	if (is_key && (key == KEY_UP || key == KEY_PPAGE)) {
		t->help_top -= key == KEY_UP ? 1 : LINES - 2;
		if (t->help_top < 0)
			t->help_top = 0;
		return RBMON_REDRAW;
	}
	if (!is_key && (key == 'j' || key == 'k')) {
		t->help_top += key == 'j' ? 1 : -1;
		if (t->help_top < 0)
			t->help_top = 0;
		return RBMON_REDRAW;
	}
	if (is_key && key == KEY_RESIZE)
		return RBMON_REDRAW;
	t->help = 0;
	clear();
	tui_relayout(t);	/* the terminal may have changed meanwhile */
	return RBMON_REDRAW;
}

static int
tui_key(struct rbmon_tui *t, int key, int is_key)
{
	int	r;

	if (t->help)
		return tui_help_key(t, key, is_key);
	if (t->searching)
		return tui_search_key(t, key, is_key);
	r = rbmon_tuictl_key(t, key, is_key);
	if (r >= 0)
		return r;
	if (is_key) {
		switch (key) {
		case KEY_RESIZE:
			clear();
			tui_relayout(t);
			return RBMON_REDRAW;
		case KEY_UP:
			tui_move(t, -1);
			return RBMON_REDRAW;
		case KEY_DOWN:
			tui_move(t, 1);
			return RBMON_REDRAW;
		case KEY_PPAGE:
			tui_move(t, -tui_page(t));
			return RBMON_REDRAW;
		case KEY_NPAGE:
			tui_move(t, tui_page(t));
			return RBMON_REDRAW;
		case KEY_HOME:
			tui_move(t, LONG_MIN / 2);
			return RBMON_REDRAW;
		case KEY_END:
			tui_move(t, LONG_MAX / 2);
			return RBMON_REDRAW;
		case KEY_LEFT:
			tui_focus(t, RBMON_PANE_THREADS);
			return RBMON_REDRAW;
		case KEY_RIGHT:
		case KEY_ENTER:
			tui_focus(t, RBMON_PANE_STACK);
			return RBMON_REDRAW;
		case KEY_BTAB:
			tui_focus(t, (t->focus + RBMON_PANES - 1) %
			    RBMON_PANES);
			return RBMON_REDRAW;
		case KEY_F(1):
			t->help = 1;
			t->help_top = 0;
			return RBMON_REDRAW;
		case KEY_F(3):
			tui_search_again(t);
			return RBMON_REDRAW;
		case KEY_F(10):
			return rbmon_tuictl_quit(t);
		case KEY_MOUSE:
			return tui_mouse(t);
		}
		return 0;
	}
	switch (key) {
	case 'q':
	case 'Q':
	case TUI_CTRL('c'):
		return rbmon_tuictl_quit(t);
	case TUI_CTRL('z'):
		rbmon_tty_suspend();
		return RBMON_REDRAW;
	case TUI_CTRL('l'):
		clearok(curscr, TRUE);
		return RBMON_REDRAW | RBMON_RESCAN;
	case 'k':
		tui_move(t, -1);
		return RBMON_REDRAW;
	case 'j':
		tui_move(t, 1);
		return RBMON_REDRAW;
	case 'G':
		tui_move(t, LONG_MAX / 2);
		return RBMON_REDRAW;
	case TUI_CTRL('b'):
		tui_move(t, -tui_page(t));
		return RBMON_REDRAW;
	case TUI_CTRL('f'):
		tui_move(t, tui_page(t));
		return RBMON_REDRAW;
	case '\t':
		tui_focus(t, (t->focus + 1) % RBMON_PANES);
		return RBMON_REDRAW;
	case '\r':
	case '\n':
		tui_focus(t, t->focus == RBMON_PANE_THREADS ?
		    RBMON_PANE_STACK : RBMON_PANE_THREADS);
		return RBMON_REDRAW;
	case TUI_ESC:
		tui_focus(t, RBMON_PANE_THREADS);
		return RBMON_REDRAW;
	case '?':
		t->help = 1;
		t->help_top = 0;
		return RBMON_REDRAW;
	case '/':
		tui_search_start(t);
		return RBMON_REDRAW;
	case 'h':
	case 'H':
		t->v.hide_exited = !t->v.hide_exited;
		if (t->have_snap)
			rbmon_view_rebuild(&t->v, &t->s);
		tui_relayout(t);
		rbmon_tui_message(t, RBMON_MSG_INFO, t->v.hide_exited ?
		    "exited threads hidden (h shows them)" :
		    "exited threads shown (h hides them)");
		return RBMON_REDRAW;
	case ' ':
		t->frozen = !t->frozen;
		rbmon_tui_message(t, RBMON_MSG_INFO, t->frozen ?
		    "display frozen (space resumes)" : "display live");
		return RBMON_REDRAW | (t->frozen ? 0 : RBMON_RESCAN);
	case '+':
	case '=':
	case '-':
	case '_': {
		char	buf[32];

		t->o.delay = rbmon_delay_step(t->o.delay,
		    key == '+' || key == '=' ? 1 : -1);
		rbmon_delay_format(buf, sizeof buf, t->o.delay);
		rbmon_tui_message(t, RBMON_MSG_INFO, "refresh every %s", buf);
		t->next_ns = t->snap_ns + (uint64_t)t->o.delay * 100000000u;
		return RBMON_REDRAW;
	}
	}
	return 0;
}

/**
 * rbmon_tui_run - the interactive monitor on an open trace file
 * @m: the model; stays open
 * @o: options
 *
 * Each pass refreshes the snapshot when its interval is up (unless
 * frozen), draws when something changed, and waits for a key at most
 * TUI_KEY_WAIT_MS.  The traced program only ever sees reads.
 *
 * Return: the exit status: 0, or 1 if the terminal could not be used.
 */
int
rbmon_tui_run(struct rbmon_model *m, const struct rbmon_tui_opts *o)
{
	struct rbmon_tui	 t;
	char			*cause = NULL;
	uint64_t		 now;
	wint_t			 wc;
	int			 r, flags, wait_ms;

	memset(&t, 0, sizeof t);
	t.m = m;
	t.o = *o;
	/* Thread names from /proc: once a second is enough for the screen. */
	m->names_every_ns = 1000000000u;
	rbmon_view_init(&t.v);
	t.v.hide_exited = o->hide_exited;
	if (rbmon_tty_start(o->color, o->ascii, &cause) != 0) {
		fprintf(stderr, "rbmon: %s\n", cause);
		free(cause);
		return 1;
	}
	rbmon_tuictl_init(&t);
	t.notes = open_memstream(&t.notes_buf, &t.notes_len);
	t.sy = rbmon_symbols_new(t.notes);
	flags = RBMON_RESCAN | RBMON_REDRAW;
	while (!(flags & RBMON_QUIT) && !rbmon_tty_quit) {
		flags |= rbmon_tuictl_tick(&t);
		now = rbmon_mono_ns();
		if ((flags & RBMON_RESCAN) || (!t.frozen && now >= t.next_ns)) {
			tui_rescan(&t);
			t.next_ns = t.snap_ns + (uint64_t)t.o.delay * 100000000u;
			flags |= RBMON_REDRAW;
		}
		if (flags & RBMON_REDRAW) {
			if (t.help)
				rbmon_panel_help(&t);
			else if (t.blist)
				rbmon_panel_breaks(&t);
			else
				rbmon_panel_draw(&t);
		}
		flags = 0;
		now = rbmon_mono_ns();
		wait_ms = TUI_KEY_WAIT_MS;
		if (!t.frozen && t.next_ns > now &&
		    (t.next_ns - now) / 1000000u < (uint64_t)wait_ms)
			wait_ms = (int)((t.next_ns - now) / 1000000u);
		else if (!t.frozen && t.next_ns <= now)
			wait_ms = 0;
		timeout(wait_ms);
		r = get_wch(&wc);
		if (r == ERR)
			continue;
		flags = tui_key(&t, (int)wc, r == KEY_CODE_YES);
		/* Drain what is already typed before drawing again. */
		while (!(flags & RBMON_QUIT)) {
			timeout(0);
			r = get_wch(&wc);
			if (r == ERR)
				break;
			flags |= tui_key(&t, (int)wc, r == KEY_CODE_YES);
		}
	}
	rbmon_tty_end();
	/* A signal (terminal closed, kill) cannot ask: undo, to be safe. */
	rbmon_tuictl_end(&t, t.quit_undo || rbmon_tty_quit);
	rbmon_symbols_free(t.sy);
	if (t.notes != NULL)
		fclose(t.notes);
	free(t.notes_buf);
	if (t.have_snap)
		rbmon_model_free(&t.s);
	rbmon_view_free(&t.v);
	free(t.read_error);
	return 0;
}
