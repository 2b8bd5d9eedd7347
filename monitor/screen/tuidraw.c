/* SPDX-License-Identifier: MIT */
/* rbmon tuidraw: draws the main screen (header, thread list, stack, watches,
 * message line, function bar) from the tui state; never reads the file. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "monitor/core/dump.h"
#include "monitor/core/dyn.h"
#include "monitor/history/events.h"
#include "monitor/util/cxxname.h"
#include "monitor/util/escape.h"
#include "monitor/screen/keytab.h"
#include "monitor/screen/tuidraw.h"
#include "monitor/screen/tty.h"
#include "monitor/screen/tuiwatch.h"

#define DRAW_LINE	1024	/* widest line drawn */

/* Text at (y, x), safe for the terminal, cut to width; returns columns. */
int
rbmon_draw_text(int y, int x, int width, attr_t a, const char *s)
{
	char	buf[DRAW_LINE];
	size_t	n;

	if (width <= 0)
		return 0;
	n = rbmon_fit(buf, sizeof buf, s, (size_t)width);
	attrset(a);
	mvaddnstr(y, x, buf, (int)n);
	return (int)n;
}

/*
 * A function's name at (y, x) in width columns, shortened to fit
 * (cxxname.c), then @marks (" [inlined]") whole; returns columns.  The
 * name is escaped to ASCII first, so only our ellipsis is beyond it.
 */
int
rbmon_draw_name(int y, int x, int width, attr_t a, const char *name,
    const char *marks)
{
	char	esc[DRAW_LINE * 4], buf[DRAW_LINE * 4], c[RBMON_ESC_MAX];
	size_t	n = 0, k, len, cols;

	if (width <= 0)
		return 0;
	while ((len = rbmon_esc_next(name, RBMON_ESC_ASCII, c)) != 0) {
		k = strlen(c);
		if (n + k >= sizeof esc)
			break;
		memcpy(esc + n, c, k);
		n += k;
		name += len;
	}
	esc[n] = '\0';
	cols = rbmon_cxxname_fit(buf, sizeof buf, esc, marks, (size_t)width,
	    rbmon_tty_glyph(RBMON_G_ELLIPSIS));
	attrset(a);
	mvaddstr(y, x, buf);
	return (int)cols;
}

/* Fill the rest of row y from x with blanks in attribute a. */
void
rbmon_draw_fill(int y, int x, int cols, attr_t a)
{
	attrset(a);
	for (; x < cols; x++)
		mvaddch(y, x, ' ');
}

static const char *
draw_program(const struct rbmon_tui *t)
{
	size_t	i;

	for (i = 0; i < t->s.nprocs; i++) {
		if (t->s.procs[i].creator)
			return rbmon_model_program(t->m, &t->s,
			    t->s.procs[i].image);
	}
	return t->m->hdr.program;
}

static attr_t
draw_state_attr(enum rbmon_tstate st)
{
	switch (st) {
	case RBMON_TS_RUNNING:
		return rbmon_tty_attr(RBMON_A_RUNNING);
	case RBMON_TS_UNTRACED:
		return rbmon_tty_attr(RBMON_A_UNTRACED);
	case RBMON_TS_STOPPED:
		return rbmon_tty_attr(RBMON_A_STOPPED);
	case RBMON_TS_EXITED:
	case RBMON_TS_DETACHED:
		return rbmon_tty_attr(RBMON_A_EXITED);
	case RBMON_TS_GONE:
		return rbmon_tty_attr(RBMON_A_GONE);
	}
	return A_NORMAL;
}

/* "label value" pairs along a header row. */
static int
draw_kv(int y, int x, int cols, const char *label, const char *value)
{
	if (x >= cols)
		return x;
	x += rbmon_draw_text(y, x, cols - x, rbmon_tty_attr(RBMON_A_LABEL), label);
	if (x < cols)
		x += rbmon_draw_text(y, x, cols - x, A_NORMAL, " ");
	x += rbmon_draw_text(y, x, cols - x, A_BOLD, value);
	if (x < cols)
		x += rbmon_draw_text(y, x, cols - x, A_NORMAL, "  ");
	return x;
}

static const char *
draw_onoff(int32_t v)
{
	return v ? "on" : "off";
}

static void	draw_fit_dots(char *, size_t, const char *, int);

/* The header's name of the file's clock. */
static const char *
draw_clock(uint32_t clock)
{
	return clock == RB_CLOCK_MONO ? "monotonic" :
	    rb_clock_name(clock) != NULL ? rb_clock_name(clock) : "?";
}

/* "events ring 4096" and the records dropped in every thread, if any. */
static void
draw_events(struct rbmon_tui *t, char *buf, size_t len)
{
	const struct rb_header	*h = &t->m->hdr;
	uint64_t		 dropped = 0;
	size_t			 i, j;

	if (h->events == 0) {
		snprintf(buf, len, "events off");
		return;
	}
	for (i = 0; i < t->s.nprocs; i++)
		for (j = 0; j < t->s.procs[i].nthreads; j++)
			dropped += t->s.procs[i].threads[j].ev_dropped;
	if (dropped != 0)
		snprintf(buf, len, "events %s %u [%" PRIu64 " dropped]",
		    rb_policy_name(h->ev_policy), h->events, dropped);
	else
		snprintf(buf, len, "events %s %u",
		    rb_policy_name(h->ev_policy), h->events);
}

static void
draw_header(struct rbmon_tui *t)
{
	const struct rb_header	*h = &t->m->hdr;
	struct rbmon_counts	 c;
	char			 buf[DRAW_LINE], d[32], status[224], evs[64];
	char			 view[64], filter[40], cpu[48];
	const struct rbmon_process *p = NULL;
	int			 cols = t->lay.cols, x, w;

	rbmon_view_count(&t->s, &c);
	rbmon_delay_format(d, sizeof d, t->o.delay);
	/* What the list leaves out or reorders, always in sight. */
	view[0] = '\0';
	if (t->v.filter[0] != '\0') {
		draw_fit_dots(filter, sizeof filter, t->v.filter, 20);
		snprintf(view, sizeof view, "[filter: %s] ", filter);
	}
	if (t->v.sort != RBMON_SORT_TID)
		snprintf(view + strlen(view), sizeof view - strlen(view),
		    "[sort: %s] ", rbmon_sort_name(t->v.sort));
	/* The selected thread's process: its CPU share, all its threads. */
	cpu[0] = '\0';
	if (rbmon_tui_selected(t, &p) != NULL && p->alive && p->cpu >= 0)
		snprintf(cpu, sizeof cpu, "PID %d CPU %.1f%%  ", p->pid,
		    p->cpu > 9999 ? 9999 : p->cpu);
	draw_events(t, evs, sizeof evs);
	snprintf(status, sizeof status, "%s%s  %s%s%s%srefresh %s  clock %s",
	    cpu, evs, t->read_error != NULL ? "[read error] " : "",
	    t->all_gone ? "[program gone] " : "",
	    t->frozen ? "[frozen] " : "", view, d, draw_clock(h->clock));

	move(0, 0);
	clrtoeol();
	x = rbmon_draw_text(0, 0, cols, A_BOLD, draw_program(t));
	x += rbmon_draw_text(0, x, cols - x, A_NORMAL, "  ");
	w = cols - x - (int)strlen(status) - 2;
	if (w < 10) {
		/* Narrower: the event log's summary goes first. */
		snprintf(status, sizeof status, "%s%s%s%s%srefresh %s  clock %s",
		    cpu, t->read_error != NULL ? "[read error] " : "",
		    t->all_gone ? "[program gone] " : "",
		    t->frozen ? "[frozen] " : "", view, d,
		    draw_clock(h->clock));
		w = cols - x - (int)strlen(status) - 2;
	}
	if (w < 10) {
		/* Narrow: keep the flags, drop the interval and the clock. */
		snprintf(status, sizeof status, "%s%s%s%s",
		    t->read_error != NULL ? "[read error]" : "",
		    t->all_gone ? "[program gone]" : "",
		    t->frozen ? "[frozen]" : "", view);
		w = cols - x - (int)strlen(status) - 2;
		if (w < 10)
			w = cols - x - (int)strlen(status) - 1;
	}
	if (w < 0)
		w = 0;
	x += rbmon_draw_text(0, x, w, A_NORMAL, t->m->path);
	if (x + (int)strlen(status) + 1 <= cols)
		rbmon_draw_text(0, cols - (int)strlen(status), (int)strlen(status),
		    t->all_gone || t->frozen || t->read_error != NULL ||
		    view[0] != '\0' ?
		    rbmon_tty_attr(RBMON_A_ERROR) : A_NORMAL, status);
	if (t->lay.header_h < 3)
		return;

	move(1, 0);
	clrtoeol();
	snprintf(buf, sizeof buf, "%u alive, %u exited, %u gone",
	    c.procs_alive, c.procs_exited, c.procs_gone);
	x = draw_kv(1, 0, cols, "Processes", buf);
	snprintf(buf, sizeof buf, "%u alive, %u exited, %u gone",
	    c.threads_alive, c.threads_exited, c.threads_gone);
	x = draw_kv(1, x, cols, "Threads", buf);
	if (c.stopped != 0) {
		snprintf(buf, sizeof buf, "%u", c.stopped);
		draw_kv(1, x, cols, "Stopped", buf);
	}

	move(2, 0);
	clrtoeol();
	snprintf(buf, sizeof buf, "%u/%u", t->s.rings_used, t->s.rings_total);
	x = draw_kv(2, 0, cols, "Rings", buf);
	snprintf(buf, sizeof buf, "%" PRIu64, t->s.untraced);
	x = draw_kv(2, x, cols, "Untraced", buf);
	x = draw_kv(2, x, cols, "single", draw_onoff(t->s.single));
	x = draw_kv(2, x, cols, "stop-on-create",
	    draw_onoff(t->s.stop_on_create));
	draw_kv(2, x, cols, "trace-on-create",
	    draw_onoff(t->s.trace_on_create));
}

/* Thread list columns: tree, TID, NAME, STATE, DEPTH, TIME, FUNCTION. */
#define COL_TREE	3
#define COL_NAME	15
#define DRAW_FN_MAX	48	/* a function named in a title */

struct draw_cols {
	int	tid, name, state, ks, cpu, depth, time;
};

/*
 * Narrow terminals get narrower columns, then lose CPU% and TIME, before
 * FUNCTION.
 */
static void
draw_cols(int cols, struct draw_cols *c)
{
	c->tid = 7;
	c->depth = 5;
	c->time = 7;
	c->name = COL_NAME;
	c->state = 16;
	c->ks = 1;
	c->cpu = 5;
	if (cols < 80) {
		c->name = 10;
		c->state = 9;
	}
	if (cols < 72)
		c->cpu = 0;
	if (cols < 64)
		c->time = 0;
}

static void
draw_list_title(struct rbmon_tui *t)
{
	struct draw_cols	c;
	char			buf[DRAW_LINE];
	attr_t			a;

	a = rbmon_tty_attr(t->focus == RBMON_PANE_THREADS ?
	    RBMON_A_TITLE_FOCUS : RBMON_A_TITLE);
	draw_cols(t->lay.cols, &c);
	snprintf(buf, sizeof buf, "%*s%*s %-*s %-*s %s %*s%s%*s %*s%s%s",
	    COL_TREE, "", c.tid, "TID", c.name, "NAME", c.state, "STATE", "S",
	    c.cpu, c.cpu != 0 ? "CPU%" : "", c.cpu != 0 ? " " : "", c.depth,
	    "DEPTH", c.time, c.time == 0 ? "" : t->c.kind == RB_CLOCK_NONE ?
	    "SEEN" : "TIME", c.time != 0 ? " " : "", "FUNCTION");
	rbmon_draw_fill(t->lay.list_y, 0, t->lay.cols, a);
	rbmon_draw_text(t->lay.list_y, 0, t->lay.cols, a, buf);
}

/*
 * A row's place in the process tree: a column of COL_TREE cells per level
 * above it, its own branch last.  The glyphs are ours, not file data:
 * drawn as they are (UTF-8 or ASCII).  Returns where the row's text goes.
 */
static int
draw_tree(int y, int cols, const struct rbmon_row *r, attr_t a)
{
	enum rbmon_glyph	g;
	int			k, n = rbmon_view_tree_cols(r);

	attrset(a);
	for (k = 0; k < n && (k + 1) * COL_TREE <= cols; k++) {
		switch (rbmon_view_tree_at(r, k)) {
		case RBMON_TREE_BAR:
			g = RBMON_G_TREE_BAR;
			break;
		case RBMON_TREE_MID:
			g = RBMON_G_TREE_MID;
			break;
		case RBMON_TREE_END:
			g = RBMON_G_TREE_END;
			break;
		default:
			continue;
		}
		mvaddstr(y, k * COL_TREE, rbmon_tty_glyph(g));
	}
	return n * COL_TREE;
}

static void
draw_process_row(struct rbmon_tui *t, int y, const struct rbmon_row *r)
{
	const struct rbmon_process	*p = &t->s.procs[r->proc];
	char				 buf[DRAW_LINE], prog[64];
	const char			*what;
	size_t				 j;
	unsigned			 live = 0;
	attr_t				 a;
	int				 x;

	for (j = 0; j < p->nthreads; j++)
		switch (rbmon_thread_state(p, &p->threads[j])) {
		case RBMON_TS_EXITED:
		case RBMON_TS_DETACHED:
			break;
		default:
			live++;
		}
	if (p->alive)
		what = "alive";
	else if (rbmon_process_exited(p))
		what = "exited";
	else
		what = "gone";
	rbmon_fit(prog, sizeof prog, rbmon_model_program(t->m, &t->s,
	    p->image), 40);
	snprintf(buf, sizeof buf, "PID %d %s: %s, %zu thread%s", p->pid,
	    prog, what, p->nthreads, p->nthreads == 1 ? "" : "s");
	if (!p->creator && p->ppid > 0)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
		    " (child of %d)", p->ppid);
	else if (!p->creator)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
		    " (child)");
	if (p->alive && live != p->nthreads)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
		    ", %zu exited", p->nthreads - live);
	a = p->alive ? rbmon_tty_attr(RBMON_A_PROCESS) :
	    rbmon_tty_attr(RBMON_A_GONE);
	rbmon_draw_fill(y, 0, t->lay.cols, A_NORMAL);
	x = draw_tree(y, t->lay.cols, r, rbmon_tty_attr(RBMON_A_PROCESS));
	rbmon_draw_text(y, x, t->lay.cols - x, a, buf);
}

static void
draw_thread_row(struct rbmon_tui *t, int y, const struct rbmon_row *r,
    int selected)
{
	const struct rbmon_process	*p = &t->s.procs[r->proc];
	const struct rbmon_thread	*th = &p->threads[r->thread];
	struct rbmon_shown		 sh;
	struct draw_cols		 c;
	enum rbmon_tstate		 st = rbmon_thread_state(p, th);
	char				 name[COL_NAME + 1], state[64];
	char				 age[32], fn[DRAW_LINE];
	char				 buf[DRAW_LINE], cpu[16];
	attr_t				 a;
	int				 x, cols = t->lay.cols, isname = 0;

	rbmon_fit(name, sizeof name, th->name, COL_NAME);
	rbmon_state_text(state, sizeof state, p, th);
	age[0] = '\0';
	fn[0] = '\0';
	if (th->nframes > 0) {
		rbmon_dump_resolve(t->sy, &t->s, p, th, 0, &t->c, &sh);
		if (sh.torn)
			snprintf(fn, sizeof fn, "<torn frame>");
		else if (sh.function != NULL) {
			snprintf(fn, sizeof fn, "%s", sh.function);
			isname = 1;
		} else
			snprintf(fn, sizeof fn, "0x%" PRIx64, sh.address);
		if (sh.have_age && rbmon_thread_live(st))
			rbmon_age_format(age, sizeof age, sh.age_ns);
		else if (sh.have_seen && rbmon_thread_live(st))
			rbmon_age_format(age, sizeof age, sh.seen_ns);
	} else if (th->depth > 0)
		snprintf(fn, sizeof fn, "<frames overwritten>");
	else if (st == RBMON_TS_UNTRACED)
		snprintf(fn, sizeof fn, "<trace off>");
	else
		snprintf(fn, sizeof fn, "-");

	a = draw_state_attr(st);
	if (selected)
		a = rbmon_tty_attr(t->focus == RBMON_PANE_THREADS ?
		    RBMON_A_SELECT : RBMON_A_SELECT_DIM);
	rbmon_draw_fill(y, 0, cols, selected ? a : A_NORMAL);
	x = draw_tree(y, cols, r, selected ? a :
	    rbmon_tty_attr(RBMON_A_PROCESS));
	draw_cols(cols, &c);
	name[c.name] = '\0';
	/* The kernel's word: its state letter, the CPU share (- unknown). */
	if (th->cpu >= 0 && rbmon_thread_live(st) && st != RBMON_TS_GONE)
		snprintf(cpu, sizeof cpu, "%.1f", th->cpu > 999 ? 999 : th->cpu);
	else
		snprintf(cpu, sizeof cpu, "-");
	snprintf(buf, sizeof buf, "%*d %-*s %-*.*s %c %*s%s%*d %*s%s", c.tid,
	    th->tid, c.name, name, c.state, c.state, state,
	    th->kstate > ' ' && th->kstate < 0x7f ? th->kstate : '-', c.cpu,
	    c.cpu != 0 ? cpu : "", c.cpu != 0 ? " " : "", c.depth, th->depth,
	    c.time, c.time != 0 ? age : "", c.time != 0 ? " " : "");
	x += rbmon_draw_text(y, x, cols - x, a, buf);
	if (isname)
		rbmon_draw_name(y, x, cols - x, a, fn, NULL);
	else
		rbmon_draw_text(y, x, cols - x, a, fn);
}

static void
draw_list(struct rbmon_tui *t)
{
	const struct rbmon_row	*r;
	int			 i, y;
	size_t			 k;

	draw_list_title(t);
	for (i = 0; i < t->lay.list_h; i++) {
		y = t->lay.list_y + 1 + i;
		k = t->v.top + (size_t)i;
		if (k >= t->v.nrows) {
			move(y, 0);
			clrtoeol();
			if (i == 0)
				rbmon_draw_text(y, 1, t->lay.cols - 1,
				    rbmon_tty_attr(RBMON_A_EXITED),
				    t->s.nprocs == 0 ? "no thread has a ring "
				    "yet: waiting for the program's first "
				    "traced call" : t->v.filter[0] != '\0' ?
				    "no thread matches the filter (F4 or \\ "
				    "changes it)" : "every thread has exited "
				    "(h shows them)");
			continue;
		}
		r = &t->v.rows[k];
		if (r->kind == RBMON_ROW_PROCESS)
			draw_process_row(t, y, r);
		else
			draw_thread_row(t, y, r, t->v.have_sel &&
			    k == t->v.sel_row);
	}
}

static void
draw_stack_title(struct rbmon_tui *t, const struct rbmon_process *p,
    const struct rbmon_thread *th)
{
	char	buf[DRAW_LINE], name[COL_NAME + 1], state[64];
	attr_t	a;

	a = rbmon_tty_attr(t->focus == RBMON_PANE_STACK ?
	    RBMON_A_TITLE_FOCUS : RBMON_A_TITLE);
	rbmon_draw_fill(t->lay.stack_y, 0, t->lay.cols, a);
	if (th == NULL) {
		rbmon_draw_text(t->lay.stack_y, 1, t->lay.cols - 1, a, "Stack");
		return;
	}
	rbmon_fit(name, sizeof name, th->name, COL_NAME);
	rbmon_state_text(state, sizeof state, p, th);
	snprintf(buf, sizeof buf, "Stack of thread %d \"%s\": %s, depth %d",
	    th->tid, name, state, th->depth);
	if (rbmon_thread_state(p, th) == RBMON_TS_STOPPED && th->stopfn != 0) {
		struct rbmon_sym	sym;
		char			fn[DRAW_FN_MAX + 1];

		rbmon_symbols_lookup(t->sy, &t->s, p, th->stopfn, &sym);
		rbmon_cxxname_fit(fn, sizeof fn, sym.function ? sym.function :
		    "?", NULL, DRAW_FN_MAX, RBMON_CXX_ELL_ASCII);
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf), " (%s %s)",
		    (th->why & RB_WHY_EXIT) ? "returned from" : "at", fn);
	}
	if (th->wrapped != 0)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
		    " (%u overwritten)", th->wrapped);
	if (th->orphaned != 0)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
		    "; resumed by itself %u time%s (no monitor left)",
		    th->orphaned, th->orphaned == 1 ? "" : "s");
	if (t->c.kind == RB_CLOCK_NONE)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
		    "; no clock: times seen by rbmon");
	/* Dynamic tracing: frames of functions switched off are absent. */
	if (p->dyn != NULL && !p->dyn->torn &&
	    (p->dyn->flags & RB_DYNF_DORMANT))
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
		    "; dormant");
	else if (p->dyn != NULL && rbmon_dyn_off(p->dyn) > 0)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
		    "; %" PRIu64 " not traced", rbmon_dyn_off(p->dyn));
	rbmon_draw_text(t->lay.stack_y, 1, t->lay.cols - 1, a, buf);
}

/*
 * @fmt's text at (y, x) in @width columns, its one "%s" our glyph @g (one
 * column, drawn as it is: not file data); nothing if it does not fit.
 */
static void
draw_glyph_text(int y, int x, int width, attr_t a, const char *fmt,
    const char *g)
{
	const char	*mark = strstr(fmt, "%s");
	int		 pre, post;

	if (mark == NULL)
		return;
	pre = (int)(mark - fmt);
	post = (int)strlen(mark + 2);
	if (pre + 1 + post > width)
		return;
	attrset(a);
	mvaddnstr(y, x, fmt, pre);
	mvaddstr(y, x + pre, g);
	mvaddstr(y, x + pre + 1, mark + 2);
}

static void
draw_stack_row(struct rbmon_tui *t, int y, const struct rbmon_process *p,
    const struct rbmon_thread *th, size_t i, int selected, int dead)
{
	attr_t			 base = dead ? rbmon_tty_attr(RBMON_A_EXITED) :
				    A_NORMAL;
	struct rbmon_shown	 sh;
	struct rbmon_srow	 r;
	char			 idx[32], loc[DRAW_LINE], age[32];
	char			 fn[DRAW_LINE], run[48];
	const char		*marks = NULL;
	size_t			 f;
	attr_t			 a, fa;
	int			 cols = t->lay.cols, locw, fnw, x, w;

	a = base;
	locw = cols / 3 > 30 ? 30 : cols / 3;
	fnw = cols - 5 - locw - 1 - 8 - 1;
	if (selected)
		a = rbmon_tty_attr(t->focus == RBMON_PANE_STACK ?
		    RBMON_A_SELECT : RBMON_A_SELECT_DIM);
	rbmon_draw_fill(y, 0, cols, selected ? a : A_NORMAL);
	if (!rbmon_view_stack_at(&t->v, th, i, &r))
		return;
	f = r.frame;
	if (r.kind == RBMON_SROW_BLOCKED) {
		snprintf(loc, sizeof loc, "blocked in %s", th->blocked_in);
		rbmon_draw_text(y, 5, cols - 5, selected ? a :
		    rbmon_tty_attr(RBMON_A_STOPPED), loc);
		return;
	}
	if (r.kind == RBMON_SROW_GAP) {
		snprintf(loc, sizeof loc, "... %u frame%s overwritten "
		    "(the ring keeps %u)", th->wrapped, th->wrapped == 1 ?
		    "" : "s", t->m->hdr.slots);
		rbmon_draw_text(y, 5, cols - 5, selected ? a :
		    rbmon_tty_attr(RBMON_A_EXITED), loc);
		return;
	}
	snprintf(idx, sizeof idx, "#%zu", rbmon_frame_number(th, f));
	rbmon_draw_text(y, 0, 5, a, idx);
	rbmon_dump_resolve(t->sy, &t->s, p, th, f, &t->c, &sh);
	if (sh.torn) {
		rbmon_draw_text(y, 5, cols - 5, selected ? a :
		    rbmon_tty_attr(RBMON_A_ERROR), "<torn frame: it kept "
		    "changing while read>");
		return;
	}
	if (sh.function != NULL) {
		snprintf(fn, sizeof fn, "%s", sh.function);
		marks = sh.inlined ? " [inlined]" : "";
	} else
		snprintf(fn, sizeof fn, "0x%" PRIx64, sh.address);
	if (sh.file != NULL && sh.line != 0)
		snprintf(loc, sizeof loc, "%s:%d", sh.file, sh.line);
	else if (sh.file != NULL)
		snprintf(loc, sizeof loc, "%s", sh.file);
	else if (sh.line != 0)
		snprintf(loc, sizeof loc, "line %d", sh.line);
	else
		snprintf(loc, sizeof loc, "??");
	age[0] = '\0';
	/* A dead thread's frames have no time in them that still counts. */
	if (sh.seeded)
		snprintf(age, sizeof age, "<attach");
	else if (sh.have_age && !dead)
		rbmon_age_format(age, sizeof age, sh.age_ns);
	else if (sh.have_seen && !dead)
		rbmon_age_format(age, sizeof age, sh.seen_ns);
	x = 5;
	fa = t->have_match && t->match_frame >= f && t->match_frame < f +
	    (r.kind == RBMON_SROW_RUN ? r.count : 1) && !selected ?
	    rbmon_tty_attr(RBMON_A_MATCH) : a;
	if (marks != NULL)
		w = rbmon_draw_name(y, x, fnw, fa, fn, marks);
	else
		w = rbmon_draw_text(y, x, fnw, fa, fn);
	/* A run of recursion: "walk ×31", or its first row once expanded. */
	if (r.kind == RBMON_SROW_RUN)
		snprintf(run, sizeof run, " %%s%zu (o expands)", r.count);
	else if (r.count > 1)
		snprintf(run, sizeof run, " (%%s%zu, o folds)", r.count);
	if (r.kind == RBMON_SROW_RUN || r.count > 1)
		draw_glyph_text(y, x + w, fnw - w, a, run,
		    rbmon_tty_glyph(RBMON_G_TIMES));
	x += fnw + 1;
	rbmon_draw_text(y, x, locw, a, loc);
	x += locw + 1;
	rbmon_draw_text(y, x + 8 - (int)strlen(age), 8, a, age);
}

static void
draw_stack(struct rbmon_tui *t)
{
	const struct rbmon_process	*p = NULL;
	const struct rbmon_thread	*th;
	enum rbmon_tstate		 st;
	size_t				 k, n;
	int				 i, y, dead;

	th = rbmon_tui_selected(t, &p);
	draw_stack_title(t, p, th);
	n = rbmon_view_stack_rows(&t->v, th);
	st = th != NULL ? rbmon_thread_state(p, th) : RBMON_TS_RUNNING;
	dead = !rbmon_thread_live(st);
	for (i = 0; i < t->lay.stack_h; i++) {
		y = t->lay.stack_y + 1 + i;
		k = t->v.stack_top + (size_t)i;
		move(y, 0);
		clrtoeol();
		if (th == NULL)
			continue;
		if (n == 0 && i == 0) {
			rbmon_draw_text(y, 5, t->lay.cols - 5,
			    rbmon_tty_attr(RBMON_A_EXITED),
			    st == RBMON_TS_UNTRACED ? "(trace is off for "
			    "this thread: no stack kept)" :
			    "(no frames: the thread is outside every traced "
			    "function)");
			continue;
		}
		if (k >= n)
			continue;
		draw_stack_row(t, y, p, th, k, k == t->v.stack_sel &&
		    t->focus == RBMON_PANE_STACK, dead);
	}
}

/* @s cut to @width columns, ending in "..." when cut. */
static void
draw_fit_dots(char *buf, size_t size, const char *s, int width)
{
	size_t	n;

	if (width <= 0) {
		buf[0] = '\0';
		return;
	}
	n = rbmon_fit(buf, size, s, (size_t)width);
	if (strlen(s) > n && n >= 3)
		memcpy(buf + n - 3, "...", 3);
}

#define DRAW_AGE_W	12	/* "stale 59m59s" */

static void
draw_watch_row(struct rbmon_tui *t, int y, const struct rbmon_tui_wrow *r,
    int selected)
{
	char	text[DRAW_LINE], buf[DRAW_LINE];
	attr_t	a = A_NORMAL, sa = A_NORMAL, agea = A_NORMAL;
	int	cols = t->lay.cols, w, agew;

	switch (r->kind) {
	case RBMON_WROW_VALUE:
		snprintf(text, sizeof text, "[%d] %s = %s%s", r->entry,
		    r->expr, r->text[0] != '\0' ? r->text : "(no value)",
		    r->truncated ? "..." : "");
		break;
	case RBMON_WROW_ERROR:
		snprintf(text, sizeof text, "[%d] %s: error: %s", r->entry,
		    r->expr, r->text);
		a = rbmon_tty_attr(RBMON_A_ERROR);
		break;
	case RBMON_WROW_WAITING:
		snprintf(text, sizeof text, "[%d] %s (no value yet: the thread "
		    "evaluates it at its next call or return)", r->entry,
		    r->expr);
		a = rbmon_tty_attr(RBMON_A_EXITED);
		break;
	case RBMON_WROW_REMOVING:
		snprintf(text, sizeof text, "[%d] %s (removing)", r->entry,
		    r->expr);
		a = rbmon_tty_attr(RBMON_A_EXITED);
		break;
	}
	if (r->stale) {
		a = rbmon_tty_attr(RBMON_A_EXITED);
		agea = rbmon_tty_attr(RBMON_A_STALE);
	}
	if (selected) {
		sa = rbmon_tty_attr(RBMON_A_SELECT);
		a = agea = sa;
	}
	rbmon_draw_fill(y, 0, cols, sa);
	agew = cols >= 60 ? DRAW_AGE_W : (int)strlen(r->age);
	w = cols - 1 - agew - 2;
	draw_fit_dots(buf, sizeof buf, text, w);
	rbmon_draw_text(y, 1, w, a, buf);
	if (r->age[0] != '\0' && cols - 1 - (int)strlen(r->age) > 1)
		rbmon_draw_text(y, cols - 1 - (int)strlen(r->age),
		    (int)strlen(r->age), agea, r->age);
}

static void
draw_watch(struct rbmon_tui *t)
{
	const struct rbmon_process	*p = NULL;
	const struct rbmon_thread	*th;
	struct rbmon_tui_wrow		 r;
	char				 buf[DRAW_LINE];
	attr_t				 a;
	int				 i, y = t->lay.watch_y + 1, used = 0;
	int				 sel;

	th = rbmon_tui_selected(t, &p);
	for (i = 0; th != NULL && th->watches != NULL && i < RB_WATCHES; i++)
		used += th->watches[i].inuse != RB_WATCH_FREE;
	a = rbmon_tty_attr(t->focus == RBMON_PANE_WATCH ?
	    RBMON_A_TITLE_FOCUS : RBMON_A_TITLE);
	rbmon_draw_fill(t->lay.watch_y, 0, t->lay.cols, a);
	if (th == NULL)
		snprintf(buf, sizeof buf, "Watches");
	else if (used == 0)
		snprintf(buf, sizeof buf, "Watches of thread %d: none (w adds "
		    "one)", th->tid);
	else
		snprintf(buf, sizeof buf, "Watches of thread %d (%d of %d)",
		    th->tid, used, RB_WATCHES);
	rbmon_draw_text(t->lay.watch_y, 1, t->lay.cols - 1, a, buf);
	/* The cursor shows while the pane has focus (e and d act on it). */
	sel = t->focus == RBMON_PANE_WATCH ? rbmon_tuiwatch_selected(t, th) :
	    -1;
	for (i = 0; i < RB_WATCHES; i++) {
		if (!rbmon_tuiwatch_row(t, p, th, i, &r))
			continue;
		if (y >= t->lay.watch_y + 1 + t->lay.watch_h)
			break;
		move(y, 0);
		clrtoeol();
		draw_watch_row(t, y, &r, i == sel);
		y++;
	}
	for (; y < t->lay.watch_y + 1 + t->lay.watch_h; y++) {
		move(y, 0);
		clrtoeol();
	}
}

/* The message line: the last message, in its colour. */
void
rbmon_draw_message(struct rbmon_tui *t)
{
	int	y = t->lay.msg_y;

	move(y, 0);
	clrtoeol();
	if (t->msg_kind == RBMON_MSG_NONE)
		return;
	rbmon_draw_text(y, 0, t->lay.cols, rbmon_tty_attr(t->msg_kind ==
	    RBMON_MSG_ERROR ? RBMON_A_ERROR : RBMON_A_INFO), t->msg);
}

/* Which label a toggling key shows on the bar. */
static int
draw_bar_on(void *arg, enum rbmon_action act)
{
	const struct rbmon_tui	*t = arg;

	switch (act) {
	case RBMON_ACT_ENTER:
		return t->focus != RBMON_PANE_THREADS;
	case RBMON_ACT_HIDE_EXITED:
		return t->v.hide_exited;
	case RBMON_ACT_FREEZE:
		return t->frozen;
	default:
		return 0;
	}
}

#define DRAW_BAR_MAX	24

/**
 * rbmon_draw_bar_key - the key a click on the function bar stands for
 * @t: the tui
 * @x: the column clicked
 *
 * Return: the key, or 0.
 */
int
rbmon_draw_bar_key(struct rbmon_tui *t, int x)
{
	struct rbmon_bar_item	it[DRAW_BAR_MAX];
	size_t			n;

	n = rbmon_keytab_bar(RBMON_KM_MAIN, t->lay.cols, draw_bar_on, t, it,
	    DRAW_BAR_MAX);
	return rbmon_keytab_bar_click(it, n, x);
}

static void
draw_bar(struct rbmon_tui *t)
{
	struct rbmon_bar_item	it[DRAW_BAR_MAX];
	size_t			n, i;
	int			x = 0, y = t->lay.bar_y, cols = t->lay.cols;

	n = rbmon_keytab_bar(RBMON_KM_MAIN, cols, draw_bar_on, t, it,
	    DRAW_BAR_MAX);
	move(y, 0);
	for (i = 0; i < n && x < cols; i++) {
		x += rbmon_draw_text(y, x, cols - x,
		    rbmon_tty_attr(RBMON_A_KEY), it[i].key);
		x += rbmon_draw_text(y, x, cols - x,
		    rbmon_tty_attr(RBMON_A_BAR), it[i].label);
		if (x < cols)
			x += rbmon_draw_text(y, x, cols - x, A_NORMAL, " ");
	}
	rbmon_draw_fill(y, x, cols, rbmon_tty_attr(RBMON_A_BAR));
}

/**
 * rbmon_draw_keybar - row @y as the key bar of a screen of @km's keys:
 * "KEY label  KEY label  @tail"
 */
void
rbmon_draw_keybar(int y, enum rbmon_kmode km, const char *tail)
{
	struct rbmon_bar_item	it[DRAW_BAR_MAX];
	char			buf[DRAW_LINE];
	size_t			i, n;

	n = rbmon_keytab_bar(km, COLS, NULL, NULL, it, DRAW_BAR_MAX);
	buf[0] = '\0';
	for (i = 0; i < n; i++)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s %s  ",
		    it[i].key, it[i].label);
	snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s", tail);
	rbmon_draw_fill(y, 0, COLS, rbmon_tty_attr(RBMON_A_BAR));
	rbmon_draw_text(y, 0, COLS, rbmon_tty_attr(RBMON_A_BAR), buf);
}

/**
 * rbmon_draw_bar_text - a line of text in place of the function bar
 * @error: in the error colour
 */
void
rbmon_draw_bar_text(struct rbmon_tui *t, const char *text, int error)
{
	attr_t	a = rbmon_tty_attr(error ? RBMON_A_ERROR : RBMON_A_BAR);
	int	y = t->lay.bar_y;

	rbmon_draw_fill(y, 0, t->lay.cols, a);
	rbmon_draw_text(y, 0, t->lay.cols, a, text);
}

/**
 * rbmon_draw_draw - draw the whole monitor screen
 * @t: the tui; its layout is up to date
 */
void
rbmon_draw_draw(struct rbmon_tui *t)
{
	if (t->lay.lines != LINES || t->lay.cols != COLS)
		rbmon_layout_compute(&t->lay, LINES, COLS, (int)t->v.nrows,
		    t->lay.stack_want, t->lay.watch_h);
	erase();
	if (t->lay.too_small) {
		rbmon_draw_text(0, 0, COLS, A_BOLD, "rbmon: terminal too small");
		rbmon_draw_text(1, 0, COLS, A_NORMAL, "40x12 at least; q quits");
		return;
	}
	if (!t->have_snap) {
		rbmon_draw_text(0, 0, COLS, A_BOLD, t->m->path);
		rbmon_draw_text(1, 0, COLS, rbmon_tty_attr(RBMON_A_ERROR),
		    t->msg);
		draw_bar(t);
		return;
	}
	draw_header(t);
	draw_list(t);
	draw_stack(t);
	draw_watch(t);
	draw_bar(t);
	rbmon_draw_message(t);
	curs_set(0);
}
