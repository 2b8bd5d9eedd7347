/* SPDX-License-Identifier: MIT */
/*
 * rbmon calls: one engine that rebuilds a thread's calls from its records
 * (rbtrace(5), "EVENT LOG" and "RECORDINGS"), for every reader: the
 * history view and --events (a live copy of the log, fed as it is read),
 * replay, report, hot and the exports (a recording's stream).
 *
 * The rules, one set for both sources:
 *
 * - A thread's records are cut into regions where records were lost (a
 *   lost record, a gap between two copies of a live log, a LOST chunk):
 *   at a cut every frame still open is left ("cut") at the last time
 *   before it, its exit perhaps among the records lost.  Recording
 *   switched off and on again is no cut: the thread lost no record (the
 *   counts of rbtrace(5) have none for it), and the calls open around the
 *   switch are the same calls after it.
 * - An exit whose function is not open belongs to a frame entered before
 *   the region began (or while recording was off): a frame below every
 *   frame open, so those are left "unwound" (as an exit hook whose
 *   function is not on top unwinds to the level that holds it, rbtrace(5)
 *   "FRAMES UNWOUND WITHOUT EXIT HOOKS"), and the exit leaves a frame
 *   whose entry is lost.  A recording is read twice: a first pass finds,
 *   for every region, these frames (in the order their exits come, the
 *   innermost first), so that the walk enters them when the region
 *   begins.  A live log cannot look ahead: there such a frame is entered
 *   when its exit comes, below the others.
 * - An exit whose function is open unwinds the frames above it.
 * - Frames still open at the end of a recording's stream are left "open"
 *   at its last time; a live log's stay open.
 *
 * Every user then sees frames that nest: entered before their callees,
 * left after them, with times that never go back.
 */
#include "config.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/core/model.h"
#include "monitor/history/calls.h"
#include "monitor/history/readback.h"
#include "monitor/history/losses.h"
#include "monitor/history/walk.h"

#define RBCALLS_DEPTH_MAX	(1u << 20) /* frames a stream may have open */
#define RBCALLS_PLAN_NAMED	UINT32_MAX /* a named frame's exit, no entry */

/* ---- sources ------------------------------------------------------------- */

static inline int
rbcalls_source_next(struct rbcalls_walk *w, struct rbrec_rec *k)
{
	if (w->ctx != NULL) {
		if (w->done)
			return 0;
		if (!rbrec_next(&w->c, k)) {
			w->done = 1;
			return 0;
		}
		return 1;
	}
	if (w->iev >= w->nev)
		return 0;
	memset(k, 0, sizeof *k);
	k->e = w->ev[w->iev];
	k->index = w->evfirst + w->iev;
	w->iev++;
	return 1;
}

/* The source's next record; the first pass counts it. */
static inline int
rbcalls_fetch(struct rbcalls_walk *w, struct rbrec_rec *k)
{
	if (!rbcalls_source_next(w, k))
		return 0;
	/* The first pass counts what the stream kept and lost. */
	if (w->planning)
		rbloss_record(w->ctx, w->si, k);
	return 1;
}

/* The next record, without taking it; NULL at the end. */
const struct rbrec_rec *
rbcalls_walk_peek(struct rbcalls_walk *w)
{
	if (!w->have_peek && rbcalls_fetch(w, &w->peek))
		w->have_peek = 1;
	return w->have_peek ? &w->peek : NULL;
}

static inline int
rbcalls_take(struct rbcalls_walk *w, struct rbrec_rec *k)
{
	if (w->have_peek) {
		*k = w->peek;
		w->have_peek = 0;
		return 1;
	}
	return rbcalls_fetch(w, k);
}

/* What the outputs call function @fn (a recording's only). */
static uint32_t
rbcalls_resolve(struct rbcalls_walk *w, uint64_t fn)
{
	if (w->ctx == NULL || w->planning)
		return 0;
	return rbwalk_func_of(w->ctx, w->si, fn);
}

static uint32_t
rbcalls_resolve_named(struct rbcalls_walk *w, const char *name,
    const char *file, int line)
{
	if (w->ctx == NULL || w->planning)
		return 0;
	return rbwalk_func_named(w->ctx, name, file, line);
}

/* ---- the engine ---------------------------------------------------------- */

/* Does @k end a region (records were lost there)? */
static int
rbcalls_cut(const struct rbrec_rec *k)
{
	return k->lost || k->e.kind == RB_EV_LOST;
}

/* ---- the first pass's plan (a recording's) ------------------------------- */

/*
 * A frame the current region leaves without entering: @func
 * (RBCALLS_PLAN_*).
 */
static void
rbcalls_plan_add(struct rbcalls_walk *w, uint32_t func)
{
	size_t	np = w->plan_at[w->nregions];

	if (np == w->capplan) {
		w->capplan = w->capplan == 0 ? 16 : w->capplan * 2;
		w->plan = rbmon_xreallocarray(w->plan, w->capplan,
		    sizeof *w->plan);
	}
	w->plan[np++] = func;
	w->plan_at[w->nregions] = np;
	rbloss_frame(w->ctx, w->si, RBLOSS_ENTRY);
}

/* A cut: the next region's plan begins. */
static void
rbcalls_plan_region(struct rbcalls_walk *w)
{
	size_t	np = w->plan_at[w->nregions];

	if (w->nregions == w->capregions) {
		w->capregions *= 2;
		w->plan_at = rbmon_xreallocarray(w->plan_at,
		    w->capregions + 1, sizeof *w->plan_at);
	}
	w->plan_at[w->nregions++] = np;
	w->plan_at[w->nregions] = np;
}

/* ---- the filters (rbmon(1), FILTERS) ------------------------------------ */

/* rbcalls_filter.match */
#define RBCALLS_M_NONE	1
#define RBCALLS_M_FUNC	2	/* -F */
#define RBCALLS_M_NOT	3	/* -N, first */

int
rbcalls_filter_active(const struct rbmon_filter *fl)
{
	return fl != NULL && (fl->have_range || fl->min_ns != 0 ||
	    fl->depth != 0 || fl->nfuncs != 0 || fl->nnots != 0);
}

/*
 * rbcalls_filter_match - does function @name match @want: the name, or
 * its start before its parameters ("ns::f" matches "ns::f(int)", as gdb's
 * break does), or a glob(7) pattern of either.
 */
int
rbcalls_filter_match(const char *name, const char *want)
{
	size_t	 n = strlen(want);
	char	*head;
	int	 yes = 0;
	const char *p;

	if (strncmp(name, want, n) == 0 && (name[n] == '\0' ||
	    name[n] == '('))
		return 1;
	if (strpbrk(want, "*?[") == NULL)
		return 0;
	if (fnmatch(want, name, 0) == 0)
		return 1;
	for (p = strchr(name, '('); p != NULL && !yes; p = strchr(p + 1, '(')) {
		if ((head = strndup(name, (size_t)(p - name))) == NULL)
			return 0;
		yes = fnmatch(want, head, 0) == 0;
		free(head);
	}
	return yes;
}

/* What the filter's patterns make of function @func (RBCALLS_M_*). */
static int
rbcalls_filter_func(struct rbcalls_walk *w, uint32_t func)
{
	struct rbmon_filter	*fl = w->filter;
	const char		*name;
	size_t			 i, n;
	int			 m = RBCALLS_M_NONE;

	if (fl->nfuncs == 0 && fl->nnots == 0)
		return RBCALLS_M_NONE;
	if (func >= fl->nmatch) {
		n = w->ctx->nfuncs > (size_t)func + 1 ? w->ctx->nfuncs :
		    (size_t)func + 1;
		n = n > 2 * fl->nmatch ? n : 2 * fl->nmatch;
		fl->match = rbmon_xreallocarray(fl->match, n, 1);
		memset(fl->match + fl->nmatch, 0, n - fl->nmatch);
		fl->nmatch = n;
	}
	if (fl->match[func] != 0)
		return fl->match[func];
	name = func < w->ctx->nfuncs ? w->ctx->funcs[func].name : "";
	for (i = 0; i < fl->nnots; i++)
		if (rbcalls_filter_match(name, fl->nots[i])) {
			fl->used[fl->nfuncs + i] = 1;
			m = RBCALLS_M_NOT;
		}
	for (i = 0; i < fl->nfuncs; i++)
		if (rbcalls_filter_match(name, fl->funcs[i])) {
			fl->used[i] = 1;
			if (m == RBCALLS_M_NONE)
				m = RBCALLS_M_FUNC;
		}
	fl->match[func] = (unsigned char)m;
	return m;
}

/* Is the frame just pushed, f at stack index w->n - 1, one to tell? */
static int
rbcalls_filter_frame(struct rbcalls_walk *w, struct rbcalls_frame *f)
{
	struct rbmon_filter	*fl = w->filter;
	size_t			 at = w->n - 1, rel;
	uint64_t		 num = f->user, ns;
	int			 m;

	if (at > 0 && (w->stack[at - 1].flags & RBCALLS_F_PRUNED)) {
		f->flags |= RBCALLS_F_HIDDEN | RBCALLS_F_PRUNED;
		return 0;
	}
	m = rbcalls_filter_func(w, f->func);
	if (m == RBCALLS_M_NOT)
		goto pruned;
	if (fl->nfuncs != 0 && w->froot == 0) {
		if (m != RBCALLS_M_FUNC)
			goto hidden;
		w->froot = at + 1;
	}
	rel = w->froot != 0 ? at - (w->froot - 1) : at;
	if (fl->depth != 0 && rel >= fl->depth)
		goto pruned;
	if (w->keep != NULL && (num / 8 >= w->capkeep ||
	    !((w->keep[num / 8] >> (num % 8)) & 1)))
		goto pruned;
	if (fl->have_range) {
		ns = rbwalk_rel_ns(w->ctx, f->start);
		if (ns >= fl->to)
			goto pruned;
		if (ns < fl->from)
			goto hidden;
	}
	return 1;
pruned:
	f->flags |= RBCALLS_F_PRUNED;
hidden:
	f->flags |= RBCALLS_F_HIDDEN;
	return 0;
}

/* Is a mark (@k) at the top of the stack one to tell? */
static int
rbcalls_filter_mark(struct rbcalls_walk *w, const struct rbrec_rec *k)
{
	struct rbmon_filter	*fl = w->filter;
	size_t			 rel;
	uint64_t		 ns;

	if (w->n == 0) {
		if (fl->nfuncs != 0)
			return 0;
	} else if (w->stack[w->n - 1].flags & RBCALLS_F_HIDDEN)
		return 0;
	rel = w->froot != 0 ? w->n - (w->froot - 1) : w->n;
	if (fl->depth != 0 && rel >= fl->depth)
		return 0;
	if (fl->have_range) {
		/* A gap is where the records before it end. */
		ns = rbwalk_rel_ns(w->ctx, rbcalls_cut(k) && w->have_last ?
		    w->last : k->e.ts);
		if (ns < fl->from || ns >= fl->to)
			return 0;
	}
	return 1;
}

static inline void
rbcalls_tell_mark(struct rbcalls_walk *w, const struct rbrec_rec *k)
{
	if (w->h->mark == NULL)
		return;
	if (w->filter == NULL)
		w->h->mark(w, k, w->n);
	else if (rbcalls_filter_mark(w, k))
		w->h->mark(w, k, w->nvis);
}

static inline struct rbcalls_frame *
rbcalls_push(struct rbcalls_walk *w, uint32_t func, uint8_t flags, uint64_t fn,
    uint64_t site, uint64_t start)
{
	struct rbcalls_frame	*f;

	if (w->n == RBCALLS_DEPTH_MAX)
		return NULL;
	if (w->n == w->cap) {
		w->cap = w->cap == 0 ? 16 : w->cap * 2;
		w->stack = rbmon_xreallocarray(w->stack, w->cap,
		    sizeof *w->stack);
	}
	/* Times that went back (another core's clock) still nest. */
	if (w->n > 0 && start < w->stack[w->n - 1].start)
		start = w->stack[w->n - 1].start;
	f = &w->stack[w->n++];
	f->func = func;
	f->flags = flags;
	f->fn = fn;
	f->site = site;
	f->start = start;
	f->cend = start;
	f->user = w->entered++;
	f->aux = 0;
	if (w->filter != NULL && !w->planning) {
		if (!rbcalls_filter_frame(w, f))
			return f;
		if (w->nvis == w->capvis) {
			w->capvis = w->capvis == 0 ? 16 : w->capvis * 2;
			w->vis = rbmon_xreallocarray(w->vis, w->capvis,
			    sizeof *w->vis);
		}
		w->vis[w->nvis++] = w->n - 1;
		if (w->h->enter != NULL)
			w->h->enter(w, f, w->nvis - 1);
		return f;
	}
	if (w->h->enter != NULL)
		w->h->enter(w, f, w->n - 1);
	return f;
}

/* Leave the innermost frame at @end. */
static inline void
rbcalls_pop(struct rbcalls_walk *w, uint64_t end, int how)
{
	struct rbcalls_frame	*f = &w->stack[w->n - 1];

	if (end < f->cend)
		end = f->cend;
	if (w->planning && how == RBCALLS_L_CUT)
		rbloss_frame(w->ctx, w->si, RBLOSS_EXIT);
	if (w->filter != NULL && !w->planning) {
		if (!(f->flags & RBCALLS_F_HIDDEN)) {
			if (w->h->leave != NULL)
				w->h->leave(w, f, w->nvis - 1, end, how);
			w->nvis--;
		}
		if (w->froot == w->n)
			w->froot = 0;
	} else if (w->h->leave != NULL)
		w->h->leave(w, f, w->n - 1, end, how);
	w->n--;
	if (w->n > 0)
		w->stack[w->n - 1].cend = end;
}

/* A region begins at @ts: enter what it will leave without entering. */
static void
rbcalls_region_open(struct rbcalls_walk *w, uint64_t ts)
{
	size_t		i, a, b;
	uint32_t	func;

	if (w->region_open || w->planning)
		return;
	w->region_open = 1;
	if (w->region >= w->nregions)
		return;
	a = w->plan_at[w->region];
	b = w->plan_at[w->region + 1];
	for (i = b; i > a; i--) {
		func = w->plan[i - 1];
		if (func == RBCALLS_PLAN_NAMED)
			func = rbcalls_resolve_named(w, "[named frame]", "", 0);
		rbcalls_push(w, func, RBCALLS_F_ENTRY_LOST |
		    (w->plan[i - 1] == RBCALLS_PLAN_NAMED ?
		    RBCALLS_F_NAMED : 0),
		    w->plan[i - 1] == RBCALLS_PLAN_NAMED ? 0 : UINT64_MAX,
		    0, ts);
	}
}

/* The planned frames pushed above keep fn UINT64_MAX: find them by func. */
static inline int
rbcalls_matches(struct rbcalls_walk *w, const struct rbcalls_frame *f,
    const struct rb_event *e, int named)
{
	if (named)
		return (f->flags & RBCALLS_F_NAMED) != 0;
	if (f->flags & RBCALLS_F_NAMED)
		return 0;
	if (f->fn != UINT64_MAX)
		return f->fn == e->fn;
	return f->func == rbcalls_resolve(w, e->fn);
}

static inline void
rbcalls_exit(struct rbcalls_walk *w, const struct rb_event *e, int named)
{
	size_t		i;
	uint32_t	func;

	for (i = w->n; i > 0; i--)
		if (rbcalls_matches(w, &w->stack[i - 1], e, named))
			break;
	if (i == 0) {
		/*
		 * Entered before the region (a live log, a first pass, a
		 * file no recorder wrote): below every open frame.
		 */
		while (w->n > 0)
			rbcalls_pop(w, e->ts, RBCALLS_L_UNWOUND);
		func = named ?
		    rbcalls_resolve_named(w, "[named frame]", "", 0) :
		    rbcalls_resolve(w, e->fn);
		if (w->planning) {
			rbcalls_plan_add(w, named ? RBCALLS_PLAN_NAMED :
			    rbwalk_func_of(w->ctx, w->si, e->fn));
			return;
		}
		if (rbcalls_push(w, func,
		    RBCALLS_F_ENTRY_LOST | (named ? RBCALLS_F_NAMED : 0),
		    named ? 0 : e->fn, 0, w->have_last ? w->last : e->ts))
			rbcalls_pop(w, e->ts, RBCALLS_L_EXIT);
		return;
	}
	while (w->n > i)
		rbcalls_pop(w, e->ts, RBCALLS_L_UNWOUND);
	rbcalls_pop(w, e->ts, RBCALLS_L_EXIT);
}

/* rbtrace_push()'s record and its text: "name\0file\0". */
static void
rbcalls_named(struct rbcalls_walk *w, const struct rbrec_rec *k)
{
	char		 text[RB_EV_TEXT_MAX * RB_EV_TEXT_BYTES + 2];
	const struct rbrec_rec *t;
	size_t		 len = 0, nl;
	uint32_t	 i;
	const char	*name, *file;

	for (i = 0; i < k->e.aux && i < RB_EV_TEXT_MAX; i++) {
		t = rbcalls_walk_peek(w);
		if (t == NULL || t->lost || t->e.kind != RB_EV_TEXT)
			break;
		memcpy(text + len, &t->e.ts, 8);
		memcpy(text + len + 8, &t->e.fn, 8);
		memcpy(text + len + 16, &t->e.arg, 8);
		len += RB_EV_TEXT_BYTES;
		w->have_peek = 0;
	}
	text[len] = text[len + 1] = '\0';
	name = text;
	nl = strnlen(text, len);
	file = nl < len ? text + nl + 1 : "";
	w->named_name = name;
	w->named_file = file;
	w->named_whole = i == k->e.aux || i == RB_EV_TEXT_MAX;
	rbcalls_push(w, rbcalls_resolve_named(w,
	    *name ? name : "[named frame]", file, (int)(int64_t)k->e.arg),
	    RBCALLS_F_NAMED, 0, k->e.fn, k->e.ts);
	w->named_name = w->named_file = NULL;
}

/* Take record @k: frames entered and left, marks told. */
static inline void
rbcalls_record(struct rbcalls_walk *w, const struct rbrec_rec *k)
{
	if (rbcalls_cut(k)) {
		uint64_t	at = w->have_last ? w->last : k->e.ts;

		rbcalls_region_open(w, at);
		while (w->n > 0)
			rbcalls_pop(w, at, RBCALLS_L_CUT);
		rbcalls_tell_mark(w, k);
		if (w->planning)
			rbcalls_plan_region(w);
		w->region++;
		w->region_open = 0;
		return;
	}
	if (k->e.kind == RB_EV_TEXT)
		return;		/* text whose name record is gone */
	rbcalls_region_open(w, k->e.ts);
	w->last = k->e.ts;
	w->have_last = 1;
	switch (k->e.kind) {
	case RB_EV_ENTRY:
		rbcalls_push(w, rbcalls_resolve(w, k->e.fn), 0, k->e.fn,
		    k->e.arg, k->e.ts);
		break;
	case RB_EV_EXIT:
		rbcalls_exit(w, &k->e, 0);
		break;
	case RB_EV_NAMED:
		rbcalls_named(w, k);
		break;
	case RB_EV_NAMED_EXIT:
		rbcalls_exit(w, &k->e, 1);
		break;
	default:
		rbcalls_tell_mark(w, k);
		break;
	}
}

/**
 * rbcalls_walk_step - take the source's next record and tell the handler
 *
 * Return: 1, or 0 when the source has no more (a recording: then
 * rbcalls_walk_finish(); a live log: until the next rbcalls_walk_feed()).
 */
int
rbcalls_walk_step(struct rbcalls_walk *w)
{
	struct rbrec_rec	k;

	if (!rbcalls_take(w, &k))
		return 0;
	/* Past --time-range, with no frame told open: nothing more to tell. */
	if (w->filter != NULL && w->filter->have_range && w->nvis == 0 &&
	    w->filter->to != UINT64_MAX && !rbcalls_cut(&k) &&
	    rbwalk_rel_ns(w->ctx, k.e.ts) >= w->filter->to) {
		w->done = 1;
		w->have_peek = 0;
		return 0;
	}
	w->rec = &k;
	rbcalls_record(w, &k);
	w->rec = NULL;
	return 1;
}

/* The end of the stream: what is still open is left, "open", at its last time. */
void
rbcalls_walk_finish(struct rbcalls_walk *w)
{
	while (w->n > 0)
		rbcalls_pop(w, w->last, RBCALLS_L_OPEN);
}

void
rbcalls_walk_free(struct rbcalls_walk *w)
{
	free(w->stack);
	free(w->plan);
	free(w->plan_at);
	free(w->vis);
	free(w->keep);
	memset(w, 0, sizeof *w);
}

/* ---- a recording's stream -------------------------------------------------- */

/*
 * The first pass, the engine's own rules with nothing planned: per
 * region, the frames it leaves without entering; and what the stream kept
 * and lost (ctx->counts).
 */
static void
rbcalls_plan(struct rbcalls_walk *w)
{
	static const struct rbcalls_handler none;
	struct rbwalk_count *cnt = &w->ctx->counts[w->si];
	const struct rbcalls_handler *h = w->h;

	memset(cnt, 0, sizeof *cnt);
	cnt->walked = 1;
	w->nregions = 1;
	w->capregions = 16;
	w->plan_at = rbmon_xcalloc(w->capregions + 1, sizeof *w->plan_at);
	w->planning = 1;
	w->h = &none;
	while (rbcalls_walk_step(w))
		;
	w->n = 0;
	w->h = h;
	w->planning = 0;
	w->last = 0;
	w->have_last = 0;
	w->entered = 0;
	w->region = 0;
	w->region_open = 0;
	w->done = 0;
	w->have_peek = 0;
}

/* --min-duration: a walk of its own first marks the frames long enough. */
static void
rbcalls_keep_leave(struct rbcalls_walk *kw, struct rbcalls_frame *f,
    size_t depth, uint64_t end, int how)
{
	struct rbcalls_walk	*w = kw->h->arg;
	uint64_t		 num = f->user, d;
	size_t			 old;

	(void)depth;
	(void)how;
	if (num / 8 >= w->capkeep) {
		old = w->capkeep;
		w->capkeep = (num / 8 + 1) * 2;
		w->keep = rbmon_xreallocarray(w->keep, w->capkeep, 1);
		memset(w->keep + old, 0, w->capkeep - old);
	}
	d = rbread_dur_ns(w->ctx, f->start, end);
	if (d >= w->filter->min_ns)
		w->keep[num / 8] |= (unsigned char)(1u << (num % 8));
}

static void
rbcalls_keep(struct rbcalls_walk *w)
{
	struct rbcalls_handler	 kh = { NULL, rbcalls_keep_leave, NULL, w };
	struct rbmon_filter	*fl = w->ctx->filter;
	struct rbcalls_walk	 kw;

	w->ctx->filter = NULL;
	rbcalls_walk_init(&kw, w->ctx, w->si, &kh);
	while (rbcalls_walk_step(&kw))
		;
	rbcalls_walk_finish(&kw);
	rbcalls_walk_free(&kw);
	w->ctx->filter = fl;
	if (w->keep == NULL) {
		w->keep = rbmon_xcalloc(1, 1);
		w->capkeep = 1;
	}
}

/* Walk stream @si of @x, telling @h, through @x's filter. */
void
rbcalls_walk_init(struct rbcalls_walk *w, struct rbwalk_ctx *x, size_t si,
    const struct rbcalls_handler *h)
{
	memset(w, 0, sizeof *w);
	w->ctx = x;
	w->si = si;
	w->s = &x->rec.streams[si];
	w->h = h;
	rbrec_cursor_init(&w->c, &x->rec, w->s);
	rbcalls_plan(w);
	rbrec_cursor_init(&w->c, &x->rec, w->s);
	if (!rbcalls_filter_active(x->filter))
		return;
	w->filter = x->filter;
	if (w->filter->min_ns != 0)
		rbcalls_keep(w);
}

/* ---- a live event log ------------------------------------------------------ */

/* A live log, telling @h; records come with rbcalls_walk_feed(). */
void
rbcalls_walk_live(struct rbcalls_walk *w, const struct rbcalls_handler *h)
{
	memset(w, 0, sizeof *w);
	w->h = h;
}

/*
 * rbcalls_walk_feed - the next @n records of the log, @first the index of the
 * first, to be taken by rbcalls_walk_step() (kept, not copied, until then)
 */
void
rbcalls_walk_feed(struct rbcalls_walk *w, const struct rb_event *rec, size_t n,
    uint64_t first)
{
	w->ev = rec;
	w->nev = n;
	w->iev = 0;
	w->evfirst = first;
}

/* rbcalls_walk_gap - @count records from index @at on are not there: a cut */
void
rbcalls_walk_gap(struct rbcalls_walk *w, uint64_t at, uint64_t count)
{
	struct rbrec_rec	k;

	memset(&k, 0, sizeof k);
	k.e.kind = RB_EV_LOST;
	k.e.arg = count;
	k.index = at;
	k.lost = 1;
	w->rec = &k;
	rbcalls_record(w, &k);
	w->rec = NULL;
}
