/* SPDX-License-Identifier: MIT */
/*
 * rbmon tuihist: the history of the selected thread, a live function graph
 * of its event log (rbtrace(5), "EVENT LOG"), newest at the bottom.  Each
 * pass copies the records written since the last one; records the thread
 * overwrote before they were read show as [LOST N EVENTS] where they were.
 * At the bottom the view follows the thread; scrolled up, it stays put.
 * r switches the thread's recording off and on.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/history/events.h"
#include "monitor/screen/keytab.h"
#include "monitor/screen/tuidraw.h"
#include "monitor/screen/tuictl.h"
#include "monitor/screen/tuimodes.h"

#define HIST_MAX_ROWS	200000	/* then start again from the log's window */

struct rbmon_histview {
	int32_t			 pid, tid;
	uint32_t		 ring;
	uint64_t		 gen;
	char			 name[RB_THREAD_NAME_MAX + 1];
	struct rbmon_evgraph	 g;
	struct rbmon_evcopy	 c;
	uint64_t		 older;		/* records before the first read */
	long			 top;
	int			 follow;
	int			 gone;
};

/* The thread in this pass's snapshot, or NULL. */
static const struct rbmon_thread *
hist_thread(struct rbmon_tui *t, struct rbmon_histview *h,
    const struct rbmon_process **pp)
{
	const struct rbmon_process	*p;
	size_t				 i, j;

	if (!t->have_snap)
		return NULL;
	for (i = 0; i < t->s.nprocs; i++) {
		p = &t->s.procs[i];
		for (j = 0; j < p->nthreads; j++)
			if (p->threads[j].ring == h->ring &&
			    p->threads[j].gen == h->gen &&
			    p->threads[j].tid == h->tid) {
				*pp = p;
				return &p->threads[j];
			}
	}
	return NULL;
}

static int
hist_rows(void)
{
	return LINES > 3 ? LINES - 3 : 1;
}

static void
hist_clamp(struct rbmon_histview *h)
{
	long	last = (long)h->g.n - hist_rows();

	if (h->follow || h->top > last)
		h->top = last;
	if (h->top < 0)
		h->top = 0;
}

static int
hist_tick(struct rbmon_tui *t, void *arg)
{
	struct rbmon_histview		*h = arg;
	const struct rbmon_process	*p;
	const struct rbmon_thread	*th;
	size_t				 before = h->g.n;
	int				 first = h->g.next == 0 && h->g.n == 0;

	if ((th = hist_thread(t, h, &p)) == NULL) {
		h->gone = 1;
		return 0;
	}
	if (h->g.n > HIST_MAX_ROWS) {
		rbmon_evgraph_free(&h->g);
		first = 1;
	}
	if (rbmon_events_copy(t->m, th, h->g.next, SIZE_MAX, &h->c) != 0 ||
	    !h->c.valid)
		return 0;
	/*
	 * A log that takes short calls back: the entries at its end may
	 * still go, and the next copy starts after what this one showed.
	 */
	if (h->c.w.rewinds != 0)
		h->c.n = h->c.w.settled;
	if (first)
		h->older = h->c.w.first;
	rbmon_evgraph_add(&h->g, &h->c);
	hist_clamp(h);
	return h->g.n != before ? RBMON_REDRAW : 0;
}

/* r: switch the thread's recording off or on, as EVOF/EVON do. */
static int
hist_record(struct rbmon_tui *t, struct rbmon_histview *h)
{
	const struct rbmon_process	*p;
	const struct rbmon_thread	*th;
	struct rbmon_ctl		*ctl;
	char				*cause = NULL;

	th = hist_thread(t, h, &p);
	if (th == NULL || th->own != RB_OWN_LIVE || !p->alive) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "thread %d has ended",
		    h->tid);
		return RBMON_REDRAW;
	}
	if (!rbmon_tuictl_usable(t) || (ctl = rbmon_tuictl_ctl(t)) == NULL)
		return RBMON_REDRAW;
	if (rbmon_events_switch(ctl, &t->s, p->pid, h->tid, th->ev_off,
	    &cause) < 0) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "%s", cause);
		free(cause);
		return RBMON_REDRAW;
	}
	rbmon_tui_message(t, RBMON_MSG_INFO, "recording %s for thread %d",
	    th->ev_off ? "on" : "off", h->tid);
	return RBMON_REDRAW | RBMON_RESCAN;
}

static int
hist_key(struct rbmon_tui *t, void *arg, int key)
{
	struct rbmon_histview	*h = arg;
	enum rbmon_action	 a = rbmon_keytab_action(RBMON_KM_HIST, key);
	int			 moved;

	if (a == RBMON_ACT_RECORD)
		return hist_record(t, h);
	moved = rbmon_text_scroll(a, &h->top, hist_rows(), (long)h->g.n);
	if (moved == 0) {
		if (key == RBMON_KEY_MOUSE)
			return 0;
		rbmon_tui_pop(t);
		clear();
		rbmon_tui_relayout(t);
		return RBMON_REDRAW;
	}
	/* Away from the end stops following; reaching it follows again. */
	h->follow = moved > 0 && h->top >= (long)h->g.n - hist_rows();
	hist_clamp(h);
	return RBMON_REDRAW;
}

static void
hist_draw(struct rbmon_tui *t, void *arg)
{
	struct rbmon_histview		*h = arg;
	const struct rb_header		*hd = &t->m->hdr;
	const struct rbmon_process	*p = NULL;
	const struct rbmon_thread	*th;
	char				 buf[1024], title[512];
	int32_t				 base = rbmon_evgraph_mindepth(&h->g);
	attr_t				 a;
	long				 k;
	int				 y, rows = hist_rows();

	th = hist_thread(t, h, &p);
	erase();
	a = rbmon_tty_attr(RBMON_A_TITLE_FOCUS);
	rbmon_draw_fill(0, 0, COLS, a);
	if (hd->events == 0) {
		snprintf(title, sizeof title, "History of thread %d \"%s\": "
		    "no event log (RBTRACE_EVENTS=0)", h->tid, h->name);
	} else if (th != NULL) {
		snprintf(title, sizeof title, "History of thread %d \"%s\" "
		    "(pid %d)  %s, %u records  written %" PRIu64
		    "  dropped %" PRIu64 "  recording %s%s", h->tid, h->name,
		    h->pid, rb_policy_name(hd->ev_policy), hd->events,
		    th->ev_head + th->ev_dropped, th->ev_dropped,
		    th->ev_off ? "OFF" : "on", h->follow ? "  [following]" :
		    "");
	} else {
		snprintf(title, sizeof title, "History of thread %d \"%s\" "
		    "(pid %d): its ring was reused", h->tid, h->name, h->pid);
	}
	rbmon_draw_text(0, 1, COLS - 1, a, title);
	for (y = 1, k = h->top; y <= rows && k < (long)h->g.n; y++, k++) {
		const struct rbmon_evrow	*r = &h->g.rows[k];

		rbmon_evrow_text_cols(buf, sizeof buf, t->sy, &t->s, p, &t->c,
		    r, base, (size_t)COLS);
		rbmon_draw_text(y, 0, COLS, r->kind == RBMON_EVR_LOST ?
		    rbmon_tty_attr(RBMON_A_ERROR) : r->kind == RBMON_EVR_CALL &&
		    (r->flags & RBMON_EVF_OPEN) && r->end == 0 ? A_BOLD :
		    A_NORMAL, buf);
	}
	if (h->g.n == 0)
		rbmon_draw_text(1, 2, COLS - 2, rbmon_tty_attr(RBMON_A_EXITED),
		    h->c.valid || hd->events == 0 ? "no records" :
		    "reading the log...");
	if (t->msg_kind != RBMON_MSG_NONE && t->msg[0] != '\0') {
		rbmon_draw_text(LINES - 2, 0, COLS, t->msg_kind ==
		    RBMON_MSG_ERROR ? rbmon_tty_attr(RBMON_A_ERROR) : A_BOLD,
		    t->msg);
	} else if (h->older > 0) {
		snprintf(buf, sizeof buf, "%" PRIu64 " older record%s %s before "
		    "this view opened", h->older, h->older == 1 ? "" : "s",
		    hd->ev_policy ==
		    RB_POLICY_DRAIN ? "consumed" : "overwritten");
		rbmon_draw_text(LINES - 2, 0, COLS,
		    rbmon_tty_attr(RBMON_A_EXITED), buf);
	}
	rbmon_draw_keybar(LINES - 1, RBMON_KM_HIST, "other keys: back");
	curs_set(0);
}

static void
hist_free(void *arg)
{
	struct rbmon_histview	*h = arg;

	rbmon_evgraph_free(&h->g);
	rbmon_evcopy_free(&h->c);
	free(h);
}

static const struct rbmon_mode_ops hist_ops = {
	.name = "history",
	.key = hist_key,
	.draw = hist_draw,
	.tick = hist_tick,
	.free = hist_free,
};

/**
 * rbmon_hist_open - the selected thread's history, on a screen of its own
 */
void
rbmon_hist_open(struct rbmon_tui *t)
{
	const struct rbmon_process	*p = NULL;
	const struct rbmon_thread	*th;
	struct rbmon_histview		*h;

	if ((th = rbmon_tui_selected(t, &p)) == NULL) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "select a thread first");
		return;
	}
	h = rbmon_xcalloc(1, sizeof *h);
	h->pid = p->pid;
	h->tid = th->tid;
	h->ring = th->ring;
	h->gen = th->gen;
	memcpy(h->name, th->name, sizeof h->name);
	h->follow = 1;
	rbmon_evgraph_init(&h->g);
	if (rbmon_tui_push(t, &hist_ops, h) != 0) {
		hist_free(h);
		return;
	}
	hist_tick(t, h);
}
