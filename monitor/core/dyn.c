/* SPDX-License-Identifier: MIT */
/*
 * rbmon dynamic tracing: copy each claimed entry of the file's per-process
 * table (rbtrace(5), "DYNAMIC TRACING") and say what it means.  Nothing in
 * an entry is trusted: the list is bounded, unknown bits are dropped, the
 * reason is cut at its size.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/atomic.h"
#include "monitor/core/dyn.h"
#include "monitor/util/alloc.h"
#include "monitor/util/util.h"

#define DYN_FLAGS	(RB_DYNF_DORMANT | RB_DYNF_REFUSED | RB_DYNF_AUTO | \
			 RB_DYNF_AUTO_DONE | RB_DYNF_PARTIAL)
#define DYN_REASONS	(RB_DYN_BY_NAME | RB_DYN_BY_AUTO)

static void
dyn_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/*
 * Copy entry @e into @d between two equal even loads of its gen, the
 * reader's half of the seqlock; @fns has room for RB_DYN_LISTED.
 * Return: 0, or -1 if it changed at every try.
 */
static int
dyn_copy(struct rb_dynproc *e, struct rbmon_dyn *d, struct rb_dynfn *fns)
{
	uint32_t	g1, g2, listed;
	int		tries;

	for (tries = 0; tries < RBMON_DYN_TRIES; tries++) {
		/*
		 * Acquire: pairs with the writer's release store of the even
		 * gen after it changed the entry; what follows sees it all.
		 */
		g1 = RB_LOAD_ACQ(&e->gen);
		if (g1 & 1) {
			dyn_cpu_relax();
			continue;
		}
		d->pid = RB_LOAD(&e->pid);
		d->flags = RB_LOAD(&e->flags);
		d->pstart = RB_LOAD(&e->pstart);
		d->image = RB_LOAD(&e->image);
		d->objects = RB_LOAD(&e->objects);
		d->funcs = RB_LOAD(&e->funcs);
		d->sites = RB_LOAD(&e->sites);
		d->sites_off = RB_LOAD(&e->sites_off);
		d->off_name = RB_LOAD(&e->off_name);
		d->off_auto = RB_LOAD(&e->off_auto);
		d->batches = RB_LOAD(&e->batches);
		d->traps = RB_LOAD(&e->traps);
		d->private_bytes = RB_LOAD(&e->private_bytes);
		d->last_ns = RB_LOAD(&e->last_ns);
		listed = RB_LOAD(&e->listed);
		if (listed > RB_DYN_LISTED)
			listed = RB_DYN_LISTED;
		d->nfns = listed;
		memcpy(d->why, e->why, RB_DYN_WHY_MAX);
		memcpy(fns, e->fns, listed * sizeof *fns);
		/*
		 * Orders the copies before the gen reread: a writer that
		 * began meanwhile made gen odd or moved it on.
		 */
		RB_FENCE_ACQ();
		g2 = RB_LOAD(&e->gen);
		if (g1 == g2)
			return 0;
		dyn_cpu_relax();
	}
	return -1;
}

/* Keep the listed functions with an address and a known reason. */
static void
dyn_keep(struct rbmon_dyn *d, const struct rb_dynfn *fns)
{
	size_t	i, n = 0;

	d->fns = d->nfns == 0 ? NULL : rbmon_xcalloc(d->nfns, sizeof *d->fns);
	for (i = 0; i < d->nfns; i++) {
		if (fns[i].addr == 0 || (fns[i].reason & DYN_REASONS) == 0)
			continue;
		d->fns[n].addr = fns[i].addr;
		d->fns[n].reason = fns[i].reason & DYN_REASONS;
		n++;
	}
	d->nfns = n;
}

/**
 * rbmon_dyn_read - copy every claimed entry of the table
 * @base: the file's mapping
 * @h: its header, validated (dyn_off and dyn_procs as the layout says)
 * @s: filled in; release with rbmon_dyn_free()
 *
 * Called under the model's SIGBUS guard: on a file truncated meanwhile it
 * does not return, and rbmon_dyn_free() releases what was copied.
 */
void
rbmon_dyn_read(void *base, const struct rb_header *h, struct rbmon_dyns *s)
{
	struct rb_dynproc	*e;
	struct rbmon_dyn	*d;
	uint32_t		 i;

	if (h->dyn_off == 0 || h->dyn_procs == 0)
		return;
	for (i = 0; i < h->dyn_procs; i++) {
		e = rb_dynproc_at(base, h, i);
		/*
		 * Acquire: pairs with the claimer's release of CLAIMED after
		 * it wrote pid, pstart and image.
		 */
		if (RB_LOAD_ACQ(&e->state) != RB_DYNP_CLAIMED)
			continue;
		if (s->v == NULL)
			s->v = rbmon_xcalloc(h->dyn_procs, sizeof *s->v);
		if (s->scratch == NULL)
			s->scratch = rbmon_xcalloc(RB_DYN_LISTED,
			    sizeof *s->scratch);
		d = &s->v[s->n];
		memset(d, 0, sizeof *d);
		if (dyn_copy(e, d, s->scratch) != 0) {
			/* Relaxed: the identity alone, to say whose. */
			memset(d, 0, sizeof *d);
			d->torn = 1;
			d->pid = RB_LOAD(&e->pid);
			d->pstart = RB_LOAD(&e->pstart);
			d->image = RB_LOAD(&e->image);
		} else {
			d->flags &= DYN_FLAGS;
			d->why[RB_DYN_WHY_MAX] = '\0';
			dyn_keep(d, s->scratch);
		}
		if (d->pid <= 0) {
			free(d->fns);
			d->fns = NULL;
			continue;
		}
		s->n++;
	}
}

/**
 * rbmon_dyn_free - release the copies
 * @s: filled by rbmon_dyn_read(), or zeroed; zeroed on return
 */
void
rbmon_dyn_free(struct rbmon_dyns *s)
{
	size_t	i;

	for (i = 0; i < s->n; i++)
		free(s->v[i].fns);
	free(s->v);
	free(s->scratch);
	memset(s, 0, sizeof *s);
}

/**
 * rbmon_dyn_find - the entry of a process
 * @s: the copies
 * @pid: the process
 * @pstart: its start time (pid reuse is another process)
 *
 * Return: the copy, or NULL if the process has none.
 */
const struct rbmon_dyn *
rbmon_dyn_find(const struct rbmon_dyns *s, int32_t pid, uint64_t pstart)
{
	size_t	i;

	for (i = 0; i < s->n; i++) {
		if (s->v[i].pid == pid && s->v[i].pstart == pstart)
			return &s->v[i];
	}
	return NULL;
}

/**
 * rbmon_dyn_off - how many functions are off, by name or automatically
 * @d: an entry
 *
 * Return: off_name + off_auto (0 for a torn entry).
 */
uint64_t
rbmon_dyn_off(const struct rbmon_dyn *d)
{
	return (uint64_t)d->off_name + d->off_auto;
}

/**
 * rbmon_dyn_more - the functions off that the entry does not name
 * @d: an entry
 *
 * Return: rbmon_dyn_off() less the listed ones, at least 0.
 */
uint64_t
rbmon_dyn_more(const struct rbmon_dyn *d)
{
	uint64_t	n = rbmon_dyn_off(d);

	return n > d->nfns ? n - d->nfns : 0;
}

/**
 * rbmon_dyn_reason - why a listed function is off, in words
 * @reason: RB_DYN_BY_* bits
 *
 * Return: "name", "auto", "name,auto", or "" for none.
 */
const char *
rbmon_dyn_reason(uint32_t reason)
{
	switch (reason & DYN_REASONS) {
	case RB_DYN_BY_NAME:
		return "name";
	case RB_DYN_BY_AUTO:
		return "auto";
	case RB_DYN_BY_NAME | RB_DYN_BY_AUTO:
		return "name,auto";
	}
	return "";
}

/**
 * rbmon_dyn_summary - one line for an entry, without its reason text
 * @d: an entry
 * @buf: filled with "dormant (every site off)", "12 functions not traced
 *	(10 by name, 2 automatically); 3,456 of 20,112 sites off" or
 *	"every function traced; 0 of 20,112 sites off"
 * @len: its size
 */
void
rbmon_dyn_summary(const struct rbmon_dyn *d, char *buf, size_t len)
{
	char		n1[32], n2[32], n3[32], s1[32], s2[32];
	uint64_t	n;

	if (d->torn) {
		snprintf(buf, len, "changing (entry torn)");
		return;
	}
	if (d->flags & RB_DYNF_DORMANT) {
		snprintf(buf, len, "dormant (every site off)");
		return;
	}
	n = rbmon_dyn_off(d);
	rbmon_group(s1, sizeof s1, d->sites_off);
	rbmon_group(s2, sizeof s2, d->sites);
	if (n == 0) {
		snprintf(buf, len, "every function traced; %s of %s sites off",
		    s1, s2);
		return;
	}
	snprintf(buf, len, "%s function%s not traced (%s by name, %s "
	    "automatically); %s of %s sites off", rbmon_group(n1, sizeof n1, n),
	    n == 1 ? "" : "s", rbmon_group(n2, sizeof n2, d->off_name),
	    rbmon_group(n3, sizeof n3, d->off_auto), s1, s2);
}
