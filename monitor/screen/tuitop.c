/* SPDX-License-Identifier: MIT */
/*
 * rbmon tuitop: the top view (py-spy top): the live stacks sampled 100
 * times a second while it is open (profile.c), and per function the share
 * of the samples it was innermost in (own) and anywhere on the stack
 * (total), for the selected thread, its process or every thread; on CPU,
 * off CPU or both.  Off-CPU samples count for the function that waits.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/screen/keytab.h"
#include "monitor/screen/tuidraw.h"
#include "monitor/history/profile.h"
#include "monitor/screen/tuimodes.h"

#define TOP_TICK_MS	10	/* a sample every 10 ms */
#define TOP_DRAW_NS	250000000u	/* and a redraw every 250 ms */

enum top_scope { TOP_THREAD, TOP_PROCESS, TOP_ALL, TOP_SCOPES };

struct top_row {
	const char	*name;		/* the table's */
	const char	*file;		/* as first seen, or NULL */
	uint64_t	 own, total;
	size_t		 stamp;		/* the stack it was last counted for */
};

struct rbmon_top {
	struct rbmon_prof	 pr;
	enum top_scope		 scope;
	int			 cpu;		/* RBMON_PROF_* */
	int			 by_total;
	int32_t			 pid, tid;
	char			 name[RB_THREAD_NAME_MAX + 1];
	uint64_t		 t0, last_sample, last_draw;
	struct rbmon_model	*m;
	uint64_t		 kernel_every;	/* the model's, given back */
	long			 top;
	/* what the last draw aggregated */
	struct top_row		*rows;
	size_t			 nrows, caprows;
	uint32_t		*slots;		/* name -> row + 1 */
	size_t			 nslots;
	uint64_t		 samples, on_cpu;
};

static int
top_rows_shown(void)
{
	return LINES > 4 ? LINES - 4 : 1;
}

static int
top_wanted(const struct rbmon_top *tp, const struct rbmon_prof_stack *st)
{
	if (tp->scope == TOP_THREAD && (st->tid != tp->tid ||
	    st->pid != tp->pid))
		return 0;
	if (tp->scope == TOP_PROCESS && st->pid != tp->pid)
		return 0;
	if (tp->cpu == RBMON_PROF_ON_CPU && !st->on_cpu)
		return 0;
	if (tp->cpu == RBMON_PROF_OFF_CPU && st->on_cpu)
		return 0;
	return 1;
}

static uint64_t
top_hash(const char *s)
{
	uint64_t	h = 0xcbf29ce484222325ull;

	while (*s != '\0') {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ull;
	}
	return h;
}

static struct top_row *
top_row_of(struct rbmon_top *tp, const char *name)
{
	size_t	j, i;

	if (2 * (tp->nrows + 1) > tp->nslots) {
		tp->nslots = tp->nslots ? tp->nslots * 2 : 256;
		free(tp->slots);
		tp->slots = rbmon_xcalloc(tp->nslots, sizeof *tp->slots);
		for (i = 0; i < tp->nrows; i++) {
			for (j = top_hash(tp->rows[i].name) &
			    (tp->nslots - 1); tp->slots[j] != 0;
			    j = (j + 1) & (tp->nslots - 1))
				;
			tp->slots[j] = (uint32_t)i + 1;
		}
	}
	for (j = top_hash(name) & (tp->nslots - 1); tp->slots[j] != 0;
	    j = (j + 1) & (tp->nslots - 1))
		if (strcmp(tp->rows[tp->slots[j] - 1].name, name) == 0)
			return &tp->rows[tp->slots[j] - 1];
	if (tp->nrows == tp->caprows) {
		tp->caprows = tp->caprows ? tp->caprows * 2 : 64;
		tp->rows = rbmon_xreallocarray(tp->rows, tp->caprows,
		    sizeof *tp->rows);
	}
	memset(&tp->rows[tp->nrows], 0, sizeof tp->rows[tp->nrows]);
	tp->rows[tp->nrows].name = name;
	tp->rows[tp->nrows].stamp = SIZE_MAX;
	tp->slots[j] = (uint32_t)++tp->nrows;
	return &tp->rows[tp->nrows - 1];
}

static int
top_cmp(const void *a, const void *b, void *arg)
{
	const struct top_row	*x = a, *y = b;
	const struct rbmon_top	*tp = arg;
	uint64_t		 p = tp->by_total ? x->total : x->own;
	uint64_t		 q = tp->by_total ? y->total : y->own;

	if (p != q)
		return p > q ? -1 : 1;
	p = tp->by_total ? x->own : x->total;
	q = tp->by_total ? y->own : y->total;
	if (p != q)
		return p > q ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The table of functions, from every stack the scope and filter keep. */
static void
top_aggregate(struct rbmon_top *tp)
{
	const struct rbmon_prof_stack	*st;
	struct top_row			*r;
	size_t				 i, k;

	tp->nrows = 0;
	if (tp->slots != NULL)
		memset(tp->slots, 0, tp->nslots * sizeof *tp->slots);
	tp->samples = tp->on_cpu = 0;
	for (i = 0; i < tp->pr.n; i++) {
		st = tp->pr.v[i];
		if (!top_wanted(tp, st))
			continue;
		tp->samples += st->count;
		if (st->on_cpu)
			tp->on_cpu += st->count;
		for (k = 0; k < st->n; k++) {
			r = top_row_of(tp, st->names[k]);
			/* A recursive function's total counts a sample once. */
			if (r->stamp != i) {
				r->stamp = i;
				r->total += st->count;
			}
			if (k + 1 == st->n)
				r->own += st->count;
			if (r->file == NULL)
				r->file = st->files[k];
		}
	}
	/* No rows yet: tp->rows may be NULL, which qsort_r must not get. */
	if (tp->nrows > 1)
		qsort_r(tp->rows, tp->nrows, sizeof *tp->rows, top_cmp, tp);
}

static int
top_tick(struct rbmon_tui *t, void *arg)
{
	struct rbmon_top	*tp = arg;
	struct rbmon_snapshot	 s;
	char			*cause = NULL;
	uint64_t		 now = rbmon_mono_ns();

	if (now - tp->last_sample < (uint64_t)TOP_TICK_MS * 1000000u / 2)
		return 0;
	tp->last_sample = now;
	if (rbmon_model_snapshot(t->m, &s, &cause) == 0) {
		rbmon_prof_take(&tp->pr, t->m, t->sy, &s);
		rbmon_model_free(&s);
	} else {
		free(cause);
	}
	if (now - tp->last_draw >= TOP_DRAW_NS) {
		tp->last_draw = now;
		return RBMON_REDRAW;
	}
	return 0;
}

static int
top_key(struct rbmon_tui *t, void *arg, int key)
{
	struct rbmon_top	*tp = arg;
	enum rbmon_action	 a = rbmon_keytab_action(RBMON_KM_TOP, key);

	switch (a) {
	case RBMON_ACT_TOP_SCOPE:
		tp->scope = (tp->scope + 1) % TOP_SCOPES;
		if (tp->tid == 0 && tp->scope != TOP_ALL)
			tp->scope = TOP_ALL;
		tp->top = 0;
		return RBMON_REDRAW;
	case RBMON_ACT_TOP_CPU:
		tp->cpu = tp->cpu == RBMON_PROF_ALL ? RBMON_PROF_ON_CPU :
		    tp->cpu == RBMON_PROF_ON_CPU ? RBMON_PROF_OFF_CPU :
		    RBMON_PROF_ALL;
		tp->top = 0;
		return RBMON_REDRAW;
	case RBMON_ACT_TOP_SORT:
		tp->by_total = !tp->by_total;
		return RBMON_REDRAW;
	case RBMON_ACT_TOP_RESET:
		rbmon_prof_reset(&tp->pr);
		tp->t0 = rbmon_mono_ns();
		tp->top = 0;
		return RBMON_REDRAW;
	default:
		break;
	}
	if (rbmon_text_scroll(a, &tp->top, top_rows_shown(),
	    (long)tp->nrows) == 0) {
		if (key == RBMON_KEY_MOUSE)
			return 0;
		rbmon_tui_pop(t);
		clear();
		rbmon_tui_relayout(t);
	}
	return RBMON_REDRAW;
}

static void
top_draw(struct rbmon_tui *t, void *arg)
{
	static const char *const cpus[] = { "wall clock", "on CPU",
	    "off CPU" };
	struct rbmon_top	*tp = arg;
	const struct top_row	*r;
	char			 buf[1024], what[160], fn[512];
	double			 secs, per;
	attr_t			 a;
	long			 k;
	int			 y, x, w, rows = top_rows_shown();

	top_aggregate(tp);
	if (tp->top > (long)tp->nrows - rows)
		tp->top = (long)tp->nrows - rows;
	if (tp->top < 0)
		tp->top = 0;
	secs = (double)(rbmon_mono_ns() - tp->t0) / 1e9;
	per = tp->pr.passes ? secs / (double)tp->pr.passes : 0;
	erase();
	a = rbmon_tty_attr(RBMON_A_TITLE_FOCUS);
	rbmon_draw_fill(0, 0, COLS, a);
	if (tp->scope == TOP_THREAD)
		snprintf(what, sizeof what, "thread %d \"%s\" (pid %d)",
		    tp->tid, tp->name, tp->pid);
	else if (tp->scope == TOP_PROCESS)
		snprintf(what, sizeof what, "process %d", tp->pid);
	else
		snprintf(what, sizeof what, "every thread");
	snprintf(buf, sizeof buf, "Top of %s: %s, %" PRIu64 " sample%s "
	    "in %.1f s (%.0f/s), %.1f%% on CPU%s", what,
	    cpus[tp->cpu], tp->samples, tp->samples == 1 ? "" : "s", secs,
	    secs > 0 ? (double)tp->pr.passes / secs : 0.0,
	    tp->samples ? 100.0 * (double)tp->on_cpu /
	    (double)tp->samples : 0.0, tp->by_total ? "  [sort: total]" :
	    "  [sort: own]");
	rbmon_draw_text(0, 1, COLS - 1, a, buf);
	snprintf(buf, sizeof buf, "%7s %7s %9s %9s  %s", "%Own", "%Total",
	    "OwnTime", "TotalTime", "Function (file)");
	rbmon_draw_text(1, 0, COLS, A_BOLD, buf);
	for (y = 2, k = tp->top; y < rows + 2 && k < (long)tp->nrows;
	    y++, k++) {
		r = &tp->rows[k];
		fn[0] = '\0';
		if (r->file != NULL)
			snprintf(fn, sizeof fn, " (%s)", r->file);
		snprintf(buf, sizeof buf, "%6.1f%% %6.1f%% %8.2fs %8.2fs  ",
		    100.0 * (double)r->own / (double)tp->samples,
		    100.0 * (double)r->total / (double)tp->samples,
		    (double)r->own * per, (double)r->total * per);
		x = rbmon_draw_text(y, 0, COLS, A_NORMAL, buf);
		/* The name shortened before the file is cut, down to 24 columns. */
		w = COLS - x - (int)strlen(fn);
		if (w < 24)
			w = COLS - x;
		x += rbmon_draw_name(y, x, w, A_NORMAL, r->name, NULL);
		rbmon_draw_text(y, x, COLS - x, A_NORMAL, fn);
	}
	if (tp->nrows == 0)
		rbmon_draw_text(2, 2, COLS - 2, rbmon_tty_attr(RBMON_A_EXITED),
		    tp->pr.passes == 0 ? "sampling..." :
		    "no samples of these threads");
	if (t->msg_kind != RBMON_MSG_NONE && t->msg[0] != '\0')
		rbmon_draw_text(LINES - 2, 0, COLS, t->msg_kind ==
		    RBMON_MSG_ERROR ? rbmon_tty_attr(RBMON_A_ERROR) : A_BOLD,
		    t->msg);
	rbmon_draw_keybar(LINES - 1, RBMON_KM_TOP, "other keys: back");
	curs_set(0);
}

static void
top_free(void *arg)
{
	struct rbmon_top	*tp = arg;

	tp->m->kernel_every_ns = tp->kernel_every;
	rbmon_prof_free(&tp->pr);
	free(tp->rows);
	free(tp->slots);
	free(tp);
}

static const struct rbmon_mode_ops top_ops = {
	.name = "top",
	.tick_ms = TOP_TICK_MS,
	.key = top_key,
	.draw = top_draw,
	.tick = top_tick,
	.free = top_free,
};

/**
 * rbmon_top_open - the top view, on a screen of its own, for the selected
 * thread (every thread if none is selected)
 */
void
rbmon_top_open(struct rbmon_tui *t)
{
	const struct rbmon_process	*p = NULL;
	const struct rbmon_thread	*th;
	struct rbmon_top		*tp;

	tp = rbmon_xcalloc(1, sizeof *tp);
	rbmon_prof_init(&tp->pr);
	if ((th = rbmon_tui_selected(t, &p)) != NULL) {
		tp->pid = p->pid;
		tp->tid = th->tid;
		memcpy(tp->name, th->name, sizeof tp->name);
		tp->scope = TOP_THREAD;
	} else {
		tp->scope = TOP_ALL;
	}
	tp->t0 = rbmon_mono_ns();
	/* Each sample needs the kernel's state of the moment. */
	tp->m = t->m;
	tp->kernel_every = t->m->kernel_every_ns;
	t->m->kernel_every_ns = 0;
	if (rbmon_tui_push(t, &top_ops, tp) != 0) {
		top_free(tp);
		return;
	}
	top_tick(t, tp);
}
