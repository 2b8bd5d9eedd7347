/* SPDX-License-Identifier: MIT */
/*
 * rbmon tuilat: the latency view: per function, the calls that ended in
 * the last LATV_WINDOW seconds of every thread's event log (rbtrace(5),
 * "EVENT LOG"), copied as they grow (latency.c), with calls, total, p50,
 * p99 and max, and the selected function's histogram below.  Records
 * overwritten before a copy are counted on the title, never hidden.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/history/calls.h"
#include "monitor/history/latency.h"
#include "monitor/screen/keytab.h"
#include "monitor/screen/tuidraw.h"
#include "monitor/screen/tuimodes.h"

#define LATV_TICK_MS	10		/* the logs copied every 10 ms */
#define LATV_DRAW_NS	500000000u	/* the table made every 500 ms */
#define LATV_WINDOW	2		/* seconds of calls shown */
#define LATV_CALLS	(1u << 20)	/* calls kept for the window, at most */
#define LATV_HIST_BAR	30

/* A call of the window: its function (in names), when it ended, how long. */
struct latv_call {
	uint32_t	func;
	int32_t		how;
	uint64_t	end_ns, dur_ns;
};

struct rbmon_latview {
	struct rblat		 names;		/* functions, by lv */
	struct rblat_live	 lv;
	struct rbmon_clock	 c;
	struct latv_call	*calls;		/* a ring of LATV_CALLS */
	uint64_t		 ncalls;	/* ever */
	uint64_t		 overflow;	/* in the window, not kept */
	struct rblat		 win;		/* the last draw's table */
	uint32_t		*order;
	size_t			 norder;
	enum rblat_sort		 sort;
	long			 sel, top;
	uint64_t		 last_draw;
	int			 first;
};

static void
latv_call(void *arg, uint32_t func, uint64_t end_ns, uint64_t dur_ns, int how)
{
	struct rbmon_latview	*v = arg;
	struct latv_call	*c = &v->calls[v->ncalls++ % LATV_CALLS];

	c->func = func;
	c->how = how;
	c->end_ns = end_ns;
	c->dur_ns = dur_ns;
}

/* The table of the calls that ended in the window. */
static void
latv_aggregate(struct rbmon_latview *v)
{
	uint64_t		 now = rbmon_mono_ns(), from, i, n;
	const struct latv_call	*c;
	uint32_t		*map;
	size_t			 k;

	from = now > (uint64_t)LATV_WINDOW * 1000000000u ?
	    now - (uint64_t)LATV_WINDOW * 1000000000u : 0;
	rblat_reset(&v->win);
	map = rbmon_xcalloc(v->names.n + 1, sizeof *map);
	n = v->ncalls < LATV_CALLS ? v->ncalls : LATV_CALLS;
	v->overflow = 0;
	for (i = 0; i < n; i++) {
		c = &v->calls[(v->ncalls - 1 - i) % LATV_CALLS];
		if (c->end_ns < from)
			continue;
		if (map[c->func] == 0)
			map[c->func] = 1 + rblat_func(&v->win,
			    v->names.f[c->func].name, v->names.f[c->func].file);
		rblat_call(&v->win, map[c->func] - 1, c->dur_ns, c->how);
	}
	/* The oldest kept still in the window: older ones may be too. */
	if (v->ncalls > LATV_CALLS &&
	    v->calls[v->ncalls % LATV_CALLS].end_ns >= from)
		v->overflow = 1;
	free(map);
	rblat_finish(&v->win);
	free(v->order);
	v->order = rbmon_xcalloc(v->win.n + 1, sizeof *v->order);
	v->norder = rblat_order(&v->win, v->sort, v->order);
	k = v->norder;
	if (v->sel >= (long)k)
		v->sel = (long)k - 1;
	if (v->sel < 0)
		v->sel = 0;
}

static int
latv_tick(struct rbmon_tui *t, void *arg)
{
	struct rbmon_latview	*v = arg;
	struct rbmon_snapshot	 s;
	char			*cause = NULL;
	uint64_t		 now = rbmon_mono_ns();

	if (rbmon_model_snapshot(t->m, &s, &cause) == 0) {
		rbmon_clock_init(&v->c, &t->m->hdr);
		rblat_live_pass(&v->lv, &s, &v->c);
		rbmon_model_free(&s);
	} else {
		free(cause);
	}
	if (v->first || now - v->last_draw >= LATV_DRAW_NS) {
		v->first = 0;
		v->last_draw = now;
		latv_aggregate(v);
		return RBMON_REDRAW;
	}
	return 0;
}

static int
latv_table_rows(void)
{
	int	r = (LINES - 4) / 2;

	return r > 1 ? r : 1;
}

static int
latv_key(struct rbmon_tui *t, void *arg, int key)
{
	struct rbmon_latview	*v = arg;
	enum rbmon_action	 a = rbmon_keytab_action(RBMON_KM_LAT, key);
	long			 rows = latv_table_rows();

	switch (a) {
	case RBMON_ACT_LAT_SORT:
		v->sort = (enum rblat_sort)((v->sort + 1) % RBLAT_SORTS);
		v->sel = v->top = 0;
		latv_aggregate(v);
		return RBMON_REDRAW;
	case RBMON_ACT_TEXT_UP:
		v->sel--;
		break;
	case RBMON_ACT_TEXT_DOWN:
		v->sel++;
		break;
	case RBMON_ACT_TEXT_PGUP:
		v->sel -= rows;
		break;
	case RBMON_ACT_TEXT_PGDN:
		v->sel += rows;
		break;
	case RBMON_ACT_TEXT_HOME:
		v->sel = 0;
		break;
	case RBMON_ACT_TEXT_END:
		v->sel = (long)v->norder - 1;
		break;
	default:
		if (key == RBMON_KEY_MOUSE)
			return 0;
		rbmon_tui_pop(t);
		clear();
		rbmon_tui_relayout(t);
		return RBMON_REDRAW;
	}
	if (v->sel >= (long)v->norder)
		v->sel = (long)v->norder - 1;
	if (v->sel < 0)
		v->sel = 0;
	return RBMON_REDRAW;
}

static void
latv_draw(struct rbmon_tui *t, void *arg)
{
	struct rbmon_latview	*v = arg;
	const struct rb_header	*hd = &t->m->hdr;
	const struct rblat_func	*f;
	char			 buf[512], tm[4][32], **lines;
	size_t			 nl, i;
	attr_t			 a;
	long			 k;
	int			 y, x, rows = latv_table_rows();

	if (v->sel < v->top)
		v->top = v->sel;
	if (v->sel >= v->top + rows)
		v->top = v->sel - rows + 1;
	erase();
	a = rbmon_tty_attr(RBMON_A_TITLE_FOCUS);
	rbmon_draw_fill(0, 0, COLS, a);
	if (hd->events == 0)
		snprintf(buf, sizeof buf, "Latency: no event log "
		    "(RBTRACE_EVENTS=0)");
	else if (hd->clock == RB_CLOCK_NONE)
		snprintf(buf, sizeof buf, "Latency: no times "
		    "(RBTRACE_CLOCK=none)");
	else
		snprintf(buf, sizeof buf, "Latency, last %d s  [sort: %s]  "
		    "%zu threads  lost %" PRIu64 "  dropped %" PRIu64
		    "  cut %" PRIu64 "%s", LATV_WINDOW,
		    rblat_sort_name(v->sort), v->lv.nth, v->lv.lost,
		    v->lv.dropped, v->lv.cut, v->overflow ?
		    "  (calls beyond the view's memory not counted)" : "");
	rbmon_draw_text(0, 1, COLS - 1, a, buf);
	snprintf(buf, sizeof buf, "%9s %9s %9s %9s %9s  %s", "CALLS", "TOTAL",
	    "P50", "P99", "MAX", "FUNCTION");
	rbmon_draw_text(1, 0, COLS, A_BOLD, buf);
	for (y = 2, k = v->top; y < rows + 2 && k < (long)v->norder;
	    y++, k++) {
		f = &v->win.f[v->order[k]];
		rblat_time(tm[0], sizeof tm[0], f->total_ns);
		rblat_time(tm[1], sizeof tm[1], f->p50);
		rblat_time(tm[2], sizeof tm[2], f->p99);
		rblat_time(tm[3], sizeof tm[3], f->max_ns);
		snprintf(buf, sizeof buf, "%9" PRIu64 " %9s %9s %9s %9s  ",
		    f->calls, tm[0], f->calls ? tm[1] : "-", f->calls ? tm[2] :
		    "-", f->calls ? tm[3] : "-");
		a = k == v->sel ? rbmon_tty_attr(RBMON_A_SELECT) : A_NORMAL;
		if (k == v->sel)
			rbmon_draw_fill(y, 0, COLS, a);
		x = rbmon_draw_text(y, 0, COLS, a, buf);
		rbmon_draw_name(y, x, COLS - x, a, f->name, NULL);
	}
	if (v->norder == 0)
		rbmon_draw_text(2, 2, COLS - 2, rbmon_tty_attr(RBMON_A_EXITED),
		    "no calls ended in the window");
	y = rows + 3;
	if (v->norder > 0 && y < LINES - 2) {
		f = &v->win.f[v->order[v->sel]];
		snprintf(buf, sizeof buf, "%" PRIu64 " calls of ", f->calls);
		x = rbmon_draw_text(y, 0, COLS, A_BOLD, buf);
		rbmon_draw_name(y, x, COLS - x, A_BOLD, f->name, NULL);
		nl = rblat_hist_lines(f, LATV_HIST_BAR, &lines);
		for (i = 0; i < nl; i++) {
			if (++y < LINES - 2)
				rbmon_draw_text(y, 0, COLS, A_NORMAL, lines[i]);
			free(lines[i]);
		}
		free(lines);
	}
	if (t->msg_kind != RBMON_MSG_NONE && t->msg[0] != '\0')
		rbmon_draw_text(LINES - 2, 0, COLS, t->msg_kind ==
		    RBMON_MSG_ERROR ? rbmon_tty_attr(RBMON_A_ERROR) : A_BOLD,
		    t->msg);
	rbmon_draw_keybar(LINES - 1, RBMON_KM_LAT, "other keys: back");
	curs_set(0);
}

static void
latv_free(void *arg)
{
	struct rbmon_latview	*v = arg;

	rblat_live_free(&v->lv);
	rblat_free(&v->names);
	rblat_free(&v->win);
	free(v->calls);
	free(v->order);
	free(v);
}

static const struct rbmon_mode_ops latv_ops = {
	.name = "latency",
	.tick_ms = LATV_TICK_MS,
	.key = latv_key,
	.draw = latv_draw,
	.tick = latv_tick,
	.free = latv_free,
};

/** rbmon_lat_open - the latency view of every thread, on a screen of its own */
void
rbmon_lat_open(struct rbmon_tui *t)
{
	struct rbmon_latview	*v;

	v = rbmon_xcalloc(1, sizeof *v);
	rblat_init(&v->names, 0);
	rblat_init(&v->win, RBLAT_KEEP_MAX);
	v->calls = rbmon_xcalloc(LATV_CALLS, sizeof *v->calls);
	rblat_live_init(&v->lv, &v->names, t->m, t->sy);
	v->lv.call = latv_call;
	v->lv.arg = v;
	v->first = 1;
	if (rbmon_tui_push(t, &latv_ops, v) != 0) {
		latv_free(v);
		return;
	}
	latv_tick(t, v);
}
