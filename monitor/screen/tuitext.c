/* SPDX-License-Identifier: MIT */
/*
 * rbmon tuitext: screens of text over the monitor: the help (tuihelp.c
 * fills it), the source around a frame's line (v), a watch's whole value
 * (V); and S, which saves the selected process's stacks to a file.  Up/Down, PgUp/PgDn, Home/End
 * scroll a text screen; any other key goes back.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/outfile.h"
#include "common/strl.h"

#include "monitor/core/dump.h"
#include "monitor/screen/keytab.h"
#include "monitor/screen/tuidraw.h"
#include "monitor/core/safeio.h"
#include "monitor/screen/tty.h"
#include "monitor/screen/tuimodes.h"
#include "monitor/screen/tuiwatch.h"
#include "monitor/util/alloc.h"
#include "monitor/util/cxxname.h"

#define TEXT_MAX_BYTES	(8u << 20)	/* of a source file, read at most */
#define TEXT_TAB	8

struct rbmon_text {
	enum rbmon_kmode	 km;
	int			 plain;		/* no title, no bar: all text */
	char			 title[512];
	char			 note[256];	/* under the text, or "" */
	char			**line;
	char			*bold;		/* per line */
	size_t			 n;
	long			 mark;		/* the line marked, or -1 */
	int			 numbers;	/* numbered from 1 */
	long			 top;
};

static void
text_add(struct rbmon_text *ts, const char *s, size_t len)
{
	char	*l;
	size_t	 i, k = 0, cap = len + 1;

	/* Tabs to spaces: a tab would show escaped. */
	for (i = 0; i < len; i++)
		if (s[i] == '\t')
			cap += TEXT_TAB - 1;
	l = rbmon_xcalloc(1, cap);
	for (i = 0; i < len; i++) {
		if (s[i] == '\t') {
			do
				l[k++] = ' ';
			while (k % TEXT_TAB != 0 && k < cap - 1);
		} else
			l[k++] = s[i];
	}
	ts->line = rbmon_xreallocarray(ts->line, ts->n + 1, sizeof *ts->line);
	ts->bold = rbmon_xreallocarray(ts->bold, ts->n + 1, 1);
	ts->bold[ts->n] = 0;
	ts->line[ts->n++] = l;
}

/* @len bytes of @buf as lines (a last line without its newline too). */
static void
text_split(struct rbmon_text *ts, const char *buf, size_t len)
{
	const char	*p = buf, *end = buf + len, *nl;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		text_add(ts, p, (size_t)(nl - p));
		p = nl + 1;
	}
}

static void
text_free(void *arg)
{
	struct rbmon_text	*ts = arg;
	size_t			 i;

	for (i = 0; i < ts->n; i++)
		free(ts->line[i]);
	free(ts->line);
	free(ts->bold);
	free(ts);
}

/* Rows of text: all of them on a plain screen, else under the title and
 * over the note and the bar. */
static int
text_rows_of(const struct rbmon_text *ts)
{
	if (ts->plain)
		return LINES > 1 ? LINES : 1;
	return LINES > 3 ? LINES - 3 : 1;
}

/**
 * rbmon_text_scroll - a scrolling action on a screen of @n lines whose
 * first line shown is *@top, @rows of them
 *
 * Return: -1 if it moved towards the start, 1 towards the end, 0 if @a
 * does not scroll.  *@top is not clamped.
 */
int
rbmon_text_scroll(enum rbmon_action a, long *top, long rows, long n)
{
	long	page = rows > 1 ? rows - 1 : 1;

	switch (a) {
	case RBMON_ACT_TEXT_UP:
		(*top)--;
		return -1;
	case RBMON_ACT_TEXT_DOWN:
		(*top)++;
		return 1;
	case RBMON_ACT_TEXT_PGUP:
		*top -= page;
		return -1;
	case RBMON_ACT_TEXT_PGDN:
		*top += page;
		return 1;
	case RBMON_ACT_TEXT_HOME:
		*top = 0;
		return -1;
	case RBMON_ACT_TEXT_END:
		*top = n;
		return 1;
	default:
		return 0;
	}
}

static int
text_key(struct rbmon_tui *t, void *arg, int key)
{
	struct rbmon_text	*ts = arg;
	long			 last;

	if (rbmon_text_scroll(rbmon_keytab_action(ts->km, key), &ts->top,
	    text_rows_of(ts), (long)ts->n) == 0) {
		if (key == RBMON_KEY_MOUSE)
			return 0;
		rbmon_tui_pop(t);
		clear();
		rbmon_tui_relayout(t);
		return RBMON_REDRAW;
	}
	/* A plain screen (help) scrolls to its last line, another stays full. */
	last = ts->plain ? (long)ts->n - 1 : (long)ts->n - text_rows_of(ts);
	if (ts->top > last)
		ts->top = last;
	if (ts->top < 0)
		ts->top = 0;
	return RBMON_REDRAW;
}

static void
text_draw(struct rbmon_tui *t, void *arg)
{
	struct rbmon_text	*ts = arg;
	char			 buf[1024], num[16];
	attr_t			 a;
	long			 k;
	int			 y, y0 = ts->plain ? 0 : 1, rows = text_rows_of(ts);
	int			 w = 0;

	(void)t;
	erase();
	if (!ts->plain) {
		a = rbmon_tty_attr(RBMON_A_TITLE_FOCUS);
		rbmon_draw_fill(0, 0, COLS, a);
		rbmon_draw_text(0, 1, COLS - 1, a, ts->title);
	}
	if (ts->numbers)
		w = snprintf(num, sizeof num, "%zu", ts->n) + 3;
	for (y = y0, k = ts->top; y < y0 + rows && k < (long)ts->n; y++, k++) {
		a = k == ts->mark ? rbmon_tty_attr(RBMON_A_SELECT) :
		    ts->bold[k] ? A_BOLD : A_NORMAL;
		if (k == ts->mark)
			rbmon_draw_fill(y, 0, COLS, a);
		if (ts->numbers) {
			snprintf(buf, sizeof buf, "%c%*ld ", k == ts->mark ? '>' :
			    ' ', w - 2, k + 1);
			rbmon_draw_text(y, 0, COLS, k == ts->mark ? a :
			    rbmon_tty_attr(RBMON_A_LABEL), buf);
		}
		rbmon_draw_text(y, w, COLS - w, a, ts->line[k]);
	}
	if (!ts->plain) {
		if (ts->note[0] != '\0')
			rbmon_draw_text(LINES - 2, 0, COLS,
			    rbmon_tty_attr(RBMON_A_EXITED), ts->note);
		rbmon_draw_keybar(LINES - 1, ts->km, "other keys: back");
	}
	curs_set(0);
}

static const struct rbmon_mode_ops text_ops = {
	.name = "text",
	.key = text_key,
	.draw = text_draw,
	.free = text_free,
};

/**
 * rbmon_text_new - a text screen to fill with rbmon_text_add()
 * @km: whose keys scroll it (RBMON_KM_HELP, RBMON_KM_SOURCE, ...)
 * @plain: no title and no key bar, every row for the text (the help)
 */
struct rbmon_text *
rbmon_text_new(enum rbmon_kmode km, int plain)
{
	struct rbmon_text	*ts = rbmon_xcalloc(1, sizeof *ts);

	ts->km = km;
	ts->plain = plain;
	ts->mark = -1;
	return ts;
}

/* One line of @ts, in bold if @bold. */
void
rbmon_text_add(struct rbmon_text *ts, const char *s, int bold)
{
	text_add(ts, s, strlen(s));
	ts->bold[ts->n - 1] = (char)(bold != 0);
}

/* Show @ts, which the screen owns from now on. */
void
rbmon_text_show(struct rbmon_tui *t, struct rbmon_text *ts)
{
	if (rbmon_tui_push(t, &text_ops, ts) != 0)
		text_free(ts);
}

/* Read at most TEXT_MAX_BYTES of @fd into lines; -1 with errno. */
static int
text_read(struct rbmon_text *ts, int fd, int *cut)
{
	char	*buf;
	size_t	 len = 0, cap = 65536;
	ssize_t	 r;

	*cut = 0;
	buf = rbmon_xcalloc(1, cap);
	for (;;) {
		if (len == cap) {
			if (cap >= TEXT_MAX_BYTES) {
				*cut = 1;
				break;
			}
			cap *= 2;
			buf = rbmon_xreallocarray(buf, cap, 1);
		}
		r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return -1;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	text_split(ts, buf, len);
	free(buf);
	return 0;
}

/**
 * rbmon_source_open - v: the source around the selected frame's line
 *
 * The frame under the stack pane's cursor, or the innermost one when the
 * stack pane does not have the focus.  When the file cannot be shown the
 * message line says why, and nothing opens.
 */
void
rbmon_source_open(struct rbmon_tui *t)
{
	const struct rbmon_process	*p = NULL;
	const struct rbmon_thread	*th;
	const struct rbmon_frame	*fr;
	struct rbmon_text		*ts;
	struct rbmon_shown		 sh;
	struct rbmon_srow		 r;
	const char			*why = NULL;
	char				*path, *real;
	size_t				 row;
	int				 fd, cut;

	if ((th = rbmon_tui_selected(t, &p)) == NULL) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "select a thread first");
		return;
	}
	row = t->focus == RBMON_PANE_STACK ? t->v.stack_sel :
	    rbmon_view_stack_row(&t->v, th, 0);
	if (!rbmon_view_stack_at(&t->v, th, row, &r)) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "thread %d has no frames "
		    "to show the source of", th->tid);
		return;
	}
	if (r.kind == RBMON_SROW_GAP || r.kind == RBMON_SROW_BLOCKED) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "%s", r.kind ==
		    RBMON_SROW_GAP ? "the overwritten frames left nothing to "
		    "show" : "a system call has no source: v shows a frame's");
		return;
	}
	fr = &th->frames[r.frame];
	rbmon_dump_resolve(t->sy, &t->s, p, th, r.frame, &t->c, &sh);
	if (sh.file == NULL || sh.line <= 0) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "frame #%zu (%s) has no "
		    "source line in its debug information",
		    rbmon_frame_number(th, r.frame),
		    sh.function != NULL ? sh.function : "?");
		return;
	}
	path = rbmon_symbols_source(t->sy, &t->s, p, fr->fn != 0 ? fr->fn :
	    fr->site, sh.file);
	if (path == NULL) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "no source for %s:%d: the "
		    "debug information does not say where %s is", sh.file,
		    sh.line, sh.file);
		return;
	}
	if ((fd = rbmon_safeio_open(path, &why)) < 0) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "no source for %s:%d: %s: "
		    "%s", sh.file, sh.line, path, why);
		free(path);
		return;
	}
	ts = rbmon_text_new(RBMON_KM_SOURCE, 0);
	ts->numbers = 1;
	if (text_read(ts, fd, &cut) != 0) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "no source for %s:%d: %s: "
		    "%s", sh.file, sh.line, path, strerror(errno));
		close(fd);
		free(path);
		text_free(ts);
		return;
	}
	close(fd);
	/* The file read, as a plain path ("src/../x.c" from DWARF: "x.c"). */
	if ((real = realpath(path, NULL)) != NULL) {
		free(path);
		path = real;
	}
	snprintf(ts->title, sizeof ts->title, "%s:%d  (#%zu %s)", path,
	    sh.line, rbmon_frame_number(th, r.frame), sh.function != NULL ?
	    sh.function : "?");
	ts->mark = sh.line - 1;
	if (ts->mark >= (long)ts->n) {
		snprintf(ts->note, sizeof ts->note, "line %d is past the end of "
		    "the file (%zu lines): it changed since the program was "
		    "built?", sh.line, ts->n);
		ts->mark = -1;
	} else if (cut)
		snprintf(ts->note, sizeof ts->note, "only the first %u MiB of "
		    "the file are shown", TEXT_MAX_BYTES >> 20);
	ts->top = ts->mark - text_rows_of(ts) / 2;
	if (ts->top > (long)ts->n - text_rows_of(ts))
		ts->top = (long)ts->n - text_rows_of(ts);
	if (ts->top < 0)
		ts->top = 0;
	free(path);
	if (rbmon_tui_push(t, &text_ops, ts) != 0)
		text_free(ts);
}

/**
 * rbmon_value_open - V: the whole value of the watch under the watch
 * pane's cursor, wrapped to the screen's width
 */
void
rbmon_value_open(struct rbmon_tui *t)
{
	const struct rbmon_process	*p = NULL;
	const struct rbmon_thread	*th;
	struct rbmon_tui_wrow		 r;
	struct rbmon_text		*ts;
	const char			*s, *nl;
	size_t				 w, len;
	int				 e;

	if ((th = rbmon_tui_selected(t, &p)) == NULL ||
	    (e = rbmon_tuiwatch_selected(t, th)) < 0 ||
	    !rbmon_tuiwatch_row(t, p, th, e, &r)) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "no watch to show (w adds "
		    "one)");
		return;
	}
	if (r.text == NULL) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "watch %d has no value "
		    "yet", e);
		return;
	}
	ts = rbmon_text_new(RBMON_KM_VALUE, 0);
	snprintf(ts->title, sizeof ts->title, "Watch %d of thread %d: %s%s", e,
	    th->tid, r.expr, r.kind == RBMON_WROW_ERROR ? " (error)" : "");
	/* Wrapped by bytes: what is drawn is escaped to ASCII, a byte a column. */
	w = COLS > 2 ? (size_t)COLS - 1 : 1;
	for (s = r.text; *s != '\0'; s = *nl ? nl + 1 : nl) {
		nl = strchr(s, '\n');
		if (nl == NULL)
			nl = s + strlen(s);
		len = (size_t)(nl - s);
		do {
			text_add(ts, s, len < w ? len : w);
			s += len < w ? len : w;
			len -= len < w ? len : w;
		} while (len > 0);
	}
	if (r.truncated)
		snprintf(ts->note, sizeof ts->note, "the thread's answer was cut "
		    "at %zu bytes", strlen(r.text));
	if (rbmon_tui_push(t, &text_ops, ts) != 0)
		text_free(ts);
}

/**
 * rbmon_name_open - i: the selected frame's function by its full name, as
 * the demangler gives it (gdb's integers), with where it is
 */
void
rbmon_name_open(struct rbmon_tui *t)
{
	const struct rbmon_process	*p = NULL;
	const struct rbmon_thread	*th;
	struct rbmon_text		*ts;
	struct rbmon_shown		 sh;
	struct rbmon_srow		 r;
	char				*full, *s, loc[64];
	size_t				 row, w, len;

	if ((th = rbmon_tui_selected(t, &p)) == NULL) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "select a thread first");
		return;
	}
	row = t->focus == RBMON_PANE_STACK ? t->v.stack_sel :
	    rbmon_view_stack_row(&t->v, th, 0);
	if (!rbmon_view_stack_at(&t->v, th, row, &r) ||
	    r.kind == RBMON_SROW_GAP || r.kind == RBMON_SROW_BLOCKED) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "no frame selected to "
		    "name");
		return;
	}
	rbmon_dump_resolve(t->sy, &t->s, p, th, r.frame, &t->c, &sh);
	if (sh.torn || sh.function == NULL) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "frame #%zu has no "
		    "name: %s", rbmon_frame_number(th, r.frame), sh.torn ?
		    "it kept changing while read" : "no symbol for its address");
		return;
	}
	ts = rbmon_text_new(RBMON_KM_VALUE, 0);
	snprintf(ts->title, sizeof ts->title, "Frame #%zu of thread %d%s",
	    rbmon_frame_number(th, r.frame), th->tid, sh.inlined ?
	    " [inlined]" : "");
	/* Wrapped by bytes: what is drawn is escaped to ASCII, a byte a column. */
	w = COLS > 2 ? (size_t)COLS - 1 : 1;
	full = rbmon_cxxname_gdb(sh.function);
	for (s = full, len = strlen(s); len > 0; s += len < w ? len : w,
	    len -= len < w ? len : w)
		text_add(ts, s, len < w ? len : w);
	free(full);
	if (sh.file != NULL) {
		text_add(ts, "", 0);
		snprintf(loc, sizeof loc, ":%d", sh.line);
		rbmon_xasprintf(&full, "%s%s", sh.file, sh.line > 0 ? loc : "");
		text_add(ts, full, strlen(full));
		free(full);
	}
	if (rbmon_tui_push(t, &text_ops, ts) != 0)
		text_free(ts);
}

/**
 * rbmon_save_stacks - S: the selected process's stacks as --dump text in
 * rbmon-PROGRAM-PID-DATE.txt, in the current directory (else TMPDIR)
 */
void
rbmon_save_stacks(struct rbmon_tui *t)
{
	const struct rbmon_process	*p = NULL;
	struct rbmon_snapshot		 one;
	char				 name[512], stamp[32], prog[64];
	const char			*dirs[2], *tmp = getenv("TMPDIR");
	struct tm			 tm;
	time_t				 now = time(NULL);
	struct rb_outfile		 of;
	FILE				*fp = NULL;
	size_t				 i, k;
	int				 fd = -1, err = 0;

	if (rbmon_tui_selected(t, &p) == NULL) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "select a thread first");
		return;
	}
	localtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
	/* The program's name in a file name: letters, digits, - _ . only. */
	rbmon_fit(prog, sizeof prog, rbmon_model_program(t->m, &t->s,
	    p->image), 40);
	for (i = 0; prog[i] != '\0'; i++)
		if (!((prog[i] >= 'a' && prog[i] <= 'z') ||
		    (prog[i] >= 'A' && prog[i] <= 'Z') ||
		    (prog[i] >= '0' && prog[i] <= '9') || prog[i] == '-' ||
		    prog[i] == '_' || (prog[i] == '.' && i > 0)))
			prog[i] = '_';
	dirs[0] = ".";
	dirs[1] = tmp != NULL && tmp[0] == '/' ? tmp : "/tmp";
	/* A name of its own: whatever is at one already, the next. */
	for (i = 0; i < 2 && fd < 0; i++) {
		for (k = 0; k < 10 && fd < 0; k++) {
			snprintf(name, sizeof name, "%s/rbmon-%s-%d-%s%s%.0zu.txt",
			    dirs[i], prog, p->pid, stamp, k ? "-" : "", k);
			if (rb_outfile_open(&of, name, RB_OUTFILE_NOW,
			    0644) == 0)
				fd = of.fd;
			else if (!of.taken)
				break;
		}
	}
	if (fd < 0 || (fp = fdopen(fd, "w")) == NULL) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "cannot save the stacks: "
		    "%s: %s", name, fd < 0 ? of.why : strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	/* A snapshot of that process alone, sharing the real one's data. */
	one = t->s;
	one.procs = (struct rbmon_process *)p;
	one.nprocs = 1;
	rbmon_dump_text(fp, t->m, &one, t->sy, &t->c);
	if (fflush(fp) != 0 || ferror(fp)) {
		err = errno;
		fclose(fp);
		rbmon_tui_message(t, RBMON_MSG_ERROR, "cannot save the stacks: "
		    "%s: %s", name, strerror(err));
		return;
	}
	fclose(fp);
	rbmon_tui_message(t, RBMON_MSG_INFO, "stacks of process %d saved in "
	    "%s", p->pid, name);
}
