/* SPDX-License-Identifier: MIT */
/*
 * rbmon tuiwatch: watch expressions in the full-screen monitor.  w adds a
 * watch to the selected thread, W to every thread of its process, e edits
 * and d removes the watch under the watch pane's cursor.  At each refresh
 * the watches of the selected thread's process are read and asked for
 * again; what was read is kept by thread, entry and expression with the
 * time it came, so a changed expression never shows an old value and a
 * thread that passes no hook shows its last value, marked stale.  The
 * watches added from here are removed when rbmon ends.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/strl.h"

#include "monitor/screen/tty.h"
#include "monitor/screen/tuictl.h"
#include "monitor/screen/tuimodes.h"
#include "monitor/screen/tuiwatch.h"

#define TUIWATCH_FREE_NS	(5 * 1000000000ull)	/* e: wait for a free entry */
#define TUIWATCH_STALE_NS	(2 * 1000000000ull)	/* stale, at the soonest */

/* A thread as a watch entry names it: its ring while it lived. */
struct rbmon_tui_wid {
	uint32_t	 ring;
	uint64_t	 gen;
	int32_t		 pid, tid;
};

/* A watch's value as this rbmon last read it. */
struct rbmon_tui_wval {
	struct rbmon_tui_wid id;
	int		 entry;
	char		 expr[RB_EXPR_MAX + 1];
	char		*text;		/* NULL: none read yet */
	int		 error;		/* text is an error message */
	int		 truncated;
	uint64_t	 seen_ns;	/* first seen in use */
	uint64_t	 got_ns;	/* when text was read */
	int		 live;		/* in use in the last snapshot */
};

/* A watch this rbmon added: removed again when it ends. */
struct rbmon_tui_wmine {
	struct rbmon_tui_wid id;
	int		 entry;
	char		 expr[RB_EXPR_MAX + 1];
};

struct rbmon_tuiwatch {
	struct rbmon_tui_wval	*wvals;		/* values read */
	size_t			 nwvals;
	struct rbmon_tui_wmine	*wmine;		/* watches added from here */
	size_t			 nwmine;
	int			 wsel;		/* the watch pane's cursor entry */
	int32_t			 wsel_pid, wsel_tid;
	int			 wpending;	/* e: adding once freed */
	struct rbmon_tui_wmine	 wpend;		/* the entry being freed */
	char			 wpend_expr[RB_EXPR_MAX + 1];
	uint64_t		 wpend_deadline;
};

void
rbmon_tuiwatch_init(struct rbmon_tui *t)
{
	t->w = rbmon_xcalloc(1, sizeof *t->w);
}

static int
tuiwatch_alive(const struct rbmon_process *p, const struct rbmon_thread *th)
{
	enum rbmon_tstate	st = rbmon_thread_state(p, th);

	return rbmon_thread_live(st);
}

static void
tuiwatch_cmd(struct rbmon_cmd *k, const struct rbmon_tui_wid *id)
{
	memset(k, 0, sizeof *k);
	k->ring = id->ring;
	k->gen = id->gen;
	k->pid = id->pid;
	k->tid = id->tid;
}

static void
tuiwatch_id(struct rbmon_tui_wid *id, const struct rbmon_cmd *k)
{
	id->ring = k->ring;
	id->gen = k->gen;
	id->pid = k->pid;
	id->tid = k->tid;
}

static int
tuiwatch_same(const struct rbmon_tui_wid *a, const struct rbmon_tui_wid *b)
{
	return a->ring == b->ring && a->gen == b->gen && a->pid == b->pid &&
	    a->tid == b->tid;
}

/* Aim @k at @th, the very thread of the snapshot, not a later one. */
static int
tuiwatch_target(struct rbmon_tui *t, const struct rbmon_thread *th,
    struct rbmon_cmd *k, char **cause)
{
	if (rbmon_ctl_target(rbmon_tuictl_ctl(t), th->tid, k, cause) != 0)
		return -1;
	if (k->ring != th->ring || k->pid != th->pid) {
		rbmon_xasprintf(cause, "thread %d has exited", th->tid);
		return -1;
	}
	return 0;
}

/* Are all of @k's entries in use? */
static int
tuiwatch_full(struct rbmon_tui *t, const struct rbmon_cmd *k)
{
	int	e;

	for (e = 0; e < RB_WATCHES; e++) {
		if (rbmon_ctl_watch_inuse(rbmon_tuictl_ctl(t), k, e) == RB_WATCH_FREE)
			return 0;
	}
	return 1;
}

static void
tuiwatch_mine_add(struct rbmon_tui *t, const struct rbmon_cmd *k, int entry,
    const char *expr)
{
	struct rbmon_tui_wmine	*m;

	t->w->wmine = rbmon_xreallocarray(t->w->wmine, t->w->nwmine + 1,
	    sizeof *t->w->wmine);
	m = &t->w->wmine[t->w->nwmine++];
	memset(m, 0, sizeof *m);
	tuiwatch_id(&m->id, k);
	m->entry = entry;
	strlcpy(m->expr, expr, sizeof m->expr);
}

static void
tuiwatch_mine_forget(struct rbmon_tui *t, const struct rbmon_cmd *k,
    int entry)
{
	struct rbmon_tui_wid	id;
	size_t			i, j;

	tuiwatch_id(&id, k);
	for (i = j = 0; i < t->w->nwmine; i++) {
		if (!tuiwatch_same(&t->w->wmine[i].id, &id) ||
		    t->w->wmine[i].entry != entry)
			t->w->wmine[j++] = t->w->wmine[i];
	}
	t->w->nwmine = j;
}

/* ------------------------------------------------------------------
 * Values: read at each refresh, kept with the time they came.
 */

static struct rbmon_tui_wval *
tuiwatch_find(const struct rbmon_tui *t, const struct rbmon_thread *th,
    int entry)
{
	struct rbmon_tui_wval	*v;
	size_t			 i;

	for (i = 0; i < t->w->nwvals; i++) {
		v = &t->w->wvals[i];
		if (v->id.pid == th->pid && v->id.tid == th->tid &&
		    v->id.ring == th->ring && v->entry == entry &&
		    strcmp(v->expr, th->watches[entry].expr) == 0)
			return v;
	}
	return NULL;
}

static struct rbmon_tui_wval *
tuiwatch_get(struct rbmon_tui *t, const struct rbmon_thread *th, int entry,
    const struct rbmon_cmd *k, uint64_t now)
{
	struct rbmon_tui_wval	*v;

	if ((v = tuiwatch_find(t, th, entry)) != NULL) {
		if (v->id.gen == k->gen)
			return v;
		/* The ring's thread ended and another took its tid. */
		free(v->text);
	} else {
		t->w->wvals = rbmon_xreallocarray(t->w->wvals, t->w->nwvals + 1,
		    sizeof *t->w->wvals);
		v = &t->w->wvals[t->w->nwvals++];
	}
	memset(v, 0, sizeof *v);
	tuiwatch_id(&v->id, k);
	v->entry = entry;
	strlcpy(v->expr, th->watches[entry].expr, sizeof v->expr);
	v->seen_ns = now;
	v->live = 1;
	return v;
}

/*
 * @th as a command names it: from a value read before (the control calls
 * check that the ring still has that thread), else looked up.
 */
static int
tuiwatch_known(struct rbmon_tui *t, const struct rbmon_thread *th,
    struct rbmon_cmd *k)
{
	char	*cause = NULL;
	size_t	 i;

	for (i = 0; i < t->w->nwvals; i++) {
		if (t->w->wvals[i].id.pid == th->pid &&
		    t->w->wvals[i].id.tid == th->tid &&
		    t->w->wvals[i].id.ring == th->ring) {
			tuiwatch_cmd(k, &t->w->wvals[i].id);
			return 0;
		}
	}
	if (tuiwatch_target(t, th, k, &cause) == 0)
		return 0;
	free(cause);
	return -1;
}

/* Read the values @th's entries have and ask for the next ones. */
static void
tuiwatch_refresh_thread(struct rbmon_tui *t, const struct rbmon_thread *th,
    uint64_t now)
{
	struct rbmon_tui_wval	*v;
	struct rbmon_wval	 val;
	struct rbmon_cmd	 k;
	char			*cause = NULL;
	int			 e, r;

	if (tuiwatch_known(t, th, &k) != 0)
		return;
	for (e = 0; e < RB_WATCHES; e++) {
		if (th->watches[e].inuse != RB_WATCH_SET)
			continue;
		v = tuiwatch_get(t, th, e, &k, now);
		r = rbmon_ctl_watch_read(rbmon_tuictl_ctl(t), &k, e, &val, &cause);
		if (r == 1) {
			free(v->text);
			v->text = val.text;
			v->error = val.error;
			v->truncated = val.truncated;
			v->got_ns = now;
			rbmon_ctl_watch_ask(rbmon_tuictl_ctl(t), &k, e);
		} else if (r < 0)
			v->live = 0;	/* gone: forgotten, looked up again */
		free(cause);
		cause = NULL;
	}
}

/**
 * rbmon_tuiwatch_refresh - after a snapshot: read the values of the
 * selected thread's process, forget those of entries no longer in use
 */
void
rbmon_tuiwatch_refresh(struct rbmon_tui *t)
{
	const struct rbmon_process	*p, *sel = NULL;
	const struct rbmon_thread	*th;
	struct rbmon_tui_wval		*v;
	uint64_t			 now = rbmon_mono_ns();
	size_t				 i, j;
	int				 e;

	if (!t->have_snap)
		return;
	for (i = 0; i < t->w->nwvals; i++)
		t->w->wvals[i].live = 0;
	for (i = 0; i < t->s.nprocs; i++) {
		p = &t->s.procs[i];
		for (j = 0; j < p->nthreads; j++) {
			th = &p->threads[j];
			for (e = 0; th->watches != NULL && e < RB_WATCHES;
			    e++) {
				if (th->watches[e].inuse != RB_WATCH_FREE &&
				    (v = tuiwatch_find(t, th, e)) != NULL)
					v->live = 1;
			}
		}
	}
	if (rbmon_tuictl_ctl(t) != NULL)
		rbmon_tui_selected(t, &sel);
	for (j = 0; sel != NULL && sel->alive && j < sel->nthreads; j++) {
		th = &sel->threads[j];
		if (th->watches != NULL && tuiwatch_alive(sel, th))
			tuiwatch_refresh_thread(t, th, now);
	}
	for (i = j = 0; i < t->w->nwvals; i++) {
		if (t->w->wvals[i].live)
			t->w->wvals[j++] = t->w->wvals[i];
		else
			free(t->w->wvals[i].text);
	}
	t->w->nwvals = j;
}

/* "0.3s", "12s", "1m02s", "1h03m" */
static void
tuiwatch_age(char *buf, size_t len, uint64_t ns, int tenths)
{
	unsigned long long	s = ns / 1000000000u;

	if (s < 60 && tenths)
		snprintf(buf, len, "%llu.%llus", s,
		    (unsigned long long)(ns / 100000000u % 10));
	else if (s < 60)
		snprintf(buf, len, "%llus", s);
	else if (s < 3600)
		snprintf(buf, len, "%llum%02llus", s / 60, s % 60);
	else
		snprintf(buf, len, "%lluh%02llum", s / 3600, s / 60 % 60);
}

/**
 * rbmon_tuiwatch_row - what the watch pane shows for entry @entry of @th
 * @r: filled in; its strings belong to the snapshot or the cache
 *
 * A value read from here comes with its age; one not refreshed for
 * max(2 s, three refresh intervals) is stale.  Values not read from here
 * (another process's, or without control) are the snapshot's.
 *
 * Return: 1, or 0 when the entry is not in use.
 */
int
rbmon_tuiwatch_row(const struct rbmon_tui *t, const struct rbmon_process *p,
    const struct rbmon_thread *th, int entry, struct rbmon_tui_wrow *r)
{
	const struct rbmon_watch	*w;
	const struct rbmon_tui_wval	*v;
	uint64_t			 now, since = 0, stale_ns;
	char				 age[24];

	memset(r, 0, sizeof *r);
	if (th == NULL || th->watches == NULL || entry < 0 ||
	    entry >= RB_WATCHES || th->watches[entry].inuse == RB_WATCH_FREE)
		return 0;
	w = &th->watches[entry];
	r->entry = entry;
	r->expr = w->expr;
	if (w->inuse != RB_WATCH_SET) {
		r->kind = RBMON_WROW_REMOVING;
		return 1;
	}
	v = tuiwatch_find(t, th, entry);
	if (v != NULL && v->text != NULL) {
		r->kind = v->error ? RBMON_WROW_ERROR : RBMON_WROW_VALUE;
		r->text = v->text;
		r->truncated = v->truncated;
		since = v->got_ns;
	} else if (w->resready == 1) {
		r->kind = w->reslength < 0 ? RBMON_WROW_ERROR :
		    RBMON_WROW_VALUE;
		r->text = w->result;
		r->truncated = w->reslength > RB_RESULT_MAX;
	} else {
		r->kind = RBMON_WROW_WAITING;
		if (v != NULL)
			since = v->seen_ns;
	}
	if (since == 0 || !tuiwatch_alive(p, th))
		return 1;
	now = rbmon_mono_ns();
	if (now < since)
		now = since;
	stale_ns = (uint64_t)t->o.delay * 300000000u;
	if (stale_ns < TUIWATCH_STALE_NS)
		stale_ns = TUIWATCH_STALE_NS;
	if (now - since > stale_ns) {
		r->stale = 1;
		tuiwatch_age(age, sizeof age, now - since, 0);
		snprintf(r->age, sizeof r->age, "stale %s", age);
	} else if (r->kind != RBMON_WROW_WAITING)
		tuiwatch_age(r->age, sizeof r->age, now - since, 1);
	return 1;
}

/* ------------------------------------------------------------------
 * The watch pane's cursor: an entry of the selected thread.
 */

/**
 * rbmon_tuiwatch_selected - the entry under the watch pane's cursor
 *
 * Return: the entry, the first in use when the cursor is on none, or -1.
 */
int
rbmon_tuiwatch_selected(const struct rbmon_tui *t,
    const struct rbmon_thread *th)
{
	int	e;

	if (th == NULL || th->watches == NULL)
		return -1;
	if (th->pid == t->w->wsel_pid && th->tid == t->w->wsel_tid &&
	    t->w->wsel >= 0 && t->w->wsel < RB_WATCHES &&
	    th->watches[t->w->wsel].inuse != RB_WATCH_FREE)
		return t->w->wsel;
	for (e = 0; e < RB_WATCHES; e++) {
		if (th->watches[e].inuse != RB_WATCH_FREE)
			return e;
	}
	return -1;
}

static void
tuiwatch_select(struct rbmon_tui *t, int32_t pid, int32_t tid, int entry)
{
	t->w->wsel = entry;
	t->w->wsel_pid = pid;
	t->w->wsel_tid = tid;
}

/* The entries in use of @th, in order; returns how many. */
static int
tuiwatch_rows(const struct rbmon_thread *th, int *rows)
{
	int	e, n = 0;

	for (e = 0; th != NULL && th->watches != NULL && e < RB_WATCHES; e++) {
		if (th->watches[e].inuse != RB_WATCH_FREE)
			rows[n++] = e;
	}
	return n;
}

/**
 * rbmon_tuiwatch_move - move the watch pane's cursor by @delta rows
 */
void
rbmon_tuiwatch_move(struct rbmon_tui *t, long delta)
{
	const struct rbmon_thread	*th;
	int				 rows[RB_WATCHES], n, pos, cur;

	th = t->have_snap ? rbmon_tui_selected(t, NULL) : NULL;
	if ((n = tuiwatch_rows(th, rows)) == 0)
		return;
	cur = rbmon_tuiwatch_selected(t, th);
	for (pos = 0; pos < n && rows[pos] != cur; pos++)
		;
	if (delta < -(long)pos)
		pos = 0;
	else if (delta > (long)(n - 1 - pos))
		pos = n - 1;
	else
		pos += (int)delta;
	tuiwatch_select(t, th->pid, th->tid, rows[pos]);
}

/**
 * rbmon_tuiwatch_select_row - put the cursor on the watch pane's @row
 */
void
rbmon_tuiwatch_select_row(struct rbmon_tui *t, int row)
{
	const struct rbmon_thread	*th;
	int				 rows[RB_WATCHES], n;

	th = t->have_snap ? rbmon_tui_selected(t, NULL) : NULL;
	n = tuiwatch_rows(th, rows);
	if (row >= 0 && row < n)
		tuiwatch_select(t, th->pid, th->tid, rows[row]);
}

/* ------------------------------------------------------------------
 * Adding, editing and removing.
 */

/* w, Enter: @expr for the selected thread. */
static int
tuiwatch_add(struct rbmon_tui *t, const char *expr)
{
	const struct rbmon_thread	*th;
	struct rbmon_cmd		 k;
	char				*cause = NULL;
	int				 e;

	if ((th = rbmon_tuictl_thread(t, NULL)) == NULL)
		return RBMON_REDRAW;
	if (tuiwatch_target(t, th, &k, &cause) != 0 ||
	    rbmon_ctl_watch_add(rbmon_tuictl_ctl(t), &k, expr, &e, &cause) != 0) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "%s", cause);
		free(cause);
		return RBMON_REDRAW;
	}
	tuiwatch_mine_add(t, &k, e, expr);
	tuiwatch_select(t, k.pid, k.tid, e);
	rbmon_tui_message(t, RBMON_MSG_INFO, "watch %d of thread %d: %s", e,
	    k.tid, expr);
	return RBMON_REDRAW | RBMON_RESCAN;
}

/* Append " TID" (or "TID" first) to @list, " ..." once full. */
static void
tuiwatch_list_add(char *list, size_t size, int32_t tid)
{
	char	one[16];

	snprintf(one, sizeof one, "%s%d", *list ? " " : "", (int)tid);
	if (strlen(list) + strlen(one) + 4 >= size) {
		if (strstr(list, "...") == NULL)
			strlcat(list, " ...", size);
		return;
	}
	strlcat(list, one, size);
}

/* W, Enter: @expr for every live thread of process @pid. */
static int
tuiwatch_add_all(struct rbmon_tui *t, int32_t pid, const char *expr)
{
	const struct rbmon_process	*p = NULL;
	const struct rbmon_thread	*th;
	struct rbmon_cmd		 k;
	char				*cause = NULL;
	char				 full[96], failed[96];
	size_t				 i;
	int				 e, n = 0, ok = 0, r;

	for (i = 0; t->have_snap && i < t->s.nprocs; i++) {
		if (t->s.procs[i].pid == pid && t->s.procs[i].alive)
			p = &t->s.procs[i];
	}
	if (p == NULL) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "process %d is gone",
		    pid);
		return RBMON_REDRAW;
	}
	full[0] = failed[0] = '\0';
	for (i = 0; i < p->nthreads; i++) {
		th = &p->threads[i];
		if (!tuiwatch_alive(p, th))
			continue;
		n++;
		r = tuiwatch_target(t, th, &k, &cause);
		if (r == 0 && rbmon_ctl_watch_add(rbmon_tuictl_ctl(t), &k, expr, &e,
		    &cause) == 0) {
			tuiwatch_mine_add(t, &k, e, expr);
			ok++;
		} else if (r == 0 && tuiwatch_full(t, &k))
			tuiwatch_list_add(full, sizeof full, th->tid);
		else
			tuiwatch_list_add(failed, sizeof failed, th->tid);
		free(cause);
		cause = NULL;
	}
	rbmon_tui_message(t, ok == n ? RBMON_MSG_INFO : RBMON_MSG_ERROR,
	    "%s: watch added to %d of %d thread%s of PID %d%s%s%s%s", expr, ok,
	    n, n == 1 ? "" : "s", p->pid, *full ? "; no free entry: " : "",
	    full, *failed ? "; exited: " : "", failed);
	return RBMON_REDRAW | RBMON_RESCAN;
}

/*
 * The watch under the cursor of the selected thread, in use and aimed at
 * by @k; -1 with the reason on the message line (@what: what "e" or "d"
 * would have done).
 */
static int
tuiwatch_cursor(struct rbmon_tui *t, const char *what,
    const struct rbmon_thread **thp, struct rbmon_cmd *k)
{
	const struct rbmon_thread	*th;
	char				*cause = NULL;
	int				 e;

	if (!rbmon_tuictl_usable(t) ||
	    (th = rbmon_tuictl_thread(t, NULL)) == NULL)
		return -1;
	if ((e = rbmon_tuiwatch_selected(t, th)) < 0) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "thread %d has no watch to "
		    "%s", th->tid, what);
		return -1;
	}
	if (th->watches[e].inuse != RB_WATCH_SET) {
		rbmon_tui_message(t, RBMON_MSG_INFO, "watch %d of thread %d is "
		    "being removed", e, th->tid);
		return -1;
	}
	if (tuiwatch_target(t, th, k, &cause) != 0) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "%s", cause);
		free(cause);
		return -1;
	}
	*thp = th;
	return e;
}

/*
 * e, Enter: the new expression in a free entry, then the old one removed;
 * with no entry free, the old one is removed first and the new one added
 * once the thread has freed it (rbmon_tuiwatch_tick).
 */
static int
tuiwatch_edit(struct rbmon_tui *t, const struct rbmon_tui_wmine *o,
    const char *expr)
{
	struct rbmon_cmd	 k;
	char			*cause = NULL;
	int			 e;

	tuiwatch_cmd(&k, &o->id);
	if (strcmp(expr, o->expr) == 0) {
		rbmon_tui_message(t, RBMON_MSG_INFO, "watch %d of thread %d "
		    "unchanged", o->entry, o->id.tid);
		return RBMON_REDRAW;
	}
	if (rbmon_ctl_watch_inuse(rbmon_tuictl_ctl(t), &k, o->entry) != RB_WATCH_SET) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "watch %d of thread %d is "
		    "gone (removed, or the thread exited); w adds one",
		    o->entry, o->id.tid);
		return RBMON_REDRAW | RBMON_RESCAN;
	}
	if (rbmon_ctl_watch_add(rbmon_tuictl_ctl(t), &k, expr, &e, &cause) == 0) {
		rbmon_ctl_watch_remove(rbmon_tuictl_ctl(t), &k, o->entry);
		tuiwatch_mine_forget(t, &k, o->entry);
		tuiwatch_mine_add(t, &k, e, expr);
		tuiwatch_select(t, k.pid, k.tid, e);
		rbmon_tui_message(t, RBMON_MSG_INFO, "watch %d of thread %d: %s "
		    "(watch %d removed)", e, k.tid, expr, o->entry);
		return RBMON_REDRAW | RBMON_RESCAN;
	}
	if (!tuiwatch_full(t, &k)) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "%s", cause);
		free(cause);
		return RBMON_REDRAW;
	}
	free(cause);
	if (t->w->wpending) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "still waiting for thread "
		    "%d to free watch %d", t->w->wpend.id.tid, t->w->wpend.entry);
		return RBMON_REDRAW;
	}
	if (rbmon_ctl_watch_remove(rbmon_tuictl_ctl(t), &k, o->entry) != 0) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "watch %d of thread %d is "
		    "gone", o->entry, o->id.tid);
		return RBMON_REDRAW | RBMON_RESCAN;
	}
	tuiwatch_mine_forget(t, &k, o->entry);
	t->w->wpend = *o;
	strlcpy(t->w->wpend_expr, expr, sizeof t->w->wpend_expr);
	t->w->wpending = 1;
	t->w->wpend_deadline = rbmon_mono_ns() + TUIWATCH_FREE_NS;
	rbmon_tui_message(t, RBMON_MSG_INFO, "all %d entries in use: watch %d "
	    "of thread %d removed; %s follows once the thread frees it ...",
	    RB_WATCHES, o->entry, o->id.tid, expr);
	return RBMON_REDRAW | RBMON_RESCAN;
}

/**
 * rbmon_tuiwatch_tick - an edit waiting for its entry: add when freed
 *
 * Return: the loop's flags.
 */
int
rbmon_tuiwatch_tick(struct rbmon_tui *t)
{
	struct rbmon_cmd	 k;
	char			*cause = NULL;
	int			 e;

	if (!t->w->wpending)
		return 0;
	tuiwatch_cmd(&k, &t->w->wpend.id);
	if (rbmon_ctl_watch_inuse(rbmon_tuictl_ctl(t), &k, t->w->wpend.entry) == RB_WATCH_FREE) {
		t->w->wpending = 0;
		if (rbmon_ctl_watch_add(rbmon_tuictl_ctl(t), &k, t->w->wpend_expr, &e,
		    &cause) != 0) {
			rbmon_tui_message(t, RBMON_MSG_ERROR, "watch %d of "
			    "thread %d removed, but %s not added: %s",
			    t->w->wpend.entry, k.tid, t->w->wpend_expr, cause);
			free(cause);
			return RBMON_REDRAW | RBMON_RESCAN;
		}
		tuiwatch_mine_add(t, &k, e, t->w->wpend_expr);
		tuiwatch_select(t, k.pid, k.tid, e);
		rbmon_tui_message(t, RBMON_MSG_INFO, "watch %d of thread %d: %s",
		    e, k.tid, t->w->wpend_expr);
		return RBMON_REDRAW | RBMON_RESCAN;
	}
	if (rbmon_mono_ns() < t->w->wpend_deadline)
		return 0;
	t->w->wpending = 0;
	rbmon_tui_message(t, RBMON_MSG_ERROR, "thread %d did not free watch %d "
	    "within 5 s (it passes no hook: blocked in a system call?); %s "
	    "not added", k.tid, t->w->wpend.entry, t->w->wpend_expr);
	return RBMON_REDRAW;
}

/* d, Delete: remove the watch under the cursor. */
static int
tuiwatch_remove(struct rbmon_tui *t)
{
	const struct rbmon_thread	*th;
	struct rbmon_cmd		 k;
	int				 e;

	if ((e = tuiwatch_cursor(t, "remove", &th, &k)) < 0)
		return RBMON_REDRAW;
	if (rbmon_ctl_watch_remove(rbmon_tuictl_ctl(t), &k, e) != 0) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "watch %d of thread %d is "
		    "gone", e, k.tid);
		return RBMON_REDRAW | RBMON_RESCAN;
	}
	tuiwatch_mine_forget(t, &k, e);
	rbmon_tui_message(t, RBMON_MSG_INFO, "watch %d of thread %d removed", e,
	    k.tid);
	return RBMON_REDRAW | RBMON_RESCAN;
}

/* ------------------------------------------------------------------
 * Tab: the variable name being typed, from the symbol tables.
 */

static int
tuiwatch_identch(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_';
}

/*
 * Tab: complete the identifier before the cursor.  Global names
 * only: after "." or "->" a member would follow, which is not completed.
 * Names starting with '_' only when that was typed (the sorted list puts
 * them apart from the others).
 */
static void
tuiwatch_tab(struct rbmon_tui *t, void *arg, struct rbmon_edit *ed,
    char *note, size_t notesz)
{
	const struct rbmon_process	*p = NULL;
	char *const			*v;
	const char			*line = ed->text;
	size_t				 start, wlen, n, i;

	(void)arg;
	for (start = ed->cur; start > 0 && tuiwatch_identch(line[start - 1]);
	    start--)
		;
	wlen = ed->cur - start;
	for (i = start; i > 0 && line[i - 1] == ' '; i--)
		;
	if (i > 0 && (line[i - 1] == '.' || (i > 1 &&
	    line[i - 1] == '>' && line[i - 2] == '-'))) {
		snprintf(note, notesz, "members are not completed: Tab "
		    "completes variable names");
		return;
	}
	if (wlen == 0 || (line[start] >= '0' && line[start] <= '9')) {
		snprintf(note, notesz, "type the start of a variable name, "
		    "then Tab");
		return;
	}
	if (rbmon_tui_selected(t, &p) == NULL) {
		snprintf(note, notesz, "select a thread first");
		return;
	}
	v = rbmon_symbols_variables(t->sy, &t->s, p, &n);
	rbmon_edit_complete(ed, start, v, n, "variable", note, notesz);
}

static int
tuiwatch_add_enter(struct rbmon_tui *t, void *arg, const char *line)
{
	(void)arg;
	if (!rbmon_tuictl_usable(t))
		return RBMON_REDRAW;
	return tuiwatch_add(t, line);
}

static int
tuiwatch_all_enter(struct rbmon_tui *t, void *arg, const char *line)
{
	if (!rbmon_tuictl_usable(t))
		return RBMON_REDRAW;
	return tuiwatch_add_all(t, *(int32_t *)arg, line);
}

static int
tuiwatch_edit_enter(struct rbmon_tui *t, void *arg, const char *line)
{
	if (!rbmon_tuictl_usable(t))
		return RBMON_REDRAW;
	return tuiwatch_edit(t, arg, line);
}

#define TUIWATCH_HINT	"C EXPRESSION over globals  Tab completes a name, " \
	"Up/Down history, Enter watches, Esc cancels"

/*
 * w, W, e: the prompt opens even when nothing can be watched (the thread
 * has ended, no watch to edit) and says why, so that what is typed next
 * goes into it, not to the keys of the screen.
 */
static int
tuiwatch_prompt(struct rbmon_tui *t, enum rbmon_action act)
{
	const struct rbmon_thread	*th;
	struct rbmon_tui_wmine		*o;
	struct rbmon_prompt		 p;
	struct rbmon_cmd		 k;
	const char			*initial = NULL;
	int				 e;

	memset(&p, 0, sizeof p);
	p.hint = TUIWATCH_HINT;
	p.hist = RBMON_HIST_WATCH;
	p.tab = tuiwatch_tab;
	th = rbmon_tuictl_target(t, NULL, p.problem, sizeof p.problem);
	switch (act) {
	case RBMON_ACT_WATCH:
		strlcpy(p.label, "Watch: ", sizeof p.label);
		p.enter = tuiwatch_add_enter;
		break;
	case RBMON_ACT_WATCH_ALL:
		if (th != NULL)
			snprintf(p.label, sizeof p.label, "Watch in every "
			    "thread of PID %d: ", th->pid);
		else
			strlcpy(p.label, "Watch in every thread: ",
			    sizeof p.label);
		p.arg = rbmon_xcalloc(1, sizeof(int32_t));
		*(int32_t *)p.arg = th != NULL ? th->pid : 0;
		p.free_arg = free;
		p.enter = tuiwatch_all_enter;
		break;
	default:
		strlcpy(p.label, "Edit watch: ", sizeof p.label);
		p.enter = tuiwatch_edit_enter;
		if (th == NULL)
			break;
		if ((e = tuiwatch_cursor(t, "edit (w adds one)", &th, &k)) < 0) {
			strlcpy(p.problem, t->msg, sizeof p.problem);
			rbmon_tui_message(t, RBMON_MSG_NONE, " ");
			break;
		}
		o = rbmon_xcalloc(1, sizeof *o);
		tuiwatch_id(&o->id, &k);
		o->entry = e;
		strlcpy(o->expr, th->watches[e].expr, sizeof o->expr);
		tuiwatch_select(t, k.pid, k.tid, e);
		snprintf(p.label, sizeof p.label, "Edit watch %d: ", e);
		p.arg = o;
		p.free_arg = free;
		initial = o->expr;
		break;
	}
	rbmon_prompt_open(t, &p, initial);
	return RBMON_REDRAW;
}

/**
 * rbmon_tuiwatch_action - w, W, e, d, and Delete in the watch pane
 *
 * Return: the loop's flags, or -1 if the action is not the watches'.
 */
int
rbmon_tuiwatch_action(struct rbmon_tui *t, enum rbmon_action act)
{
	switch (act) {
	case RBMON_ACT_WATCH:
	case RBMON_ACT_WATCH_ALL:
	case RBMON_ACT_WATCH_EDIT:
		return tuiwatch_prompt(t, act);
	case RBMON_ACT_WATCH_DEL_PANE:
		if (t->focus != RBMON_PANE_WATCH)
			return 0;
		return tuiwatch_remove(t);
	case RBMON_ACT_WATCH_DEL:
		return tuiwatch_remove(t);
	default:
		return -1;
	}
}

/* ------------------------------------------------------------------
 * Leaving.
 */

/* Does entry @m still hold what this rbmon put there? */
static int
tuiwatch_still_mine(const struct rbmon_snapshot *s,
    const struct rbmon_tui_wmine *m)
{
	const struct rbmon_thread	*th;
	size_t				 i, j;

	for (i = 0; i < s->nprocs; i++) {
		for (j = 0; j < s->procs[i].nthreads; j++) {
			th = &s->procs[i].threads[j];
			if (th->pid != m->id.pid || th->tid != m->id.tid ||
			    th->ring != m->id.ring)
				continue;
			return th->watches != NULL &&
			    th->watches[m->entry].inuse == RB_WATCH_SET &&
			    strcmp(th->watches[m->entry].expr, m->expr) == 0;
		}
	}
	return 0;
}

/**
 * rbmon_tuiwatch_end - remove the watches added from here; free the cache
 *
 * Entries another monitor has taken over since are left alone.  The
 * threads free the entries at their next hooks.
 */
void
rbmon_tuiwatch_end(struct rbmon_tui *t)
{
	struct rbmon_snapshot	 s;
	struct rbmon_cmd	 k;
	char			*cause = NULL;
	size_t			 i;
	int			 have = 0;

	if (t->w == NULL)
		return;
	if (rbmon_tuictl_ctl(t) != NULL && t->w->nwmine > 0) {
		have = rbmon_model_snapshot(t->m, &s, &cause) == 0;
		free(cause);
		for (i = 0; i < t->w->nwmine; i++) {
			if (have && !tuiwatch_still_mine(&s, &t->w->wmine[i]))
				continue;
			tuiwatch_cmd(&k, &t->w->wmine[i].id);
			rbmon_ctl_watch_remove(rbmon_tuictl_ctl(t), &k, t->w->wmine[i].entry);
		}
		if (have)
			rbmon_model_free(&s);
	}
	for (i = 0; i < t->w->nwvals; i++)
		free(t->w->wvals[i].text);
	free(t->w->wvals);
	free(t->w->wmine);
	free(t->w);
	t->w = NULL;
}
