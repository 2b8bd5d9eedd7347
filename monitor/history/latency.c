/* SPDX-License-Identifier: MIT */
/*
 * rbmon latency: the durations of whole calls per function, from the
 * calls engine (calls.c) walking a recording's streams or live copies of
 * the event logs (rbtrace(5), "EVENT LOG").
 *
 * Percentiles are exact: every timed call's duration is kept and sorted
 * (nearest rank).  Past RBLAT_KEEP_MAX durations in all, a function that
 * needs more keeps none and its percentiles come from its histogram (the
 * middle of the bucket the rank falls in), and says so (approx).  The
 * histogram and every count stay exact either way.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/history/calls.h"
#include "monitor/history/latency.h"
#include "monitor/history/readback.h"

/* ---- the table ----------------------------------------------------------- */

void
rblat_init(struct rblat *l, size_t keep_max)
{
	memset(l, 0, sizeof *l);
	l->keep_max = keep_max;
}

void
rblat_reset(struct rblat *l)
{
	size_t	i;

	for (i = 0; i < l->n; i++) {
		free(l->f[i].name);
		free(l->f[i].file);
		free(l->f[i].durs);
	}
	l->n = 0;
	l->kept = 0;
	if (l->slots != NULL)
		memset(l->slots, 0, l->nslots * sizeof *l->slots);
}

void
rblat_free(struct rblat *l)
{
	rblat_reset(l);
	free(l->f);
	free(l->slots);
	memset(l, 0, sizeof *l);
}

static uint64_t
rblat_hash(const char *name, const char *file)
{
	uint64_t	h = 0xcbf29ce484222325ull;

	while (*name != '\0')
		h = (h ^ (unsigned char)*name++) * 0x100000001b3ull;
	h = (h ^ 0xff) * 0x100000001b3ull;
	while (*file != '\0')
		h = (h ^ (unsigned char)*file++) * 0x100000001b3ull;
	return h;
}

static void
rblat_slot_put(struct rblat *l, uint32_t i)
{
	size_t	j;

	for (j = rblat_hash(l->f[i].name, l->f[i].file) & (l->nslots - 1);
	    l->slots[j] != 0; j = (j + 1) & (l->nslots - 1))
		;
	l->slots[j] = i + 1;
}

/** rblat_func - the row of function @name of @file ("" unknown), made if new */
uint32_t
rblat_func(struct rblat *l, const char *name, const char *file)
{
	struct rblat_func	*f;
	size_t			 j, i;

	if (2 * (l->n + 1) > l->nslots) {
		l->nslots = l->nslots != 0 ? l->nslots * 2 : 256;
		free(l->slots);
		l->slots = rbmon_xcalloc(l->nslots, sizeof *l->slots);
		for (i = 0; i < l->n; i++)
			rblat_slot_put(l, (uint32_t)i);
	}
	for (j = rblat_hash(name, file) & (l->nslots - 1); l->slots[j] != 0;
	    j = (j + 1) & (l->nslots - 1)) {
		f = &l->f[l->slots[j] - 1];
		if (strcmp(f->name, name) == 0 && strcmp(f->file, file) == 0)
			return l->slots[j] - 1;
	}
	if (l->n == l->cap) {
		l->cap = l->cap != 0 ? l->cap * 2 : 64;
		l->f = rbmon_xreallocarray(l->f, l->cap, sizeof *l->f);
	}
	f = &l->f[l->n];
	memset(f, 0, sizeof *f);
	f->name = rbmon_xstrdup(name);
	f->file = rbmon_xstrdup(file);
	l->slots[j] = (uint32_t)++l->n;
	return (uint32_t)(l->n - 1);
}

/** rblat_bucket - the histogram's bucket of @ns */
unsigned
rblat_bucket(uint64_t ns)
{
	return ns == 0 ? 0 : 64 - (unsigned)__builtin_clzll(ns);
}

/** rblat_bucket_lo - the least duration of bucket @b */
uint64_t
rblat_bucket_lo(unsigned b)
{
	return b == 0 ? 0 : 1ull << (b - 1);
}

/*
 * rblat_call - a call of function @i left as @how (RBCALLS_L_*): one that
 * ran to its exit (or was unwound) after @ns is timed; a cut or open one
 * only counted.
 */
void
rblat_call(struct rblat *l, uint32_t i, uint64_t ns, int how)
{
	struct rblat_func	*f = &l->f[i];
	size_t			 cap;

	if (how == RBCALLS_L_CUT) {
		f->cut++;
		return;
	}
	if (how == RBCALLS_L_OPEN) {
		f->open++;
		return;
	}
	if (how == RBCALLS_L_UNWOUND)
		f->unwound++;
	f->calls++;
	f->total_ns += ns;
	if (ns > f->max_ns)
		f->max_ns = ns;
	f->hist[rblat_bucket(ns)]++;
	if (f->approx)
		return;
	if (f->ndurs == f->capdurs) {
		cap = f->capdurs != 0 ? f->capdurs * 2 : 16;
		if (l->kept - f->capdurs + cap > l->keep_max) {
			/* Memory bounded: its percentiles from hist. */
			l->kept -= f->capdurs;
			free(f->durs);
			f->durs = NULL;
			f->ndurs = f->capdurs = 0;
			f->approx = 1;
			return;
		}
		f->durs = rbmon_xreallocarray(f->durs, cap, sizeof *f->durs);
		l->kept += cap - f->capdurs;
		f->capdurs = cap;
	}
	f->durs[f->ndurs++] = ns;
}

/* An exit whose entry was not in the records: counted, not timed. */
void
rblat_entry_lost(struct rblat *l, uint32_t i)
{
	l->f[i].entry_lost++;
}

static int
rblat_u64_cmp(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/**
 * rblat_quantile - the @permille'th per mille of @n sorted durations, by
 * nearest rank (the least value with at least that share at or below it)
 *
 * Return: the duration, 0 if @n is 0.
 */
uint64_t
rblat_quantile(const uint64_t *sorted, size_t n, unsigned permille)
{
	uint64_t	rank;

	if (n == 0)
		return 0;
	rank = ((uint64_t)n * permille + 999) / 1000;
	if (rank == 0)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

/**
 * rblat_hist_quantile - the same from a histogram of @count calls: the
 * middle of the bucket the rank falls in, no more than @max
 */
uint64_t
rblat_hist_quantile(const uint64_t *hist, uint64_t count, unsigned permille,
    uint64_t max)
{
	uint64_t	rank, seen = 0, v;
	unsigned	b;

	if (count == 0)
		return 0;
	rank = (count / 1000) * permille + ((count % 1000) * permille + 999) /
	    1000;
	if (rank == 0)
		rank = 1;
	for (b = 0; b < RBLAT_BUCKETS; b++) {
		seen += hist[b];
		if (seen >= rank)
			break;
	}
	if (b >= RBLAT_BUCKETS)
		return max;
	v = b == 0 ? 0 : rblat_bucket_lo(b) + rblat_bucket_lo(b) / 2;
	return v < max ? v : max;
}

/* The percentiles of every function, once its calls are all in. */
void
rblat_finish(struct rblat *l)
{
	struct rblat_func	*f;
	size_t			 i;

	for (i = 0; i < l->n; i++) {
		f = &l->f[i];
		if (f->approx) {
			f->p50 = rblat_hist_quantile(f->hist, f->calls, 500,
			    f->max_ns);
			f->p99 = rblat_hist_quantile(f->hist, f->calls, 990,
			    f->max_ns);
			continue;
		}
		if (f->ndurs > 1)
			qsort(f->durs, f->ndurs, sizeof *f->durs,
			    rblat_u64_cmp);
		f->p50 = rblat_quantile(f->durs, f->ndurs, 500);
		f->p99 = rblat_quantile(f->durs, f->ndurs, 990);
	}
}

static const char *const rblat_sorts[RBLAT_SORTS] = {
	"calls", "total", "p50", "p99", "max", "name"
};

int
rblat_sort_parse(const char *s)
{
	int	i;

	for (i = 0; i < RBLAT_SORTS; i++)
		if (strcmp(s, rblat_sorts[i]) == 0)
			return i;
	return -1;
}

const char *
rblat_sort_name(enum rblat_sort k)
{
	return (unsigned)k < RBLAT_SORTS ? rblat_sorts[k] : "?";
}

static uint64_t
rblat_key(const struct rblat_func *f, enum rblat_sort k)
{
	switch (k) {
	case RBLAT_SORT_CALLS:
		return f->calls;
	case RBLAT_SORT_TOTAL:
		return f->total_ns;
	case RBLAT_SORT_P50:
		return f->p50;
	case RBLAT_SORT_P99:
		return f->p99;
	case RBLAT_SORT_MAX:
		return f->max_ns;
	default:
		return 0;
	}
}

static int
rblat_name_cmp(const struct rblat_func *x, const struct rblat_func *y)
{
	int	c = strcmp(x->name, y->name);

	return c != 0 ? c : strcmp(x->file, y->file);
}

struct rblat_sortarg {
	const struct rblat	*l;
	enum rblat_sort		 k;
};

static int
rblat_order_cmp(const void *a, const void *b, void *arg)
{
	const struct rblat_sortarg *s = arg;
	const struct rblat_func	*x = &s->l->f[*(const uint32_t *)a];
	const struct rblat_func	*y = &s->l->f[*(const uint32_t *)b];
	uint64_t		 p = rblat_key(x, s->k), q = rblat_key(y, s->k);

	if (s->k != RBLAT_SORT_NAME && p != q)
		return p > q ? -1 : 1;
	if (s->k != RBLAT_SORT_NAME && x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	return rblat_name_cmp(x, y);
}

/**
 * rblat_order - the functions that have calls (timed, cut, open or without
 * entry), in @order (room for every row), by @k: numbers the largest first,
 * names in order
 *
 * Return: how many.
 */
size_t
rblat_order(const struct rblat *l, enum rblat_sort k, uint32_t *order)
{
	struct rblat_sortarg	s = { l, k };
	size_t			i, n = 0;

	for (i = 0; i < l->n; i++)
		if (l->f[i].calls + l->f[i].cut + l->f[i].open +
		    l->f[i].entry_lost != 0)
			order[n++] = (uint32_t)i;
	if (n > 1)
		qsort_r(order, n, sizeof *order, rblat_order_cmp, &s);
	return n;
}

/* A duration as the tables show it: "812 ns", "1.05 us", "12.3 ms", "2.00 s" */
void
rblat_time(char *buf, size_t len, uint64_t ns)
{
	double	v;
	const char *u;

	if (ns < 1000) {
		snprintf(buf, len, "%" PRIu64 " ns", ns);
		return;
	}
	if (ns < 1000000) {
		v = (double)ns / 1e3;
		u = "us";
	} else if (ns < 1000000000) {
		v = (double)ns / 1e6;
		u = "ms";
	} else {
		v = (double)ns / 1e9;
		u = "s";
	}
	snprintf(buf, len, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" :
	    "%.0f %s", v, u);
}

#define RBLAT_BAR	40

/**
 * rblat_hist_lines - @f's histogram as DTrace's quantize prints it: a
 * header, then from the bucket below the first used to the one above the
 * last, "      value  |@@@@@@@@@@    count" with a bar of @bar columns
 * (0: 40) for the share of the calls
 * @out: set to an array of lines, each and the array to free()
 *
 * Return: how many lines (0 when no call was timed).
 */
size_t
rblat_hist_lines(const struct rblat_func *f, int bar, char ***out)
{
	unsigned	 lo, hi, b;
	size_t		 n = 0;
	char		 v[32], at[128];
	int		 w;

	*out = NULL;
	if (f->calls == 0)
		return 0;
	if (bar <= 0)
		bar = RBLAT_BAR;
	if (bar > (int)sizeof at - 1)
		bar = (int)sizeof at - 1;
	for (lo = 0; f->hist[lo] == 0; lo++)
		;
	for (hi = RBLAT_BUCKETS - 1; f->hist[hi] == 0; hi--)
		;
	if (lo > 0)
		lo--;
	if (hi < RBLAT_BUCKETS - 1)
		hi++;
	*out = rbmon_xcalloc(hi - lo + 2, sizeof **out);
	memset(at, '-', (size_t)bar);
	at[bar] = '\0';
	w = (bar - 14) / 2;
	rbmon_xasprintf(&(*out)[n++], "%12s  %.*s Distribution %.*s count",
	    "value", w > 0 ? w : 0, at, bar - 14 - w > 0 ? bar - 14 - w : 0,
	    at);
	for (b = lo; b <= hi; b++) {
		size_t	k = (size_t)((double)f->hist[b] * bar /
		    (double)f->calls + 0.5);

		if (k == 0 && f->hist[b] != 0)
			k = 1;
		memset(at, '@', k);
		memset(at + k, ' ', (size_t)bar - k);
		at[bar] = '\0';
		rblat_time(v, sizeof v, rblat_bucket_lo(b));
		rbmon_xasprintf(&(*out)[n++], "%12s |%s %" PRIu64, v, at,
		    f->hist[b]);
	}
	return n;
}

/* ---- a recording --------------------------------------------------------- */

struct rblat_rec {
	struct rblat		*l;
	struct rbwalk_ctx	*x;
	uint32_t		*map;		/* ctx function -> row + 1 */
	size_t			 nmap;
};

static uint32_t
rblat_rec_func(struct rblat_rec *r, uint32_t func)
{
	size_t	n;

	if (func >= r->nmap) {
		n = r->x->nfuncs > (size_t)func + 1 ? r->x->nfuncs :
		    (size_t)func + 1;
		n = n > 2 * r->nmap ? n : 2 * r->nmap;
		r->map = rbmon_xreallocarray(r->map, n, sizeof *r->map);
		memset(r->map + r->nmap, 0, (n - r->nmap) * sizeof *r->map);
		r->nmap = n;
	}
	if (r->map[func] == 0)
		r->map[func] = 1 + rblat_func(r->l, func < r->x->nfuncs ?
		    r->x->funcs[func].name : "?", func < r->x->nfuncs ?
		    r->x->funcs[func].file : "");
	return r->map[func] - 1;
}

static void
rblat_rec_leave(struct rbcalls_walk *w, struct rbcalls_frame *f, size_t depth,
    uint64_t end, int how)
{
	struct rblat_rec	*r = w->h->arg;
	uint32_t		 i = rblat_rec_func(r, f->func);

	(void)depth;
	if (f->flags & RBCALLS_F_ENTRY_LOST) {
		rblat_entry_lost(r->l, i);
		return;
	}
	rblat_call(r->l, i, rbread_dur_ns(r->x, f->start, end), how);
}

/**
 * rblat_recording - every call of @x's streams that @wanted keeps (pid,
 * tid; NULL: all) into @l, then rblat_finish()
 *
 * Return: the streams walked.
 */
int
rblat_recording(struct rblat *l, struct rbwalk_ctx *x,
    int (*wanted)(void *, int32_t, int32_t), void *arg)
{
	struct rblat_rec	 r = { l, x, NULL, 0 };
	struct rbcalls_handler	 h = { NULL, rblat_rec_leave, NULL, &r };
	struct rbcalls_walk	 w;
	size_t			 i;
	int			 n = 0;

	for (i = 0; i < x->rec.nstreams; i++) {
		const struct rbrec_thread *t = &x->rec.streams[i].info;

		if (wanted != NULL && !wanted(arg, t->pid, t->tid))
			continue;
		rbcalls_walk_init(&w, x, i, &h);
		while (rbcalls_walk_step(&w))
			;
		rbcalls_walk_finish(&w);
		rbcalls_walk_free(&w);
		n++;
	}
	free(r.map);
	rblat_finish(l);
	return n;
}

/* ---- live event logs ----------------------------------------------------- */

static struct rblat_live *
rblat_live_of(struct rbcalls_walk *w)
{
	return w->h->arg;
}

/* The row of function @fn of the pass's process. */
static uint32_t
rblat_live_func(struct rblat_live *lv, uint64_t fn)
{
	struct rbmon_sym	sym;
	uint32_t		v;
	char			buf[32];

	if (rbwalk_map_get(&lv->byaddr, lv->p->image, fn, &v))
		return v;
	memset(&sym, 0, sizeof sym);
	rbmon_symbols_lookup(lv->sy, lv->s, lv->p, fn, &sym);
	if (sym.function == NULL)
		snprintf(buf, sizeof buf, "0x%" PRIx64, fn);
	v = rblat_func(lv->tab, sym.function != NULL ? sym.function : buf,
	    sym.file != NULL ? sym.file : "");
	rbwalk_map_put(&lv->byaddr, lv->p->image, fn, v);
	return v;
}

static void
rblat_live_enter(struct rbcalls_walk *w, struct rbcalls_frame *f,
    size_t depth)
{
	struct rblat_live	*lv = rblat_live_of(w);

	(void)depth;
	/* A named frame's name is known only now (rbtrace_push()). */
	if (f->flags & RBCALLS_F_NAMED)
		f->aux = 1 + (uint64_t)rblat_func(lv->tab,
		    w->named_name != NULL && w->named_whole &&
		    w->named_name[0] != '\0' ? w->named_name :
		    "[named frame]", w->named_file != NULL && w->named_whole ?
		    w->named_file : "");
}

static void
rblat_live_leave(struct rbcalls_walk *w, struct rbcalls_frame *f,
    size_t depth, uint64_t end, int how)
{
	struct rblat_live	*lv = rblat_live_of(w);
	uint64_t		 a, b;
	uint32_t		 i;

	(void)depth;
	if (f->flags & RBCALLS_F_NAMED)
		i = f->aux != 0 ? (uint32_t)(f->aux - 1) :
		    rblat_func(lv->tab, "[named frame]", "");
	else
		i = rblat_live_func(lv, f->fn);
	if (f->flags & RBCALLS_F_ENTRY_LOST) {
		/* Entered before the first copy: not a call of the window. */
		if (lv->call == NULL)
			rblat_entry_lost(lv->tab, i);
		return;
	}
	if (how == RBCALLS_L_CUT)
		lv->cut++;
	if (rbmon_clock_ns(lv->clk, f->start, &a) != 0 ||
	    rbmon_clock_ns(lv->clk, end, &b) != 0)
		a = b = 0;
	if (b < a)
		b = a;
	if (lv->call != NULL)
		lv->call(lv->arg, i, b, b - a, how);
	else
		rblat_call(lv->tab, i, b - a, how);
}

void
rblat_live_init(struct rblat_live *lv, struct rblat *tab,
    struct rbmon_model *m, struct rbmon_symbols *sy)
{
	memset(lv, 0, sizeof *lv);
	lv->tab = tab;
	lv->m = m;
	lv->sy = sy;
	lv->h.enter = rblat_live_enter;
	lv->h.leave = rblat_live_leave;
	lv->h.arg = lv;
}

static struct rblat_lthread *
rblat_live_thread(struct rblat_live *lv, const struct rbmon_thread *t)
{
	struct rblat_lthread	*lt;
	size_t			 i;

	for (i = 0; i < lv->nth; i++)
		if (lv->th[i]->ring == t->ring && lv->th[i]->gen == t->gen)
			return lv->th[i];
	if (lv->nth == lv->capth) {
		lv->capth = lv->capth != 0 ? lv->capth * 2 : 16;
		lv->th = rbmon_xreallocarray(lv->th, lv->capth,
		    sizeof *lv->th);
	}
	lt = rbmon_xcalloc(1, sizeof *lt);
	lt->ring = t->ring;
	lt->gen = t->gen;
	lt->tid = t->tid;
	/* There at the first pass: from now on; born since: from its start. */
	lt->next = lv->started ? 0 : t->ev_head;
	lt->dropped0 = lv->started ? 0 : t->ev_dropped;
	rbcalls_walk_live(&lt->w, &lv->h);
	lv->th[lv->nth++] = lt;
	lv->threads++;
	return lt;
}

#define RBLAT_UNSEEN_MAX	100	/* passes a thread may be missing */

/* Does another thread of the pass hold @lt's ring now? */
static int
rblat_ring_taken(const struct rblat_live *lv, const struct rblat_lthread *lt)
{
	size_t	i;

	for (i = 0; i < lv->nth; i++)
		if (lv->th[i]->seen && lv->th[i]->ring == lt->ring &&
		    lv->th[i]->gen != lt->gen)
			return 1;
	return 0;
}

/* One thread's records since the last pass. */
static void
rblat_live_copy(struct rblat_live *lv, struct rblat_lthread *lt,
    const struct rbmon_thread *t)
{
	struct rbmon_evcopy	*c = &lv->c;

	if (t->ev_dropped > lt->dropped0 + lt->dropped) {
		lv->dropped += t->ev_dropped - lt->dropped0 - lt->dropped;
		lt->dropped = t->ev_dropped - lt->dropped0;
	}
	if (rbmon_events_copy(lv->m, t, lt->next, SIZE_MAX, c) != 0 ||
	    !c->valid) {
		lv->torn++;
		return;
	}
	if (c->n == 0)
		return;
	if (c->w.first > lt->next) {
		lv->lost += c->w.first - lt->next;
		rbcalls_walk_gap(&lt->w, lt->next, c->w.first - lt->next);
	}
	rbcalls_walk_feed(&lt->w, c->rec, c->n, c->w.first);
	while (rbcalls_walk_step(&lt->w))
		;
	rbcalls_walk_feed(&lt->w, NULL, 0, 0);
	lv->records += c->n;
	lt->next = c->w.first + c->n;
}

/**
 * rblat_live_pass - copy what every thread of @s wrote since the last pass
 * and count its calls; the first pass only marks where each log is
 */
void
rblat_live_pass(struct rblat_live *lv, const struct rbmon_snapshot *s,
    const struct rbmon_clock *clk)
{
	struct rblat_lthread	*lt;
	size_t			 i, j, k;

	if (lv->m->hdr.events == 0)
		return;
	lv->s = s;
	lv->clk = clk;
	for (i = 0; i < lv->nth; i++)
		lv->th[i]->seen = 0;
	for (i = 0; i < s->nprocs; i++) {
		lv->p = &s->procs[i];
		for (j = 0; j < lv->p->nthreads; j++) {
			const struct rbmon_thread *t = &lv->p->threads[j];

			if (lv->wanted != NULL && !lv->wanted(lv->arg,
			    lv->p->pid, t->tid))
				continue;
			lt = rblat_live_thread(lv, t);
			lt->seen = 1;
			if (lv->started)
				rblat_live_copy(lv, lt, t);
		}
	}
	/*
	 * Forgotten: a thread whose ring another thread holds now, or that
	 * no snapshot listed for a while (one missing it for a pass must
	 * not have its log read again from the start).
	 */
	for (i = 0; i < lv->nth; i++) {
		lt = lv->th[i];
		lt->unseen = lt->seen ? 0 : lt->unseen + 1;
		lt->drop = !lt->seen && (lt->unseen >= RBLAT_UNSEEN_MAX ||
		    rblat_ring_taken(lv, lt));
	}
	for (i = k = 0; i < lv->nth; i++) {
		lt = lv->th[i];
		if (!lt->drop) {
			lv->th[k++] = lt;
			continue;
		}
		rbcalls_walk_free(&lt->w);
		free(lt);
	}
	lv->nth = k;
	lv->started = 1;
	lv->s = NULL;
	lv->p = NULL;
}

void
rblat_live_free(struct rblat_live *lv)
{
	size_t	i;

	for (i = 0; i < lv->nth; i++) {
		rbcalls_walk_free(&lv->th[i]->w);
		free(lv->th[i]);
	}
	free(lv->th);
	rbmon_evcopy_free(&lv->c);
	rbwalk_map_free(&lv->byaddr);
	memset(lv, 0, sizeof *lv);
}
