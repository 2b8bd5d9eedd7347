/* SPDX-License-Identifier: MIT */
/* internal.h - what the parts of librbtrace share; not installed. */
#ifndef RB_INTERNAL_H
#define RB_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/atomic.h"
#include "common/clock.h"
#include "common/defs.h"
#include "common/evlog.h"
#include "rbtrace/format.h"

#define RB_NOINSTR	__attribute__((no_instrument_function))
#define RB_LIKELY(x)	__builtin_expect(!!(x), 1)
#define RB_UNLIKELY(x)	__builtin_expect(!!(x), 0)

/* env.c: settings read once at start-up */
struct rb_settings {
	struct rb_geometry geo;
	int		stop_on_create;
	int		trace_on_create;
	int		clock;		/* RB_CLOCK_*, 0 = choose */
	uint32_t	orphan_timeout;	/* seconds; 0 = stopped threads wait forever */
	uint32_t	record_wait;	/* seconds the creator waits for a recorder */
	int		watch_worker;	/* RB_WW_*: when the watch worker starts */
	uint64_t	min_duration_ns;	/* RBTRACE_MIN_DURATION, 0: off */
};

#define RB_WW_LAZY	0	/* at the first watch (rbtrace(5), WATCHES) */
#define RB_WW_START	1	/* with the first traced thread, and in fork children */

#define RB_DEF_ORPHAN_TIMEOUT	10
#define RB_MAX_ORPHAN_TIMEOUT	86400
#define RB_MAX_RECORD_WAIT	3600

typedef void (*rb_warn_fn)(const char *line);

RB_HIDDEN void rb_settings_defaults(struct rb_settings *s);
RB_HIDDEN int rb_settings_from_env(struct rb_settings *s,
				   const char *(*get)(const char *),
				   rb_warn_fn warn);
RB_HIDDEN int rb_parse_uint(const char *str, uint32_t lo, uint32_t hi,
			    uint32_t *out);

/* log.c: the library's only output, one line on stderr (or an attach's reply) */
RB_HIDDEN void rb_warn(const char *line);
RB_HIDDEN void rb_warnf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
RB_HIDDEN void rb_strlcpy(char *dst, const char *src, size_t size);
RB_HIDDEN void rb_warn_capture(char *buf, size_t size);

/* clock.c; rb_thread.slowclock is one of RB_TCLOCK_* */
#define RB_TCLOCK_INLINE	0	/* the counter, read inline */
#define RB_TCLOCK_CALL		1	/* another clock, read on the cold path */
#define RB_TCLOCK_NONE		2	/* no clock: slots 0, events a sequence */

RB_HIDDEN extern int rb_clock_kind;
RB_HIDDEN int rb_clock_select(int wanted);
RB_HIDDEN uint32_t rb_clock_mode(uint32_t clock);
RB_HIDDEN uint64_t rb_clock_mono_ns(void);
RB_HIDDEN uint64_t rb_clock_raw_slow(void);
RB_HIDDEN void rb_clock_calibrate(struct rb_header *h);
RB_HIDDEN uint64_t rb_clock_rate(const struct rb_header *h);

/* proc.c: process identity and liveness */
RB_HIDDEN uint64_t rb_proc_start_time(pid_t pid);
RB_HIDDEN bool rb_proc_alive(pid_t pid, uint64_t pstart);
RB_HIDDEN bool rb_proc_alive_pid(pid_t pid);
RB_HIDDEN pid_t rb_gettid(void);

/*
 * file.c: the mapping this process writes to.  @hdr is the shared header,
 * which anyone who can write the file may change at any time: only its
 * flags, counters and handshake words are read there.  Sizes and offsets
 * come from @geo, the private copy validated at open (rbtrace(5),
 * "HOSTILE FILES AND WRITERS").
 */
struct rb_map {
	void			*base;
	size_t			size;
	struct rb_header	*hdr;
	struct rb_header	geo;
	char			path[4096];
	bool			created;
};

RB_HIDDEN int rb_file_open(struct rb_map *m, const char *path,
			   const struct rb_settings *s, pid_t pid,
			   uint64_t pstart, const char *program);
RB_HIDDEN int rb_file_validate(const struct rb_header *h, uint64_t file_size);
RB_HIDDEN void rb_file_close(struct rb_map *m);

/* ring.c: claiming and releasing rings */
RB_HIDDEN int rb_ring_claim(struct rb_map *m, pid_t pid);
RB_HIDDEN void rb_ring_release(struct rb_map *m, uint32_t i);
RB_HIDDEN void rb_ring_release_as(struct rb_map *m, uint32_t i, int32_t state);
RB_HIDDEN bool rb_ring_adopt(struct rb_map *m, uint32_t i, pid_t pid);
RB_HIDDEN int rb_ring_release_image(struct rb_map *m, pid_t pid,
				    uint64_t pstart, uint64_t keep_image);

/* objects.c: loaded objects of this process image */
RB_HIDDEN void rb_objects_register(struct rb_map *m, pid_t pid,
				   uint64_t pstart, uint64_t image);
RB_HIDDEN void rb_objects_copy(struct rb_map *m, uint64_t from, pid_t pid,
			       uint64_t pstart, uint64_t to);
RB_HIDDEN void *rb_sym_next(void **cache, const char *name);

/* The process: set up once, by the constructor or the first hook. */
#define RB_INIT_NONE	0
#define RB_INIT_BUSY	1
#define RB_INIT_DONE	2
#define RB_INIT_FAILED	3

struct rb_process {
	_Atomic int		init;
	struct rb_map		map;
	struct rb_settings	set;
	pid_t			pid;
	pid_t			ppid;		/* forked: the parent, or 0 */
	uint64_t		pstart;
	uint64_t		image;
	/* breakpoint.c: placed once from the validated header */
	struct rb_bp		*bps;		/* NULL: none */
	uint32_t		nbps;
	const uint64_t		*bpfilter;	/* never NULL once set up */
};

RB_HIDDEN extern struct rb_process rb_proc;
RB_HIDDEN bool rb_process_init(void);

/* The calling thread's view of its ring; private, never shared. */
#define RB_T_NEW	0	/* no ring yet: the next hook claims one */
#define RB_T_TRACED	1
#define RB_T_UNTRACED	2	/* found no ring, or tracing failed */
#define RB_T_DONE	3	/* exited: hooks from destructors ignored */

/* capture.c: an armed call a thread is in (rbtrace(5), "CAPTURES") */
#define RB_CAP_NEST	4	/* armed calls nested in one thread */
#define RB_CAP_NOBP_KEEP 255	/* entries rb_cap_nobp() trusts its answer */

struct rb_capcall {
	uint32_t	level;		/* its stack level */
	uint32_t	entry;		/* its armed table entry ... */
	uint32_t	ctl;		/* ... as it was at the entry */
	bool		logged;		/* its entry record is at first */
	uint64_t	fn, site, ts;
	uint64_t	mono;		/* CLOCK_MONOTONIC at its entry while
					   the counter's rate is unknown, 0 */
	uint64_t	first;		/* its records begin here in the log */
	uint64_t	dropped;	/* the log's dropped count then */
};

struct rb_thread {
	/*
	 * gate: what a hook reads first, after setting busy: @ring while the
	 * hooks may write it, NULL to keep them out; the only word another
	 * thread writes while this one may be in a hook (a detach,
	 * rb_thread_release_all(); pairs (G1)-(G3) in thread.c).
	 */
	struct rb_ring	*gate;
	struct rb_ring	*ring;		/* NULL unless RB_T_TRACED */
	char		*slots;
	uint32_t	slot_size;
	uint32_t	nslots;
	uint32_t	pinned;		/* rb_slots_pinned(nslots) */
	uint32_t	depth;		/* private copies of ring->depth/currSlot */
	uint32_t	cur;
	uint32_t	busy;		/* inside a hook: rb_hook_begin() */
	uint32_t	state;		/* RB_T_* */
	uint32_t	floor;		/* levels a return never pops: 1 under
					   the before-attach frame (attach.c) */
	uint32_t	index;		/* ring number */
	uint32_t	slot_sz;
	uint32_t	slowclock;	/* RB_TCLOCK_*: 0 for the inline counter */
	int32_t		tid;
	/* control.c's private state, see RB_ATTN_SELF */
	uint32_t	step;		/* RB_STEP_*: a step in progress */
	int32_t		level;		/* hooks' net depth since it began */
	uint32_t	pending;	/* RB_WHY_* to stop with at the next hook */
	uint32_t	resume;		/* a command ended the stop */
	uint32_t	fresh;		/* a step armed at this very hook */
	/* The event log (hooks.c); evstate: RB_EVS_*, 0 for the inline path. */
	struct rb_evq	ev;
	uint32_t	evstate;
	/* watch.c: a watch waits for the worker since (ns), tried again at */
	uint64_t	wk_since;
	uint64_t	wk_next;
	/*
	 * capture.c: the armed calls this thread is in, innermost last;
	 * cap_level is the innermost's level (UINT32_MAX: none), which an
	 * exit hook compares its new depth with.
	 */
	uint32_t	cap_level;
	uint32_t	ncap;
	/* snapshot.c: when this thread last looked at a freeze (ns) */
	uint64_t	snap_seen;
	struct rb_capcall cap[RB_CAP_NEST];
	/* rb_cap_nobp(): per armed entry, "no breakpoint at it" kept */
	uint32_t	nobp_left[RB_CAP_FNS];
	uint64_t	nobp_gen[RB_CAP_FNS];
	uint64_t	nobp_fn[RB_CAP_FNS];
};

#define RB_EVS_NONE	0x1u	/* no log: nothing is recorded */
#define RB_EVS_SLOW	0x2u	/* fill, drain, a clock read out of line:
				   records go through rb_evlog_put() */
#define RB_EVS_OFF	0x4u	/* the log's off word, as last acted on */
#define RB_EVS_SEQ	0x8u	/* ring policy, no clock: inline, stamped
				   with the log's sequence */

RB_HIDDEN extern __thread struct rb_thread rb_self
	__attribute__((tls_model("initial-exec")));

/*
 * The bracket around everything a thread does to its own ring: unless
 * busy is set already (rb_hook_busy(): a signal handler's hook inside a
 * hook of this thread, which does nothing), busy set, then the gate read
 * (rb_hook_begin()), and busy cleared when done (rb_hook_end()).  The
 * compiler barriers keep the ring's accesses inside, as a signal handler
 * on this thread sees them.  Between threads, busy's store and the gate's
 * load are ordered by the detach's membarrier(2), not here: the hot path
 * has no fence (thread.c; (G1)-(G3) of rbtrace(5), "ORDERING").
 */
static inline RB_NOINSTR __attribute__((always_inline)) bool
rb_hook_busy(const struct rb_thread *t)
{
	/* Plain: busy is this thread's own, changed only by this thread. */
	return t->busy != 0;
}

static inline RB_NOINSTR __attribute__((always_inline)) struct rb_ring *
rb_hook_begin(struct rb_thread *t)
{
	RB_STORE(&t->busy, 1);
	RB_SIGNAL_FENCE();
	/* (G1) Relaxed: read after busy's store; see above. */
	return RB_LOAD(&t->gate);
}

static inline RB_NOINSTR __attribute__((always_inline)) void
rb_hook_end(struct rb_thread *t)
{
	RB_SIGNAL_FENCE();
	/* (G2) The ring's writes before busy clears; pairs with the detach's acquire load of busy. */
	RB_STORE_REL(&t->busy, 0);
}

/* thread.c */
#include <pthread.h>
RB_HIDDEN extern pthread_key_t rb_thread_key;
RB_HIDDEN extern pthread_mutex_t rb_thread_lock;	/* ring -> pthread table */
RB_HIDDEN extern pthread_mutex_t rb_objects_lock;	/* object registration */
RB_HIDDEN void rb_thread_table_init(pthread_t *table, struct rb_thread **self);
RB_HIDDEN void rb_thread_table_reset(void);
RB_HIDDEN bool rb_thread_setup(struct rb_thread *t, uint32_t idx,
			       const char *frames, uint32_t depth);
RB_HIDDEN void rb_thread_premake(struct rb_thread *t, uint32_t idx,
				  pid_t tid, const char *name);
RB_HIDDEN void rb_thread_publish(struct rb_thread *t);
RB_HIDDEN bool rb_thread_attach(struct rb_thread *t, uintptr_t fn,
			       uintptr_t site);
RB_HIDDEN bool rb_thread_claim(struct rb_thread *t, uintptr_t fn,
			       uintptr_t site);
RB_HIDDEN void rb_thread_no_ring(struct rb_map *m);
RB_HIDDEN void rb_thread_detach(struct rb_thread *t);
RB_HIDDEN void rb_thread_refresh_name(struct rb_thread *t);
RB_HIDDEN void rb_thread_each_ring(void (*fn)(struct rb_ring *, void *),
				   void *arg);
RB_HIDDEN uint32_t rb_thread_release_all(uint64_t wait_ns, uint32_t *kept,
					   bool *fenced);

/* control.c: commands, stops, steps (the cold path) */
RB_HIDDEN void rb_control(struct rb_thread *t, bool exiting, uint64_t fn);
/* The pid of a process whose monitor lapsed, while one thread clears what it set. */
RB_HIDDEN extern int32_t rb_lapse_busy;
RB_HIDDEN void rb_control_thread_start(struct rb_thread *t);

/* msgarea.c: the global message area, who holds it (rbtrace(5), "Long responses") */
RB_HIDDEN bool rb_gma_claim(uint32_t me, uint64_t pos);

/* watch.c: watch expressions, evaluated by rbtrace-watch.so */
RB_HIDDEN void rb_watch_start(void);
RB_HIDDEN pid_t rb_watch_tid(void);
/* Can this hook start a thread (no signal handler under it)?  watch.c */
RB_HIDDEN bool rb_watch_safe(struct rb_thread *t);
RB_HIDDEN void rb_watch_fork_prepare(void);
RB_HIDDEN void rb_watch_fork_child(void);
RB_HIDDEN void rb_watch_serve(struct rb_thread *t);
RB_HIDDEN void rb_watch_thread_exit(struct rb_thread *t);

/* breakpoint.c: the hooks' side of the file's breakpoint table */
RB_HIDDEN void rb_bp_setup(void);
RB_HIDDEN uint32_t rb_bp_check(struct rb_thread *t, uint64_t fn);
RB_HIDDEN void rb_bp_thread_exit(struct rb_thread *t);
RB_HIDDEN void rb_bp_fork_child(uint64_t parent_image);
RB_HIDDEN void rb_bp_image_start(void);
RB_HIDDEN uint32_t rb_bp_lapse(void);

/*
 * Is @fn's bit set in the breakpoint filter?  A few instructions on every
 * entry hook; only a set bit sends the hook to rb_bp_check().
 */
static inline RB_NOINSTR uint64_t rb_bp_filtered(uintptr_t fn)
{
	uint32_t h = rb_bp_hash(fn);

	/*
	 * (J) Relaxed: a monitor sets the bit after the entry it announces;
	 * a bit seen a hook late only delays that breakpoint's first hit by
	 * a call.  rb_bp_check() then reads the entry by (I).
	 */
	return (RB_LOAD(&rb_proc.bpfilter[h >> 6]) >> (h & 63)) & 1;
}

/* capture.c: captures of slow calls */
RB_HIDDEN void rb_cap_setup(void);
RB_HIDDEN void rb_cap_env(void);
RB_HIDDEN void rb_cap_arm_env(void);
RB_HIDDEN void rb_cap_filter_want(uint64_t *want);
RB_HIDDEN uint32_t rb_cap_enter(struct rb_thread *t, uint64_t fn);
RB_HIDDEN bool rb_cap_nobp(struct rb_thread *t, uint32_t armed, uint64_t fn);
RB_HIDDEN void rb_cap_exit(struct rb_thread *t, uint64_t fn);

/* hooks.c */
RB_HIDDEN void rb_enter_at(void *fn, void *site, uint64_t sp);
RB_HIDDEN void rb_stack_drop_below(uint64_t sp);
RB_HIDDEN void rb_push_named(struct rb_thread *t, const char *name,
			     const char *file, int line);
RB_HIDDEN void rb_push_marker(struct rb_thread *t, const char *name);
RB_HIDDEN void rb_push_seeded(struct rb_thread *t, uintptr_t fn,
			      uintptr_t site, uint64_t sp);
RB_HIDDEN void rb_ev_thread_start(struct rb_thread *t);
RB_HIDDEN bool rb_objects_evoff(struct rb_map *m, uint64_t image);
RB_HIDDEN void rb_ev_mark(struct rb_thread *t, uint32_t kind, uint64_t fn,
			  uint64_t arg);

/*
 * attach.c: rbtrace -p, the library loaded into a running program.
 * rb_attached: RB_ATT_* (NONE: preloaded, or not set up yet).
 */
#define RB_ATT_NONE	0
#define RB_ATT_ON	1
#define RB_ATT_OFF	2	/* detached: the library stays, inactive */

RB_HIDDEN extern int rb_attached;
/* rb_attached, read from any thread: a detach changes it while hooks run. */
static inline RB_NOINSTR int rb_attach_state(void)
{
	/* Acquire: pairs with the attach's and the detach's release stores (thread.c). */
	return RB_LOAD_ACQ(&rb_attached);
}
RB_HIDDEN const char *rb_attach_getenv(const char *name);
RB_HIDDEN bool rb_attach_predates(pid_t tid);
RB_HIDDEN void rb_attach_tids(void);
RB_HIDDEN void rb_attach_forked(pid_t parent);
RB_HIDDEN void rb_attach_rebind(void);
RB_HIDDEN void rb_attach_fork_lock(void);
RB_HIDDEN void rb_attach_fork_unlock(void);
RB_HIDDEN void *rb_attach_real(const char *name);

/* seed.c: the frames a thread entered before the attach. */
struct dl_phdr_info;
RB_HIDDEN bool rb_seed_init(void);
RB_HIDDEN void rb_seed_object(const struct dl_phdr_info *info);
RB_HIDDEN void rb_seed_stack(struct rb_thread *t, uintptr_t fn,
			     uintptr_t site);
/* A thread asleep, from outside: rip rsp rbp rbx r12 r13 r14 r15. */
#define RB_SEED_NREGS	8
#define RB_SEED_WHOLE	0
#define RB_SEED_PART	1
#define RB_SEED_NONE	2
#define RB_SEED_HAS	3
#define RB_SEED_NORING	4
RB_HIDDEN int rb_seed_thread(pid_t tid, const uint64_t reg[RB_SEED_NREGS]);
RB_HIDDEN int rb_seed_adopt(pid_t tid);
RB_HIDDEN void rb_seed_sweep(void);
RB_HIDDEN uint32_t rb_seed_release_all(void);

/*
 * snapshot.c: trigger snapshots (rbtrace(5), "SNAPSHOTS").  The trigger
 * is async-signal-safe; it returns common/snap.h's RB_SNAP_TAKEN, _MISSED
 * or _SUPPRESSED, or -1 before the file is set up.
 */
RB_HIDDEN void rb_snapshot_setup(const char *(*get)(const char *));
/* How often a thread whose log is frozen looks whether the freeze is stale. */
#define RB_SNAP_HEAL_NS		100000000ull
RB_HIDDEN void rb_snapshot_heal(struct rb_thread *t);
RB_HIDDEN int rb_snapshot_trigger(uint32_t reason, int32_t tid, uint64_t fn,
				  uint64_t arg);

#endif /* RB_INTERNAL_H */
