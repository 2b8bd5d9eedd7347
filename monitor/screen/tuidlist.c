/* SPDX-License-Identifier: MIT */
/*
 * rbmon tuidlist: the functions not traced in one process (X), from its
 * entry of the dynamic tracing table, a full screen read again at each
 * snapshot: Enter traces the function under the cursor again, a every
 * function switched off by name; any other key goes back.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/core/dyn.h"
#include "monitor/core/symbols.h"
#include "monitor/screen/keytab.h"
#include "monitor/screen/tuidraw.h"
#include "monitor/screen/tty.h"
#include "monitor/screen/tuictl.h"
#include "monitor/screen/tuimodes.h"

struct dlist_state {
	int32_t		pid;
	uint64_t	pstart;
	int32_t		tid;		/* the thread requests go to */
	size_t		sel;
};

/* The process and its entry in the snapshot shown now, or NULL. */
static const struct rbmon_dyn *
dlist_entry(struct rbmon_tui *t, const struct dlist_state *ds,
    const struct rbmon_process **pp)
{
	size_t	i;

	*pp = NULL;
	if (!t->have_snap)
		return NULL;
	for (i = 0; i < t->s.nprocs; i++) {
		if (t->s.procs[i].pid == ds->pid &&
		    t->s.procs[i].pstart == ds->pstart) {
			*pp = &t->s.procs[i];
			return t->s.procs[i].dyn;
		}
	}
	return NULL;
}

static int
dlist_key(struct rbmon_tui *t, void *arg, int key)
{
	struct dlist_state		*ds = arg;
	const struct rbmon_process	*p;
	const struct rbmon_dyn		*d;
	char				 req[64];

	d = dlist_entry(t, ds, &p);
	switch (rbmon_keytab_action(RBMON_KM_DLIST, key)) {
	case RBMON_ACT_DL_UP:
		if (ds->sel > 0)
			ds->sel--;
		return RBMON_REDRAW;
	case RBMON_ACT_DL_DOWN:
		if (d != NULL && ds->sel + 1 < d->nfns)
			ds->sel++;
		return RBMON_REDRAW;
	case RBMON_ACT_DL_INCLUDE:
		if (d == NULL || d->torn || ds->sel >= d->nfns) {
			rbmon_tui_message(t, RBMON_MSG_ERROR, "no function "
			    "selected");
			return RBMON_REDRAW;
		}
		snprintf(req, sizeof req, "include-addr 0x%" PRIx64,
		    d->fns[ds->sel].addr);
		return rbmon_tuictl_dyn(t, ds->tid, req);
	case RBMON_ACT_DL_INCLUDE_ALL:
		return rbmon_tuictl_dyn(t, ds->tid, "include-all");
	default:
		if (key == RBMON_KEY_MOUSE)
			return 0;
		rbmon_tui_pop(t);
		return RBMON_REDRAW;
	}
}

static void
dlist_draw(struct rbmon_tui *t, void *arg)
{
	struct dlist_state		*ds = arg;
	const struct rbmon_process	*p;
	const struct rbmon_dyn		*d;
	struct rbmon_sym		 sym;
	char				 buf[1024], sum[256];
	int				 y, top = 0, rows = LINES - 5;
	size_t				 i;
	uint64_t			 more;

	erase();
	d = dlist_entry(t, ds, &p);
	if (d != NULL)
		rbmon_dyn_summary(d, sum, sizeof sum);
	snprintf(buf, sizeof buf, "Not traced in process %d: %s", ds->pid,
	    d != NULL ? sum : "no dynamic tracing entry");
	rbmon_draw_fill(0, 0, COLS, rbmon_tty_attr(RBMON_A_TITLE_FOCUS));
	rbmon_draw_text(0, 1, COLS - 1, rbmon_tty_attr(RBMON_A_TITLE_FOCUS),
	    buf);
	if (rows < 1)
		rows = 1;
	if (d == NULL || d->torn || d->nfns == 0) {
		rbmon_draw_text(2, 2, COLS - 2, A_NORMAL, d != NULL &&
		    d->torn ? "the entry kept changing while read" :
		    "no function switched off (x in the stack pane switches "
		    "one off)");
		if (d != NULL && (d->flags & RB_DYNF_REFUSED))
			rbmon_draw_text(3, 2, COLS - 2, A_NORMAL, d->why);
	} else {
		if (ds->sel >= d->nfns)
			ds->sel = d->nfns - 1;
		if ((int)ds->sel >= rows)
			top = (int)ds->sel - rows + 1;
		for (i = (size_t)top, y = 1; i < d->nfns && y <= rows; i++,
		    y++) {
			attr_t a = i == ds->sel ?
			    rbmon_tty_attr(RBMON_A_SELECT) : A_NORMAL;

			rbmon_symbols_lookup(t->sy, &t->s, p, d->fns[i].addr,
			    &sym);
			snprintf(buf, sizeof buf, "%-10s 0x%-14" PRIx64 " %s",
			    rbmon_dyn_reason(d->fns[i].reason), d->fns[i].addr,
			    sym.function != NULL ? sym.function : "??");
			if (i == ds->sel)
				rbmon_draw_fill(y, 0, COLS, a);
			rbmon_draw_text(y, 1, COLS - 1, a, buf);
		}
		more = rbmon_dyn_more(d);
		if (more > 0 && y <= rows) {
			snprintf(buf, sizeof buf, "and %" PRIu64 " more", more);
			rbmon_draw_text(y, 1, COLS - 1, A_NORMAL, buf);
		}
	}
	rbmon_draw_message(t);
	rbmon_draw_keybar(LINES - 1, RBMON_KM_DLIST, "other keys: back");
	curs_set(0);
}

static const struct rbmon_mode_ops dlist_ops = {
	.name = "not traced",
	.key = dlist_key,
	.draw = dlist_draw,
	.free = free,
};

/**
 * rbmon_dlist_open - X: the functions not traced in the selected thread's
 * process
 */
void
rbmon_dlist_open(struct rbmon_tui *t)
{
	const struct rbmon_process	*p = NULL;
	const struct rbmon_thread	*th;
	struct dlist_state		*ds;

	if ((th = rbmon_tui_selected(t, &p)) == NULL) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "select a thread first");
		return;
	}
	ds = rbmon_xcalloc(1, sizeof *ds);
	ds->pid = p->pid;
	ds->pstart = p->pstart;
	ds->tid = th->tid;
	if (p->dyn == NULL)
		rbmon_tui_message(t, RBMON_MSG_INFO, "process %d has no "
		    "dynamic tracing entry", p->pid);
	else
		rbmon_tui_message(t, RBMON_MSG_INFO, "%" PRIu64 " function%s "
		    "not traced in process %d", rbmon_dyn_off(p->dyn),
		    rbmon_dyn_off(p->dyn) == 1 ? "" : "s", p->pid);
	if (rbmon_tui_push(t, &dlist_ops, ds) != 0)
		free(ds);
}
