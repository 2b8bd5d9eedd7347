/* SPDX-License-Identifier: MIT */
/*
 * breakpoint.c - the hooks' side of the breakpoint table.
 *
 * Breakpoints live in the trace file (rbtrace(5), "BREAKPOINTS"): a monitor
 * resolves a function name to its entry addresses and writes one table
 * entry per address, then sets the address's bit in the filter.  No thread
 * needs to pass a hook for that.  An entry hook tests its function's bit
 * (rb_bp_filtered(), a few instructions) and only on a set bit comes here
 * to look for an entry of its own process image.
 *
 * Entries are published seqlock style through their ctl word; the letters
 * are the pairs of rbtrace(5), "ORDERING", which the monitor's side
 * (monitor/core/breakpoint.c) cites too:
 *
 *   writer (monitor, or a fork child)      reader (a hook, here)
 *   CAS ctl FREE(g) -> WRITING(g+1)        c1 = ctl                (acquire) (I)
 *   release fence                      (H) SET? copy the fields
 *   fields                                 acquire fence                     (H)
 *   ctl = SET(g+1)           (release) (I) c2 = ctl; use it if c1 == c2
 *   filter bit |= ...        (seq_cst) (J)
 *
 * and cleared by a compare-and-swap SET(g) -> FREE(g+1), so a reader never
 * takes a mix of two entries.  Nothing read from the table is trusted
 * further: its place and size are those of the header validated at
 * start-up, and a garbled entry can at worst stop a thread or count a hit
 * wrongly.
 *
 * librbtrace writes the table only to copy a process's breakpoints into a
 * fork child and to drop a thread's own when it exits, those of the image
 * an exec replaced, and its image's when no monitor is left (rb_bp_lapse(),
 * on the orphan path of a stop; rbtrace(5), "Stopping").
 */
#include "config.h"

#include <string.h>

#include "internal.h"

/* An entry as copied by rb_bp_read(). */
struct rb_bp_copy {
	uint32_t	ctl, id, from, nlocs, loc;
	int32_t		pid, tid;
	uint64_t	pstart, image, addr, hits;
};

/*
 * Copy entry @b if it is in force.
 * Return: true with @v filled when the copy is of one SET entry.
 */
static bool rb_bp_read(struct rb_bp *b, struct rb_bp_copy *v)
{
	/* (I) Acquire: the fields written before SET; pairs with the writer's release of ctl. */
	v->ctl = RB_LOAD_ACQ(&b->ctl);
	if (RB_BP_STATE(v->ctl) != RB_BP_SET)
		return false;
	v->id = RB_LOAD(&b->id);
	v->pid = RB_LOAD(&b->pid);
	v->tid = RB_LOAD(&b->tid);
	v->pstart = RB_LOAD(&b->pstart);
	v->image = RB_LOAD(&b->image);
	v->addr = RB_LOAD(&b->addr);
	v->hits = RB_LOAD(&b->hits);
	v->from = RB_LOAD(&b->from);
	v->loc = RB_LOAD(&b->loc);
	v->nlocs = RB_LOAD(&b->nlocs);
	/* (H) The fields before the second ctl load; pairs with the fence after a claim. */
	RB_FENCE_ACQ();
	return RB_LOAD(&b->ctl) == v->ctl;
}

/**
 * rb_bp_setup - find the table in the file just opened
 *
 * From the header validated at open (rb_map.geo), so that nothing a stray
 * write does to the header later moves the table.
 */
void rb_bp_setup(void)
{
	const struct rb_map *m = &rb_proc.map;

	rb_proc.bps = rb_bp_at(m->base, &m->geo, 0);
	rb_proc.nbps = RB_BP_ENTRIES;
	rb_proc.bpfilter = rb_bpfilter(m->base, &m->geo);
}

/* The hits of every location of breakpoint @id of this image. */
static uint64_t rb_bp_hits(uint32_t id)
{
	struct rb_bp_copy v;
	uint64_t sum = 0;
	uint32_t i;

	for (i = 0; i < rb_proc.nbps; i++)
		if (rb_bp_read(&rb_proc.bps[i], &v) && v.id == id &&
		    v.image == rb_proc.image)
			sum += v.hits;
	return sum;
}

/**
 * rb_bp_check - the calling thread enters @fn, whose filter bit is set
 *
 * Counts a hit on every breakpoint of this process image (and of this
 * thread) at @fn.
 * Return: the id of one whose hit count is reached, or 0.
 */
uint32_t rb_bp_check(struct rb_thread *t, uint64_t fn)
{
	struct rb_bp_copy v;
	uint32_t i, stop = 0;
	uint64_t hits;

	for (i = 0; i < rb_proc.nbps; i++) {
		struct rb_bp *b = &rb_proc.bps[i];

		if (RB_LOAD(&b->addr) != fn || !rb_bp_read(b, &v) ||
		    v.addr != fn || v.image != rb_proc.image ||
		    (v.tid != 0 && v.tid != t->tid))
			continue;
		/* Relaxed: a counter; monitors add up what they find. */
		hits = RB_ADD_FETCH(&b->hits, 1);
		if (v.nlocs > 1)
			hits = rb_bp_hits(v.id);
		if (stop == 0 && v.id != 0 && hits >= v.from)
			stop = v.id;
	}
	return stop;
}

/* Free entry @b, in state @c, unless it changed since.  Return: freed. */
static bool rb_bp_free(struct rb_bp *b, uint32_t c)
{
	/* (I) Release: our reads of the entry before it may be reused. */
	return RB_CAS_REL(&b->ctl, &c, RB_BP_MAKE(RB_BP_FREE, RB_BP_GEN(c) + 1));
}

/**
 * rb_bp_thread_exit - drop the exiting thread's own breakpoints
 */
void rb_bp_thread_exit(struct rb_thread *t)
{
	struct rb_bp_copy v;
	uint32_t i;

	for (i = 0; i < rb_proc.nbps; i++)
		if (rb_bp_read(&rb_proc.bps[i], &v) && v.tid == t->tid &&
		    v.image == rb_proc.image)
			rb_bp_free(&rb_proc.bps[i], v.ctl);
}

/* Claim a free entry.  Return: it, in WRITING, or NULL. */
static struct rb_bp *rb_bp_claim(uint32_t *gen)
{
	uint32_t i, c;

	for (i = 0; i < rb_proc.nbps; i++) {
		struct rb_bp *b = &rb_proc.bps[i];

		c = RB_LOAD(&b->ctl);
		if (RB_BP_STATE(c) != RB_BP_FREE)
			continue;
		*gen = RB_BP_GEN(c) + 1;
		/* (I) Acquire: ours only after the CAS; pairs with the release that freed it. */
		if (RB_CAS(&b->ctl, &c, RB_BP_MAKE(RB_BP_WRITING, *gen))) {
			/* (H) The claim before the fields; pairs with the readers' fence. */
			RB_FENCE_REL();
			return b;
		}
	}
	return NULL;
}

/**
 * rb_bp_fork_child - in a fork child: copy the parent's process-wide
 * breakpoints for this new image (thread-only ones stay the parent's)
 * @parent_image: the parent's rb_proc.image
 */
void rb_bp_fork_child(uint64_t parent_image)
{
	struct rb_bp_copy v;
	struct rb_bp *b, *d;
	char name[RB_BP_NAME];
	uint32_t i, gen, lost = 0;
	uint32_t h;

	for (i = 0; i < rb_proc.nbps; i++) {
		b = &rb_proc.bps[i];
		if (!rb_bp_read(b, &v) || v.image != parent_image ||
		    v.tid != 0)
			continue;
		memcpy(name, b->name, sizeof(name));
		name[RB_BP_NAME - 1] = '\0';
		/* (H) The name copied before the check, as the fields. */
		RB_FENCE_ACQ();
		if (RB_LOAD(&b->ctl) != v.ctl)
			continue;
		d = rb_bp_claim(&gen);
		if (d == NULL) {
			lost++;
			continue;
		}
		RB_STORE(&d->id, v.id);
		RB_STORE(&d->pid, (int32_t)rb_proc.pid);
		RB_STORE(&d->tid, 0);
		RB_STORE(&d->pstart, rb_proc.pstart);
		RB_STORE(&d->image, rb_proc.image);
		RB_STORE(&d->addr, v.addr);
		RB_STORE(&d->hits, v.hits);
		RB_STORE(&d->from, v.from);
		RB_STORE(&d->loc, v.loc);
		RB_STORE(&d->nlocs, v.nlocs);
		RB_STORE(&d->setter, (int32_t)rb_proc.pid);
		memcpy(d->name, name, sizeof(name));
		/* (I) The fields before SET; pairs with the readers' acquire load of ctl. */
		RB_STORE_REL(&d->ctl, RB_BP_MAKE(RB_BP_SET, gen));
		h = rb_bp_hash(v.addr);
		/*
		 * (J) Seq_cst: after SET, so a monitor's filter rebuild that
		 * missed the entry keeps this bit (rbtrace(5), "The filter").
		 */
		__atomic_fetch_or((uint64_t *)&rb_proc.bpfilter[h >> 6],
				  1ull << (h & 63), __ATOMIC_SEQ_CST);
	}
	if (lost > 0)
		rb_warnf("rbtrace: process %d: no room in the breakpoint table for %u of its parent's breakpoint locations",
			 (int)rb_proc.pid, lost);
}

/**
 * rb_bp_image_start - an exec'd image joined the file: the breakpoints of
 * the image it replaced are gone with that image's code
 */
void rb_bp_image_start(void)
{
	struct rb_bp_copy v;
	uint32_t i;

	for (i = 0; i < rb_proc.nbps; i++)
		if (rb_bp_read(&rb_proc.bps[i], &v) &&
		    v.pid == (int32_t)rb_proc.pid && v.pstart == rb_proc.pstart &&
		    v.image != rb_proc.image)
			rb_bp_free(&rb_proc.bps[i], v.ctl);
}

/*
 * Make the filter hold exactly the bits of the entries in force, as a
 * monitor does after a clear (rbtrace(5), "The filter"): gather them, AND
 * every word with them, then OR them in again.  A writer ORs its bit after
 * its entry is SET; the AND and that OR are ordered on the word, so either
 * the OR comes later, or the SET is seen by the second pass.
 */
static void rb_bp_filter_sync(void)
{
	uint64_t want[RB_BP_FILTER_BITS / 64], *f = (uint64_t *)rb_proc.bpfilter;
	struct rb_bp_copy v;
	uint32_t i, h;

	memset(want, 0, sizeof(want));
	for (i = 0; i < rb_proc.nbps; i++)
		if (rb_bp_read(&rb_proc.bps[i], &v)) {
			h = rb_bp_hash(v.addr);
			want[h >> 6] |= 1ull << (h & 63);
		}
	rb_cap_filter_want(want);
	for (i = 0; i < RB_BP_FILTER_BITS / 64; i++)
		/* (J) Acq_rel: ordered against the writers' ORs of this word (see above). */
		if (RB_LOAD(&f[i]) & ~want[i])
			RB_BPF_AND(&f[i], want[i]);
	for (i = 0; i < rb_proc.nbps; i++)
		if (rb_bp_read(&rb_proc.bps[i], &v)) {
			h = rb_bp_hash(v.addr);
			/* (J) After the SET rb_bp_read() saw; the hooks read the word relaxed. */
			if (!(RB_LOAD(&f[h >> 6]) & (1ull << (h & 63))))
				RB_BPF_OR(&f[h >> 6], 1ull << (h & 63));
		}
}

/**
 * rb_bp_lapse - no monitor is left: clear every breakpoint of this image
 *
 * Return: how many breakpoints (ids) were cleared.
 */
uint32_t rb_bp_lapse(void)
{
	uint64_t freed[RB_BP_ENTRIES / 64] = { 0 };
	struct rb_bp_copy v;
	uint32_t i, j, id, n = 0;

	for (i = 0; i < rb_proc.nbps; i++)
		if (rb_bp_read(&rb_proc.bps[i], &v) &&
		    v.image == rb_proc.image &&
		    rb_bp_free(&rb_proc.bps[i], v.ctl))
			freed[i >> 6] |= 1ull << (i & 63);
	/* Count the ids (a freed entry keeps its fields until it is reused: at worst a miscount). */
	for (i = 0; i < rb_proc.nbps; i++) {
		if (!(freed[i >> 6] >> (i & 63) & 1))
			continue;
		id = RB_LOAD(&rb_proc.bps[i].id);
		for (j = 0; j < i; j++)
			if ((freed[j >> 6] >> (j & 63) & 1) &&
			    RB_LOAD(&rb_proc.bps[j].id) == id)
				break;
		n += j == i;
	}
	for (i = 0; i < RB_BP_ENTRIES / 64; i++)
		if (freed[i] != 0) {
			rb_bp_filter_sync();
			break;
		}
	return n;
}
