/* SPDX-License-Identifier: MIT */
/*
 * msgarea.c - the global message area: who holds it.
 *
 * One area in the file, after the header, continues the texts too long for
 * where they start: a command's response past its ring's msgarea
 * (control.c), a watch value past its entry's result (watch.c).  It holds
 * one text at a time; header.gma_owner says whose (RB_GMA_MAKE: ring + 1,
 * watch entry + 1, RB_GMA_BUSY while a watch value is written), and a
 * writer takes it by compare-and-swap once the claim before has lapsed
 * (rbtrace(5), "Long responses").  From hooks: no lock, no allocation.
 */
#include "config.h"

#include "internal.h"

/*
 * Whether the GMA's current owner still needs it: a command's response
 * until the monitor read it (or died and its successor cleared the ring),
 * a watch value while it is being written and until the monitor asks for
 * a fresh one.  A writer whose process died keeps nothing.
 */
static bool rb_gma_held(uint32_t cur)
{
	const struct rb_header *g = &rb_proc.map.geo;
	uint32_t ring = RB_GMA_RING(cur), entry = RB_GMA_ENTRY(cur);
	struct rb_ring *r;

	if (ring == 0 || ring > g->rings)
		return false;
	r = rb_ring_at(rb_proc.map.base, g, ring - 1);
	if (entry == 0) {
		int32_t c = RB_LOAD(&r->cmdready);

		return c == RB_CMD_RESPONSE || c == RB_CMD_TAKEN;
	}
	if (entry > RB_WATCHES)
		return false;
	if (cur & RB_GMA_BUSY)
		return rb_proc_alive_pid(RB_LOAD(&r->pid));
	return RB_LOAD(&r->watches[entry - 1].inuse) == RB_WATCH_SET &&
	       RB_LOAD(&r->watches[entry - 1].resready) == 1;
}

/**
 * rb_gma_claim - take the GMA as @me (RB_GMA_MAKE) for text from @pos on
 *
 * Return: true when the caller owns it now.
 */
bool rb_gma_claim(uint32_t me, uint64_t pos)
{
	struct rb_header *h = rb_proc.map.hdr;
	uint32_t cur;
	int tries;

	for (tries = 0; tries < 8; tries++) {
		cur = RB_LOAD_ACQ(&h->gma_owner);
		if (cur != 0 && (cur & ~RB_GMA_BUSY) != (me & ~RB_GMA_BUSY) &&
		    rb_gma_held(cur))
			return false;	/* in use */
		if (RB_CAS(&h->gma_owner, &cur, me)) {
			RB_STORE(&h->gma_pos, pos);
			RB_STORE(&h->gma_len, 0);
			return true;
		}
	}
	return false;
}
