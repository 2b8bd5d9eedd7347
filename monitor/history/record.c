/* SPDX-License-Identifier: MIT */
/*
 * rbmon record: the recorder (rbtrace(5), "RECORDINGS"), a process of its
 * own that drains every thread's event log into a recording while the
 * program runs, as the NPTL Trace Tool's daemon did.
 *
 * The program does not wait for it unless asked.  With the drain policy a
 * thread whose log is full drops its new records and counts them (the
 * recorder falls behind, nothing is overwritten), or, blocking (block_ms,
 * rbtrace(5) "EVENT LOG"), waits that long for room first, and the
 * recorder wakes it after each move of its tail; with ring the recorder
 * reads what is still there and counts what was overwritten before it
 * came.  It sweeps every ring, again at once while a sweep finds logs
 * filling up or threads waiting, with sleeps growing from 0.1 to 10 ms
 * while it finds little, writes what it copied as chunks of the
 * recording, and moves the drain log's tail only from the value it read,
 * with compare-and-swap, so that a ring handed to a new thread meanwhile
 * is never touched.
 *
 * It stops when no process of the trace file runs any more (after a last
 * sweep), or at SIGINT, SIGTERM or SIGHUP.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "common/atomic.h"
#include "common/clock.h"
#include "common/evlog.h"
#include "common/futex.h"
#include "common/outfile.h"
#include "monitor/core/control.h"
#include "monitor/core/dyn.h"
#include "monitor/util/escape.h"
#include "monitor/core/model.h"
#include "monitor/history/recfile.h"
#include "monitor/history/record.h"

#define REC_SLEEP_MIN_NS	100000ull	/* 0.1 ms: a little came */
#define REC_SLEEP_MAX_NS	10000000ull	/* 10 ms: quiet */
#define REC_CHECK_NS		100000000ull	/* objects and liveness */
#define REC_CLOCK_NS		(10ull * 1000000000ull)	/* a clock pair */
#define REC_CLOCK_SPAN_NS	20000000ull	/* first to last pair, at least */

static volatile sig_atomic_t rec_stop;

static void
rec_on_signal(int sig)
{
	rec_stop = sig;
}

/* What the recorder knows of one ring. */
struct rec_ring {
	uint64_t	gen;		/* of the stream below */
	uint32_t	stream;		/* 0: none yet */
	int		ended;		/* THREAD_END written */
	uint64_t	next;		/* the next record to read */
	uint64_t	dropped;	/* by its writer, last seen */
	uint64_t	short_calls;	/* taken back by its writer, last seen */
	uint64_t	short_put;	/* ... and last written */
	uint64_t	marked;		/* of them, in lost records read or in
					   RBREC_LOST_DROPPED chunks written */
	int32_t		pid, tid;
	uint64_t	pstart;
	char		name[RB_THREAD_NAME_MAX];	/* as the kernel says */
};

struct recorder {
	const struct rbmon_record_opts *o;
	struct rbmon_model m;
	struct rbmon_ctl ctl;
	int		 writable;
	void		*base;		/* the writable mapping, or the model's */
	struct rb_header h;		/* the validated header */
	struct rbrec_writer w;
	struct rec_ring	*rings;
	struct rbrec_object *objs;	/* per object entry, as last written */
	unsigned char	*objset;	/* 1: objs[i] written */
	struct rb_object *objcopy;	/* the table, copied */
	struct rb_event	*buf;		/* one log's records */
	uint32_t	 streams;
	uint64_t	 lost, dropped, reused0, reused;
	int		 consumer;	/* we hold rb_header.ev_consumer */
	int		 busy;		/* a log was a quarter full or more,
					   or its owner waited: sweep again */
	int		 some;		/* a sweep copied something */
	uint64_t	 woken;		/* waiting owners woken */
	int32_t		*stream_pid;	/* per stream, for the summary */
	size_t		 cap_stream_pid;
	int		 broken;	/* the trace file went bad */
	int		 last;		/* the last sweep: a log's newest
					   entries taken as they are */
	uint32_t	*dyn_gen;	/* per dynamic tracing entry: its gen
					   when last read (odd: to read) */
	struct rec_dyn {
		int32_t		 pid;
		uint64_t	 pstart, image;
		uint64_t	 print;	/* of its last DYN chunk */
	}		*dyns;		/* entries recorded */
	size_t		 ndyns;
};

/* ---- one ring ------------------------------------------------------------ */

struct rec_copy {
	struct recorder	*r;
	uint32_t	 i;
	uint32_t	 st;
	uint64_t	 gen;
	struct rbrec_thread id;
	uint64_t	 exited_ns;
	uint64_t	 from;
	size_t		 n;
	struct rb_ev_window w;
	int		 valid;
	int		 woke;		/* its owner waited for room */
};

static void
rec_copy_guarded(void *arg)
{
	struct rec_copy		*a = arg;
	struct recorder		*r = a->r;
	const struct rb_header	*h = &r->h;
	struct rb_owner		*o = rb_owner_at(r->base, h, a->i);
	struct rb_ring		*ring = rb_ring_at(r->base, h, a->i);
	struct rec_ring		*rr = &r->rings[a->i];
	struct rb_evq		 q;
	uint64_t		 upto, from;

	/* Acquire: the owner's identity and log; pairs with its release of LIVE. */
	a->st = RB_OWN_STATE(RB_LOAD_ACQ(&o->ctl));
	if (a->st != RB_OWN_LIVE && a->st != RB_OWN_EXITED)
		return;
	a->gen = RB_LOAD_ACQ(&o->gen);
	memset(&a->id, 0, sizeof a->id);
	a->id.ring = a->i;
	a->id.pid = RB_LOAD(&ring->pid);
	if (r->o->pid != 0 && a->id.pid != r->o->pid) {
		a->st = RB_OWN_FREE;	/* another process's: not ours */
		return;
	}
	a->id.tid = RB_LOAD(&ring->tid);
	a->id.ppid = RB_LOAD(&ring->ppid);
	a->id.image = RB_LOAD(&ring->image);
	a->id.pstart = RB_LOAD(&ring->pstart);
	a->id.created_ns = RB_LOAD(&ring->created_ns);
	a->exited_ns = RB_LOAD(&ring->exited_ns);
	memcpy(a->id.name, ring->name, sizeof a->id.name);
	a->id.name[sizeof a->id.name - 1] = '\0';

	rb_evq_attach(&q, rb_ring_evlog(h, ring), h->events, h->ev_policy);
	if (rr->stream != 0 && rr->gen == a->gen)
		from = rr->next;
	else if (h->ev_policy == RB_POLICY_DRAIN)
		from = RB_LOAD_ACQ(&q.log->tail);
	else
		from = 0;
	a->from = from;
	a->n = rb_evlog_copy(&q, from, r->buf, h->events, &a->w);
	/*
	 * A log that takes short calls back: the entries at its end may
	 * still go; taken at a later sweep, once settled or once the thread
	 * has ended (never in drain, whose logs take nothing back).
	 */
	if (a->w.rewinds != 0 && a->st == RB_OWN_LIVE && !r->last &&
	    h->ev_policy != RB_POLICY_DRAIN)
		a->n = a->w.settled;
	/* Orders the copy before the reread: a ring taken meanwhile bumped gen. */
	RB_FENCE_ACQ();
	a->valid = RB_LOAD(&o->gen) == a->gen;
	if (!a->valid) {
		a->n = 0;
		return;
	}
	if (h->ev_policy != RB_POLICY_DRAIN || !r->consumer || a->n == 0)
		return;
	upto = a->w.first + a->n;
	if (a->w.first != from || !rb_evlog_consume(&q, from, upto))
		return;
	/*
	 * The ring went to a new thread between the check above and the move:
	 * its emptied log's tail was 0, and so was @from.  Put it back.
	 */
	RB_FENCE_SEQ();
	if (RB_LOAD(&o->gen) != a->gen) {
		RB_CAS_RLX(&q.log->tail, &upto, from);
		return;
	}
	/* Room made: its owner may be waiting for it. */
	if (r->o->block_ms != 0)
		a->woke = rb_evlog_wake(&q);
}

static void
rec_lost(struct recorder *r, uint32_t stream, uint32_t why, uint64_t count,
    uint64_t at)
{
	struct rbrec_lost	l = { stream, why, count, at };

	rbrec_put(&r->w, RBREC_LOST, &l, sizeof l, NULL, 0);
	/* Dropped records are counted in r->dropped, by their writers' count. */
	if (why != RBREC_LOST_DROPPED)
		r->lost += count;
}

/*
 * What the thread dropped that no lost record of its stream says: the
 * drops after its last record (drain marks a gap only at the next record
 * stored; fill never does).  Written where the stream ends, so that every
 * record lost is in the stream it was lost from.
 */
static void
rec_dropped_tail(struct recorder *r, struct rec_ring *rr)
{
	if (rr->stream == 0 || rr->dropped <= rr->marked)
		return;
	rec_lost(r, rr->stream, RBREC_LOST_DROPPED, rr->dropped - rr->marked,
	    rr->next);
	rr->marked = rr->dropped;
}

/* The short calls its thread took back, if more than last written. */
static void
rec_short(struct recorder *r, struct rec_ring *rr)
{
	struct rbrec_short	k;

	if (rr->stream == 0 || rr->short_calls == rr->short_put)
		return;
	memset(&k, 0, sizeof k);
	k.stream = rr->stream;
	k.count = rr->short_calls;
	rbrec_put(&r->w, RBREC_SHORT, &k, sizeof k, NULL, 0);
	rr->short_put = rr->short_calls;
}

static void
rec_end_stream(struct recorder *r, struct rec_ring *rr, uint64_t exited_ns,
    const char *name, int reused)
{
	struct rbrec_thread_end	e;

	if (rr->stream == 0 || rr->ended)
		return;
	/* What it dropped, as last seen; then, if any were left, what went
	   with the ring, of a size no one knows. */
	rec_dropped_tail(r, rr);
	rec_short(r, rr);
	if (reused)
		rec_lost(r, rr->stream, RBREC_LOST_REUSED, 0, rr->next);
	memset(&e, 0, sizeof e);
	e.stream = rr->stream;
	e.next = rr->next;
	e.exited_ns = exited_ns;
	/* The name it was given after it started, if it was seen. */
	if (rr->name[0] != '\0')
		memcpy(e.name, rr->name, sizeof e.name);
	else if (name != NULL)
		memcpy(e.name, name, sizeof e.name);
	rbrec_put(&r->w, RBREC_THREAD_END, &e, sizeof e, NULL, 0);
	r->dropped += rr->dropped;
	rr->ended = 1;
}

static void
rec_ring(struct recorder *r, uint32_t i)
{
	struct rec_ring	*rr = &r->rings[i];
	struct rec_copy	 a;

	memset(&a, 0, sizeof a);
	a.r = r;
	a.i = i;
	if (rbmon_model_guarded(&r->m, rec_copy_guarded, &a) != 0) {
		r->broken = 1;
		return;
	}
	if (a.st != RB_OWN_LIVE && a.st != RB_OWN_EXITED) {
		/* Being claimed: the old stream, if unfinished, went with it. */
		if (a.st == RB_OWN_CLAIMING)
			rec_end_stream(r, rr, 0, NULL, 1);
		return;
	}
	if (!a.valid)
		return;		/* changing hands: next sweep */
	if (a.woke) {
		r->woken++;
		r->busy = 1;
	}
	if (rr->stream == 0 || rr->gen != a.gen) {
		rec_end_stream(r, rr, 0, NULL, 1);
		memset(rr, 0, sizeof *rr);
		rr->stream = ++r->streams;
		rr->gen = a.gen;
		/* A snapshot's stream begins where its log's window does. */
		rr->next = r->o->once ? a.w.first : a.from;
		rr->pid = a.id.pid;
		rr->tid = a.id.tid;
		rr->pstart = a.id.pstart;
		a.id.stream = rr->stream;
		a.id.first = rr->next;
		rbrec_put(&r->w, RBREC_THREAD, &a.id, sizeof a.id, NULL, 0);
		if (r->streams > r->cap_stream_pid) {
			r->cap_stream_pid = r->streams * 2;
			r->stream_pid = rbmon_xreallocarray(r->stream_pid,
			    r->cap_stream_pid, sizeof *r->stream_pid);
		}
		r->stream_pid[r->streams - 1] = a.id.pid;
	}
	if (a.w.first > rr->next)
		rec_lost(r, rr->stream, RBREC_LOST_OVERWRITTEN,
		    a.w.first - rr->next, rr->next);
	if (a.n > 0) {
		size_t	k;

		/* Drops the stream shows itself, with the gap's lost record. */
		for (k = 0; k < a.n; k++)
			if (r->buf[k].kind == RB_EV_LOST)
				rr->marked += r->buf[k].arg;
		rbrec_put_events(&r->w, rr->stream, a.w.first, r->buf, a.n);
		rr->next = a.w.first + a.n;
		r->some = 1;
		if (a.n * 4 >= r->h.events)
			r->busy = 1;
	} else if (a.w.first > rr->next) {
		rr->next = a.w.first;
	}
	rr->dropped = a.w.dropped;
	rr->short_calls = a.w.rewinds;
	if (a.st == RB_OWN_EXITED && rr->next >= a.w.head)
		rec_end_stream(r, rr, a.exited_ns, a.id.name, 0);
}

/* ---- objects and liveness ------------------------------------------------ */

struct rec_objs_arg {
	struct recorder	*r;
};

static void
rec_objs_guarded(void *arg)
{
	struct recorder	*r = ((struct rec_objs_arg *)arg)->r;
	uint32_t	 i;

	for (i = 0; i < r->h.objects; i++) {
		struct rb_object	*o = rb_object_at(r->base, &r->h, i);
		struct rb_object	*c = &r->objcopy[i];

		/* Acquire: pairs with the writer's release of RB_OBJ_VALID. */
		c->state = RB_LOAD_ACQ(&o->state);
		if (c->state != RB_OBJ_VALID)
			continue;
		memcpy(c, o, sizeof *c);
		/* Filled in before VALID; a change since shows in state. */
		RB_FENCE_ACQ();
		if (RB_LOAD(&o->state) != RB_OBJ_VALID)
			c->state = 0;
	}
}

static void
rec_objects(struct recorder *r)
{
	struct rec_objs_arg	a = { r };
	struct rbrec_object	ob;
	uint32_t		i;

	if (rbmon_model_guarded(&r->m, rec_objs_guarded, &a) != 0) {
		r->broken = 1;
		return;
	}
	for (i = 0; i < r->h.objects; i++) {
		const struct rb_object	*c = &r->objcopy[i];

		if (c->state != RB_OBJ_VALID || c->path[0] == '\0')
			continue;
		memset(&ob, 0, sizeof ob);
		ob.image = c->image;
		ob.base = c->base;
		ob.lo = c->lo;
		ob.hi = c->hi;
		ob.flags = c->flags & RB_OBJF_MAIN;
		ob.build_id_len = c->build_id_len <= RB_BUILD_ID_MAX ?
		    c->build_id_len : 0;
		memcpy(ob.build_id, c->build_id, sizeof ob.build_id);
		memcpy(ob.path, c->path, sizeof ob.path);
		ob.path[sizeof ob.path - 1] = '\0';
		if (r->objset[i] && memcmp(&r->objs[i], &ob, sizeof ob) == 0)
			continue;
		r->objs[i] = ob;
		r->objset[i] = 1;
		rbrec_put(&r->w, RBREC_OBJECT, &ob, sizeof ob, NULL, 0);
	}
}

/* Threads name themselves after they start: the kernel's name, kept. */
static void
rec_names(struct recorder *r)
{
	char	 path[64], buf[RB_THREAD_NAME_MAX + 2];
	FILE	*f;
	size_t	 n;
	uint32_t i;

	for (i = 0; i < r->h.rings; i++) {
		struct rec_ring	*rr = &r->rings[i];

		if (rr->stream == 0 || rr->ended || rr->tid <= 0)
			continue;
		snprintf(path, sizeof path, "/proc/%d/task/%d/comm",
		    (int)rr->pid, (int)rr->tid);
		if ((f = fopen(path, "re")) == NULL)
			continue;
		n = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[n] = '\0';
		if (n > 0 && buf[n - 1] == '\n')
			buf[--n] = '\0';
		/* The same thread still (not a reused tid of another process)? */
		if (n > 0 && rbmon_model_pid_alive(rr->pid, rr->pstart)) {
			memset(rr->name, 0, sizeof rr->name);
			memcpy(rr->name, buf, n < sizeof rr->name ? n :
			    sizeof rr->name - 1);
		}
	}
}

/* Does any process of the file still run? */
struct rec_alive_arg {
	struct recorder	*r;
	int32_t		*pid;
	uint64_t	*pstart;
	size_t		 n;
};

static void
rec_alive_guarded(void *arg)
{
	struct rec_alive_arg	*a = arg;
	const struct rb_header	*h = &a->r->h;
	uint32_t		 i;
	uint32_t		 st;

	a->n = 0;
	for (i = 0; i < h->rings; i++) {
		st = RB_OWN_STATE(RB_LOAD_ACQ(&rb_owner_at(a->r->base, h,
		    i)->ctl));
		if (st != RB_OWN_LIVE && st != RB_OWN_CLAIMING)
			continue;
		a->pid[a->n] = RB_LOAD(&rb_ring_at(a->r->base, h, i)->pid);
		a->pstart[a->n] = RB_LOAD(&rb_ring_at(a->r->base, h,
		    i)->pstart);
		a->n++;
	}
}

static int
rec_anyone_alive(struct recorder *r)
{
	struct rec_alive_arg	 a;
	size_t			 i, j;
	int			 alive = 0;

	if (rbmon_model_pid_alive(r->h.creator_pid, r->h.creator_start))
		return 1;
	a.r = r;
	a.pid = rbmon_xcalloc(r->h.rings, sizeof *a.pid);
	a.pstart = rbmon_xcalloc(r->h.rings, sizeof *a.pstart);
	if (rbmon_model_guarded(&r->m, rec_alive_guarded, &a) != 0) {
		r->broken = 1;
		a.n = 0;
	}
	for (i = 0; i < a.n && !alive; i++) {
		for (j = 0; j < i; j++)
			if (a.pid[j] == a.pid[i])
				break;
		if (j == i && rbmon_model_pid_alive(a.pid[i], a.pstart[i]))
			alive = 1;
	}
	free(a.pid);
	free(a.pstart);
	return alive;
}

/* ---- dynamic tracing ------------------------------------------------------ */

struct rec_dyn_arg {
	struct recorder	*r;
	int		 changed;	/* some entry's gen moved */
	struct rbmon_dyns d;
};

/*
 * The cheap look of every sweep: each claimed entry's gen, which its
 * process bumps at every change (rbtrace(5), "DYNAMIC TRACING").
 */
static void
rec_dyn_gen_guarded(void *arg)
{
	struct rec_dyn_arg	*a = arg;
	struct recorder		*r = a->r;
	struct rb_dynproc	*e;
	uint32_t		 i, g;

	for (i = 0; i < r->h.dyn_procs; i++) {
		e = rb_dynproc_at(r->base, &r->h, i);
		/* Acquire: pairs with the claimer's release of CLAIMED. */
		if (RB_LOAD_ACQ(&e->state) != RB_DYNP_CLAIMED)
			continue;
		g = RB_LOAD_ACQ(&e->gen);
		if (g == r->dyn_gen[i])
			continue;
		a->changed = 1;
		/* Changing now: read again at the next sweep. */
		r->dyn_gen[i] = (g & 1) ? 1 : g;
	}
}

static void
rec_dyn_read_guarded(void *arg)
{
	struct rec_dyn_arg	*a = arg;

	rbmon_dyn_read(a->r->base, &a->r->h, &a->d);
}

/* What a DYN chunk of @d says, hashed (FNV-1a): written again on change. */
static uint64_t
rec_dyn_print(const struct rbmon_dyn *d)
{
	uint64_t	h = 0xcbf29ce484222325ull, v[6];
	size_t		i, k;

	v[0] = d->flags;
	v[1] = d->sites;
	v[2] = d->sites_off;
	v[3] = ((uint64_t)d->off_name << 32) | d->off_auto;
	v[4] = d->funcs;
	v[5] = d->nfns;
	for (i = 0; i < 6; i++)
		for (k = 0; k < 8; k++)
			h = (h ^ ((v[i] >> (8 * k)) & 0xff)) *
			    0x100000001b3ull;
	for (i = 0; i < d->nfns; i++)
		for (k = 0; k < 8; k++)
			h = (h ^ (((d->fns[i].addr ^ ((uint64_t)d->fns[i].reason
			    << 60)) >> (8 * k)) & 0xff)) * 0x100000001b3ull;
	return h;
}

/*
 * A process the recording is about: running, one of its streams', or the
 * file's creator (asleep, it has no stream, and may be gone before the
 * first sweep).
 */
static int
rec_dyn_wanted(const struct recorder *r, const struct rbmon_dyn *d)
{
	uint32_t	i;

	if (rbmon_model_pid_alive(d->pid, d->pstart))
		return 1;
	if (d->pid == r->h.creator_pid && d->pstart == r->h.creator_start)
		return 1;
	for (i = 0; i < r->streams; i++)
		if (r->stream_pid[i] == d->pid)
			return 1;
	return 0;
}

static void
rec_dyn_put(struct recorder *r, const struct rbmon_dyn *d)
{
	struct rbrec_dyn	c;

	memset(&c, 0, sizeof c);
	c.image = d->image;
	c.pid = d->pid;
	c.flags = d->flags & RBREC_DYN_FLAGS;
	c.pstart = d->pstart;
	c.sites = d->sites;
	c.sites_off = d->sites_off;
	c.funcs = d->funcs;
	c.off_name = d->off_name;
	c.off_auto = d->off_auto;
	c.nfns = (uint32_t)(d->nfns < RBREC_DYN_FNS_MAX ? d->nfns :
	    RBREC_DYN_FNS_MAX);
	c.seen_ns = rbmon_mono_ns();
	rbrec_put(&r->w, RBREC_DYN, &c, sizeof c, d->fns,
	    c.nfns * sizeof *d->fns);
}

/*
 * The functions each process did not trace (rbtrace(5), "RECORDINGS"):
 * a DYN chunk per process image whose entry changed since it was written
 * last, or, @all (at the end), for every one.
 */
static void
rec_dyn(struct recorder *r, int all)
{
	struct rec_dyn_arg	 a;
	struct rec_dyn		*e;
	uint64_t		 print;
	size_t			 i, k;

	if (r->h.dyn_off == 0 || r->h.dyn_procs == 0 || r->broken)
		return;
	memset(&a, 0, sizeof a);
	a.r = r;
	if (r->dyn_gen == NULL) {
		r->dyn_gen = rbmon_xcalloc(r->h.dyn_procs, sizeof *r->dyn_gen);
		/* Odd: none read yet. */
		for (i = 0; i < r->h.dyn_procs; i++)
			r->dyn_gen[i] = 1;
	}
	if (rbmon_model_guarded(&r->m, rec_dyn_gen_guarded, &a) != 0) {
		r->broken = 1;
		return;
	}
	if (!a.changed && !all)
		return;
	if (rbmon_model_guarded(&r->m, rec_dyn_read_guarded, &a) != 0) {
		rbmon_dyn_free(&a.d);
		r->broken = 1;
		return;
	}
	for (i = 0; i < a.d.n; i++) {
		const struct rbmon_dyn	*d = &a.d.v[i];

		if (d->torn) {
			/* Changing at every try: all read again next time. */
			for (k = 0; k < r->h.dyn_procs; k++)
				r->dyn_gen[k] = 1;
			continue;
		}
		for (k = 0; k < r->ndyns; k++)
			if (r->dyns[k].pid == d->pid &&
			    r->dyns[k].pstart == d->pstart &&
			    r->dyns[k].image == d->image)
				break;
		print = rec_dyn_print(d);
		if (k == r->ndyns) {
			if (!rec_dyn_wanted(r, d))
				continue;
			r->dyns = rbmon_xreallocarray(r->dyns, r->ndyns + 1,
			    sizeof *r->dyns);
			e = &r->dyns[r->ndyns++];
			e->pid = d->pid;
			e->pstart = d->pstart;
			e->image = d->image;
		} else {
			e = &r->dyns[k];
			if (e->print == print && !all)
				continue;
		}
		e->print = print;
		rec_dyn_put(r, d);
	}
	rbmon_dyn_free(&a.d);
}

/* ---- the consumer's claim ------------------------------------------------- */

struct rec_claim_arg {
	struct recorder	*r;
	int		 take;		/* 1: take, 0: give back */
	uint64_t	 holder;	/* who had it */
	int		 ok;
};

static void
rec_claim_guarded(void *arg)
{
	struct rec_claim_arg	*a = arg;
	struct rb_header	*h = a->r->base;
	uint64_t		 me, cur;
	uint32_t		 pid;

	/* Our pid, and how long a thread whose log is full waits for us. */
	me = RB_CONSUMER_MAKE(getpid(), a->r->o->block_ms);
	if (!a->take) {
		cur = me;
		a->ok = RB_CAS_REL(&h->ev_consumer, &cur, 0);
		return;
	}
	cur = RB_LOAD_ACQ(&h->ev_consumer);
	pid = RB_CONSUMER_PID(cur);
	a->holder = pid;
	if (pid != 0 && pid <= INT32_MAX &&
	    rbmon_model_pid_alive((pid_t)pid, 0) && pid != (uint32_t)getpid()) {
		a->ok = 0;
		return;
	}
	/* Free, or left by a recorder that is gone. */
	a->ok = RB_CAS(&h->ev_consumer, &cur, me);
	if (!a->ok)
		a->holder = RB_CONSUMER_PID(cur);
}

/* Every owner waiting for room: the recorder is going (the file given back). */
static void
rec_wake_all_guarded(void *arg)
{
	struct recorder		*r = arg;
	struct rb_evq		 q;
	uint32_t		 i;

	for (i = 0; i < r->h.rings; i++) {
		rb_evq_attach(&q, rb_ring_evlog(&r->h, rb_ring_at(r->base,
		    &r->h, i)), r->h.events, r->h.ev_policy);
		(void)rb_evlog_wake(&q);
	}
}

/* ---- the clock ------------------------------------------------------------ */

static void
rec_clock(struct recorder *r)
{
	struct rbrec_clock	c;

	/* The counter of the file, which is this machine's. */
	if (RB_CLOCK_COUNTER == 0 || r->h.clock != RB_CLOCK_COUNTER ||
	    rbmon_clock_pair(&c.tsc, &c.ns) != 0)
		return;
	rbrec_put(&r->w, RBREC_CLOCK, &c, sizeof c, NULL, 0);
}

static uint64_t
rec_cpu_ns(void)
{
	struct rusage	u;

	if (getrusage(RUSAGE_SELF, &u) != 0)
		return 0;
	return (uint64_t)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) *
	    1000000000u + (uint64_t)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) *
	    1000u;
}

static uint64_t
rec_realtime_ns(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int
rec_pid_cmp(const void *a, const void *b)
{
	int32_t	x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

/* The processes of the first @n streams. */
static size_t
rec_processes(const struct recorder *r, uint32_t n)
{
	int32_t	*p;
	size_t	 i, k = 0;

	if (n == 0)
		return 0;
	p = rbmon_xcalloc(n, sizeof *p);
	memcpy(p, r->stream_pid, n * sizeof *p);
	qsort(p, n, sizeof *p, rec_pid_cmp);
	for (i = 0; i < n; i++)
		k += i == 0 || p[i] != p[i - 1];
	free(p);
	return k;
}

/* Why the recording stopped short, in one line. */
static void
rec_write_failed(const struct recorder *r)
{
	const char	*what;
	char		 a[32];

	if (r->w.kept == r->w.bytes) {
		/* All of it written, END too: the fsync or the close failed. */
		rbmon_esc_line(stderr, "rbmon: %s: %s: it may not be on the "
		    "disk whole", r->o->out, strerror(r->w.err));
		return;
	}
	switch (r->w.err) {
	case ENOSPC:
		what = "the disk filled";
		break;
	case EDQUOT:
		what = "the disk quota ran out";
		break;
	case EFBIG:
		what = "the file size limit was reached";
		break;
	default:
		what = "writing failed";
		break;
	}
	rbmon_esc_line(stderr, "rbmon: %s: %s at %s bytes (%s): the recording "
	    "stops there, without its END chunk", r->o->out, what,
	    rbmon_group(a, sizeof a, r->w.kept), strerror(r->w.err));
}

/*
 * What the file holds (whole chunks written), and what was lost; with
 * @cut, the recording stopped short: only what its chunks say was lost.
 */
static void
rec_summary(struct recorder *r, uint64_t wall_ns, uint64_t cpu_ns,
    uint32_t reason, int cut)
{
	char	a[32], b[32], c[32], *out = rbmon_esc_dup(r->o->out);
	double	secs = (double)wall_ns / 1e9;
	size_t	nprocs = rec_processes(r, r->w.streams);

	fprintf(stderr, "rbmon: recorded %s events of %u thread%s in %zu "
	    "process%s into %s, %s lost%s\n",
	    rbmon_group(a, sizeof a, r->w.records), r->w.streams,
	    r->w.streams == 1 ? "" : "s", nprocs, nprocs == 1 ? "" : "es",
	    out, rbmon_group(b, sizeof b, cut ? r->w.lost :
	    r->lost + r->dropped + r->reused), cut ? " before it stopped" :
	    "");
	free(out);
	if (!cut && r->lost + r->dropped + r->reused != 0)
		fprintf(stderr, "rbmon:   %s dropped by the threads while their "
		    "logs were full, %s overwritten before they were read, "
		    "%s in rings reused before they were read\n",
		    rbmon_group(a, sizeof a, r->dropped),
		    rbmon_group(b, sizeof b, r->lost),
		    rbmon_group(c, sizeof c, r->reused));
	fprintf(stderr, "rbmon:   %.1f MiB (%.1f bytes per event) in %.1f s "
	    "(%.1f MiB/s); the recorder used %.2f s of CPU (%.1f%%)%s\n",
	    (double)r->w.kept / 1048576.0,
	    r->w.records != 0 ? (double)r->w.kept / (double)r->w.records :
	    0.0, secs, secs > 0 ? (double)r->w.kept / 1048576.0 / secs : 0.0,
	    (double)cpu_ns / 1e9, secs > 0 ? 100.0 * (double)cpu_ns / 1e9 /
	    secs : 0.0, !cut && reason == RBREC_END_STOPPED ?
	    "; interrupted" : "");
	if (r->o->block_ms != 0)
		fprintf(stderr, "rbmon:   blocking (up to %u ms a wait): threads "
		    "waited for room %s times\n", r->o->block_ms,
		    rbmon_group(a, sizeof a, r->woken));
	if (r->h.clock == RB_CLOCK_NONE)
		fputs("rbmon:   no times: the program ran with RBTRACE_CLOCK=none "
		    "(the calls in order only)\n", stderr);
}

/* ---- the loop ------------------------------------------------------------- */

static void
rec_sweep(struct recorder *r)
{
	uint32_t	i;

	r->busy = 0;
	r->some = 0;
	for (i = 0; i < r->h.rings && !r->broken; i++)
		rec_ring(r, i);
	rec_dyn(r, 0);
	rbrec_flush(&r->w);
}

/*
 * Sleep @ns, or less: a thread whose log fills up wakes the consumer
 * (the low half of rb_header.ev_consumer, which holds its pid while it
 * drains).
 */
static void
rec_sleep(struct recorder *r, uint64_t ns)
{
	struct timespec	ts;

	if (r->consumer) {
		rb_futex_wait(rb_consumer_word(&((struct rb_header *)
		    r->base)->ev_consumer), (uint32_t)getpid(), ns);
		return;
	}
	ts.tv_sec = 0;
	ts.tv_nsec = (long)ns;
	nanosleep(&ts, NULL);
}

static int
rec_setup(struct recorder *r, char **cause)
{
	struct rec_claim_arg	ca;
	struct rbrec_info	info;
	struct rb_outfile	out;
	char			*why = NULL;

	if (rbmon_model_open(&r->m, r->o->trace, r->o->wait_ms, cause) != 0)
		return -1;
	r->h = r->m.hdr;
	if (r->h.events == 0) {
		rbmon_xasprintf(cause, "it has no event log (RBTRACE_EVENTS=0): "
		    "nothing to record");
		return -1;
	}
	r->writable = rbmon_ctl_open(&r->ctl, &r->m, &why) == 0;
	r->base = r->writable ? r->ctl.base : r->m.base;
	if (r->o->once) {
		/* A snapshot reads what the logs hold and consumes nothing. */
	} else if (r->h.ev_policy == RB_POLICY_DRAIN) {
		if (!r->writable) {
			rbmon_xasprintf(cause, "its drain logs need a consumer "
			    "that can write the file, and %s", why);
			free(why);
			return -1;
		}
		memset(&ca, 0, sizeof ca);
		ca.r = r;
		ca.take = 1;
		if (rbmon_model_guarded(&r->m, rec_claim_guarded, &ca) != 0) {
			rbmon_xasprintf(cause, "the file is shorter than its "
			    "header says");
			free(why);
			return -1;
		}
		if (!ca.ok) {
			rbmon_xasprintf(cause, "it is being recorded already "
			    "(by process %" PRIu64 ")", ca.holder);
			free(why);
			return -1;
		}
		r->consumer = 1;
	} else if (r->o->block_ms != 0) {
		rbmon_xasprintf(cause, "its logs keep the %s policy: threads "
		    "wait for a recorder (--blocking) only with drain",
		    rb_policy_name(r->h.ev_policy));
		free(why);
		return -1;
	} else if (!r->o->quiet) {
		fprintf(stderr, "rbmon: %s: the %s policy: records overwritten "
		    "(ring) or dropped (fill) before they are read are lost; "
		    "`rbtrace record` uses drain\n", r->o->trace,
		    rb_policy_name(r->h.ev_policy));
	}
	free(why);
	r->reused0 = RB_LOAD(&((struct rb_header *)r->m.base)->ev_reused_lost);

	r->rings = rbmon_xcalloc(r->h.rings, sizeof *r->rings);
	r->objs = rbmon_xcalloc(r->h.objects ? r->h.objects : 1,
	    sizeof *r->objs);
	r->objset = rbmon_xcalloc(r->h.objects ? r->h.objects : 1, 1);
	r->objcopy = rbmon_xcalloc(r->h.objects ? r->h.objects : 1,
	    sizeof *r->objcopy);
	r->buf = rbmon_xcalloc(r->h.events, sizeof *r->buf);

	if (rb_outfile_open(&out, r->o->out, RB_OUTFILE_NOW |
	    (r->o->replace ? RB_OUTFILE_REPLACE : 0), 0600) != 0) {
		rbmon_xasprintf(cause, "cannot write the recording %s: %s%s",
		    r->o->out, out.why, out.mine ?
		    "; name it with -o to replace it" : "");
		return -1;
	}
	if (rbrec_open_write(&r->w, out.fd, r->o->out,
	    rec_realtime_ns()) != 0) {
		rbmon_xasprintf(cause, "cannot write the recording %s: %s",
		    r->o->out, strerror(errno));
		return -1;
	}
	memset(&info, 0, sizeof info);
	memcpy(info.program, r->h.program, sizeof info.program);
	info.program[sizeof info.program - 1] = '\0';
	memcpy(info.boot_id, r->h.boot_id, sizeof info.boot_id);
	info.boot_id[sizeof info.boot_id - 1] = '\0';
	snprintf(info.trace, sizeof info.trace, "%s", r->o->trace);
	info.clock = r->h.clock;
	info.policy = r->h.ev_policy;
	info.events = r->h.events;
	info.rings = r->h.rings;
	info.creator_pid = r->h.creator_pid;
	info.recorder_pid = (int32_t)getpid();
	info.clock_tsc0 = r->h.clock_tsc0;
	info.clock_ns0 = r->h.clock_ns0;
	info.clock_tsc_hz = RB_LOAD(&((struct rb_header *)r->m.base)->clock_tsc_hz);
	info.start_ns = rbmon_mono_ns();
	rbrec_put(&r->w, RBREC_INFO, &info, sizeof info, NULL, 0);
	if (r->o->snap != NULL)
		rbrec_put(&r->w, RBREC_SNAP, r->o->snap, sizeof *r->o->snap,
		    NULL, 0);
	rec_clock(r);
	return 0;
}

static void
rec_teardown(struct recorder *r)
{
	struct rec_claim_arg	ca;

	if (r->consumer) {
		memset(&ca, 0, sizeof ca);
		ca.r = r;
		(void)rbmon_model_guarded(&r->m, rec_claim_guarded, &ca);
		if (r->o->block_ms != 0)
			(void)rbmon_model_guarded(&r->m, rec_wake_all_guarded,
			    r);
	}
	if (r->writable)
		rbmon_ctl_close(&r->ctl);
	rbmon_model_close(&r->m);
	free(r->rings);
	free(r->objs);
	free(r->objset);
	free(r->objcopy);
	free(r->buf);
	free(r->stream_pid);
	free(r->dyn_gen);
	free(r->dyns);
}

/**
 * rbmon_record - record the trace file o->trace into o->out until its
 * processes are gone or a signal says stop
 *
 * Return: the exit status: 0, or 1 with a message on stderr.
 */
int
rbmon_record(const struct rbmon_record_opts *o)
{
	struct recorder		 r;
	struct sigaction	 sa, old[3], oldfsz;
	static const int	 sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	struct rbrec_end	 end;
	struct timespec		 ts;
	uint64_t		 t0, cpu0, now, next_check = 0, next_clock;
	uint64_t		 sleep_ns = REC_SLEEP_MIN_NS;
	char			*cause = NULL;
	int			 i, done = 0, status = 0, cut = 0;

	memset(&r, 0, sizeof r);
	r.o = o;
	r.w.fd = -1;
	rec_stop = 0;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = rec_on_signal;
	sigemptyset(&sa.sa_mask);
	/* A snapshot's writer keeps its own handlers. */
	for (i = 0; i < 3; i++)
		sigaction(sigs[i], o->once ? NULL : &sa, &old[i]);
	/* A file size limit: EFBIG from write(2), said, not a death. */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGXFSZ, &sa, &oldfsz);
	t0 = rbmon_mono_ns();
	cpu0 = rec_cpu_ns();
	if (rec_setup(&r, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon: %s: %s", o->trace, cause);
		free(cause);
		if (r.w.fd >= 0)
			rbrec_close_write(&r.w);
		rec_teardown(&r);
		for (i = 0; i < 3; i++)
			sigaction(sigs[i], &old[i], NULL);
		sigaction(SIGXFSZ, &oldfsz, NULL);
		return 1;
	}
	next_clock = t0 + REC_CLOCK_NS;
	if (o->once) {
		/*
		 * A snapshot: one sweep of the frozen logs, then thawed; a
		 * frozen log takes nothing back, so its entries are taken
		 * as they are, as by a last sweep.
		 */
		rec_objects(&r);
		rec_names(&r);
		r.last = 1;
		rec_sweep(&r);
		if (o->copied != NULL)
			o->copied(o->copied_arg);
		done = 1;
	}
	while (!done) {
		now = rbmon_mono_ns();
		if (now >= next_check) {
			rec_objects(&r);
			rec_names(&r);
			/* Gone before this sweep: this sweep is the last. */
			done = !rec_anyone_alive(&r);
			next_check = now + REC_CHECK_NS;
		}
		if (now >= next_clock) {
			rec_clock(&r);
			next_clock = now + REC_CLOCK_NS;
		}
		rec_sweep(&r);
		if (rec_stop || r.broken || r.w.err != 0)
			break;
		if (done)
			break;
		/*
		 * Again at once while logs fill up or threads wait; a short
		 * sleep after a sweep that found a little, longer and longer
		 * ones while it finds nothing.
		 */
		if (r.busy)
			continue;
		if (r.some)
			sleep_ns = REC_SLEEP_MIN_NS;
		else if (sleep_ns < REC_SLEEP_MAX_NS)
			sleep_ns *= 2;
		rec_sleep(&r, sleep_ns);
	}
	/* What the threads wrote since, and the objects of the end. */
	if (!r.broken && r.w.err == 0) {
		if (!o->once) {
			r.last = 1;
			rec_sweep(&r);
		}
		rec_objects(&r);
		rec_dyn(&r, 1);
	}
	/* A rate for the counter needs a span: a short recording waits for one. */
	while (RB_CLOCK_COUNTER != 0 && r.h.clock == RB_CLOCK_COUNTER &&
	    rbmon_mono_ns() < t0 + REC_CLOCK_SPAN_NS) {
		ts.tv_sec = 0;
		ts.tv_nsec = 1000000;
		nanosleep(&ts, NULL);
	}
	rec_clock(&r);
	r.reused = RB_LOAD(&((struct rb_header *)r.m.base)->ev_reused_lost) -
	    r.reused0;
	/* Threads still running, or whose end was not seen: their drops. */
	for (i = 0; i < (int)r.h.rings; i++) {
		if (r.rings[i].stream == 0 || r.rings[i].ended)
			continue;
		rec_dropped_tail(&r, &r.rings[i]);
		rec_short(&r, &r.rings[i]);
		r.dropped += r.rings[i].dropped;
	}
	memset(&end, 0, sizeof end);
	end.reason = r.broken ? RBREC_END_ERROR : o->once ?
	    RBREC_END_SNAPSHOT : done ? RBREC_END_EXITED : RBREC_END_STOPPED;
	end.streams = r.streams;
	end.records = r.w.put_records;
	end.lost = r.lost + r.reused;
	end.dropped = r.dropped;
	end.end_ns = rbmon_mono_ns();
	end.cpu_ns = rec_cpu_ns() - cpu0;
	end.bytes = r.w.bytes + sizeof(struct rbrec_chunk) + sizeof end;
	rbrec_put(&r.w, RBREC_END, &end, sizeof end, NULL, 0);
	if (rbrec_close_write(&r.w) != 0) {
		rec_write_failed(&r);
		cut = r.w.kept != r.w.bytes;
		status = 1;
	} else if (r.broken) {
		fprintf(stderr, "rbmon: %s: the trace file became shorter than "
		    "its header says; the recording ends here\n", o->trace);
		status = 1;
	}
	if (!o->quiet)
		rec_summary(&r, end.end_ns - t0, end.cpu_ns, end.reason, cut);
	rec_teardown(&r);
	for (i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	sigaction(SIGXFSZ, &oldfsz, NULL);
	return status;
}
