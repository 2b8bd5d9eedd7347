/* SPDX-License-Identifier: MIT */
/*
 * rbmon stack: a thread's ring frames as the rows a debugger would show.
 *
 * A ring holds one frame per function entry hook: the function's entry and
 * the return address its caller's call left (site).  Code inlined into a
 * function calls the hooks too, with the address of its out-of-line copy
 * and the return address of the function it was inlined into, so frames
 * that share one site share one machine frame: the outermost of them is
 * the function that was called, the others were inlined into it, each
 * into the one below.
 *
 * Such a group's lines come from the call its innermost frame made (the
 * site of the frame above, minus one): the debug information's inline
 * chain at that address names every function the call lies in, each with
 * its own file:line.  That chain is what gdb and eu-stack -i show, so it
 * gives the rows; the group's frames are matched to it by function, and a
 * function inlined without hooks of its own (a compiler told to instrument
 * after inlining, a header from code built without them) becomes a row
 * from the debug information alone.
 *
 * The thread's newest group has no call to locate it: the address its
 * innermost frame's entry hook returned to (hook) stands for it, the
 * inline chain there telling which inlined copy of each function the
 * thread is in.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "monitor/core/stack.h"

struct stack_rows {
	struct rbmon_frame	*v;
	size_t			 n, cap;
};

static struct rbmon_frame *
stack_add(struct stack_rows *r, const struct rbmon_frame *from)
{
	struct rbmon_frame	*f;

	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 16;
		r->v = rbmon_xreallocarray(r->v, r->cap, sizeof *r->v);
	}
	f = &r->v[r->n++];
	*f = *from;
	f->resolved = 1;
	return f;
}

/* Is ring frame @f (named @sym) the function @in of an inline chain? */
static int
stack_same(const struct rbmon_sym *sym, const struct rbmon_inline *in)
{
	if (sym->origin != 0 && in->origin != 0)
		return sym->origin == in->origin;
	return sym->function != NULL && in->function != NULL &&
	    strcmp(sym->function, in->function) == 0;
}

/*
 * A function's entry hook is called from its own code, so frame @f's hook
 * address lies in its function's code unless the function was inlined
 * there: an extern inline function of a header (glibc's getc_unlocked())
 * names its out-of-line copy, in another object, as the function entered.
 * Such a frame is the instance the inline chain at its hook call names:
 * @sym becomes that function, in the file of that code, with no
 * definition line (the one of its out-of-line copy is not this code's).
 * A copy in the same object is the function the chain names already (one
 * origin), matched to its instance as any inlined frame is.
 */
static void
stack_hook_sym(struct rbmon_symbols *sy, const struct rbmon_snapshot *s,
    const struct rbmon_process *p, const struct rbmon_frame *f,
    struct rbmon_sym *sym)
{
	const struct rbmon_inline *chain;
	size_t			 n;

	if (f->hook == 0 || f->torn || f->named || f->seeded)
		return;
	n = rbmon_symbols_site(sy, s, p, f->hook - 1, &chain);
	if (n < 2 || chain[0].function == NULL)
		return;		/* not in an inlined instance */
	if (rbmon_symbols_same_object(sy, s, p, f->fn, f->hook - 1) != 0)
		return;
	sym->function = chain[0].function;
	sym->file = chain[0].file;
	sym->line = 0;
	sym->origin = chain[0].origin;
}

/*
 * Is ring frame @k inlined into the machine frame of frame @k + 1, whose
 * function is frame @phys's?  They share the return address, and the
 * debug information has that function inlined there (without it, a frame
 * is taken for inlined unless it is its outer neighbour's function: the
 * same return address twice in a row is then recursion).
 */
static int
stack_joins(struct rbmon_symbols *sy, const struct rbmon_snapshot *s,
    const struct rbmon_process *p, const struct rbmon_thread *t, size_t k,
    size_t phys, const struct rbmon_sym *sym)
{
	const struct rbmon_frame	*a = &t->frames[k], *b = &t->frames[k + 1];
	const char			*file;
	int				 line;

	if (k + 1 == t->gap_at || a->torn || a->named || b->torn ||
	    b->named || a->site == 0 || a->site != b->site ||
	    a->level != b->level + 1)
		return 0;
	if (sym[k].origin == 0 || sym[phys].origin == 0)
		return a->fn != b->fn;
	return rbmon_symbols_inlined(sy, s, p, t->frames[phys].fn, 0,
	    sym[k].origin, &file, &line) != 0;
}

/*
 * The group [i, j] with the inline chain of the call its innermost frame
 * made: rows from the outermost function in, each ring frame on the row of
 * its function.  Return: 0 if the chain is not of this group's code.
 */
static int
stack_group_chain(struct stack_rows *rows, const struct rbmon_thread *t,
    size_t i, size_t j, const struct rbmon_sym *sym,
    const struct rbmon_inline *chain, size_t n)
{
	const struct rbmon_sym	*fs;
	struct rbmon_frame	 blank, *f;
	size_t			 first = rows->n, a, b;
	ptrdiff_t		 c = (ptrdiff_t)n - 1, g = (ptrdiff_t)j;

	if (n == 0 || !stack_same(&sym[j - i], &chain[n - 1]))
		return 0;
	memset(&blank, 0, sizeof blank);
	blank.level = t->frames[j].level;
	blank.synthetic = 1;
	blank.seeded = t->frames[j].seeded;
	while (c >= 0 || g >= (ptrdiff_t)i) {
		fs = NULL;
		if (c >= 0 && g >= (ptrdiff_t)i &&
		    stack_same(&sym[g - (ptrdiff_t)i], &chain[c])) {
			fs = &sym[g - (ptrdiff_t)i];
			f = stack_add(rows, &t->frames[g--]);
		} else if (c >= 0)
			f = stack_add(rows, &blank);
		else {
			/* A ring frame the chain does not name. */
			fs = &sym[g - (ptrdiff_t)i];
			f = stack_add(rows, &t->frames[g--]);
			f->at_function = fs->function;
			f->at_file = fs->file;
			f->inlined = 1;
			continue;
		}
		/* A ring frame keeps its symbol's name, as frames outside inline chains do. */
		f->at_function = fs != NULL && fs->function != NULL ?
		    fs->function : chain[c].function;
		f->at_file = chain[c].file;
		f->at_line = chain[c].line;
		f->inlined = c != (ptrdiff_t)n - 1;
		c--;
	}
	/* Built outermost first; rows run innermost first. */
	for (a = first, b = rows->n - 1; a < b; a++, b--) {
		blank = rows->v[a];
		rows->v[a] = rows->v[b];
		rows->v[b] = blank;
	}
	return 1;
}

/*
 * The group [i, j], inlined frames over their machine frame, without a call
 * to locate it: the inline chain at frame @i's entry hook call (its hook
 * address, minus one) tells which instance of each inlined function the
 * thread is in, wherever a function was inlined more than once.  Frame @i
 * itself keeps the line stack_group_plain() gives it.  Return: 0 if the
 * chain is not of this group's code.
 */
static int
stack_group_hook(struct stack_rows *rows, struct rbmon_symbols *sy,
    const struct rbmon_snapshot *s, const struct rbmon_process *p,
    const struct rbmon_thread *t, size_t i, size_t j,
    const struct rbmon_sym *sym)
{
	const struct rbmon_inline *chain;
	const struct rbmon_frame *f = &t->frames[i];
	struct rbmon_frame	*top;
	size_t			 first = rows->n, n;

	if (i == j || f->hook == 0)
		return 0;
	n = rbmon_symbols_site(sy, s, p, f->hook - 1, &chain);
	if (n < 2 || !stack_same(&sym[0], &chain[0]))
		return 0;
	if (!stack_group_chain(rows, t, i, j, sym, chain, n))
		return 0;
	top = &rows->v[first];
	top->at_line = 0;
	if (i == 0 && (t->wrapped == 0 || t->gap_at != 0))
		top->at_line = f->line > 0 ? f->line : sym[0].line;
	return 1;
}

/*
 * The group [i, j] without a call to locate it: the innermost frame is at
 * its definition (the thread's innermost frame) or nowhere known (the call
 * it made was lost); each frame inlined into another is at the one place
 * the debug information says it was inlined there, if it is one.
 */
static void
stack_group_plain(struct stack_rows *rows, struct rbmon_symbols *sy,
    const struct rbmon_snapshot *s, const struct rbmon_process *p,
    const struct rbmon_thread *t, size_t i, size_t j,
    const struct rbmon_sym *sym)
{
	struct rbmon_frame	*f;
	const char		*file;
	size_t			 k;
	int			 line;

	for (k = i; k <= j; k++) {
		f = stack_add(rows, &t->frames[k]);
		f->at_function = sym[k - i].function;
		f->inlined = k != j;
		f->at_file = sym[k - i].file;
		f->at_line = 0;
		if (k == i) {
			/* The thread's innermost frame, unless it was lost. */
			if (i == 0 && (t->wrapped == 0 || t->gap_at != 0))
				f->at_line = f->line > 0 ? f->line :
				    sym[0].line;
			continue;
		}
		if (rbmon_symbols_inlined(sy, s, p, t->frames[j].fn,
		    sym[k - i].origin, sym[k - i - 1].origin, &file,
		    &line) == 1) {
			f->at_file = file;
			f->at_line = line;
		}
	}
}

/**
 * rbmon_stack_resolve - name and locate every frame of a thread
 * @sy: symbol cache
 * @s: the snapshot
 * @p: the thread's process
 * @t: its frames are replaced by the rows to show (see stack.c), each
 *	resolved; gap_at moves with them
 *
 * Strings of the rows belong to @sy (or to the named frames themselves).
 */
void
rbmon_stack_resolve(struct rbmon_symbols *sy, const struct rbmon_snapshot *s,
    const struct rbmon_process *p, struct rbmon_thread *t)
{
	struct stack_rows	 rows = { NULL, 0, 0 };
	const struct rbmon_inline *chain;
	const struct rbmon_frame *callee;
	struct rbmon_frame	*f;
	struct rbmon_sym	*sym;
	size_t			*phys, i, j, k, n, gap = SIZE_MAX;
	uint64_t		 site;

	if (t->nframes == 0 || t->frames[0].resolved)
		return;
	sym = rbmon_xcalloc(t->nframes, sizeof *sym);
	phys = rbmon_xcalloc(t->nframes, sizeof *phys);
	for (k = 0; k < t->nframes; k++) {
		if (!t->frames[k].torn && !t->frames[k].named) {
			rbmon_symbols_lookup(sy, s, p, t->frames[k].fn, &sym[k]);
			stack_hook_sym(sy, s, p, &t->frames[k], &sym[k]);
		}
	}
	/* Machine frames, from the outermost in: phys is the called one. */
	for (k = t->nframes; k-- > 0;) {
		phys[k] = k;
		if (k + 1 < t->nframes &&
		    stack_joins(sy, s, p, t, k, phys[k + 1], sym))
			phys[k] = phys[k + 1];
	}
	for (i = 0; i < t->nframes; i = j + 1) {
		if (i == t->gap_at)
			gap = rows.n;
		f = &t->frames[i];
		j = phys[i];
		if (f->torn || f->named) {
			f = stack_add(&rows, f);
			if (f->named) {
				f->at_function = f->function;
				f->at_file = f->file[0] != '\0' ? f->file :
				    NULL;
				f->at_line = f->line > 0 ? f->line : 0;
			}
			continue;
		}
		site = 0;
		callee = i > 0 ? &t->frames[i - 1] : NULL;
		if (i == t->gap_at)
			site = t->gap_site;	/* the callee was overwritten */
		else if (callee != NULL && !callee->torn && !callee->named &&
		    callee->level == f->level + 1)
			site = callee->site;
		if (site != 0) {
			n = rbmon_symbols_site(sy, s, p, site - 1, &chain);
			if (stack_group_chain(&rows, t, i, j, sym + i, chain, n))
				continue;
			/* Reached through frames without hooks: no line. */
		} else if (stack_group_hook(&rows, sy, s, p, t, i, j, sym + i))
			continue;
		stack_group_plain(&rows, sy, s, p, t, i, j, sym + i);
	}
	if (t->gap_at >= t->nframes)
		gap = rows.n;
	free(phys);
	free(sym);
	/* The named frames' strings move to the rows; free only the array. */
	free(t->frames);
	t->frames = rows.v;
	t->nframes = rows.n;
	t->gap_at = gap;
}

/**
 * rbmon_stack_resolve_all - rbmon_stack_resolve() every thread of @s
 * @sy: symbol cache
 * @s: the snapshot
 */
void
rbmon_stack_resolve_all(struct rbmon_symbols *sy, struct rbmon_snapshot *s)
{
	struct rbmon_process	*p;
	size_t			 i, j;

	for (i = 0; i < s->nprocs; i++) {
		p = &s->procs[i];
		for (j = 0; j < p->nthreads; j++)
			rbmon_stack_resolve(sy, s, p, &p->threads[j]);
	}
}
