/* SPDX-License-Identifier: MIT */
/*
 * rbmon events: the event log of a thread (rbtrace(5), "EVENT LOG") copied
 * without stopping it, made a function graph (ftrace's function_graph,
 * uftrace replay), printed as text or JSON, and switched on and off.
 *
 * The records come from a file anyone who can write it may have scribbled
 * on: every kind is checked, names are bounded and escaped, and nothing a
 * record says is used as an index or a size.
 */
#include "config.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/atomic.h"
#include "common/clock.h"
#include "monitor/core/control.h"
#include "monitor/core/dump.h"
#include "monitor/history/calls.h"
#include "monitor/util/cxxname.h"
#include "monitor/util/escape.h"
#include "monitor/history/events.h"
#include "monitor/core/view.h"

/* ---- copying ------------------------------------------------------------- */

struct events_copy_arg {
	struct rbmon_model		*m;
	const struct rbmon_thread	*t;
	uint64_t			 from;
	struct rbmon_evcopy		*c;
};

static void
events_copy_guarded(void *arg)
{
	struct events_copy_arg	*a = arg;
	const struct rb_header	*h = &a->m->hdr;
	struct rb_owner		*o = rb_owner_at(a->m->base, h, a->t->ring);
	struct rb_ring		*r = rb_ring_at(a->m->base, h, a->t->ring);
	struct rb_evq		 q;
	uint64_t		 gen;

	rb_evq_attach(&q, rb_ring_evlog(h, r), h->events, h->ev_policy);
	/* Acquire: the claim whose log this is; pairs with the owner's release of LIVE. */
	gen = RB_LOAD_ACQ(&o->gen);
	(void)RB_LOAD_ACQ(&o->ctl);
	if (gen != a->t->gen)
		return;
	a->c->n = rb_evlog_copy(&q, a->from, a->c->rec, a->c->cap, &a->c->w);
	/* (K) Orders the copy before the reread: a ring taken meanwhile bumped gen. */
	RB_FENCE_ACQ();
	a->c->valid = RB_LOAD(&o->gen) == gen;
	if (!a->c->valid)
		a->c->n = 0;
}

/**
 * rbmon_events_copy - copy thread @t's records from index @from on, the
 * newest @max at most, while its owner writes on
 * @c: zeroed or used before; filled in
 *
 * Return: 0, or -1 if the file is shorter than its header says.
 */
int
rbmon_events_copy(struct rbmon_model *m, const struct rbmon_thread *t,
    uint64_t from, size_t max, struct rbmon_evcopy *c)
{
	struct events_copy_arg	 a = { m, t, from, c };
	size_t			 want = m->hdr.events < max ? m->hdr.events : max;

	c->n = 0;
	c->valid = 0;
	memset(&c->w, 0, sizeof c->w);
	if (m->hdr.events == 0 || t->ring >= m->hdr.rings)
		return 0;
	if (c->cap < want) {
		c->rec = rbmon_xreallocarray(c->rec, want, sizeof *c->rec);
		c->cap = want;
	}
	return rbmon_model_guarded(m, events_copy_guarded, &a);
}

void
rbmon_evcopy_free(struct rbmon_evcopy *c)
{
	free(c->rec);
	memset(c, 0, sizeof *c);
}

/* ---- the graph ----------------------------------------------------------- */

/*
 * The rows come from the calls engine (calls.c), fed copy by copy: a call
 * is a row when it is entered, and is marked or closed by a row when it is
 * left; every other record is a row of its own.  A row's depth is the
 * engine's plus g->base, which goes down when an exit closes a frame
 * whose entry is not in the log (its "}" left of what came before) and up
 * when a cut leaves frames that were open (what follows stays where it
 * was: exits of those frames close them there).
 */

static struct rbmon_evrow *
evgraph_row(struct rbmon_evgraph *g, uint8_t kind, const struct rb_event *e,
    uint64_t index, int32_t depth)
{
	struct rbmon_evrow	*r;

	if (g->n == g->cap) {
		g->cap = g->cap == 0 ? 256 : g->cap * 2;
		g->rows = rbmon_xreallocarray(g->rows, g->cap, sizeof *g->rows);
	}
	r = &g->rows[g->n++];
	memset(r, 0, sizeof *r);
	r->kind = kind;
	r->depth = depth;
	r->index = index;
	if (e != NULL) {
		r->ts = e->ts;
		r->fn = e->fn;
		r->arg = e->arg;
	}
	return r;
}

static struct rbmon_evgraph *
evgraph_of(struct rbcalls_walk *w)
{
	return (struct rbmon_evgraph *)(void *)((char *)w -
	    offsetof(struct rbmon_evgraph, w));
}

static void
evgraph_enter(struct rbcalls_walk *w, struct rbcalls_frame *f, size_t depth)
{
	struct rbmon_evgraph	*g = evgraph_of(w);
	const struct rbrec_rec	*k = w->rec;
	struct rbmon_evrow	*r;

	if (f->flags & RBCALLS_F_ENTRY_LOST) {
		/* Its exit is here, below every frame: a row when left. */
		g->base--;
		return;
	}
	r = evgraph_row(g, RBMON_EVR_CALL, &k->e, k->index,
	    g->base + (int32_t)depth);
	r->ts = f->start;
	r->flags = RBMON_EVF_OPEN;
	if (f->flags & RBCALLS_F_NAMED) {
		r->fn = 0;
		r->flags |= RBMON_EVF_NAMED;
		r->name = rbmon_xstrdup(w->named_whole &&
		    w->named_name[0] != '\0' ? w->named_name : "?");
		r->file = rbmon_xstrdup(w->named_file);
	} else {
		r->site = f->site;
		r->arg = 0;
	}
	f->aux = g->n - 1;
}

static void
evgraph_leave(struct rbcalls_walk *w, struct rbcalls_frame *f, size_t depth,
    uint64_t end, int how)
{
	struct rbmon_evgraph	*g = evgraph_of(w);
	const struct rbrec_rec	*k = w->rec;
	struct rbmon_evrow	*r, *call;
	size_t			 row = (size_t)f->aux;

	if (f->flags & RBCALLS_F_ENTRY_LOST) {
		/* An exit whose entry is not in the log: its closing brace. */
		r = evgraph_row(g, RBMON_EVR_EXIT, &k->e, k->index,
		    g->base + (int32_t)depth);
		r->flags = RBMON_EVF_CLOSE;
		if (f->flags & RBCALLS_F_NAMED)
			r->flags |= RBMON_EVF_NAMED;
		return;
	}
	call = &g->rows[row];
	call->flags &= ~RBMON_EVF_OPEN;
	switch (how) {
	case RBCALLS_L_UNWOUND:
		call->flags |= RBMON_EVF_UNWOUND;
		return;
	case RBCALLS_L_CUT:
		/* Its exit may have been among the records lost. */
		call->flags |= RBMON_EVF_CUT;
		g->base++;
		return;
	case RBCALLS_L_OPEN:
		call->flags |= RBMON_EVF_OPEN;
		return;
	}
	call->end = end;
	if (row == g->n - 1) {
		call->flags |= RBMON_EVF_LEAF;
		return;
	}
	r = evgraph_row(g, RBMON_EVR_END, &k->e, k->index, call->depth);
	call = &g->rows[row];
	r->flags = call->flags & RBMON_EVF_NAMED;
	r->ts = call->ts;
	r->end = end;
	if (call->name != NULL)
		r->name = rbmon_xstrdup(call->name);
}

static void
evgraph_mark(struct rbcalls_walk *w, const struct rbrec_rec *k, size_t depth)
{
	struct rbmon_evgraph	*g = evgraph_of(w);
	int32_t			 d = g->base + (int32_t)depth;
	struct rbmon_evrow	*r;

	if (k->lost) {
		r = evgraph_row(g, RBMON_EVR_LOST, NULL, k->index, d);
		r->arg = k->e.arg;
		return;
	}
	switch (k->e.kind) {
	case RB_EV_LINE:
		evgraph_row(g, RBMON_EVR_LINE, &k->e, k->index, d);
		break;
	case RB_EV_STOP:
		evgraph_row(g, RBMON_EVR_STOP, &k->e, k->index, d);
		g->stop = g->n - 1;
		break;
	case RB_EV_RESUME:
		if (g->stop != SIZE_MAX) {
			g->rows[g->stop].end = k->e.ts;
			g->stop = SIZE_MAX;
		} else {
			evgraph_row(g, RBMON_EVR_RESUME, &k->e, k->index, d);
		}
		break;
	case RB_EV_OFF:
		evgraph_row(g, RBMON_EVR_OFF, &k->e, k->index, d);
		g->off = g->n - 1;
		break;
	case RB_EV_ON:
		if (g->off != SIZE_MAX) {
			g->rows[g->off].end = k->e.ts;
			g->off = SIZE_MAX;
		} else {
			evgraph_row(g, RBMON_EVR_ON, &k->e, k->index, d);
		}
		break;
	case RB_EV_LOST:
		r = evgraph_row(g, RBMON_EVR_LOST, &k->e, k->index, d);
		r->fn = 0;
		break;
	default:
		r = evgraph_row(g, RBMON_EVR_BAD, &k->e, k->index, d);
		r->arg = k->e.kind;
		break;
	}
}

static const struct rbcalls_handler evgraph_handler = {
	evgraph_enter, evgraph_leave, evgraph_mark, NULL
};

void
rbmon_evgraph_init(struct rbmon_evgraph *g)
{
	memset(g, 0, sizeof *g);
	g->stop = g->off = SIZE_MAX;
	rbcalls_walk_live(&g->w, &evgraph_handler);
}

void
rbmon_evgraph_free(struct rbmon_evgraph *g)
{
	size_t	i;

	for (i = 0; i < g->n; i++) {
		free(g->rows[i].name);
		free(g->rows[i].file);
	}
	free(g->rows);
	rbcalls_walk_free(&g->w);
	rbmon_evgraph_init(g);
}

/**
 * rbmon_evgraph_lost - @count records from index @at on are not there
 * (overwritten before a copy, dropped): a [LOST] row where they were
 */
void
rbmon_evgraph_lost(struct rbmon_evgraph *g, uint64_t at, uint64_t count)
{
	if (count == 0)
		return;
	rbcalls_walk_gap(&g->w, at, count);
	g->cur = g->base + (int32_t)g->w.n;
}

/**
 * rbmon_evgraph_add - append a copy's records to the graph
 *
 * Records are taken in order; a copy that does not start where the last
 * one ended gets a [LOST] row for what the writer overwrote in between.
 */
void
rbmon_evgraph_add(struct rbmon_evgraph *g, const struct rbmon_evcopy *c)
{
	if (c->n == 0)
		return;
	if (g->next != 0 && c->w.first > g->next)
		rbmon_evgraph_lost(g, g->next, c->w.first - g->next);
	rbcalls_walk_feed(&g->w, c->rec, c->n, c->w.first);
	while (rbcalls_walk_step(&g->w))
		;
	rbcalls_walk_feed(&g->w, NULL, 0, 0);
	g->next = c->w.first + c->n;
	g->cur = g->base + (int32_t)g->w.n;
}

/**
 * rbmon_evgraph_mindepth - the smallest depth of a row (exits whose
 * entries are gone go below 0): shown as the left margin
 */
int32_t
rbmon_evgraph_mindepth(const struct rbmon_evgraph *g)
{
	int32_t	m = 0;
	size_t	i;

	for (i = 0; i < g->n; i++)
		if (g->rows[i].depth < m)
			m = g->rows[i].depth;
	return m;
}

/**
 * rbmon_ev_duration - a row's duration as function_graph shows it:
 * "12.301 ms", "open", "unwound", "entry lost", or "" when it has none
 * (or the file no clock: RBTRACE_CLOCK=none)
 */
void
rbmon_ev_duration(char *buf, size_t len, const struct rbmon_clock *c,
    const struct rbmon_evrow *r)
{
	uint64_t	a, b, d;

	buf[0] = '\0';
	switch (r->kind) {
	case RBMON_EVR_CALL:
		if (r->end == 0) {
			snprintf(buf, len, "%s", r->flags & RBMON_EVF_UNWOUND ?
			    "unwound" : r->flags & RBMON_EVF_CUT ? "exit lost" :
			    "open");
			return;
		}
		break;
	case RBMON_EVR_END:
		return;		/* on its call's row */
	case RBMON_EVR_EXIT:
		snprintf(buf, len, "entry lost");
		return;
	case RBMON_EVR_STOP:
	case RBMON_EVR_OFF:
		if (r->end == 0)
			return;
		break;
	default:
		return;
	}
	if (c->kind == RB_CLOCK_NONE)
		return;
	if (rbmon_clock_ns(c, r->ts, &a) != 0 ||
	    rbmon_clock_ns(c, r->end, &b) != 0) {
		snprintf(buf, len, "?");
		return;
	}
	d = b >= a ? b - a : 0;
	if (d < 1000000)
		snprintf(buf, len, "%.3f us", (double)d / 1e3);
	else if (d < 1000000000)
		snprintf(buf, len, "%.3f ms", (double)d / 1e6);
	else
		snprintf(buf, len, "%.3f s", (double)d / 1e9);
}

/* ---- text ---------------------------------------------------------------- */

static const char *
events_fn_name(struct rbmon_symbols *sy, const struct rbmon_snapshot *s,
    const struct rbmon_process *p, uint64_t fn, char *buf, size_t len)
{
	struct rbmon_sym	sym;

	memset(&sym, 0, sizeof sym);
	rbmon_symbols_lookup(sy, s, p, fn, &sym);
	if (sym.function != NULL)
		return sym.function;
	snprintf(buf, len, "0x%" PRIx64, fn);
	return buf;
}

/* The log's own counts, as rbtrace(5) defines them. */
struct events_counts {
	uint64_t	written, consumed, overwritten, dropped, buffered;
	uint64_t	short_calls;	/* taken back: two records each */
};

static void
events_counts(const struct rb_header *h, const struct rbmon_thread *t,
    struct events_counts *k)
{
	memset(k, 0, sizeof *k);
	k->dropped = t->ev_dropped;
	k->short_calls = t->ev_rewinds;
	k->written = t->ev_head + t->ev_dropped + 2 * t->ev_rewinds;
	switch (h->ev_policy) {
	case RB_POLICY_DRAIN:
		k->consumed = t->ev_tail <= t->ev_head ? t->ev_tail : t->ev_head;
		k->buffered = t->ev_head - k->consumed;
		break;
	case RB_POLICY_FILL:
		k->buffered = t->ev_head;
		break;
	default:
		k->buffered = t->ev_head < h->events ? t->ev_head : h->events;
		k->overwritten = t->ev_head - k->buffered;
		break;
	}
}

/* Should @t be shown for --thread @tid (0: every thread)? */
static int
events_wanted(const struct rbmon_thread *t, long tid)
{
	return tid == 0 || t->tid == tid;
}

static void
events_graph_of(struct rbmon_model *m, const struct rbmon_thread *t,
    struct rbmon_evgraph *g, struct rbmon_evcopy *c, int *torn)
{
	rbmon_evgraph_init(g);
	*torn = 0;
	if (rbmon_events_copy(m, t, 0, SIZE_MAX, c) != 0 || !c->valid) {
		*torn = 1;
		return;
	}
	rbmon_evgraph_add(g, c);
	/* fill: what came after the last record; drain: drops not marked yet */
	if (m->hdr.ev_policy == RB_POLICY_FILL)
		rbmon_evgraph_lost(g, c->w.head, c->w.dropped);
	else if (m->hdr.ev_policy == RB_POLICY_DRAIN)
		rbmon_evgraph_lost(g, c->w.head, t->ev_pending);
}

/**
 * rbmon_evrow_text - a row of the graph as the text output shows it:
 * "   12.301 ms |      handle_request() {" (raw: names are not escaped)
 * @base: the graph's smallest depth (rbmon_evgraph_mindepth())
 */
void
rbmon_evrow_text(char *buf, size_t len, struct rbmon_symbols *sy,
    const struct rbmon_snapshot *s, const struct rbmon_process *p,
    const struct rbmon_clock *c, const struct rbmon_evrow *r, int32_t base)
{
	rbmon_evrow_text_cols(buf, len, sy, s, p, c, r, base, 0);
}

/*
 * @name shortened (cxxname.c) to what is left of @cols columns after
 * @used and @extra, 16 at least; @name itself when @cols is 0.
 */
static const char *
events_name_fit(char *fb, size_t size, const char *name, size_t cols,
    size_t used, size_t extra)
{
	size_t	w = cols > used + extra ? cols - used - extra : 0;

	if (cols == 0 || name == NULL)
		return name;
	rbmon_cxxname_fit(fb, size, name, NULL, w < 16 ? 16 : w,
	    RBMON_CXX_ELL_ASCII);
	return fb;
}

/**
 * rbmon_evrow_text_cols - rbmon_evrow_text() for a row of @cols columns
 * (the screen): a function's name is shortened to fit, 0 keeps it whole
 */
void
rbmon_evrow_text_cols(char *buf, size_t len, struct rbmon_symbols *sy,
    const struct rbmon_snapshot *s, const struct rbmon_process *p,
    const struct rbmon_clock *c, const struct rbmon_evrow *r, int32_t base,
    size_t cols)
{
	char		 dur[32], nb[32], tmp[64], fb[1024];
	const char	*name;
	size_t		 o;
	int32_t		 d;

#define PUT(...)	do {						\
		int n_ = snprintf(buf + o, o < len ? len - o : 0, __VA_ARGS__); \
		if (n_ > 0)						\
			o += (size_t)n_;				\
	} while (0)
	o = 0;
	if (len == 0)
		return;
	buf[0] = '\0';
	rbmon_ev_duration(dur, sizeof dur, c, r);
	PUT("%12s |  ", dur);
	for (d = base; d < r->depth && d - base < 200; d++)
		PUT("  ");
	name = r->flags & RBMON_EVF_NAMED ? r->name :
	    r->fn != 0 ? events_fn_name(sy, s, p, r->fn, nb, sizeof nb) : NULL;
	name = events_name_fit(fb, sizeof fb, name, cols, o, 8);
	switch (r->kind) {
	case RBMON_EVR_CALL:
		PUT("%s%s", name != NULL ? name : "?",
		    r->flags & RBMON_EVF_LEAF ? "();" : "() {");
		break;
	case RBMON_EVR_END:
		PUT("} /* %s */", name != NULL ? name : "?");
		break;
	case RBMON_EVR_EXIT:
		if (r->flags & RBMON_EVF_CLOSE)
			PUT("} /* %s */", name != NULL ? name : "?");
		else
			PUT("%s();", name != NULL ? name : "?");
		break;
	case RBMON_EVR_LINE:
		PUT("/* line %" PRId64 " */", (int64_t)r->arg);
		break;
	case RBMON_EVR_STOP:
		PUT("/* stopped: %s", rbmon_why_json((int32_t)r->arg));
		if (RB_WHY_REASON(r->arg) == RB_WHY_BREAKPOINT)
			PUT(" %u", RB_WHY_ID((uint32_t)r->arg));
		if (r->fn != 0)
			PUT("%s%s", (r->arg & RB_WHY_EXIT) ? ", returned from " :
			    " at ", events_fn_name(sy, s, p, r->fn, tmp,
			    sizeof tmp));
		PUT("%s", r->end == 0 ? " (not resumed) */" : " */");
		break;
	case RBMON_EVR_RESUME:
		PUT("%s", r->arg == 1 ? "/* resumed itself: no monitor */" :
		    "/* resumed */");
		break;
	case RBMON_EVR_OFF:
		PUT("%s", r->end == 0 ? "/* recording off */" :
		    "/* recording off, then on */");
		break;
	case RBMON_EVR_ON:
		PUT("/* recording on */");
		break;
	case RBMON_EVR_LOST:
		PUT("[LOST %" PRIu64 " EVENTS]", r->arg);
		break;
	default:
		PUT("[a record of unknown kind %" PRIu64 "]", r->arg);
		break;
	}
#undef PUT
}

/* What the printers of the event logs are given. */
struct events_out {
	FILE				*out;
	struct rbmon_model		*m;
	const struct rbmon_snapshot	*s;
	struct rbmon_symbols		*sy;
	const struct rbmon_clock	*c;
	const struct rbmon_process	*p;	/* the process printed */
	const struct rbmon_thread	*t;	/* the thread printed */
	struct events_counts		 k;	/* its counts */
	const struct rbmon_evcopy	*copy;	/* its copy, when read */
	int				 torn;	/* its copy torn */
	int				 firstp, firstt, firstr;
};

/*
 * An output of the event logs: the one loop over processes, threads and
 * rows (events_print()) calls these.  head returns 0 when there is
 * nothing more to print.
 */
struct events_printer {
	int	(*head)(struct events_out *);
	void	(*proc)(struct events_out *);	/* before its first thread */
	void	(*thread)(struct events_out *);	/* its counts */
	void	(*copied)(struct events_out *);	/* its log, copied */
	void	(*row)(struct events_out *, const struct rbmon_evrow *,
		    int32_t);
	void	(*thread_end)(struct events_out *);
	void	(*proc_end)(struct events_out *);
	void	(*tail)(struct events_out *);
};

/* Every thread's event log (or thread @tid's), printed by @pr. */
static void
events_print(const struct events_printer *pr, FILE *out,
    struct rbmon_model *m, const struct rbmon_snapshot *s,
    struct rbmon_symbols *sy, const struct rbmon_clock *c, long tid)
{
	struct events_out	 o;
	struct rbmon_evcopy	 copy;
	struct rbmon_evgraph	 g;
	size_t			 i, j, r;
	int32_t			 base;

	memset(&o, 0, sizeof o);
	memset(&copy, 0, sizeof copy);
	o.out = out;
	o.m = m;
	o.s = s;
	o.sy = sy;
	o.c = c;
	o.firstp = 1;
	if (!pr->head(&o))
		return;
	for (i = 0; i < s->nprocs; i++) {
		o.p = &s->procs[i];
		o.firstt = 1;
		for (j = 0; j < o.p->nthreads; j++) {
			o.t = &o.p->threads[j];
			if (!events_wanted(o.t, tid))
				continue;
			if (o.firstt) {
				pr->proc(&o);
				o.firstp = 0;
			}
			events_counts(&m->hdr, o.t, &o.k);
			pr->thread(&o);
			o.firstt = 0;
			events_graph_of(m, o.t, &g, &copy, &o.torn);
			o.copy = &copy;
			pr->copied(&o);
			base = rbmon_evgraph_mindepth(&g);
			o.firstr = 1;
			for (r = 0; r < g.n; r++) {
				pr->row(&o, &g.rows[r], base);
				o.firstr = 0;
			}
			pr->thread_end(&o);
			rbmon_evgraph_free(&g);
		}
		if (!o.firstt)
			pr->proc_end(&o);
	}
	pr->tail(&o);
	rbmon_evcopy_free(&copy);
}

static void
events_nothing(struct events_out *o)
{
	(void)o;
}

static int
events_text_head(struct events_out *o)
{
	const struct rb_header	*h = &o->m->hdr;

	if (h->events == 0) {
		fputs("no event log: the program ran with RBTRACE_EVENTS=0\n",
		    o->out);
		return 0;
	}
	fprintf(o->out, "event log: %s policy, %u record%s per thread%s\n",
	    rb_policy_name(h->ev_policy), h->events, h->events == 1 ? "" : "s",
	    h->clock == RB_CLOCK_NONE ?
	    "; no times (RBTRACE_CLOCK=none): the calls in order only" : "");
	if (o->s->min_duration_ns != 0)
		fprintf(o->out, "calls shorter than %" PRIu64 " ns that kept "
		    "nothing they called are dropped (min-duration)\n",
		    o->s->min_duration_ns);
	return 1;
}

static void
events_text_thread(struct events_out *o)
{
	fprintf(o->out, "\npid %d tid %d \"", o->p->pid, o->t->tid);
	rbmon_esc_fputs(o->t->name, o->out);
	fprintf(o->out, "\" (%s%s): %" PRIu64 " written, %" PRIu64
	    " overwritten, %" PRIu64 " dropped, %" PRIu64
	    " consumed, %" PRIu64 " buffered",
	    rbmon_dump_state(o->p, o->t), o->t->ev_off ? ", recording off" : "",
	    o->k.written, o->k.overwritten, o->k.dropped, o->k.consumed,
	    o->k.buffered);
	if (o->k.short_calls != 0)
		fprintf(o->out, ", %" PRIu64 " short call%s dropped",
		    o->k.short_calls, o->k.short_calls == 1 ? "" : "s");
	fputc('\n', o->out);
}

static void
events_text_copied(struct events_out *o)
{
	if (o->torn)
		fputs("  (its ring was taken by another thread while being "
		    "read)\n", o->out);
	else if (o->copy->w.first > 0)
		fprintf(o->out, "  (%" PRIu64 " older record%s %s)\n",
		    o->copy->w.first, o->copy->w.first == 1 ? "" : "s",
		    o->m->hdr.ev_policy == RB_POLICY_DRAIN ?
		    "consumed" : "overwritten");
}

static void
events_text_row(struct events_out *o, const struct rbmon_evrow *r,
    int32_t base)
{
	char	buf[1024];

	rbmon_evrow_text(buf, sizeof buf, o->sy, o->s, o->p, o->c, r, base);
	rbmon_esc_fputs(buf, o->out);
	fputc('\n', o->out);
}

static const struct events_printer events_text_printer = {
	events_text_head, events_nothing, events_text_thread,
	events_text_copied, events_text_row, events_nothing, events_nothing,
	events_nothing
};

/**
 * rbmon_events_text - every thread's event log (or thread @tid's) as a
 * function graph (rbmon(1), "EVENT LOG")
 */
void
rbmon_events_text(FILE *out, struct rbmon_model *m,
    const struct rbmon_snapshot *s, struct rbmon_symbols *sy,
    const struct rbmon_clock *c, long tid)
{
	events_print(&events_text_printer, out, m, s, sy, c, tid);
}

/* ---- JSON ---------------------------------------------------------------- */

static void
events_json_ts(FILE *out, const struct rbmon_clock *c, const char *key,
    uint64_t ts)
{
	uint64_t	ns;

	if (rbmon_clock_ns(c, ts, &ns) == 0)
		fprintf(out, ", \"%s\": %" PRIu64, key, ns);
	else
		fprintf(out, ", \"%s\": null", key);
}

static void
events_json_where(FILE *out, struct rbmon_symbols *sy,
    const struct rbmon_snapshot *s, const struct rbmon_process *p,
    uint64_t fn, uint64_t site)
{
	struct rbmon_sym	sym;

	memset(&sym, 0, sizeof sym);
	rbmon_symbols_lookup(sy, s, p, fn, &sym);
	fputs(", \"function\": ", out);
	if (sym.function != NULL) {
		rbmon_json_string(out, sym.function);
	} else {
		char	buf[32];

		snprintf(buf, sizeof buf, "0x%" PRIx64, fn);
		rbmon_json_string(out, buf);
	}
	fputs(", \"file\": ", out);
	rbmon_json_string(out, sym.file);
	if (sym.line > 0)
		fprintf(out, ", \"line\": %d", sym.line);
	else
		fputs(", \"line\": null", out);
	if (site == 0)
		return;
	memset(&sym, 0, sizeof sym);
	rbmon_symbols_lookup(sy, s, p, site - 1, &sym);
	fputs(", \"call_file\": ", out);
	rbmon_json_string(out, sym.file);
	if (sym.line > 0)
		fprintf(out, ", \"call_line\": %d", sym.line);
	else
		fputs(", \"call_line\": null", out);
}

/* One record as rbmon(1) "JSON OUTPUT" has it: a row of the graph, in log order. */
static void
events_json_row(struct events_out *o, const struct rbmon_evrow *r,
    int32_t base)
{
	FILE				*out = o->out;
	struct rbmon_symbols		*sy = o->sy;
	const struct rbmon_snapshot	*s = o->s;
	const struct rbmon_process	*p = o->p;
	const struct rbmon_clock	*c = o->c;
	int				 first = o->firstr;
	static const char *const kinds[] = {
		[RBMON_EVR_CALL] = "entry", [RBMON_EVR_END] = "exit",
		[RBMON_EVR_EXIT] = "exit", [RBMON_EVR_LINE] = "line",
		[RBMON_EVR_STOP] = "stop", [RBMON_EVR_RESUME] = "resume",
		[RBMON_EVR_OFF] = "off", [RBMON_EVR_ON] = "on",
		[RBMON_EVR_LOST] = "lost", [RBMON_EVR_BAD] = "unknown",
	};
	int	named = (r->flags & RBMON_EVF_NAMED) != 0;

	fprintf(out, "%s{\"kind\": \"%s\"", first ? "" : ", ", kinds[r->kind]);
	switch (r->kind) {
	case RBMON_EVR_LOST:
		fprintf(out, ", \"count\": %" PRIu64 "}", r->arg);
		return;
	case RBMON_EVR_BAD:
		fprintf(out, ", \"value\": %" PRIu64 "}", r->arg);
		return;
	case RBMON_EVR_CALL:
		if (named) {
			fputs(", \"named\": true, \"function\": ", out);
			rbmon_json_string(out, r->name);
			fputs(", \"file\": ", out);
			rbmon_json_string(out, r->file[0] != '\0' ? r->file :
			    NULL);
			if ((int64_t)r->arg > 0)
				fprintf(out, ", \"line\": %" PRId64,
				    (int64_t)r->arg);
			else
				fputs(", \"line\": null", out);
		} else {
			events_json_where(out, sy, s, p, r->fn, r->site);
		}
		break;
	case RBMON_EVR_END:
	case RBMON_EVR_EXIT:
		if (named) {
			fputs(", \"named\": true", out);
			if (r->name != NULL) {
				fputs(", \"function\": ", out);
				rbmon_json_string(out, r->name);
			}
		}
		if (r->fn != 0)
			events_json_where(out, sy, s, p, r->fn, 0);
		if (r->kind == RBMON_EVR_EXIT)
			fputs(", \"entry_lost\": true", out);
		break;
	case RBMON_EVR_LINE:
		fprintf(out, ", \"line\": %" PRId64, (int64_t)r->arg);
		break;
	case RBMON_EVR_STOP:
		fprintf(out, ", \"reason\": \"%s\"",
		    rbmon_why_json((int32_t)r->arg));
		if (RB_WHY_REASON(r->arg) == RB_WHY_BREAKPOINT)
			fprintf(out, ", \"breakpoint\": %u",
			    RB_WHY_ID((uint32_t)r->arg));
		if (r->fn != 0)
			events_json_where(out, sy, s, p, r->fn, 0);
		break;
	case RBMON_EVR_RESUME:
		fprintf(out, ", \"orphaned\": %s", r->arg == 1 ? "true" :
		    "false");
		break;
	default:
		break;
	}
	fprintf(out, ", \"depth\": %d", r->depth - base);
	if (r->kind == RBMON_EVR_END) {
		events_json_ts(out, c, "ts_ns", r->end);
	} else {
		events_json_ts(out, c, "ts_ns", r->ts);
	}
	if (r->kind == RBMON_EVR_CALL && (r->flags & RBMON_EVF_OPEN) &&
	    r->end == 0)
		fputs(", \"open\": true", out);
	if (r->kind == RBMON_EVR_CALL && (r->flags & RBMON_EVF_UNWOUND))
		fputs(", \"unwound\": true", out);
	if (r->kind == RBMON_EVR_CALL && (r->flags & RBMON_EVF_CUT) &&
	    r->end == 0)
		fputs(", \"exit_lost\": true", out);
	fputc('}', out);
	/* A leaf's exit, a stop's resume, an off's on: records of their own. */
	if (r->kind == RBMON_EVR_CALL && (r->flags & RBMON_EVF_LEAF)) {
		fputs(", {\"kind\": \"exit\"", out);
		if (named) {
			fputs(", \"named\": true, \"function\": ", out);
			rbmon_json_string(out, r->name);
		} else {
			events_json_where(out, sy, s, p, r->fn, 0);
		}
		fprintf(out, ", \"depth\": %d", r->depth - base);
		events_json_ts(out, c, "ts_ns", r->end);
		fputc('}', out);
	} else if ((r->kind == RBMON_EVR_STOP || r->kind == RBMON_EVR_OFF) &&
	    r->end != 0) {
		fprintf(out, ", {\"kind\": \"%s\"", r->kind == RBMON_EVR_STOP ?
		    "resume" : "on");
		fprintf(out, ", \"depth\": %d", r->depth - base);
		events_json_ts(out, c, "ts_ns", r->end);
		fputc('}', out);
	}
}

static int
events_json_head(struct events_out *o)
{
	const struct rb_header	*h = &o->m->hdr;

	fputs("{\"file\": ", o->out);
	rbmon_json_string(o->out, o->m->path);
	fprintf(o->out, ", \"time_ns\": %" PRIu64 ", \"events\": {\"size\": "
	    "%u, \"policy\": \"%s\", \"clock\": ", rbmon_mono_ns(), h->events,
	    rb_policy_name(h->ev_policy));
	rbmon_json_string(o->out, rb_clock_name(h->clock));
	fprintf(o->out, ", \"min_duration_ns\": %" PRIu64 "}, \"processes\": [",
	    o->s->min_duration_ns);
	return 1;
}

static void
events_json_proc(struct events_out *o)
{
	fprintf(o->out, "%s{\"pid\": %d, \"ppid\": %d, \"alive\": %s, "
	    "\"threads\": [", o->firstp ? "" : ", ", o->p->pid, o->p->ppid,
	    o->p->alive ? "true" : "false");
}

static void
events_json_thread(struct events_out *o)
{
	fprintf(o->out, "%s{\"tid\": %d, \"name\": ", o->firstt ? "" : ", ",
	    o->t->tid);
	rbmon_json_string(o->out, o->t->name);
	fprintf(o->out, ", \"state\": \"%s\", \"recording\": %s, "
	    "\"written\": %" PRIu64 ", \"consumed\": %" PRIu64
	    ", \"overwritten\": %" PRIu64 ", \"dropped\": %" PRIu64
	    ", \"buffered\": %" PRIu64 ", \"short_calls\": %" PRIu64 ", ",
	    rbmon_dump_state(o->p, o->t),
	    o->m->hdr.events != 0 && !o->t->ev_off ? "true" : "false",
	    o->k.written, o->k.consumed, o->k.overwritten, o->k.dropped,
	    o->k.buffered, o->k.short_calls);
}

static void
events_json_copied(struct events_out *o)
{
	fprintf(o->out, "\"first\": %" PRIu64 ", \"records\": [",
	    o->copy->w.first);
}

static void
events_json_close(struct events_out *o)
{
	fputs("]}", o->out);
}

static void
events_json_tail(struct events_out *o)
{
	fputs("]}\n", o->out);
}

static const struct events_printer events_json_printer = {
	events_json_head, events_json_proc, events_json_thread,
	events_json_copied, events_json_row, events_json_close,
	events_json_close, events_json_tail
};

/**
 * rbmon_events_json - the event logs as one JSON object (rbmon(1), "JSON
 * OUTPUT"): per thread, its counts and its records in order
 */
void
rbmon_events_json(FILE *out, struct rbmon_model *m,
    const struct rbmon_snapshot *s, struct rbmon_symbols *sy,
    const struct rbmon_clock *c, long tid)
{
	events_print(&events_json_printer, out, m, s, sy, c, tid);
}

/* ---- switching ----------------------------------------------------------- */

struct events_switch_arg {
	struct rbmon_ctl		*c;
	const struct rbmon_snapshot	*s;
	int32_t				 pid, tid;
	int				 on;
	int				 threads, procs;
};

static void
events_switch_guarded(void *arg)
{
	struct events_switch_arg	*a = arg;
	const struct rb_header		*h = &a->c->m->hdr;
	const struct rbmon_process	*p;
	const struct rbmon_thread	*t;
	struct rb_object		*o;
	struct rb_ring			*r;
	size_t				 i, j;
	uint32_t			 k;

	for (i = 0; i < a->s->nprocs; i++) {
		p = &a->s->procs[i];
		if (!p->alive || (a->pid != 0 && p->pid != a->pid))
			continue;
		for (j = 0; j < p->nthreads; j++) {
			t = &p->threads[j];
			if (t->own != RB_OWN_LIVE ||
			    (a->tid != 0 && t->tid != a->tid))
				continue;
			/* The ring still the thread's: same claim. */
			if (RB_LOAD_ACQ(&rb_owner_at(a->c->base, h,
			    t->ring)->gen) != t->gen)
				continue;
			r = rb_ring_at(a->c->base, h, t->ring);
			/* Relaxed: the owner acts on it at its next hook. */
			if (a->on)
				RB_FETCH_AND(&rb_ring_evlog(h, r)->off,
				    ~RB_EVOFF_USER);
			else
				RB_FETCH_OR(&rb_ring_evlog(h, r)->off,
				    RB_EVOFF_USER);
			a->threads++;
		}
		if (a->tid != 0)
			continue;
		/* The process's threads to come: its main object's flag. */
		for (k = 0; k < h->objects; k++) {
			o = rb_object_at(a->c->base, h, k);
			if (RB_LOAD_ACQ(&o->state) != RB_OBJ_VALID ||
			    RB_LOAD(&o->image) != p->image ||
			    RB_LOAD(&o->pid) != p->pid ||
			    !(RB_LOAD(&o->flags) & RB_OBJF_MAIN))
				continue;
			if (a->on)
				RB_FETCH_AND(&o->flags, ~RB_OBJF_EVOFF);
			else
				RB_FETCH_OR(&o->flags, RB_OBJF_EVOFF);
			a->procs++;
			break;
		}
	}
}

/**
 * rbmon_events_switch - EVON/EVOF: switch recording on or off for thread
 * @tid, or every thread of process @pid (0: of every process) and the
 * threads it creates later
 * @c: a writable mapping
 * @cause: set on failure
 *
 * Written straight into the file, as breakpoints are: a thread blocked in
 * a system call is switched too, and acts on it at its next hook.
 * Return: the number of threads switched, or -1.
 */
int
rbmon_events_switch(struct rbmon_ctl *c, const struct rbmon_snapshot *s,
    int32_t pid, int32_t tid, int on, char **cause)
{
	struct events_switch_arg	a = { c, s, pid, tid, on, 0, 0 };

	if (c->m->hdr.events == 0) {
		rbmon_xasprintf(cause, "the program runs without an event log "
		    "(RBTRACE_EVENTS=0)");
		return -1;
	}
	if (rbmon_model_guarded(c->m, events_switch_guarded, &a) != 0) {
		rbmon_xasprintf(cause, "the file is shorter than its header "
		    "says");
		return -1;
	}
	if (a.threads == 0 && a.procs == 0) {
		if (tid != 0)
			rbmon_xasprintf(cause, "no running thread %d", tid);
		else if (pid != 0)
			rbmon_xasprintf(cause, "no running process %d", pid);
		else
			rbmon_xasprintf(cause, "no running process");
		return -1;
	}
	return a.threads;
}
