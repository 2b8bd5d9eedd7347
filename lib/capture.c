/* SPDX-License-Identifier: MIT */
/*
 * capture.c - captures of slow calls, the hooks' side (rbtrace(5),
 * "CAPTURES").
 *
 * A function is armed by an entry of the file's armed table (struct
 * rb_capfn) and its address's bit in the breakpoint filter, so its entry
 * hook takes the cold path (rb_attention_enter()) and comes here: the
 * thread notes the call (its level, its entry record's place in the event
 * log, its entry time) on a small private stack and sets cap_level, which
 * the exit hook compares its new depth with.  Every other exit pays that
 * compare; the armed call's exit comes here, measures the call and, when
 * it was slower than the entry asks, copies its subtree (the event-log
 * records from its entry to its exit) and the frames below it into one of
 * the entry's capture slots.
 *
 * A slot is published seqlock style; the letters are the pairs of
 * rbtrace(5), "ORDERING", which rbmon's reader (monitor/core/capture.c)
 * cites too:
 *
 *   writer (the thread)                    reader (monitor)
 *   CAS seq q -> q + 1 (q even)            s1 = seq               (acquire) (N)
 *   release fence                      (O) copy the capture
 *   fields, frames, records                acquire fence                    (O)
 *   seq = q + 2              (release) (N) s2 = seq; s1 == s2, even: whole
 *
 * Armed entries are published as breakpoints are ((H), (I), (J)), and
 * read the same way.  Nothing read from the file is trusted: indexes are
 * bounded here, the table's place is the validated header's.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "common/capspec.h"
#include "lib/dyn/names.h"

static struct rb_capfn		*rb_cap_fns;	/* NULL: no table */
static struct rb_capture	*rb_cap_slots;

/* RBTRACE_CAPTURE, resolved in the constructor, armed once the file is open. */
struct rb_cap_want {
	uint64_t	addr;
	uint64_t	ns;		/* 0 with RB_CAPF_MAX */
	uint32_t	flags;
	uint32_t	id;		/* the pattern's number, for its id */
	char		name[RB_CAP_NAME];
};

static struct rb_cap_want	rb_cap_wants[RB_CAP_FNS];
static uint32_t			rb_cap_nwants;
static uint32_t			rb_cap_keep = RB_CAP_KEEP_DEF;
static int			rb_cap_armed;

/**
 * rb_cap_setup - find the armed table and the captures in the file just
 * opened, from the header validated at open
 */
void rb_cap_setup(void)
{
	const struct rb_map *m = &rb_proc.map;

	rb_cap_fns = rb_capfn_at(m->base, &m->geo, 0);
	rb_cap_slots = rb_capture_at(m->base, &m->geo, 0);
}

/* An armed entry as copied by rb_cap_read(). */
struct rb_cap_copy {
	uint32_t	ctl, flags, keep, id;
	uint64_t	image, addr, ns;
};

/* Copy entry @f if it is in force.  Return: true with @v one SET state. */
static bool rb_cap_read(struct rb_capfn *f, struct rb_cap_copy *v)
{
	/* (I) Acquire: the fields written before SET; pairs with the writer's release of ctl. */
	v->ctl = RB_LOAD_ACQ(&f->ctl);
	if (RB_BP_STATE(v->ctl) != RB_BP_SET)
		return false;
	v->flags = RB_LOAD(&f->flags);
	v->keep = RB_LOAD(&f->keep);
	v->id = RB_LOAD(&f->id);
	v->image = RB_LOAD(&f->image);
	v->addr = RB_LOAD(&f->addr);
	v->ns = RB_LOAD(&f->threshold_ns);
	/* (H) The fields before the second ctl load; pairs with the fence after a claim. */
	RB_FENCE_ACQ();
	if (RB_LOAD(&f->ctl) != v->ctl)
		return false;
	if (v->keep < 1)
		v->keep = 1;
	if (v->keep > RB_CAP_KEEP_MAX)
		v->keep = RB_CAP_KEEP_MAX;
	return true;
}

/**
 * rb_cap_filter_want - add the bits of the armed entries in force to
 * @want (a filter being rebuilt, breakpoint.c)
 */
void rb_cap_filter_want(uint64_t *want)
{
	struct rb_cap_copy v;
	uint32_t i, h;

	if (rb_cap_fns == NULL)
		return;
	for (i = 0; i < RB_CAP_FNS; i++)
		if (rb_cap_read(&rb_cap_fns[i], &v)) {
			h = rb_bp_hash(v.addr);
			want[h >> 6] |= 1ull << (h & 63);
		}
}

/* The counter's rate, once known (0: not yet). */
static uint64_t rb_cap_hz;

/*
 * The counter's rate: the architecture's, or measured from the file's
 * creation pair (rb_header.clock_tsc0, clock_ns0, as validated at open)
 * once 50 ms have passed.  Return: 0 while unknown.
 */
static uint64_t rb_cap_rate(void)
{
	const struct rb_header *g = &rb_proc.map.geo;
	uint64_t hz = RB_LOAD(&rb_cap_hz), tsc, ns;

	if (hz != 0)
		return hz;
	hz = rb_counter_hz();
	if (hz == 0) {
		tsc = rb_counter_read();
		ns = rb_clock_mono_ns();
		if (ns < g->clock_ns0 + 50000000u || tsc <= g->clock_tsc0)
			return 0;
		hz = (uint64_t)((unsigned __int128)(tsc - g->clock_tsc0) *
		    1000000000u / (ns - g->clock_ns0));
	}
	if (hz < 1000000u || hz > 100000000000ull)
		return 0;
	/* Relaxed: every thread computes a valid rate. */
	RB_STORE(&rb_cap_hz, hz);
	return hz;
}

/*
 * Call @c's duration in nanoseconds, @ticks in the file's clock units;
 * before the counter's rate is known, from CLOCK_MONOTONIC read at both
 * ends (c->mono).
 */
static uint64_t rb_cap_ns(const struct rb_capcall *c, uint64_t ticks)
{
	uint64_t hz, now;

	if (rb_clock_kind == RB_CLOCK_NONE)
		return 0;
	if (rb_clock_kind == RB_CLOCK_MONO)
		return ticks;
	if (c->mono != 0) {
		now = rb_clock_mono_ns();
		return now > c->mono ? now - c->mono : 0;
	}
	if ((hz = rb_cap_rate()) == 0)
		return 0;
	return (uint64_t)((unsigned __int128)ticks * 1000000000u / hz);
}

static RB_NOINSTR struct rb_slot *rb_cap_slot(struct rb_thread *t,
					      uint32_t level)
{
	return (struct rb_slot *)(t->slots +
	    (size_t)rb_slot_index(level, t->nslots, t->pinned) * t->slot_size);
}

/*
 * rb_cap_enter - @t entered @fn, whose filter bit is set, and pushed it:
 * note the call if an armed entry of this image names @fn
 *
 * Return: the entry's index + 1, or 0 when @fn is not armed.
 */
uint32_t rb_cap_enter(struct rb_thread *t, uint64_t fn)
{
	struct rb_cap_copy v;
	struct rb_capcall *c;
	const struct rb_slot *s;
	const struct rb_event *e;
	uint32_t i, level;
	uint64_t h;

	if (rb_cap_fns == NULL || t->depth == 0)
		return 0;
	level = t->depth - 1;
	/* Calls noted at this level or deeper are gone (unwound without exits). */
	while (t->ncap > 0 && t->cap[t->ncap - 1].level >= level)
		t->ncap--;
	t->cap_level = t->ncap > 0 ? t->cap[t->ncap - 1].level : UINT32_MAX;
	for (i = 0; i < RB_CAP_FNS; i++) {
		if (RB_LOAD(&rb_cap_fns[i].addr) != fn ||
		    !rb_cap_read(&rb_cap_fns[i], &v) || v.addr != fn ||
		    v.image != rb_proc.image)
			continue;
		if (t->ncap == RB_CAP_NEST)
			return i + 1;	/* nested too deep: not measured */
		c = &t->cap[t->ncap++];
		s = rb_cap_slot(t, level);
		c->level = level;
		c->entry = i;
		c->ctl = v.ctl;
		c->fn = fn;
		c->site = RB_LOAD(&s->site);
		c->ts = RB_LOAD(&s->ts);
		c->mono = rb_clock_kind != RB_CLOCK_MONO &&
		    rb_clock_kind != RB_CLOCK_NONE && rb_cap_rate() == 0 ?
		    rb_clock_mono_ns() : 0;
		c->first = 0;
		c->dropped = 0;
		c->logged = false;
		if (!(t->evstate & RB_EVS_NONE)) {
			/* Relaxed: head and dropped are this thread's own. */
			h = RB_LOAD(&t->ev.log->head);
			c->dropped = RB_LOAD(&t->ev.log->dropped);
			c->first = h;
			e = &t->ev.rec[(h - 1) & (t->ev.size - 1)];
			if (h > 0 && e->kind == RB_EV_ENTRY && e->fn == fn) {
				c->first = h - 1;
				c->logged = true;
			}
		}
		t->cap_level = level;
		return i + 1;
	}
	return 0;
}

/*
 * rb_cap_nobp - is no breakpoint of this image at @fn, armed by entry
 * @armed - 1?  The filter bit sends an armed function's entries to the
 * breakpoint table too; a thread keeps the answer "none" for the next
 * RB_CAP_NOBP_KEEP entries while the table's id counter (bp_next_id, which
 * every breakpoint a monitor sets bumps) stays the same, so that a hot
 * armed function does not scan the table at every call.  A breakpoint set
 * on it while the answer is kept is seen at most that many entries late.
 */
bool rb_cap_nobp(struct rb_thread *t, uint32_t armed, uint64_t fn)
{
	uint64_t gen;
	uint32_t i, c;

	if (armed == 0 || armed > RB_CAP_FNS || rb_proc.bps == NULL)
		return false;
	/* Relaxed: a counter; see above for what a late sight costs. */
	gen = RB_LOAD(&rb_proc.map.hdr->bp_next_id);
	if (t->nobp_left[armed - 1] > 0 && t->nobp_gen[armed - 1] == gen &&
	    t->nobp_fn[armed - 1] == fn) {
		t->nobp_left[armed - 1]--;
		return true;
	}
	t->nobp_left[armed - 1] = 0;
	for (i = 0; i < rb_proc.nbps; i++) {
		const struct rb_bp *b = &rb_proc.bps[i];

		if (RB_LOAD(&b->addr) != fn)
			continue;
		/* Acquire: as rb_bp_read() (I); any entry in force at @fn says no. */
		c = RB_LOAD_ACQ(&b->ctl);
		if (RB_BP_STATE(c) != RB_BP_FREE)
			return false;
	}
	t->nobp_fn[armed - 1] = fn;
	t->nobp_gen[armed - 1] = gen;
	t->nobp_left[armed - 1] = RB_CAP_NOBP_KEEP;
	return true;
}

/* One look for rb_cap_claim(): RB_CAP_RACED when its claim lost a race. */
#define RB_CAP_RACED	((struct rb_capture *)1)

static struct rb_capture *rb_cap_claim_once(uint32_t i, uint32_t keep,
					    uint32_t id, uint64_t dur,
					    uint32_t *q)
{
	struct rb_capture *s, *best = NULL;
	uint64_t bd = UINT64_MAX, d;
	uint32_t k, v, bq = 0;

	for (k = 0; k < keep; k++) {
		s = &rb_cap_slots[i * RB_CAP_KEEP_MAX + k];
		/* (N) Acquire: pairs with the release of the last writer's even seq. */
		v = RB_LOAD_ACQ(&s->seq);
		if (v & 1)
			continue;
		if (v == 0 || RB_LOAD(&s->entry) != i ||
		    RB_LOAD(&s->id) != id) {
			best = s;
			bq = v;
			bd = 0;
			break;
		}
		d = RB_LOAD(&s->dur_ns);
		if (d < bd) {
			best = s;
			bq = v;
			bd = d;
		}
	}
	if (best == NULL || (bd != 0 && dur <= bd))
		return NULL;
	/* Another writer may have claimed it since: look again. */
	if (!RB_CAS(&best->seq, &bq, bq + 1))
		return RB_CAP_RACED;
	/* (O) The odd seq before the fields; pairs with the readers' acquire fence. */
	RB_FENCE_REL();
	*q = bq;
	return best;
}

/*
 * The slot to write for entry @i, keeping its @keep slowest: an empty or
 * stale one, else the fastest if @dur is slower.  Claimed (odd) on return,
 * with its old seq in @q.  Return: NULL when none.
 */
static struct rb_capture *rb_cap_claim(uint32_t i, uint32_t keep, uint32_t id,
				       uint64_t dur, uint32_t *q)
{
	struct rb_capture *s;
	uint32_t tries;

	/*
	 * Another writer may claim the slot chosen first (threads whose slow
	 * calls end together pick the same empty one): look again, a bounded
	 * number of times, as each failed claim means one more slot taken.
	 */
	for (tries = 0; tries <= keep; tries++) {
		s = rb_cap_claim_once(i, keep, id, dur, q);
		if (s != RB_CAP_RACED)
			return s;
	}
	return NULL;
}

/* Copy call @c's records, from its entry to its exit at @te, into @s. */
static void rb_cap_records(struct rb_thread *t, const struct rb_capcall *c,
			   struct rb_capture *s, uint64_t te)
{
	struct rb_event *out = s->records;
	const struct rb_event *e;
	uint64_t head, n = 0, take = 0, j, lost = 0;
	uint32_t k = 0;

	if (!(t->evstate & RB_EVS_NONE)) {
		/* Relaxed: this thread's own. */
		head = RB_LOAD(&t->ev.log->head);
		n = head > c->first ? head - c->first : 0;
		take = n < t->ev.size ? n : t->ev.size;
		if (take > RB_CAP_EVENTS - 2)
			take = RB_CAP_EVENTS - 2;
		lost = n - take + (RB_LOAD(&t->ev.log->dropped) - c->dropped);
		e = &t->ev.rec[(head - take) & (t->ev.size - 1)];
		if (take == 0 || !c->logged || take < n ||
		    e->kind != RB_EV_ENTRY || e->fn != c->fn) {
			/* Its entry record is not among them: one stands for it. */
			out[k].ts = c->ts;
			out[k].fn = c->fn;
			out[k].arg = c->site;
			out[k].kind = RB_EV_ENTRY;
			out[k].aux = 0;
			k++;
		}
		for (j = head - take; j < head; j++)
			out[k++] = t->ev.rec[j & (t->ev.size - 1)];
	} else {
		RB_STORE(&s->flags, RB_CAPT_NOLOG);
		out[k].ts = c->ts;
		out[k].fn = c->fn;
		out[k].arg = c->site;
		out[k].kind = RB_EV_ENTRY;
		out[k].aux = 0;
		k++;
	}
	if (k == 0 || out[k - 1].kind != RB_EV_EXIT || out[k - 1].fn != c->fn) {
		out[k].ts = te;
		out[k].fn = c->fn;
		out[k].arg = 0;
		out[k].kind = RB_EV_EXIT;
		out[k].aux = 0;
		k++;
	}
	RB_STORE(&s->nrec, k);
	RB_STORE(&s->lost, lost);
}

/* Call @c of armed entry @v was slow: keep it if it is among the slowest. */
static void rb_cap_store(struct rb_thread *t, const struct rb_capcall *c,
			 const struct rb_cap_copy *v, uint64_t te, uint64_t dur)
{
	struct rb_capfn *f = &rb_cap_fns[c->entry];
	struct rb_capture *s;
	struct timespec rt;
	uint32_t q, lvl, n = 0;

	s = rb_cap_claim(c->entry, v->keep, v->id, dur, &q);
	if (s == NULL) {
		/* Relaxed: counters. */
		RB_FETCH_ADD(&f->dropped, 1);
		return;
	}
	RB_STORE(&s->entry, c->entry);
	RB_STORE(&s->id, v->id);
	RB_STORE(&s->flags, 0);
	RB_STORE(&s->pid, (int32_t)rb_proc.pid);
	RB_STORE(&s->tid, (int32_t)t->tid);
	RB_STORE(&s->pstart, rb_proc.pstart);
	RB_STORE(&s->image, rb_proc.image);
	RB_STORE(&s->fn, c->fn);
	RB_STORE(&s->ts_entry, c->ts);
	RB_STORE(&s->ts_exit, te);
	RB_STORE(&s->dur_ns, dur);
	clock_gettime(CLOCK_REALTIME, &rt);
	RB_STORE(&s->realtime_ns, (uint64_t)rt.tv_sec * 1000000000u +
	    (uint64_t)rt.tv_nsec);
	RB_STORE(&s->depth, c->level);
	RB_STORE(&s->ring, t->index);
	memcpy(s->thread, t->ring->name, sizeof(s->thread));
	s->thread[sizeof(s->thread) - 1] = '\0';
	memcpy(s->name, f->name, sizeof(s->name));
	s->name[sizeof(s->name) - 1] = '\0';
	/* The frames below, the caller first; a level whose slot a deeper one took is not known. */
	for (lvl = c->level; lvl > 0 && n < RB_CAP_FRAMES; lvl--, n++) {
		const struct rb_slot *b = rb_cap_slot(t, lvl - 1);
		bool ok = RB_LOAD(&b->depth) == lvl - 1;

		s->frames[n].fn = ok ? RB_LOAD(&b->fn) : 0;
		s->frames[n].site = ok ? RB_LOAD(&b->site) : 0;
	}
	RB_STORE(&s->nframes, n);
	rb_cap_records(t, c, s, te);
	/* (N) The capture before the even seq; pairs with the readers' acquire load. */
	RB_STORE_REL(&s->seq, q + 2);
	RB_FETCH_ADD(&f->stored, 1);
}

/* Call @c returned at @te: measure it against its entry. */
static void rb_cap_done(struct rb_thread *t, const struct rb_capcall *c,
			uint64_t te)
{
	struct rb_capfn *f = &rb_cap_fns[c->entry];
	struct rb_cap_copy v;
	uint64_t dur, max;

	if (!rb_cap_read(f, &v) || v.ctl != c->ctl || te < c->ts)
		return;		/* disarmed or re-armed meanwhile */
	dur = rb_cap_ns(c, te - c->ts);
	if (v.flags & RB_CAPF_MAX) {
		/* Relaxed: the CAS decides which of racing calls was slower. */
		max = RB_LOAD(&f->max_ns);
		do {
			if (dur <= max)
				return;
		} while (!RB_CAS(&f->max_ns, &max, dur));
	} else {
		if (dur <= v.ns)
			return;
		max = RB_LOAD(&f->max_ns);
		while (dur > max && !RB_CAS(&f->max_ns, &max, dur))
			;
	}
	RB_FETCH_ADD(&f->fired, 1);
	rb_cap_store(t, c, &v, te, dur);
	/*
	 * The same condition freezes every thread's event log for a
	 * snapshot writer, if one is attached (rbtrace(5), "SNAPSHOTS"),
	 * once the capture is in place.
	 */
	(void)rb_snapshot_trigger(RB_SNAPR_CAPTURE, t->tid, c->fn, dur);
}

/**
 * rb_cap_exit - @t left @fn and its depth is now at most cap_level: the
 * armed call on top returned, or calls noted were unwound without exits
 */
void rb_cap_exit(struct rb_thread *t, uint64_t fn)
{
	const struct rb_capcall *c;
	const struct rb_event *e;
	uint64_t te = 0;

	while (t->ncap > 0) {
		c = &t->cap[t->ncap - 1];
		if (c->level < t->depth)
			break;
		if (c->level == t->depth && c->fn == fn) {
			if (!(t->evstate & RB_EVS_NONE)) {
				/* The exit record just made, if it was. */
				e = &t->ev.rec[(RB_LOAD(&t->ev.log->head) - 1) &
				    (t->ev.size - 1)];
				if (e->kind == RB_EV_EXIT && e->fn == fn &&
				    t->slowclock != RB_TCLOCK_NONE)
					te = e->ts;
			}
			if (te == 0)
				te = rb_clock_raw_slow();
			rb_cap_done(t, c, te);
		}
		t->ncap--;
	}
	t->cap_level = t->ncap > 0 ? t->cap[t->ncap - 1].level : UINT32_MAX;
}

/* ------------------------------------------------------------------
 * Arming at start-up: RBTRACE_CAPTURE.
 */

struct rb_cap_match {
	const char	*name;
	uint64_t	 ns;
	uint32_t	 flags, id;
	uint32_t	 found;
};

static int rb_cap_found(uint64_t addr, const char *name, void *arg)
{
	struct rb_cap_match *m = arg;
	struct rb_cap_want *w;

	(void)name;
	m->found++;
	if (rb_cap_nwants == RB_CAP_FNS)
		return 1;
	w = &rb_cap_wants[rb_cap_nwants++];
	w->addr = addr;
	w->ns = m->ns;
	w->flags = m->flags;
	w->id = m->id;
	rb_strlcpy(w->name, m->name, sizeof(w->name));
	return 0;
}

/*
 * rb_cap_env - RBTRACE_CAPTURE ("FUNC>DURATION", several separated by
 * ';') and RBTRACE_CAPTURE_KEEP: resolved here, in the constructor (it
 * allocates), armed once the file is open (rb_cap_arm_env()).
 */
void rb_cap_env(void)
{
	const char *env = getenv("RBTRACE_CAPTURE");
	const char *keep = getenv("RBTRACE_CAPTURE_KEEP");
	char *buf, *spec, *save = NULL, name[RB_CAP_NAME], err[256];
	struct rb_cap_match m;
	uint32_t k, id = 0;

	if (env == NULL || *env == '\0')
		return;
	if (keep != NULL && *keep != '\0') {
		if (rb_parse_uint(keep, 1, RB_CAP_KEEP_MAX, &k) != 0)
			rb_warnf("rbtrace: RBTRACE_CAPTURE_KEEP must be 1 to %d, not '%.20s'; keeping %d",
				 RB_CAP_KEEP_MAX, keep, RB_CAP_KEEP_DEF);
		else
			rb_cap_keep = k;
	}
	if ((buf = strdup(env)) == NULL)
		return;
	for (spec = strtok_r(buf, ";", &save); spec != NULL;
	     spec = strtok_r(NULL, ";", &save)) {
		memset(&m, 0, sizeof(m));
		if (rb_capspec_parse(spec, name, sizeof(name), &m.ns,
				 &m.flags) != 0) {
			rb_warnf("rbtrace: RBTRACE_CAPTURE: '%.80s' is not FUNC>DURATION (ns, us, ms, s) or FUNC>max",
				 spec);
			continue;
		}
		m.name = name;
		m.id = ++id;
		if (rb_names_match(name, rb_cap_found, &m, err,
				   sizeof(err)) < 0)
			rb_warnf("rbtrace: RBTRACE_CAPTURE: %.80s: %s", name, err);
		else if (m.found == 0)
			rb_warnf("rbtrace: RBTRACE_CAPTURE: no function '%.80s' in the program",
				 name);
		else if (rb_cap_nwants == RB_CAP_FNS)
			rb_warnf("rbtrace: RBTRACE_CAPTURE: the armed table holds %d functions; '%.80s' and those after it are not all armed",
				 RB_CAP_FNS, name);
	}
	free(buf);
	if (rb_cap_nwants > 0 &&
	    atomic_load_explicit(&rb_proc.init, memory_order_acquire) ==
	    RB_INIT_DONE)
		rb_cap_arm_env();
}

/* Claim a free entry, or one a dead process left.  Return: it, WRITING. */
static struct rb_capfn *rb_cap_claim_fn(uint32_t *gen)
{
	uint32_t i, c, pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < RB_CAP_FNS; i++) {
			struct rb_capfn *f = &rb_cap_fns[i];

			c = RB_LOAD(&f->ctl);
			if (pass == 0 && RB_BP_STATE(c) != RB_BP_FREE)
				continue;
			if (pass == 1 && (RB_BP_STATE(c) != RB_BP_SET ||
			    rb_proc_alive(RB_LOAD(&f->pid),
					  RB_LOAD(&f->pstart))))
				continue;
			*gen = RB_BP_GEN(c) + 1;
			/* (I) Acquire: ours only after the CAS; pairs with the release that freed it. */
			if (RB_CAS(&f->ctl, &c, RB_BP_MAKE(RB_BP_WRITING, *gen))) {
				/* (H) The claim before the fields; pairs with the readers' fence. */
				RB_FENCE_REL();
				return f;
			}
		}
	return NULL;
}

/**
 * rb_cap_arm_env - arm what RBTRACE_CAPTURE named, once, for this image
 */
void rb_cap_arm_env(void)
{
	struct rb_capfn *f;
	struct rb_cap_want *w;
	uint64_t id0 = 0;
	uint32_t i, gen, h, lost = 0;

	if (rb_cap_nwants == 0 || rb_cap_fns == NULL ||
	    __atomic_exchange_n(&rb_cap_armed, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	for (i = 0; i < rb_cap_nwants; i++) {
		w = &rb_cap_wants[i];
		if ((f = rb_cap_claim_fn(&gen)) == NULL) {
			lost++;
			continue;
		}
		if (i == 0 || w->id != rb_cap_wants[i - 1].id)
			/* Relaxed: a counter; ids only need to differ. */
			id0 = RB_ADD_FETCH(&rb_proc.map.hdr->cap_next_id, 1);
		RB_STORE(&f->flags, w->flags);
		RB_STORE(&f->pid, (int32_t)rb_proc.pid);
		RB_STORE(&f->setter, (int32_t)rb_proc.pid);
		RB_STORE(&f->pstart, rb_proc.pstart);
		RB_STORE(&f->image, rb_proc.image);
		RB_STORE(&f->addr, w->addr);
		RB_STORE(&f->threshold_ns, w->ns);
		RB_STORE(&f->keep, rb_cap_keep);
		RB_STORE(&f->id, (uint32_t)id0);
		RB_STORE(&f->max_ns, 0);
		RB_STORE(&f->fired, 0);
		RB_STORE(&f->stored, 0);
		RB_STORE(&f->dropped, 0);
		memcpy(f->name, w->name, sizeof(f->name));
		/* (I) The fields before SET; pairs with the readers' acquire load of ctl. */
		RB_STORE_REL(&f->ctl, RB_BP_MAKE(RB_BP_SET, gen));
		h = rb_bp_hash(w->addr);
		/* (J) Seq_cst: after SET, as breakpoint.c's writers. */
		__atomic_fetch_or((uint64_t *)&rb_proc.bpfilter[h >> 6],
				  1ull << (h & 63), __ATOMIC_SEQ_CST);
	}
	if (lost > 0) {
		RB_FETCH_ADD(&rb_proc.map.hdr->cap_lost, lost);
		rb_warnf("rbtrace: no room in the armed table for %u capture location%s",
			 lost, lost == 1 ? "" : "s");
	}
}
