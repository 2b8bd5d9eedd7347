/* SPDX-License-Identifier: MIT */
/*
 * rbmon profile: where the threads are, sampled from their live stacks.
 *
 * A pass takes one snapshot of the trace file, as --dump does, and counts
 * every live thread's stack once, with what the kernel says of it: on CPU
 * (state R) or off CPU, and then in which system call (or kernel function,
 * or state) it waits.  The program pays nothing for it and the event log
 * may be off.  Stacks are counted by their raw frames (function, return
 * address, named frames' names), so a stack is resolved to names only
 * the first time it is seen.
 *
 * The output is folded stacks (flamegraph.pl, inferno, speedscope):
 * "program (pid);thread (tid);outer;...;inner[;[off-CPU: what]] COUNT",
 * a wall-clock profile in samples.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/procstat.h"
#include "monitor/util/escape.h"
#include "monitor/history/profile.h"
#include "monitor/util/util.h"
#include "monitor/core/stack.h"
#include "monitor/core/taskstat.h"

/* ---- the sample table ------------------------------------------------------ */

void
rbmon_prof_init(struct rbmon_prof *pr)
{
	memset(pr, 0, sizeof *pr);
}

static void
prof_stack_free(struct rbmon_prof_stack *st)
{
	size_t	i;

	for (i = 0; i < st->n; i++) {
		free(st->names[i]);
		free(st->files[i]);
	}
	free(st->names);
	free(st->files);
	free(st->program);
	free(st->thread);
	free(st->off);
	free(st->key);
	free(st);
}

/* Forget every sample; the filters stay. */
void
rbmon_prof_reset(struct rbmon_prof *pr)
{
	size_t	i;

	for (i = 0; i < pr->n; i++)
		prof_stack_free(pr->v[i]);
	pr->n = 0;
	if (pr->slots != NULL)
		memset(pr->slots, 0, pr->nslots * sizeof *pr->slots);
	pr->passes = pr->samples = pr->on_cpu = 0;
}

void
rbmon_prof_free(struct rbmon_prof *pr)
{
	rbmon_prof_reset(pr);
	free(pr->v);
	free(pr->slots);
	free(pr->kbuf);
	memset(pr, 0, sizeof *pr);
}

static void
prof_key_put(struct rbmon_prof *pr, const void *p, size_t len)
{
	if (pr->klen + len > pr->kcap) {
		pr->kcap = (pr->klen + len) * 2;
		pr->kbuf = rbmon_xreallocarray(pr->kbuf, pr->kcap, 1);
	}
	memcpy(pr->kbuf + pr->klen, p, len);
	pr->klen += len;
}

static void
prof_key_str(struct rbmon_prof *pr, const char *s)
{
	prof_key_put(pr, s != NULL ? s : "", (s != NULL ? strlen(s) : 0) + 1);
}

/* FNV-1a, 64 bits. */
static uint64_t
prof_hash(const unsigned char *p, size_t len)
{
	uint64_t	h = 0xcbf29ce484222325ull;

	while (len-- > 0) {
		h ^= *p++;
		h *= 0x100000001b3ull;
	}
	return h;
}

static void
prof_rehash(struct rbmon_prof *pr)
{
	size_t	i, j, n = pr->nslots ? pr->nslots * 2 : 1024;

	free(pr->slots);
	pr->slots = rbmon_xcalloc(n, sizeof *pr->slots);
	pr->nslots = n;
	for (i = 0; i < pr->n; i++) {
		for (j = pr->v[i]->hash & (n - 1); pr->slots[j] != 0;
		    j = (j + 1) & (n - 1))
			;
		pr->slots[j] = (uint32_t)i + 1;
	}
}

/* The stack of the key in pr->kbuf, or NULL; *slot: where it goes. */
static struct rbmon_prof_stack *
prof_find(struct rbmon_prof *pr, uint64_t h, size_t *slot)
{
	struct rbmon_prof_stack	*st;
	size_t			 j;

	if (2 * (pr->n + 1) > pr->nslots)
		prof_rehash(pr);
	for (j = h & (pr->nslots - 1); pr->slots[j] != 0;
	    j = (j + 1) & (pr->nslots - 1)) {
		st = pr->v[pr->slots[j] - 1];
		if (st->hash == h && st->keylen == pr->klen &&
		    memcmp(st->key, pr->kbuf, pr->klen) == 0)
			return st;
	}
	*slot = j;
	return NULL;
}

/* What a thread off CPU waits in: a system call, a kernel function, or
   its state. */
static char *
prof_off_cpu(pid_t pid, pid_t tid, char kstate)
{
	char		 path[64], buf[512], *end;
	const char	*name;
	long		 nr;

	if (kstate == 'T')
		return rbmon_xstrdup("stopped");
	if (kstate == 't')
		return rbmon_xstrdup("traced");
	if (rb_procfs_path(path, sizeof path, pid, tid, "syscall") != 0 &&
	    rb_procfs_read(path, buf, sizeof buf) > 0) {
		errno = 0;
		nr = strtol(buf, &end, 10);
		if (errno == 0 && end != buf &&
		    (name = rbmon_syscall_name(nr)) != NULL)
			return rbmon_xstrdup(name);
	}
	if (rb_procfs_path(path, sizeof path, pid, tid, "wchan") != 0 &&
	    rb_procfs_read(path, buf, sizeof buf) > 0) {
		buf[strcspn(buf, "\n")] = '\0';
		if (buf[0] != '\0' && strcmp(buf, "0") != 0)
			return rbmon_xstrdup(buf);
	}
	switch (kstate) {
	case 'S': return rbmon_xstrdup("sleeping");
	case 'D': return rbmon_xstrdup("disk sleep");
	case 'I': return rbmon_xstrdup("idle");
	default:
		snprintf(buf, sizeof buf, "state %c", kstate);
		return rbmon_xstrdup(buf);
	}
}

/* The names of a thread's frames, resolved, outermost first. */
static void
prof_names(struct rbmon_prof_stack *st, struct rbmon_symbols *sy,
    const struct rbmon_snapshot *s, const struct rbmon_process *p,
    struct rbmon_thread *t)
{
	const struct rbmon_frame *f;
	size_t			 i, k = 0;
	char			*name;

	rbmon_stack_resolve(sy, s, p, t);
	st->n = t->nframes + (t->wrapped != 0);
	st->names = rbmon_xcalloc(st->n + 1, sizeof *st->names);
	st->files = rbmon_xcalloc(st->n + 1, sizeof *st->files);
	for (i = t->nframes; i-- > 0;) {
		f = &t->frames[i];
		if (t->wrapped != 0 && i + 1 == t->gap_at)
			rbmon_xasprintf(&st->names[k++], "[%" PRIu32
			    " frames lost]", t->wrapped);
		/* A row is located in its own function (see stack.c). */
		if (!f->torn && f->at_file != NULL)
			st->files[k] = rbmon_xstrdup(f->at_file);
		if (f->torn)
			name = rbmon_xstrdup("[torn]");
		else if (f->at_function != NULL)
			name = rbmon_xstrdup(f->at_function);
		else if (f->named && f->function != NULL)
			name = rbmon_xstrdup(f->function);
		else
			rbmon_xasprintf(&name, "0x%" PRIx64, f->fn);
		st->names[k++] = name;
	}
	if (t->wrapped != 0 && t->gap_at >= t->nframes)
		rbmon_xasprintf(&st->names[k++], "[%" PRIu32 " frame%s lost]",
		    t->wrapped, t->wrapped == 1 ? "" : "s");
	st->n = k;
}

/**
 * rbmon_prof_take - count the stack of every live thread of a snapshot
 * @pr: the table
 * @m: the model the snapshot is of (program names)
 * @sy: symbols, for stacks not seen before
 * @s: a snapshot with the kernel's states read; new stacks' threads are
 *	resolved in place (rbmon_stack_resolve)
 *
 * Return: how many thread samples it kept.
 */
size_t
rbmon_prof_take(struct rbmon_prof *pr, const struct rbmon_model *m,
    struct rbmon_symbols *sy, struct rbmon_snapshot *s)
{
	struct rbmon_prof_stack	*st;
	struct rbmon_process	*p;
	struct rbmon_thread	*t;
	const struct rbmon_frame *f;
	char			*off;
	size_t			 i, j, k, slot = 0, kept = 0;
	uint64_t		 h;
	int			 on;

	pr->passes++;
	for (i = 0; i < s->nprocs; i++) {
		p = &s->procs[i];
		if (!p->alive)
			continue;
		for (j = 0; j < p->nthreads; j++) {
			t = &p->threads[j];
			if (t->own != RB_OWN_LIVE || t->kstate == 0 ||
			    t->kstate == 'Z' || t->kstate == 'X' ||
			    !rbmon_cmd_tid_wanted(&pr->tids, t->tid))
				continue;
			on = t->kstate == 'R';
			if ((pr->keep == RBMON_PROF_ON_CPU && !on) ||
			    (pr->keep == RBMON_PROF_OFF_CPU && on))
				continue;
			off = on ? NULL : prof_off_cpu(p->pid, t->tid,
			    t->kstate);

			pr->klen = 0;
			prof_key_put(pr, &p->pid, sizeof p->pid);
			prof_key_put(pr, &t->tid, sizeof t->tid);
			prof_key_put(pr, &p->image, sizeof p->image);
			prof_key_str(pr, off);
			prof_key_str(pr, t->name);
			prof_key_put(pr, &t->wrapped, sizeof t->wrapped);
			prof_key_put(pr, &t->gap_at, sizeof t->gap_at);
			for (k = 0; k < t->nframes; k++) {
				unsigned char	fl;

				f = &t->frames[k];
				fl = (unsigned char)((f->torn ? 1 : 0) |
				    (f->named ? 2 : 0));
				prof_key_put(pr, &fl, 1);
				if (f->torn)
					continue;
				prof_key_put(pr, &f->fn, sizeof f->fn);
				prof_key_put(pr, &f->site, sizeof f->site);
				prof_key_put(pr, &f->level, sizeof f->level);
				if (f->named) {
					prof_key_str(pr, f->function);
					prof_key_str(pr, f->file);
					prof_key_put(pr, &f->line,
					    sizeof f->line);
				}
			}
			h = prof_hash(pr->kbuf, pr->klen);
			if ((st = prof_find(pr, h, &slot)) == NULL) {
				if (pr->n == pr->cap) {
					pr->cap = pr->cap ? pr->cap * 2 : 256;
					pr->v = rbmon_xreallocarray(pr->v,
					    pr->cap, sizeof *pr->v);
				}
				st = rbmon_xcalloc(1, sizeof *st);
				st->pid = p->pid;
				st->tid = t->tid;
				st->on_cpu = on;
				st->program = rbmon_xstrdup(
				    rbmon_model_program(m, s, p->image));
				st->thread = rbmon_xstrdup(t->name);
				st->off = off;
				off = NULL;
				st->hash = h;
				st->keylen = pr->klen;
				st->key = rbmon_xcalloc(pr->klen + 1, 1);
				memcpy(st->key, pr->kbuf, pr->klen);
				prof_names(st, sy, s, p, t);
				pr->v[pr->n++] = st;
				pr->slots[slot] = (uint32_t)pr->n;
			}
			free(off);
			st->count++;
			pr->samples++;
			pr->on_cpu += on;
			kept++;
		}
	}
	return kept;
}

/*
 * A name as a folded-stack frame: ';' separates frames and a trailing
 * space would read as the count's, so they become ':' and '_'; the rest
 * is escaped as for a terminal.
 */
void
rbmon_prof_folded_name(FILE *out, const char *s)
{
	char	buf[RBMON_ESC_MAX];
	size_t	n;

	while (*s != '\0') {
		n = rbmon_esc_next(s, 0, buf);
		if (n == 1 && *s == ';')
			fputc(':', out);
		else if (n == 1 && (*s == ' ' && s[1] == '\0'))
			fputc('_', out);
		else
			fputs(buf, out);
		s += n;
	}
}

static int
prof_cmp(const void *a, const void *b)
{
	const struct rbmon_prof_stack *x = *(struct rbmon_prof_stack *const *)a;
	const struct rbmon_prof_stack *y = *(struct rbmon_prof_stack *const *)b;
	size_t	i;
	int	c;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	for (i = 0; i < x->n && i < y->n; i++)
		if ((c = strcmp(x->names[i], y->names[i])) != 0)
			return c;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return strcmp(x->off != NULL ? x->off : "",
	    y->off != NULL ? y->off : "");
}

/* The stacks as folded lines, by thread and then stack. */
void
rbmon_prof_write(FILE *out, struct rbmon_prof *pr)
{
	struct rbmon_prof_stack	*st;
	size_t			 i, k;
	char			 buf[32];

	qsort(pr->v, pr->n, sizeof *pr->v, prof_cmp);
	for (i = 0; i < pr->n; i++) {
		st = pr->v[i];
		rbmon_prof_folded_name(out, st->program);
		fprintf(out, " (%" PRId32 ");", st->pid);
		rbmon_prof_folded_name(out, st->thread);
		fprintf(out, " (%" PRId32 ")", st->tid);
		for (k = 0; k < st->n; k++) {
			fputc(';', out);
			rbmon_prof_folded_name(out, st->names[k]);
		}
		if (st->off != NULL) {
			fputs(";[off-CPU: ", out);
			rbmon_prof_folded_name(out, st->off);
			fputc(']', out);
		}
		snprintf(buf, sizeof buf, " %" PRIu64 "\n", st->count);
		fputs(buf, out);
	}
	/* the table's order changed: its slots are stale */
	prof_rehash(pr);
}

/* How many threads the samples kept are of. */
int
rbmon_prof_threads(const struct rbmon_prof *pr)
{
	int32_t	*seen = rbmon_xcalloc(pr->n + 1, sizeof *seen);
	size_t	 i, j, n = 0;

	for (i = 0; i < pr->n; i++) {
		for (j = 0; j < n && seen[j] != pr->v[i]->tid; j++)
			;
		if (j == n)
			seen[n++] = pr->v[i]->tid;
	}
	free(seen);
	return (int)n;
}
