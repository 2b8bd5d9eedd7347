/* SPDX-License-Identifier: MIT */
/*
 * rbmon tuicap: captures of slow calls on the screen.  A arms captures of
 * the stack pane's selected frame's function (a prompt asks how slow, CAPT
 * done by rbmon itself); K lists the file's captures, a full screen read
 * again at each draw: the function, process, thread, duration and the
 * calls the selected one made; any other key goes back.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/core/capture.h"
#include "monitor/core/symbols.h"
#include "monitor/core/view.h"
#include "monitor/history/events.h"
#include "monitor/screen/keytab.h"
#include "monitor/screen/tuidraw.h"
#include "monitor/screen/tty.h"
#include "monitor/screen/tuictl.h"
#include "monitor/screen/tuimodes.h"
#include "monitor/util/alloc.h"

struct caplist_state {
	size_t		sel;
};

/* The function of capture @v, or its address. */
static const char *
caplist_name(struct rbmon_tui *t, const struct rb_capture *v, uint64_t fn,
    char *buf, size_t len)
{
	const struct rbmon_process	*p = NULL;
	struct rbmon_process		 tmp;
	struct rbmon_sym		 sym;
	size_t				 i;

	for (i = 0; t->have_snap && i < t->s.nprocs; i++)
		if (t->s.procs[i].pid == v->pid &&
		    t->s.procs[i].pstart == v->pstart)
			p = &t->s.procs[i];
	if (p == NULL) {
		memset(&tmp, 0, sizeof tmp);
		tmp.pid = v->pid;
		tmp.pstart = v->pstart;
		tmp.image = v->image;
		p = &tmp;
	}
	memset(&sym, 0, sizeof sym);
	if (t->have_snap)
		rbmon_symbols_lookup(t->sy, &t->s, p, fn, &sym);
	if (sym.function != NULL)
		return sym.function;
	snprintf(buf, len, "0x%" PRIx64, fn);
	return buf;
}

static int
caplist_key(struct rbmon_tui *t, void *arg, int key)
{
	struct caplist_state	*cs = arg;

	switch (rbmon_keytab_action(RBMON_KM_CAPS, key)) {
	case RBMON_ACT_CL_UP:
		if (cs->sel > 0)
			cs->sel--;
		return RBMON_REDRAW;
	case RBMON_ACT_CL_DOWN:
		cs->sel++;
		return RBMON_REDRAW;
	default:
		if (key == RBMON_KEY_MOUSE)
			return 0;
		rbmon_tui_pop(t);
		return RBMON_REDRAW;
	}
}

static void
caplist_draw(struct rbmon_tui *t, void *arg)
{
	struct caplist_state	*cs = arg;
	struct rbmon_caps	 c;
	struct rbmon_evcopy	 copy;
	struct rbmon_evgraph	 g;
	struct rbmon_clock	 clk;
	char			 buf[1024], d[32], a[32], *cause = NULL;
	int			 y, top = 0, rows = (LINES - 5) / 2;
	size_t			 i, k;
	int32_t			 base;

	erase();
	rbmon_draw_fill(0, 0, COLS, rbmon_tty_attr(RBMON_A_TITLE_FOCUS));
	if (rbmon_caps_read(t->m, &c, &cause) != 0) {
		rbmon_draw_text(0, 1, COLS - 1,
		    rbmon_tty_attr(RBMON_A_TITLE_FOCUS), "Captures");
		rbmon_draw_text(2, 2, COLS - 2, A_NORMAL, cause);
		free(cause);
		goto out;
	}
	snprintf(buf, sizeof buf, "Captures of slow calls: %zu (%zu "
	    "function location%s armed)", c.n, c.nfns, c.nfns == 1 ? "" : "s");
	rbmon_draw_text(0, 1, COLS - 1, rbmon_tty_attr(RBMON_A_TITLE_FOCUS),
	    buf);
	if (rows < 1)
		rows = 1;
	if (c.n == 0) {
		rbmon_draw_text(2, 2, COLS - 2, A_NORMAL, "no captures (A in "
		    "the stack pane arms captures of a frame's function)");
		rbmon_caps_free(&c);
		goto out;
	}
	if (cs->sel >= c.n)
		cs->sel = c.n - 1;
	if ((int)cs->sel >= rows)
		top = (int)cs->sel - rows + 1;
	for (i = (size_t)top, y = 1; i < c.n && y <= rows; i++, y++) {
		const struct rb_capture *v = &c.v[i];
		attr_t at = i == cs->sel ? rbmon_tty_attr(RBMON_A_SELECT) :
		    A_NORMAL;

		rbmon_cap_duration(d, sizeof d, v->dur_ns);
		snprintf(buf, sizeof buf, "%3zu  %-28s pid %-7d tid %-7d %10s%s",
		    i + 1, caplist_name(t, v, v->fn, a, sizeof a), v->pid,
		    v->tid, d, v->lost > 0 ? "  (records lost)" : "");
		if (i == cs->sel)
			rbmon_draw_fill(y, 0, COLS, at);
		rbmon_draw_text(y, 1, COLS - 1, at, buf);
	}
	/* The selected capture's calls, below the list. */
	rbmon_clock_init(&clk, &t->m->hdr);
	memset(&copy, 0, sizeof copy);
	copy.rec = c.v[cs->sel].records;
	copy.n = c.v[cs->sel].nrec;
	copy.w.n = copy.n;
	copy.w.head = copy.n;
	copy.valid = 1;
	rbmon_evgraph_init(&g);
	rbmon_evgraph_add(&g, &copy);
	base = rbmon_evgraph_mindepth(&g);
	y++;
	for (k = 0; k < g.n && y < LINES - 2; k++, y++) {
		const struct rbmon_process *p = NULL;
		struct rbmon_process tmp;

		memset(&tmp, 0, sizeof tmp);
		tmp.pid = c.v[cs->sel].pid;
		tmp.pstart = c.v[cs->sel].pstart;
		tmp.image = c.v[cs->sel].image;
		for (i = 0; t->have_snap && i < t->s.nprocs; i++)
			if (t->s.procs[i].pid == tmp.pid &&
			    t->s.procs[i].pstart == tmp.pstart)
				p = &t->s.procs[i];
		rbmon_evrow_text(buf, sizeof buf, t->sy, &t->s,
		    p != NULL ? p : &tmp, &clk, &g.rows[k], base);
		rbmon_draw_text(y, 1, COLS - 1, A_NORMAL, buf);
	}
	rbmon_evgraph_free(&g);
	rbmon_caps_free(&c);
out:
	rbmon_draw_message(t);
	rbmon_draw_keybar(LINES - 1, RBMON_KM_CAPS, "other keys: back");
	curs_set(0);
}

static const struct rbmon_mode_ops caplist_ops = {
	.name = "captures",
	.key = caplist_key,
	.draw = caplist_draw,
	.free = free,
};

/** rbmon_caps_open - K: the file's captures of slow calls */
void
rbmon_caps_open(struct rbmon_tui *t)
{
	struct caplist_state	*cs;

	cs = rbmon_xcalloc(1, sizeof *cs);
	if (rbmon_tui_push(t, &caplist_ops, cs) != 0)
		free(cs);
}

/* ------------------------------------------------------------------
 * A: the prompt for how slow.
 */

static int
capprompt_enter(struct rbmon_tui *t, void *arg, const char *line)
{
	const struct rbmon_thread	*th;
	struct rbmon_bp_scope		 sc;
	char				*args;
	int				 r;

	if (!rbmon_tuictl_usable(t) || (th = rbmon_tuictl_thread(t, NULL)) ==
	    NULL || rbmon_tuictl_scope(t, th->tid, &sc) != 0)
		return RBMON_REDRAW;
	rbmon_xasprintf(&args, "%s>%s", (const char *)arg, line);
	r = rbmon_tuictl_bp(t, &sc, "CAPT", args, NULL);
	free(args);
	return r;
}

/** rbmon_cap_prompt - A: arm captures of the selected frame's function */
void
rbmon_cap_prompt(struct rbmon_tui *t)
{
	const struct rbmon_process	*p = NULL;
	const struct rbmon_thread	*th;
	const struct rbmon_frame	*f;
	struct rbmon_srow		 r;
	struct rbmon_prompt		 pr;
	struct rbmon_sym		 sym;

	if ((th = rbmon_tuictl_thread(t, &p)) == NULL)
		return;
	if (t->focus != RBMON_PANE_STACK) {
		rbmon_tui_message(t, RBMON_MSG_INFO, "A arms captures of the "
		    "function of a frame in the stack pane (Enter or Tab goes "
		    "there)");
		return;
	}
	if (!rbmon_view_stack_at(&t->v, th, t->v.stack_sel, &r) ||
	    r.kind == RBMON_SROW_GAP || r.kind == RBMON_SROW_BLOCKED ||
	    r.frame >= th->nframes) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "no frame selected");
		return;
	}
	f = &th->frames[r.frame];
	memset(&sym, 0, sizeof sym);
	if (!f->torn && !f->named && !f->synthetic && f->fn != 0)
		rbmon_symbols_lookup(t->sy, &t->s, p, f->fn, &sym);
	if (sym.function == NULL) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "frame #%zu has no "
		    "function name to arm", rbmon_frame_number(th, r.frame));
		return;
	}
	memset(&pr, 0, sizeof pr);
	snprintf(pr.label, sizeof pr.label, "Capture %.40s slower than: ",
	    sym.function);
	pr.hint = "DURATION (500us, 2ms, 1s) or max [KEEP]  Enter arms, Esc "
	    "cancels; K lists captures";
	pr.hist = RBMON_HIST_BREAK;
	pr.enter = capprompt_enter;
	pr.arg = rbmon_xstrdup(sym.function);
	pr.free_arg = free;
	rbmon_tuictl_target(t, NULL, pr.problem, sizeof pr.problem);
	rbmon_prompt_open(t, &pr, NULL);
}
