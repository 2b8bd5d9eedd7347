/* SPDX-License-Identifier: MIT */
/*
 * thread.c - a thread's ring: taken at its first hook, given back when it
 * exits, or by a detach while the thread runs on.
 *
 * Only the thread itself writes its ring, and it does so only between
 * rb_hook_begin() and rb_hook_end(): busy set, then the gate read; a
 * closed gate (NULL) sends it away without touching the ring.  A detach
 * (rb_thread_release_all()) takes a running thread's ring away without
 * stopping it, as an asymmetric Dekker handshake (rbtrace(5), "ATTACH";
 * the pairs (G1)-(G3) of its "ORDERING"):
 *
 *   thread, in a hook                  detach
 *   busy = 1                           gate = NULL                (G3)
 *   r = gate                    (G1)   membarrier(2)
 *   ... writes r's slots ...           b = busy (acquire)
 *   busy = 0 (release)          (G2)   b == 0: the ring is given back
 *
 * membarrier(2) is a full barrier in every running thread of the process
 * (and a thread not running has passed one in the context switch): either
 * the thread's busy = 1 is seen by the detach, which then waits for busy
 * to clear (G2: its writes done), or its later read of the gate sees NULL.
 * No fence on the hot path, no sleep to hope hooks under way have ended.
 * A thread seen busy for longer than the detach waits (stopped in a hook)
 * gets its gate back and keeps its ring until it exits.
 */
#include "config.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "lib/dyn/dyn.h"

/*
 * Which pthread owns which ring, for pthread_setname_np() on another
 * thread, and its rb_self, for a detach (rb_thread_release_all()).
 */
static pthread_t *rb_ring_owner;
static struct rb_thread **rb_ring_self;
pthread_mutex_t rb_thread_lock = PTHREAD_MUTEX_INITIALIZER;

void rb_thread_table_init(pthread_t *table, struct rb_thread **self)
{
	rb_ring_owner = table;
	rb_ring_self = self;
}

/* In a fork child: no thread of the parent exists here. */
void rb_thread_table_reset(void)
{
	if (rb_ring_owner != NULL) {
		memset(rb_ring_owner, 0,
		       rb_proc.map.geo.rings * sizeof(pthread_t));
		memset(rb_ring_self, 0,
		       rb_proc.map.geo.rings * sizeof(*rb_ring_self));
	}
}

static void rb_ring_set_name(struct rb_ring *r, const char *name)
{
	char buf[RB_THREAD_NAME_MAX];

	memset(buf, 0, sizeof(buf));
	rb_strlcpy(buf, name, sizeof(buf));
	/* Readers tolerate a name caught mid-copy: it is display only. */
	memcpy(r->name, buf, sizeof(buf));
}

void rb_thread_refresh_name(struct rb_thread *t)
{
	char name[RB_THREAD_NAME_MAX + 1] = "";

	if (t->ring == NULL)
		return;
	prctl(PR_GET_NAME, name, 0, 0, 0);
	rb_ring_set_name(t->ring, name);
}

/*
 * Ring @idx's identity for thread @t (t->tid set), held in CLAIMING: what
 * rb_thread_setup() and rb_thread_premake() both write before LIVE; @t
 * bound to the ring's slots.
 */
static void rb_thread_identify(struct rb_thread *t, uint32_t idx, int trace,
			       uint32_t attention)
{
	struct rb_map *m = &rb_proc.map;
	const struct rb_header *h = &m->geo;
	struct rb_ring *r = rb_ring_at(m->base, h, idx);
	struct rb_owner *o = rb_owner_at(m->base, h, idx);
	uint32_t i;

	RB_STORE(&r->depth, 0);
	RB_STORE(&r->pinned_site, 0);
	r->pid = rb_proc.pid;
	r->tid = t->tid;
	r->pstart = rb_proc.pstart;
	r->image = rb_proc.image;
	r->gen = RB_LOAD(&o->gen);
	r->created_ns = rb_clock_mono_ns();
	r->exited_ns = 0;
	/* A forked process's parent as it was at fork(), which may be gone. */
	r->ppid = rb_proc.ppid != 0 ? rb_proc.ppid : getppid();
	r->why = 0;
	r->stop_ns = 0;
	r->stopfn = 0;
	r->stops = 0;
	r->orphaned = 0;
	r->state = RB_STATE_RUNNING;
	r->trace = trace;
	r->signal = 0;
	r->attention = attention;
	r->cmdready = RB_CMD_EMPTY;
	r->cmdpid = 0;
	r->msglen = 0;
	for (i = 0; i < RB_WATCHES; i++) {
		r->watches[i].inuse = RB_WATCH_FREE;
		r->watches[i].resready = 0;
	}
	t->ring = r;
	t->slots = (char *)r + h->slots_off;
	t->slot_size = h->slot_size;
	t->slot_sz = h->slot_sz;
	t->nslots = h->slots;
	t->pinned = rb_slots_pinned(h->slots);
	t->index = idx;
	t->slowclock = rb_clock_mode(h->clock);
}

/*
 * Make ring @idx, held in CLAIMING, this thread's: identity first, then the
 * LIVE publication.  @frames/@depth describe an inherited stack (fork).
 *
 * Return: false if a detach came first (the ring given back as detached).
 */
bool rb_thread_setup(struct rb_thread *t, uint32_t idx, const char *frames,
		     uint32_t depth)
{
	struct rb_map *m = &rb_proc.map;
	const struct rb_header *h = &m->geo;
	struct rb_ring *r = rb_ring_at(m->base, h, idx);
	struct rb_owner *o = rb_owner_at(m->base, h, idx);
	int trace = RB_LOAD(&m->hdr->trace_on_create) != 0;
	int soc = RB_LOAD(&m->hdr->stop_on_create) != 0;
	uint32_t i;

	t->tid = rb_gettid();
	t->step = 0;
	t->level = 0;
	t->resume = 0;
	t->fresh = 0;
	t->pending = soc ? RB_WHY_CREATE : RB_WHY_NONE;
	/* Single and breakpoints are added by rb_control_thread_start(). */
	rb_thread_identify(t, idx, trace,
			   (trace ? 0 : RB_ATTN_UNTRACED) | (soc ? RB_ATTN_SELF : 0));
	rb_ev_thread_start(t);
	t->depth = 0;
	t->cur = 0;
	r->inherited = 0;
	if (frames != NULL && depth > 0) {
		/* The ring is not yet LIVE: no reader looks at these slots. */
		memcpy(t->slots, frames, (size_t)h->slots * h->slot_size);
		for (i = 0; i < h->slots; i++) {
			struct rb_slot *s = (struct rb_slot *)(t->slots +
					    (size_t)i * h->slot_size);
			s->seq &= ~1u;
		}
		t->depth = depth;
		t->cur = rb_slot_index(depth, t->nslots, t->pinned);
		r->inherited = (int32_t)(depth < h->slots ? depth : h->slots);
	}
	r->depth = (int32_t)t->depth;
	r->currSlot = (int32_t)t->cur;
	rb_thread_refresh_name(t);
	/*
	 * (K) Release: the identity and the slots before the ring is seen
	 * LIVE; pairs with the readers' acquire load of ctl.
	 */
	RB_STORE_REL(&o->ctl, RB_OWN_MAKE(RB_OWN_LIVE, rb_proc.pid));

	/*
	 * A detach sets rb_attached before it takes the lock: a thread seen
	 * in the table is released by it, one that comes later sees OFF.
	 */
	pthread_mutex_lock(&rb_thread_lock);
	if (__atomic_load_n(&rb_attached, __ATOMIC_RELAXED) == RB_ATT_OFF) {
		pthread_mutex_unlock(&rb_thread_lock);
		t->ring = NULL;
		rb_ring_release_as(m, idx, RB_STATE_DETACHED);
		return false;
	}
	if (rb_ring_owner != NULL) {
		rb_ring_owner[idx] = pthread_self();
		rb_ring_self[idx] = t;
	}
	RB_STORE(&t->state, RB_T_TRACED);
	RB_STORE(&t->gate, r);
	pthread_mutex_unlock(&rb_thread_lock);
	/* Else at the first watch, from a hook (rb_watch_serve()). */
	if (rb_proc.set.watch_worker == RB_WW_START)
		rb_watch_start();
	rb_control_thread_start(t);
	rb_clock_calibrate(m->hdr);
	return true;
}

/**
 * rb_thread_premake - make ring @idx, held in CLAIMING, that of thread
 * @tid, asleep through an attach (seed.c), which is not the caller
 * @t: the caller's stand-in for that thread while it seeds the ring, set
 *	up here; the thread takes the ring over at its first hook
 * @name: its name
 *
 * Nothing is recorded in the ring's event log; publish with
 * rb_thread_publish().
 */
void rb_thread_premake(struct rb_thread *t, uint32_t idx, pid_t tid,
		       const char *name)
{
	struct rb_map *m = &rb_proc.map;
	const struct rb_header *h = &m->geo;
	struct rb_ring *r = rb_ring_at(m->base, h, idx);
	int trace = RB_LOAD(&m->hdr->trace_on_create) != 0;

	memset(t, 0, sizeof(*t));
	t->tid = tid;
	/* Commands wait for its first hook, as a stop on creation would. */
	rb_thread_identify(t, idx, trace, trace ? 0 : RB_ATTN_UNTRACED);
	r->inherited = 0;
	t->evstate = RB_EVS_NONE;
	RB_STORE(&r->currSlot, 0);
	rb_ring_set_name(r, name);
}

/* The ring rb_thread_premake() made, seeded, seen LIVE. */
void rb_thread_publish(struct rb_thread *t)
{
	struct rb_map *m = &rb_proc.map;

	/* (K) Release: identity and slots before LIVE, as rb_thread_setup(). */
	RB_STORE_REL(&rb_owner_at(m->base, &m->geo, t->index)->ctl,
		     RB_OWN_MAKE(RB_OWN_LIVE, rb_proc.pid));
}

/**
 * rb_thread_no_ring - the calling thread found no free ring in @m
 *
 * Counted in the header for rbmon; the program's stderr hears it once per
 * process (a fork child of one that said it stays quiet).
 */
void rb_thread_no_ring(struct rb_map *m)
{
	static int said;

	__atomic_fetch_add(&m->hdr->untraced_threads, 1, __ATOMIC_RELAXED);
	/* Relaxed: the exchange only picks one thread; it orders nothing. */
	if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED) != 0)
		return;
	rb_warnf("rbtrace: all %u rings of %s are in use: thread %d runs untraced, "
		 "as will others that find none; trace with more rings "
		 "(rbtrace --rings N, RBTRACE_RINGS=N)",
		 m->geo.rings, m->path, (int)rb_gettid());
}

/**
 * rb_thread_attach - give the calling thread a ring (its first hook)
 * @fn, @site: the function entered and its return address (0: an API
 *	call, not a hook)
 *
 * Return: true if the thread is now traced.
 */
bool rb_thread_attach(struct rb_thread *t, uintptr_t fn, uintptr_t site)
{
	int idx;

	if (t->state != RB_T_NEW)
		return t->state == RB_T_TRACED;
	if (!rb_process_init()) {
		if (atomic_load(&rb_proc.init) == RB_INIT_FAILED)
			t->state = RB_T_UNTRACED;
		return false;	/* still starting up elsewhere: try again later */
	}
	/* Asleep through the attach: the ring made for it then (seed.c). */
	idx = -1;
	if (rb_attach_state() == RB_ATT_ON || rb_dyn_woken()) {
		idx = rb_seed_adopt(rb_gettid());
		if (idx < 0)
			rb_seed_sweep();
	}
	if (idx < 0)
		idx = rb_ring_claim(&rb_proc.map, rb_proc.pid);
	if (idx < 0) {
		rb_thread_no_ring(&rb_proc.map);
		t->state = RB_T_UNTRACED;
		return false;
	}
	if (!rb_thread_setup(t, (uint32_t)idx, NULL, 0))
		return false;
	/* A thread that ran before an attach: its outer frames are unwound. */
	t->floor = 0;
	if ((rb_attach_state() == RB_ATT_ON || rb_dyn_woken()) &&
	    rb_attach_predates(t->tid))
		rb_seed_stack(t, fn, site);
	/* For the exit destructor; the key's value is never dereferenced. */
	pthread_setspecific(rb_thread_key, t->ring);
	return true;
}

/**
 * rb_thread_claim - the calling thread, inside its hooks' bracket, found
 * the gate closed: give it a ring if it never had one (or a detach took
 * it and the program was attached again)
 *
 * Return: true if the thread is now traced.
 */
bool rb_thread_claim(struct rb_thread *t, uintptr_t fn, uintptr_t site)
{
	/* Relaxed, both: a detach changes them only while it keeps the gate closed. */
	if (RB_LOAD(&t->state) != RB_T_NEW)
		return false;
	/* Detached: nothing is claimed until the next attach, whose setting ON comes after the detach's writes. */
	if (__atomic_load_n(&rb_attached, __ATOMIC_ACQUIRE) == RB_ATT_OFF)
		return false;
	/* Asleep (dynamic tracing): the same, until woken. */
	if (rb_dyn_asleep())
		return false;
	return rb_thread_attach(t, fn, site);
}

/**
 * rb_thread_detach - the calling thread exits: release its ring, ignore later hooks
 */
void rb_thread_detach(struct rb_thread *t)
{
	uint32_t idx = t->index;
	bool mine;

	/* Out of the table first, so that a detach never waits on an exit. */
	pthread_mutex_lock(&rb_thread_lock);
	mine = RB_LOAD(&t->state) == RB_T_TRACED && t->ring != NULL;
	if (mine && rb_ring_owner != NULL) {
		memset(&rb_ring_owner[idx], 0, sizeof(pthread_t));
		rb_ring_self[idx] = NULL;
	}
	pthread_mutex_unlock(&rb_thread_lock);
	/* For good: the hooks of its destructors find the gate closed and its state DONE. */
	RB_STORE(&t->busy, 1);
	RB_STORE(&t->gate, NULL);
	if (mine) {
		/* Its last name, also one set with prctl(PR_SET_NAME). */
		rb_thread_refresh_name(t);
		rb_bp_thread_exit(t);
		rb_watch_thread_exit(t);
		rb_ring_release(&rb_proc.map, idx);
	}
	t->ring = NULL;
	RB_STORE(&t->state, RB_T_DONE);
}

/*
 * A full barrier in every thread of this process (see the top of this
 * file).  Return: false if the kernel refuses every kind.
 */
static bool rb_thread_barrier(void)
{
	static int registered;

	if (!registered &&
	    syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED,
		    0, 0) == 0)
		registered = 1;
	if (registered &&
	    syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0)
		return true;
	return syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0;
}

/**
 * rb_thread_release_all - a detach: every thread of this process gives its
 * ring back and starts afresh at its next hook (after a later attach)
 * @wait_ns: how long to wait for threads inside a hook
 * @kept: threads left as they are: stopped, or inside a hook all along,
 *	or all of them where membarrier(2) is refused
 * @fenced: false where membarrier(2) is refused
 *
 * Called once no object calls the hooks any more and rb_attached is OFF
 * (attach.c); the handshake is at the top of this file.  Under
 * rb_thread_lock, which a thread takes to enter the table or leave it.
 * A thread kept keeps its ring and its state: consistent either way, it
 * gives the ring back when it exits.
 *
 * Return: the rings given back.
 */
uint32_t rb_thread_release_all(uint64_t wait_ns, uint32_t *kept, bool *fenced)
{
	uint64_t end = rb_clock_mono_ns() + wait_ns;
	const struct timespec tick = { 0, 100000 };
	struct rb_thread *t;
	struct rb_ring *r;
	uint32_t i, n, done = 0, left;

	*kept = 0;
	*fenced = true;
	if (rb_proc.map.hdr == NULL || rb_ring_owner == NULL)
		return 0;
	n = rb_proc.map.geo.rings;
	pthread_mutex_lock(&rb_thread_lock);
	/* (G3) Every gate closed, then one barrier for all. */
	for (i = 0; i < n; i++)
		if ((t = rb_ring_self[i]) != NULL)
			RB_STORE(&t->gate, NULL);
	*fenced = rb_thread_barrier();
	/* Every thread looked at on each round, so that none waits on another. */
	while (*fenced) {
		for (i = 0, left = 0; i < n; i++) {
			if ((t = rb_ring_self[i]) == NULL)
				continue;
			r = t->ring;
			/* (G2) Acquire: pairs with rb_hook_end()'s release; its writes to the ring are done. */
			if (RB_LOAD_ACQ(&t->busy) ||
			    RB_LOAD(&r->state) == RB_STATE_STOPPED) {
				left++;
				continue;
			}
			rb_bp_thread_exit(t);
			rb_watch_thread_exit(t);
			memset(&rb_ring_owner[i], 0, sizeof(pthread_t));
			rb_ring_self[i] = NULL;
			t->ring = NULL;
			t->depth = 0;
			t->cur = 0;
			t->floor = 0;
			RB_STORE(&t->state, RB_T_NEW);
			rb_ring_release_as(&rb_proc.map, i, RB_STATE_DETACHED);
			done++;
		}
		if (left == 0 || rb_clock_mono_ns() >= end)
			break;
		nanosleep(&tick, NULL);
	}
	/* Kept: stopped, or in a hook all along; consistent either way. */
	for (i = 0; i < n; i++)
		if ((t = rb_ring_self[i]) != NULL &&
		    RB_LOAD(&t->gate) == NULL) {
			RB_STORE(&t->gate, t->ring);
			(*kept)++;
		}
	pthread_mutex_unlock(&rb_thread_lock);
	return done;
}

/**
 * rb_thread_each_ring - call @fn for the ring of every traced thread of
 * this process, under rb_thread_lock
 */
void rb_thread_each_ring(void (*fn)(struct rb_ring *, void *), void *arg)
{
	static const pthread_t none;
	uint32_t i, n;

	if (rb_proc.map.hdr == NULL)
		return;
	n = rb_proc.map.geo.rings;
	pthread_mutex_lock(&rb_thread_lock);
	for (i = 0; rb_ring_owner != NULL && i < n; i++)
		if (memcmp(&rb_ring_owner[i], &none, sizeof(none)) != 0)
			fn(rb_ring_at(rb_proc.map.base, &rb_proc.map.geo, i), arg);
	pthread_mutex_unlock(&rb_thread_lock);
}

/* A thread renamed by itself or by another: show the new name. */
int pthread_setname_np(pthread_t th, const char *name)
	__attribute__((visibility("default")));
int pthread_setname_np(pthread_t th, const char *name)
{
	static void *next;
	int (*real)(pthread_t, const char *);
	uint32_t i, n;
	int ret;

	real = (int (*)(pthread_t, const char *))
		rb_sym_next(&next, "pthread_setname_np");
	if (real == NULL)
		return ENOSYS;
	ret = real(th, name);
	if (ret != 0 ||
	    atomic_load_explicit(&rb_proc.init, memory_order_acquire) != RB_INIT_DONE)
		return ret;
	n = rb_proc.map.geo.rings;
	pthread_mutex_lock(&rb_thread_lock);
	for (i = 0; rb_ring_owner != NULL && i < n; i++) {
		struct rb_ring *r = rb_ring_at(rb_proc.map.base,
					       &rb_proc.map.geo, i);

		if (pthread_equal(rb_ring_owner[i], th) &&
		    RB_LOAD(&r->pid) == rb_proc.pid) {
			rb_ring_set_name(r, name);
			break;
		}
	}
	pthread_mutex_unlock(&rb_thread_lock);
	return ret;
}
