/* SPDX-License-Identifier: MIT */
/* rbmon view: rows, selection, search and text of the screen, no curses. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/util/escape.h"
#include "monitor/core/view.h"

static const long view_delays[] = {
	1, 2, 3, 5, 10, 15, 20, 30, 50, 100, 200, 300, 600, 1200, 3000,
	6000, 18000, 36000
};

void
rbmon_view_init(struct rbmon_view *v)
{
	memset(v, 0, sizeof *v);
}

void
rbmon_view_free(struct rbmon_view *v)
{
	free(v->rows);
	free(v->expanded);
	memset(v, 0, sizeof *v);
}

/**
 * rbmon_process_exited - whether a dead process ended every thread itself
 * @p: the process
 *
 * Return: 1 if it is gone and all its rings say so (a clean exit), else 0.
 */
int
rbmon_process_exited(const struct rbmon_process *p)
{
	size_t	i;

	if (p->alive)
		return 0;
	for (i = 0; i < p->nthreads; i++) {
		if (p->threads[i].own != RB_OWN_EXITED &&
		    p->threads[i].state != RB_STATE_EXITED)
			return 0;
	}
	return 1;
}

/**
 * rbmon_thread_state - what the screen calls a thread's state
 * @p: its process
 * @t: the thread
 *
 * Return: the state.
 */
enum rbmon_tstate
rbmon_thread_state(const struct rbmon_process *p, const struct rbmon_thread *t)
{
	if (t->state == RB_STATE_DETACHED)
		return RBMON_TS_DETACHED;
	if (t->own == RB_OWN_EXITED || t->state == RB_STATE_EXITED)
		return RBMON_TS_EXITED;
	if (!p->alive)
		return RBMON_TS_GONE;
	if (t->state == RB_STATE_STOPPED)
		return RBMON_TS_STOPPED;
	if (t->trace == 0 || (t->attention & RB_ATTN_UNTRACED))
		return RBMON_TS_UNTRACED;
	return RBMON_TS_RUNNING;
}

/**
 * rbmon_thread_live - does a thread in state @st run traced: neither
 * exited, gone, nor detached?
 */
int
rbmon_thread_live(enum rbmon_tstate st)
{
	return st != RBMON_TS_EXITED && st != RBMON_TS_GONE &&
	    st != RBMON_TS_DETACHED;
}

const char *
rbmon_tstate_name(enum rbmon_tstate st)
{
	switch (st) {
	case RBMON_TS_RUNNING:
		return "running";
	case RBMON_TS_UNTRACED:
		return "untraced";
	case RBMON_TS_STOPPED:
		return "stopped";
	case RBMON_TS_EXITED:
		return "exited";
	case RBMON_TS_DETACHED:
		return "detached";
	case RBMON_TS_GONE:
		return "gone";
	}
	return "?";
}

/* Stop reasons: the screen's word and the JSON output's name. */
static const struct {
	const char	*word, *json;
} view_whys[] = {
	[RB_WHY_NONE] = { "", "none" },
	[RB_WHY_STOP] = { "stop", "stop" },
	[RB_WHY_SIGNAL] = { "signal", "signal" },
	[RB_WHY_STEP] = { "step", "step" },
	[RB_WHY_NEXT] = { "next", "next" },
	[RB_WHY_FINISH] = { "finish", "finish" },
	[RB_WHY_BREAKPOINT] = { "break", "breakpoint" },
	[RB_WHY_CREATE] = { "create", "stop_on_create" },
	[RB_WHY_SINGLE] = { "single", "single" },
};

/**
 * rbmon_why_name - a stop reason in a word, as the screen shows it
 * @why: rb_ring.why
 *
 * Return: a static name; "?" for a reason this rbmon does not know.
 */
const char *
rbmon_why_name(int32_t why)
{
	uint32_t	r = RB_WHY_REASON(why);

	return r < sizeof view_whys / sizeof view_whys[0] ? view_whys[r].word :
	    "?";
}

/**
 * rbmon_why_json - a stop reason as the JSON and text dumps name it
 * @why: rb_ring.why
 *
 * Return: a static name; "unknown" for a reason this rbmon does not know.
 */
const char *
rbmon_why_json(int32_t why)
{
	uint32_t	r = RB_WHY_REASON(why);

	return r < sizeof view_whys / sizeof view_whys[0] ? view_whys[r].json :
	    "unknown";
}

/**
 * rbmon_state_text - a thread's state as one short word or two
 * @buf: output
 * @len: its size
 * @p: the process
 * @t: the thread
 *
 * "running", "untraced", "stopped", "stopped:break 2", "exited", "gone".
 */
void
rbmon_state_text(char *buf, size_t len, const struct rbmon_process *p,
    const struct rbmon_thread *t)
{
	enum rbmon_tstate	 st = rbmon_thread_state(p, t);
	const char		*why;

	why = rbmon_why_name(t->why);
	if (st != RBMON_TS_STOPPED || *why == '\0')
		snprintf(buf, len, "%s", rbmon_tstate_name(st));
	else if (RB_WHY_REASON(t->why) == RB_WHY_BREAKPOINT)
		snprintf(buf, len, "stopped:%s %u", why, RB_WHY_ID(t->why));
	else
		snprintf(buf, len, "stopped:%s", why);
}

/**
 * rbmon_view_count - processes and threads by state, for the header
 * @s: the snapshot
 * @c: filled in
 */
void
rbmon_view_count(const struct rbmon_snapshot *s, struct rbmon_counts *c)
{
	const struct rbmon_process	*p;
	size_t				 i, j;

	memset(c, 0, sizeof *c);
	for (i = 0; i < s->nprocs; i++) {
		p = &s->procs[i];
		if (p->alive)
			c->procs_alive++;
		else if (rbmon_process_exited(p))
			c->procs_exited++;
		else
			c->procs_gone++;
		for (j = 0; j < p->nthreads; j++) {
			switch (rbmon_thread_state(p, &p->threads[j])) {
			case RBMON_TS_EXITED:
				c->threads_exited++;
				break;
			case RBMON_TS_GONE:
				c->threads_gone++;
				break;
			case RBMON_TS_STOPPED:
				c->stopped++;
				/* FALLTHROUGH */
			default:
				c->threads_alive++;
			}
		}
	}
}

/**
 * rbmon_view_matches - whether a thread passes the view's filter: its
 * name, or a function on its stack, holds the filter's text (any case)
 *
 * Return: 1 if it does, or if there is no filter.
 */
int
rbmon_view_matches(const struct rbmon_view *v, const struct rbmon_process *p,
    const struct rbmon_thread *t)
{
	size_t	f;

	if (v->filter[0] == '\0' || rbmon_match(t->name, v->filter))
		return 1;
	for (f = 0; v->namer != NULL && f < t->nframes; f++)
		if (rbmon_match(v->namer(v->namer_arg, p, t, f), v->filter))
			return 1;
	return 0;
}

static int
view_shown(const struct rbmon_view *v, const struct rbmon_process *p,
    const struct rbmon_thread *t)
{
	enum rbmon_tstate	st;

	if (v->hide_exited) {
		st = rbmon_thread_state(p, t);
		if (st == RBMON_TS_EXITED || st == RBMON_TS_GONE)
			return 0;
	}
	return rbmon_view_matches(v, p, t);
}

static const char *const sort_names[RBMON_SORTS] = {
	[RBMON_SORT_TID] = "TID",
	[RBMON_SORT_NAME] = "NAME",
	[RBMON_SORT_CPU] = "CPU%",
	[RBMON_SORT_DEPTH] = "DEPTH",
	[RBMON_SORT_TIME] = "TIME",
};

/* The column a sort order is by, as the list's title names it. */
const char *
rbmon_sort_name(enum rbmon_sort k)
{
	return k < RBMON_SORTS ? sort_names[k] : "?";
}

/*
 * When a thread's innermost traced call was entered (without a clock: first
 * seen, rbmon_seen_update()); 0: none.
 */
static uint64_t
view_inner_ts(const struct rbmon_thread *t)
{
	size_t	f;

	for (f = 0; f < t->nframes; f++)
		if (!t->frames[f].synthetic && !t->frames[f].torn)
			return t->frames[f].ts != 0 ? t->frames[f].ts :
			    t->frames[f].seen_ns;
	return 0;
}

struct view_sort {
	const struct rbmon_process	*p;
	enum rbmon_sort			 by;
};

static int
view_thread_cmp(const void *a, const void *b, void *arg)
{
	const struct view_sort		*vs = arg;
	const struct rbmon_thread	*x = &vs->p->threads[*(const size_t *)a];
	const struct rbmon_thread	*y = &vs->p->threads[*(const size_t *)b];
	uint64_t			 tx, ty;
	int				 c = 0;

	switch (vs->by) {
	case RBMON_SORT_NAME:
		c = strcmp(x->name, y->name);
		break;
	case RBMON_SORT_CPU:
		c = (y->cpu > x->cpu) - (y->cpu < x->cpu);
		break;
	case RBMON_SORT_DEPTH:
		c = (y->depth > x->depth) - (y->depth < x->depth);
		break;
	case RBMON_SORT_TIME:
		/* Entered earliest: longest in it.  No frame: last. */
		tx = view_inner_ts(x);
		ty = view_inner_ts(y);
		if (tx == 0 || ty == 0)
			c = (tx == 0) - (ty == 0);
		else
			c = (tx > ty) - (tx < ty);
		break;
	default:
		break;
	}
	if (c == 0)
		c = (x->tid > y->tid) - (x->tid < y->tid);
	return c;
}

static void
view_push(struct rbmon_view *v, enum rbmon_row_kind kind, size_t proc,
    size_t thread, int depth, uint32_t bars)
{
	struct rbmon_row	*r;

	if (v->nrows == v->cap) {
		v->cap = v->cap == 0 ? 64 : v->cap * 2;
		v->rows = rbmon_xreallocarray(v->rows, v->cap, sizeof *v->rows);
	}
	r = &v->rows[v->nrows++];
	r->kind = kind;
	r->proc = proc;
	r->thread = thread;
	r->last = 0;
	r->depth = depth;
	r->bars = bars;
}

#define VIEW_NONE	SIZE_MAX
#define VIEW_UNSET	(SIZE_MAX - 1)

/*
 * The process tree of one snapshot, by index, scratch for a rebuild: per
 * process whether it has a thread row, its parent (VIEW_NONE: none), the
 * nearest shown process at or above it, and its shown children in order;
 * per level, the next child to lay out and whether the process there is
 * its parent's last.
 */
struct view_tree {
	size_t		 n;
	char		*shown;
	size_t		*parent;
	size_t		*up;
	size_t		*first, *next, *tail;
	size_t		*stack;
	int		*lastat;
};

struct view_key {
	int32_t		 pid;
	uint64_t	 pstart;
	size_t		 i;
};

static int
view_key_cmp(const void *a, const void *b)
{
	const struct view_key	*x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->pstart != y->pstart)
		return x->pstart < y->pstart ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * Each process's parent: the process with its recorded ppid that started
 * last, but not after it (a later one with that pid reused it).  Links
 * that close a cycle (only a corrupt file has one) are cut.
 */
static void
view_tree_parents(struct view_tree *t, const struct rbmon_snapshot *s)
{
	const struct rbmon_process	*c;
	struct view_key			*keys, want, *k;
	size_t				 i, j, lo, hi, mid;

	keys = rbmon_xcalloc(t->n, sizeof *keys);
	for (i = 0; i < t->n; i++) {
		keys[i].pid = s->procs[i].pid;
		keys[i].pstart = s->procs[i].pstart;
		keys[i].i = i;
	}
	qsort(keys, t->n, sizeof *keys, view_key_cmp);
	for (i = 0; i < t->n; i++) {
		c = &s->procs[i];
		t->parent[i] = VIEW_NONE;
		if (c->ppid <= 0 || c->ppid == c->pid)
			continue;
		/* The first key after (ppid, pstart, any index). */
		want.pid = c->ppid;
		want.pstart = c->pstart != 0 ? c->pstart : UINT64_MAX;
		want.i = SIZE_MAX;
		lo = 0;
		hi = t->n;
		while (lo < hi) {
			mid = lo + (hi - lo) / 2;
			if (view_key_cmp(&keys[mid], &want) <= 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (j = lo; j-- > 0;) {
			k = &keys[j];
			if (k->pid != c->ppid)
				break;
			if (k->i != i) {
				t->parent[i] = k->i;
				break;
			}
		}
	}
	free(keys);

	/* up[] marks the walk: UNSET not seen, i on this walk, NONE done. */
	for (i = 0; i < t->n; i++)
		t->up[i] = VIEW_UNSET;
	for (i = 0; i < t->n; i++) {
		for (j = i; j != VIEW_NONE && t->up[j] == VIEW_UNSET;
		    j = t->parent[j]) {
			t->up[j] = i;
			if (t->parent[j] != VIEW_NONE &&
			    t->up[t->parent[j]] == i)
				t->parent[j] = VIEW_NONE;
		}
		for (j = i; j != VIEW_NONE && t->up[j] == i; j = t->parent[j])
			t->up[j] = VIEW_NONE;
	}
}

/* up[i]: i if shown, else the nearest shown ancestor, else VIEW_NONE. */
static void
view_tree_up(struct view_tree *t)
{
	size_t	i, j, k, r, len;

	for (i = 0; i < t->n; i++)
		t->up[i] = VIEW_UNSET;
	for (i = 0; i < t->n; i++) {
		len = 0;
		for (j = i; j != VIEW_NONE && t->up[j] == VIEW_UNSET &&
		    !t->shown[j]; j = t->parent[j])
			t->stack[len++] = j;
		if (j == VIEW_NONE)
			r = VIEW_NONE;
		else if (t->up[j] != VIEW_UNSET)
			r = t->up[j];
		else
			r = t->up[j] = j;
		for (k = 0; k < len; k++)
			t->up[t->stack[k]] = r;
	}
}

static void
view_tree_init(struct view_tree *t, const struct rbmon_view *v,
    const struct rbmon_snapshot *s)
{
	const struct rbmon_process	*p;
	size_t				 i, j, n = s->nprocs, up;

	memset(t, 0, sizeof *t);
	t->n = n;
	t->shown = rbmon_xcalloc(n, 1);
	t->parent = rbmon_xcalloc(n, sizeof *t->parent);
	t->up = rbmon_xcalloc(n, sizeof *t->up);
	t->first = rbmon_xcalloc(n, sizeof *t->first);
	t->next = rbmon_xcalloc(n, sizeof *t->next);
	t->tail = rbmon_xcalloc(n, sizeof *t->tail);
	t->stack = rbmon_xcalloc(n + 2, sizeof *t->stack);
	t->lastat = rbmon_xcalloc(n + 2, sizeof *t->lastat);
	for (i = 0; i < n; i++) {
		p = &s->procs[i];
		for (j = 0; j < p->nthreads && !t->shown[i]; j++)
			t->shown[i] = (char)view_shown(v, p, &p->threads[j]);
		t->first[i] = t->next[i] = t->tail[i] = VIEW_NONE;
	}
	view_tree_parents(t, s);
	/* A hidden process's children go to the nearest shown ancestor. */
	view_tree_up(t);
	for (i = 0; i < n; i++) {
		if (!t->shown[i] || t->parent[i] == VIEW_NONE)
			continue;
		up = t->up[t->parent[i]];
		t->parent[i] = up;
		if (up == VIEW_NONE)
			continue;
		if (t->first[up] == VIEW_NONE)
			t->first[up] = i;
		else
			t->next[t->tail[up]] = i;
		t->tail[up] = i;
	}
}

static void
view_tree_free(struct view_tree *t)
{
	free(t->shown);
	free(t->parent);
	free(t->up);
	free(t->first);
	free(t->next);
	free(t->tail);
	free(t->stack);
	free(t->lastat);
}

/* Bit k set: the ancestor at level k + 1 of a row at @depth has more below. */
static uint32_t
view_bars(const struct view_tree *t, int depth)
{
	uint32_t	b = 0;
	int		k;

	for (k = 0; k + 1 < depth && k + 1 < RBMON_TREE_MAX; k++) {
		if (!t->lastat[k + 1])
			b |= 1u << k;
	}
	return b;
}

/* A process row, then its threads: running first, then those that ended. */
static void
view_process_rows(struct rbmon_view *v, const struct rbmon_snapshot *s,
    struct view_tree *t, size_t i, int depth, int last)
{
	const struct rbmon_process	*p = &s->procs[i];
	struct view_sort		 vs = { p, v->sort };
	uint32_t			 bars;
	size_t				 j, k, n, *order;
	int				 pass;

	t->lastat[depth] = last;
	view_push(v, RBMON_ROW_PROCESS, i, 0, depth, view_bars(t, depth));
	v->rows[v->nrows - 1].last = last;
	bars = view_bars(t, depth + 1);
	order = rbmon_xcalloc(p->nthreads ? p->nthreads : 1, sizeof *order);
	for (pass = 0; pass < 2; pass++) {
		for (j = n = 0; j < p->nthreads; j++) {
			if ((rbmon_thread_state(p, &p->threads[j]) ==
			    RBMON_TS_EXITED) != pass ||
			    !view_shown(v, p, &p->threads[j]))
				continue;
			order[n++] = j;
		}
		if (v->sort != RBMON_SORT_TID)
			qsort_r(order, n, sizeof *order, view_thread_cmp, &vs);
		for (k = 0; k < n; k++)
			view_push(v, RBMON_ROW_THREAD, i, order[k], depth + 1,
			    bars);
	}
	free(order);
	if (t->first[i] == VIEW_NONE)
		v->rows[v->nrows - 1].last = 1;
}

/* A top process and everything under it, depth first, without recursion. */
static void
view_tree_rows(struct rbmon_view *v, const struct rbmon_snapshot *s,
    struct view_tree *t, size_t top)
{
	size_t	c, level = 1;

	view_process_rows(v, s, t, top, 0, 1);
	t->stack[1] = t->first[top];
	while (level > 0) {
		c = t->stack[level];
		if (c == VIEW_NONE) {
			level--;
			continue;
		}
		t->stack[level] = t->next[c];
		view_process_rows(v, s, t, c, (int)level,
		    t->next[c] == VIEW_NONE);
		t->stack[++level] = t->first[c];
	}
}

/**
 * rbmon_view_tree_cols - columns of a row's tree prefix
 * @r: the row
 *
 * Return: its depth, at most RBMON_TREE_MAX.
 */
int
rbmon_view_tree_cols(const struct rbmon_row *r)
{
	return r->depth < RBMON_TREE_MAX ? r->depth : RBMON_TREE_MAX;
}

/**
 * rbmon_view_tree_at - what column @k of a row's tree prefix shows
 * @r: the row
 * @k: 0 .. rbmon_view_tree_cols() - 1
 *
 * Return: a bar or a blank for the levels above, the row's own branch last.
 */
enum rbmon_tree
rbmon_view_tree_at(const struct rbmon_row *r, int k)
{
	if (k == rbmon_view_tree_cols(r) - 1)
		return r->last ? RBMON_TREE_END : RBMON_TREE_MID;
	return (r->bars >> k) & 1 ? RBMON_TREE_BAR : RBMON_TREE_BLANK;
}

static void
view_ident(const struct rbmon_snapshot *s, const struct rbmon_row *r,
    struct rbmon_ident *id)
{
	const struct rbmon_process	*p = &s->procs[r->proc];
	const struct rbmon_thread	*t = &p->threads[r->thread];

	id->ring = t->ring;
	id->pid = t->pid;
	id->tid = t->tid;
	id->pstart = t->pstart;
	id->created_ns = t->created_ns;
}

static int
view_ident_eq(const struct rbmon_ident *a, const struct rbmon_ident *b)
{
	return a->ring == b->ring && a->pid == b->pid && a->tid == b->tid &&
	    a->pstart == b->pstart && a->created_ns == b->created_ns;
}

/* The thread row nearest to row i, looking down first; nrows if none. */
static size_t
view_nearest_thread(const struct rbmon_view *v, size_t i)
{
	size_t	k;

	if (v->nrows == 0)
		return 0;
	if (i >= v->nrows)
		i = v->nrows - 1;
	for (k = i; k < v->nrows; k++) {
		if (v->rows[k].kind == RBMON_ROW_THREAD)
			return k;
	}
	for (k = i + 1; k-- > 0;) {
		if (v->rows[k].kind == RBMON_ROW_THREAD)
			return k;
	}
	return v->nrows;
}

/**
 * rbmon_view_select_row - select a row (or the thread row nearest to it)
 * @v: the view
 * @s: the snapshot its rows index
 * @row: the row
 */
void
rbmon_view_select_row(struct rbmon_view *v, const struct rbmon_snapshot *s,
    size_t row)
{
	struct rbmon_ident	id;
	size_t			k;

	k = view_nearest_thread(v, row);
	if (k >= v->nrows) {
		v->have_sel = 0;
		return;
	}
	view_ident(s, &v->rows[k], &id);
	if (!v->have_sel || !view_ident_eq(&id, &v->sel))
		v->stack_top = v->stack_sel = 0;
	v->have_sel = 1;
	v->sel_row = k;
	v->sel = id;
}

/* The thread row showing @id; v->nrows if none. */
static size_t
view_find(const struct rbmon_view *v, const struct rbmon_snapshot *s,
    const struct rbmon_ident *id)
{
	struct rbmon_ident	cur;
	size_t			i;

	for (i = 0; i < v->nrows; i++) {
		if (v->rows[i].kind != RBMON_ROW_THREAD)
			continue;
		view_ident(s, &v->rows[i], &cur);
		if (view_ident_eq(&cur, id))
			return i;
	}
	return v->nrows;
}

/**
 * rbmon_view_select_ident - select a thread again by its identity
 * @v: the view
 * @s: its snapshot
 * @id: as kept in v->sel earlier
 *
 * Return: 1 if the thread is shown and now selected, else 0 (unchanged).
 */
int
rbmon_view_select_ident(struct rbmon_view *v, const struct rbmon_snapshot *s,
    const struct rbmon_ident *id)
{
	size_t	k = view_find(v, s, id);

	if (k == v->nrows)
		return 0;
	rbmon_view_select_row(v, s, k);
	return 1;
}

/**
 * rbmon_view_rebuild - lay out the rows of a new snapshot
 * @v: the view; its selection follows the same thread if it is still
 *     shown, else moves to the nearest thread row
 * @s: the snapshot
 *
 * Processes form a tree by the parent pid their rings recorded, in
 * snapshot order among siblings; a process whose parent is not in the
 * file, or not shown and with no shown ancestor, is at the top.
 */
void
rbmon_view_rebuild(struct rbmon_view *v, const struct rbmon_snapshot *s)
{
	struct view_tree	t;
	size_t			i, old_row = v->sel_row;
	int			found = 0;

	v->nrows = 0;
	view_tree_init(&t, v, s);
	for (i = 0; i < s->nprocs; i++) {
		if (t.shown[i] && t.parent[i] == VIEW_NONE)
			view_tree_rows(v, s, &t, i);
	}
	view_tree_free(&t);
	if (v->have_sel) {
		i = view_find(v, s, &v->sel);
		found = i < v->nrows;
		if (found)
			v->sel_row = i;
	}
	if (!found)
		rbmon_view_select_row(v, s, v->have_sel ? old_row : 0);
	if (v->top >= v->nrows)
		v->top = v->nrows == 0 ? 0 : v->nrows - 1;
}

/**
 * rbmon_view_move - move the selection by thread rows
 * @v: the view
 * @s: its snapshot
 * @delta: rows down (negative: up); clamped at the ends
 */
void
rbmon_view_move(struct rbmon_view *v, const struct rbmon_snapshot *s,
    long delta)
{
	size_t	k, last = v->nrows;

	if (!v->have_sel)
		return;
	k = v->sel_row;
	while (delta > 0 && k + 1 < v->nrows) {
		k++;
		if (v->rows[k].kind == RBMON_ROW_THREAD) {
			last = k;
			delta--;
		}
	}
	while (delta < 0 && k > 0) {
		k--;
		if (v->rows[k].kind == RBMON_ROW_THREAD) {
			last = k;
			delta++;
		}
	}
	if (last < v->nrows)
		rbmon_view_select_row(v, s, last);
}

/**
 * rbmon_view_scroll - keep the selection inside a window of rows
 * @v: the view
 * @height: rows the thread list shows
 *
 * The process row above a selected first thread is kept in sight.
 */
void
rbmon_view_scroll(struct rbmon_view *v, size_t height)
{
	size_t	want;

	if (height == 0 || v->nrows <= height) {
		v->top = 0;
		return;
	}
	if (v->top > v->nrows - height)
		v->top = v->nrows - height;
	if (!v->have_sel)
		return;
	want = v->sel_row;
	if (want > 0 && v->rows[want - 1].kind == RBMON_ROW_PROCESS)
		want--;
	if (want < v->top)
		v->top = want;
	if (v->sel_row >= v->top + height)
		v->top = v->sel_row - height + 1;
}

/**
 * rbmon_view_selected - the selected thread
 * @v: the view
 * @s: its snapshot
 * @p: set to its process (may be NULL)
 *
 * Return: the thread, or NULL if nothing is selected.
 */
const struct rbmon_thread *
rbmon_view_selected(const struct rbmon_view *v, const struct rbmon_snapshot *s,
    const struct rbmon_process **p)
{
	const struct rbmon_row	*r;

	if (!v->have_sel || v->sel_row >= v->nrows)
		return NULL;
	r = &v->rows[v->sel_row];
	if (p != NULL)
		*p = &s->procs[r->proc];
	return &s->procs[r->proc].threads[r->thread];
}

/* Can frame @f be part of a run of recursion? */
static int
view_runnable(const struct rbmon_frame *f)
{
	return !f->synthetic && !f->torn && !f->named && f->fn != 0;
}

/* Frames from @i on calling the same function, not across the gap. */
static size_t
view_run(const struct rbmon_thread *t, size_t i)
{
	size_t	j = i + 1;

	if (t->frames == NULL || !view_runnable(&t->frames[i]))
		return 1;
	while (j < t->nframes && view_runnable(&t->frames[j]) &&
	    t->frames[j].fn == t->frames[i].fn &&
	    !(t->wrapped != 0 && j == t->gap_at))
		j++;
	return j - i;
}

static void
view_run_id(const struct rbmon_thread *t, size_t i, size_t n,
    struct rbmon_run_id *id)
{
	id->ring = t->ring;
	id->pid = t->pid;
	id->tid = t->tid;
	id->level = t->frames[i + n - 1].level;
}

/* Is the run of @n frames from @i expanded?  Returns its place, or -1. */
static long
view_run_expanded(const struct rbmon_view *v, const struct rbmon_thread *t,
    size_t i, size_t n)
{
	struct rbmon_run_id	id;
	size_t			k;

	view_run_id(t, i, n, &id);
	for (k = 0; k < v->nexpanded; k++)
		if (v->expanded[k].ring == id.ring &&
		    v->expanded[k].pid == id.pid &&
		    v->expanded[k].tid == id.tid &&
		    v->expanded[k].level == id.level)
			return (long)k;
	return -1;
}

/*
 * The stack pane's rows of @t, innermost first: each frame, the row that
 * counts the overwritten frames where they were, runs of recursion as one
 * row unless expanded.  Fills @out with row @want if it exists.
 * Returns how many rows there are.
 */
static size_t
view_srows(const struct rbmon_view *v, const struct rbmon_thread *t,
    size_t want, struct rbmon_srow *out)
{
	struct rbmon_srow	r;
	size_t			i = 0, n, row = 0;
	int			gap = t->wrapped != 0;

	if (t->blocked_in != NULL) {
		memset(&r, 0, sizeof r);
		r.kind = RBMON_SROW_BLOCKED;
		if (want == 0 && out != NULL)
			*out = r;
		row++;
	}
	while (i < t->nframes || gap) {
		memset(&r, 0, sizeof r);
		if (gap && (i == t->gap_at || i >= t->nframes)) {
			r.kind = RBMON_SROW_GAP;
			gap = 0;
		} else {
			n = view_run(t, i);
			r.kind = RBMON_SROW_FRAME;
			r.frame = i;
			if (n < RBMON_RUN_MIN)
				n = 1;
			else if (view_run_expanded(v, t, i, n) < 0)
				r.kind = RBMON_SROW_RUN;
			r.count = n > 1 ? n : 0;
			if (r.kind == RBMON_SROW_FRAME && n > 1) {
				/* Expanded: the run's first row, then each frame. */
				if (row == want && out != NULL)
					*out = r;
				row++;
				for (i++, n--; n > 0; i++, n--) {
					r.frame = i;
					r.count = 0;
					if (row == want && out != NULL)
						*out = r;
					row++;
				}
				continue;
			}
			i += n;
		}
		if (row == want && out != NULL)
			*out = r;
		row++;
	}
	return row;
}

/**
 * rbmon_view_stack_rows - rows of a thread's stack pane
 * @v: the view (which runs of recursion are expanded)
 * @t: the thread, or NULL
 *
 * Return: one per frame or collapsed run, plus one for the overwritten
 * frames if any.
 */
size_t
rbmon_view_stack_rows(const struct rbmon_view *v, const struct rbmon_thread *t)
{
	if (t == NULL)
		return 0;
	return view_srows(v, t, SIZE_MAX, NULL);
}

/**
 * rbmon_view_stack_at - what a stack pane row shows
 * @row: a row below rbmon_view_stack_rows()
 * @r: filled in
 *
 * Return: 1, or 0 if there is no such row.
 */
int
rbmon_view_stack_at(const struct rbmon_view *v, const struct rbmon_thread *t,
    size_t row, struct rbmon_srow *r)
{
	if (t == NULL || row >= view_srows(v, t, row, r))
		return 0;
	return 1;
}

/**
 * rbmon_view_stack_row - the stack pane row that shows frame @frame (the
 * row of its collapsed run if it is in one)
 *
 * Return: the row.
 */
size_t
rbmon_view_stack_row(const struct rbmon_view *v, const struct rbmon_thread *t,
    size_t frame)
{
	struct rbmon_srow	r;
	size_t			row, n = rbmon_view_stack_rows(v, t);

	for (row = 0; row < n; row++) {
		view_srows(v, t, row, &r);
		if (r.kind == RBMON_SROW_GAP || r.kind == RBMON_SROW_BLOCKED)
			continue;
		if (frame >= r.frame && frame < r.frame +
		    (r.kind == RBMON_SROW_RUN ? r.count : 1))
			return row;
	}
	return 0;
}

/**
 * rbmon_view_stack_fold - expand the collapsed run at stack row @row, or
 * collapse the expanded run that row is in
 *
 * Return: 1 if a run changed, else 0.
 */
int
rbmon_view_stack_fold(struct rbmon_view *v, const struct rbmon_thread *t,
    size_t row)
{
	struct rbmon_srow	r;
	size_t			i, n;
	long			k;

	if (!rbmon_view_stack_at(v, t, row, &r) || r.kind == RBMON_SROW_GAP ||
	    r.kind == RBMON_SROW_BLOCKED)
		return 0;
	/* The run the row's frame is in, from its first frame. */
	for (i = 0; i < t->nframes; i += n) {
		n = view_run(t, i);
		if (r.frame >= i && r.frame < i + n)
			break;
	}
	if (i >= t->nframes || n < RBMON_RUN_MIN)
		return 0;
	if ((k = view_run_expanded(v, t, i, n)) >= 0) {
		v->expanded[k] = v->expanded[--v->nexpanded];
		v->stack_sel = rbmon_view_stack_row(v, t, i);
		return 1;
	}
	v->expanded = rbmon_xreallocarray(v->expanded, v->nexpanded + 1,
	    sizeof *v->expanded);
	view_run_id(t, i, n, &v->expanded[v->nexpanded++]);
	return 1;
}

/**
 * rbmon_view_stack_move - move the stack pane's cursor
 * @v: the view
 * @t: the selected thread, or NULL
 * @delta: rows (LONG_MIN / LONG_MAX: first / last)
 * @height: rows the pane shows
 */
void
rbmon_view_stack_move(struct rbmon_view *v, const struct rbmon_thread *t,
    long delta, size_t height)
{
	size_t	n = rbmon_view_stack_rows(v, t);
	long	k, lo;

	if (n == 0) {
		v->stack_sel = v->stack_top = 0;
		return;
	}
	/* The row saying what the thread waits in is not a frame: skipped. */
	lo = t->blocked_in != NULL && n > 1;
	k = (long)(v->stack_sel < n ? v->stack_sel : n - 1);
	if (delta < 0 && k < -delta)
		k = 0;
	else if (delta > 0 && (long)n - 1 - k < delta)
		k = (long)n - 1;
	else
		k += delta;
	if (k < lo)
		k = lo;
	v->stack_sel = (size_t)k;
	if (height == 0)
		height = 1;
	if (v->stack_sel < v->stack_top)
		v->stack_top = v->stack_sel;
	if (v->stack_sel == (size_t)lo && height > (size_t)lo)
		v->stack_top = 0;	/* the blocked row stays in sight */
	if (v->stack_sel >= v->stack_top + height)
		v->stack_top = v->stack_sel - height + 1;
	if (n > height && v->stack_top > n - height)
		v->stack_top = n - height;
	if (n <= height)
		v->stack_top = 0;
}

/**
 * rbmon_match - case-insensitive substring test
 * @hay: the text, or NULL (never matches)
 * @needle: what to find; "" matches everything
 *
 * Return: 1 if found.
 */
int
rbmon_match(const char *hay, const char *needle)
{
	size_t	i, n = strlen(needle);

	if (hay == NULL)
		return 0;
	for (; *hay != '\0'; hay++) {
		for (i = 0; i < n; i++) {
			if (hay[i] == '\0' ||
			    tolower((unsigned char)hay[i]) !=
			    tolower((unsigned char)needle[i]))
				break;
		}
		if (i == n)
			return 1;
	}
	return n == 0;
}

/**
 * rbmon_view_search - select the next thread whose name or stack matches
 * @v: the view
 * @s: its snapshot
 * @text: what to find
 * @next: 0 to try the selected thread first, 1 to start after it
 * @namer: names frame i of a thread (may return NULL)
 * @arg: for @namer
 * @frame: set to the matching frame, or SIZE_MAX for a name match
 *
 * The search wraps around once.
 *
 * Return: 1 and the thread selected, or 0 if nothing matches.
 */
int
rbmon_view_search(struct rbmon_view *v, const struct rbmon_snapshot *s,
    const char *text, int next, rbmon_namer namer, void *arg, size_t *frame)
{
	const struct rbmon_process	*p;
	const struct rbmon_thread	*t;
	const struct rbmon_row		*r;
	size_t				 start, i, k, f;

	if (v->nrows == 0 || *text == '\0')
		return 0;
	start = v->have_sel ? v->sel_row + (next != 0) : 0;
	for (i = 0; i < v->nrows; i++) {
		k = (start + i) % v->nrows;
		r = &v->rows[k];
		if (r->kind != RBMON_ROW_THREAD)
			continue;
		p = &s->procs[r->proc];
		t = &p->threads[r->thread];
		if (rbmon_match(t->name, text)) {
			*frame = SIZE_MAX;
			rbmon_view_select_row(v, s, k);
			return 1;
		}
		for (f = 0; f < t->nframes; f++) {
			if (rbmon_match(namer(arg, p, t, f), text)) {
				*frame = f;
				rbmon_view_select_row(v, s, k);
				v->stack_sel = rbmon_view_stack_row(v, t, f);
				return 1;
			}
		}
	}
	return 0;
}

/**
 * rbmon_layout_compute - place the panes in a terminal
 * @l: filled in
 * @lines: terminal rows
 * @cols: terminal columns
 * @list_rows: rows the thread list would like
 * @stack_rows: rows the stack pane would like
 * @watch_rows: rows the watch pane would like (0-4)
 *
 * Header, thread list, stack, watches, message line and function bar, top
 * to bottom.  The list takes what it needs, up to what the stack leaves
 * but at least three fifths of the room; the stack gets the rest.
 */
void
rbmon_layout_compute(struct rbmon_layout *l, int lines, int cols,
    int list_rows, int stack_rows, int watch_rows)
{
	int	room, cap;

	memset(l, 0, sizeof *l);
	l->lines = lines;
	l->cols = cols;
	if (lines < 12 || cols < 40) {
		l->too_small = 1;
		return;
	}
	l->header_h = lines >= 20 ? 3 : 1;
	l->bar_y = lines - 1;
	l->msg_y = lines - 2;
	if (watch_rows > 4)
		watch_rows = 4;
	if (lines < 20 && watch_rows > 1)
		watch_rows = 1;
	l->watch_h = watch_rows;
	l->watch_y = l->msg_y - 1 - l->watch_h;
	l->list_y = l->header_h;
	room = l->watch_y - l->list_y - 2;	/* two title rows */
	if (stack_rows < 3)
		stack_rows = 3;
	cap = room - stack_rows;
	if (cap < room * 3 / 5)
		cap = room * 3 / 5;
	l->list_h = list_rows < cap ? list_rows : cap;
	if (l->list_h < 3)
		l->list_h = 3;
	l->stack_want = stack_rows;
	l->stack_y = l->list_y + 1 + l->list_h;
	l->stack_h = l->watch_y - l->stack_y - 1;
}

/**
 * rbmon_delay_step - the next refresh interval up or down
 * @tenths: the current one
 * @dir: > 0 slower, < 0 faster
 *
 * Return: the new interval in tenths of a second.
 */
long
rbmon_delay_step(long tenths, int dir)
{
	size_t	n = sizeof view_delays / sizeof view_delays[0], i;

	if (dir > 0) {
		for (i = 0; i < n; i++) {
			if (view_delays[i] > tenths)
				return view_delays[i];
		}
		return view_delays[n - 1];
	}
	for (i = n; i-- > 0;) {
		if (view_delays[i] < tenths)
			return view_delays[i];
	}
	return view_delays[0];
}

/**
 * rbmon_delay_format - an interval for the header: 0.1s 1s 2.5s 5m 1h
 * @buf: output
 * @len: its size
 * @tenths: the interval
 */
void
rbmon_delay_format(char *buf, size_t len, long tenths)
{
	if (tenths < 600 && tenths % 10 != 0)
		snprintf(buf, len, "%ld.%lds", tenths / 10, tenths % 10);
	else if (tenths < 600)
		snprintf(buf, len, "%lds", tenths / 10);
	else if (tenths < 36000 || tenths % 36000 != 0)
		snprintf(buf, len, "%ldm%s", tenths / 600,
		    tenths % 600 != 0 ? "+" : "");
	else
		snprintf(buf, len, "%ldh", tenths / 36000);
}

/**
 * rbmon_fit - a string made safe for the terminal, cut to a width
 * @dst: output
 * @size: its size
 * @src: untrusted bytes (from the trace file or the symbol tables)
 * @width: columns at most
 *
 * Escaped as everywhere else (escape.c), in ASCII so that a byte is a
 * column: a control or a byte that is not UTF-8 shows as \xNN, another
 * character beyond ASCII as '?'.  A cut string ends in '~'.
 *
 * Return: the columns used.
 */
size_t
rbmon_fit(char *dst, size_t size, const char *src, size_t width)
{
	char	c[RBMON_ESC_MAX];
	size_t	n = 0, k, len;

	if (size == 0)
		return 0;
	if (width > size - 1)
		width = size - 1;
	while ((len = rbmon_esc_next(src, RBMON_ESC_ASCII, c)) != 0) {
		k = strlen(c);
		if (n + k > width) {
			if (n < width)
				n++;
			if (n > 0)
				dst[n - 1] = '~';
			break;
		}
		memcpy(dst + n, c, k);
		n += k;
		src += len;
	}
	dst[n] = '\0';
	return n;
}
