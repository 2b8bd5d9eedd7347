/* SPDX-License-Identifier: MIT */
/* rbmon pick: plain `rbmon` on a terminal lists this user's trace files
 * and opens the one picked. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "monitor/core/discover.h"
#include "monitor/screen/keytab.h"
#include "monitor/screen/tty.h"
#include "monitor/screen/tui.h"

#define PICK_RESCAN_NS	1000000000ull	/* the list refreshes every second */

static void
pick_draw(const struct rbmon_found_list *l, size_t sel, size_t *top,
    const char *msg, int msg_error)
{
	const struct rbmon_found *f;
	struct timespec	 ts;
	struct rbmon_bar_item it[8];
	char		 line[1024], fit[1024], age[32];
	uint64_t	 now;
	size_t		 i, h, n;
	attr_t		 a;
	int		 y, cols = COLS;

	erase();
	clock_gettime(CLOCK_REALTIME, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	attrset(A_BOLD);
	mvaddstr(0, 0, "rbmon: pick a trace file");
	attrset(A_NORMAL);
	rbmon_fit(fit, sizeof fit, l->dirs, (size_t)(cols > 12 ?
	    cols - 12 : 1));
	mvprintw(1, 0, "searched %s", fit);
	a = rbmon_tty_attr(RBMON_A_TITLE_FOCUS);
	snprintf(line, sizeof line, " %7s %-16s %-6s %7s %7s  %s", "PID",
	    "PROGRAM", "STATE", "THREADS", "AGE", "FILE");
	attrset(a);
	mvhline(3, 0, ' ', cols);
	rbmon_fit(fit, sizeof fit, line, (size_t)cols);
	mvaddstr(3, 0, fit);
	h = LINES > 7 ? (size_t)LINES - 7 : 1;
	if (sel < *top)
		*top = sel;
	if (sel >= *top + h)
		*top = sel - h + 1;
	if (l->n == 0) {
		attrset(rbmon_tty_attr(RBMON_A_EXITED));
		mvaddstr(4, 1, "no trace files yet (this list refreshes every "
		    "second; start a program with rbtrace)");
	}
	for (i = *top, y = 4; i < l->n && y < 4 + (int)h; i++, y++) {
		f = &l->v[i];
		if (f->reason != NULL) {
			snprintf(line, sizeof line, " %7s %-16s %-6s %7s %7s  "
			    "%s (%s)", "-", "-", "bad", "-", "-", f->path,
			    f->reason);
			a = rbmon_tty_attr(RBMON_A_ERROR);
		} else {
			rbmon_age_format(age, sizeof age, now > f->created_ns ?
			    now - f->created_ns : 0);
			snprintf(line, sizeof line, " %7d %-16.16s %-6s %7u "
			    "%7s  %s", f->creator_pid, f->program, f->alive ?
			    "alive" : "gone", f->threads, age, f->path);
			a = f->alive ? A_NORMAL : rbmon_tty_attr(
			    RBMON_A_EXITED);
		}
		if (i == sel)
			a = rbmon_tty_attr(RBMON_A_SELECT);
		attrset(a);
		mvhline(y, 0, ' ', cols);
		rbmon_fit(fit, sizeof fit, line, (size_t)cols);
		mvaddstr(y, 0, fit);
	}
	attrset(msg_error ? rbmon_tty_attr(RBMON_A_ERROR) : A_NORMAL);
	if (msg != NULL) {
		rbmon_fit(fit, sizeof fit, msg, (size_t)cols);
		mvaddstr(LINES - 2, 0, fit);
	}
	attrset(rbmon_tty_attr(RBMON_A_BAR));
	mvhline(LINES - 1, 0, ' ', cols);
	n = rbmon_keytab_bar(RBMON_KM_PICK, cols, NULL, NULL, it, 8);
	move(LINES - 1, 0);
	for (i = 0; i < n; i++) {
		attrset(rbmon_tty_attr(RBMON_A_KEY));
		addstr(it[i].key);
		attrset(rbmon_tty_attr(RBMON_A_BAR));
		addstr(it[i].label);
		if (i + 1 < n)
			addstr(" ");
	}
	attrset(A_NORMAL);
	refresh();
}

/**
 * rbmon_pick_run - let the user pick one of their trace files
 * @o: options (colour, ASCII)
 * @error: why the file picked last could not be opened, or NULL
 * @last: that file, selected again at first, or NULL
 * @path: set to the malloc'd path picked
 *
 * Return: 0 with *@path set, 1 if the user quit, -1 if the terminal could
 * not be used (a message was printed).
 */
int
rbmon_pick_run(const struct rbmon_tui_opts *o, const char *error,
    const char *last, char **path)
{
	struct rbmon_found_list	 l;
	const char		*msg = error;
	char			*cause = NULL;
	uint64_t		 next = 0;
	size_t			 sel = 0, top = 0;
	int			 key, status = 1, msg_error = error != NULL;

	*path = NULL;
	if (rbmon_tty_start(o->color, o->ascii, &cause) != 0) {
		fprintf(stderr, "rbmon: %s\n", cause);
		free(cause);
		return -1;
	}
	memset(&l, 0, sizeof l);
	while (!rbmon_tty_quit) {
		if (rbmon_mono_ns() >= next) {
			rbmon_discover_free(&l);
			rbmon_discover_scan(&l, 0);
			next = rbmon_mono_ns() + PICK_RESCAN_NS;
			for (size_t i = 0; last != NULL && i < l.n; i++) {
				if (strcmp(l.v[i].path, last) == 0)
					sel = i;
			}
			last = NULL;
			if (l.n > 0 && sel >= l.n)
				sel = l.n - 1;
		}
		pick_draw(&l, sel, &top, msg, msg_error);
		if ((key = rbmon_tty_getkey(100)) < 0)
			continue;
		switch (rbmon_keytab_action(RBMON_KM_PICK, key)) {
		case RBMON_ACT_PICK_UP:
			if (sel > 0)
				sel--;
			continue;
		case RBMON_ACT_PICK_DOWN:
			if (sel + 1 < l.n)
				sel++;
			continue;
		case RBMON_ACT_PICK_HOME:
			sel = 0;
			continue;
		case RBMON_ACT_PICK_END:
			if (l.n > 0)
				sel = l.n - 1;
			continue;
		case RBMON_ACT_PICK_RESCAN:
			next = 0;
			continue;
		case RBMON_ACT_PICK_QUIT:
			break;
		case RBMON_ACT_PICK_OPEN:
			goto open;
		default:
			if (key == RBMON_KEY_RESIZE)
				clear();
			continue;
		}
		break;
open:
		if (l.n == 0)
			continue;
		*path = rbmon_xstrdup(l.v[sel].path);
		status = 0;
		break;
	}
	rbmon_discover_free(&l);
	if (status != 0)
		rbmon_tty_end();
	return status;
}
