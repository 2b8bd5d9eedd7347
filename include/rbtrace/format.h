/* SPDX-License-Identifier: MIT */
/*
 * rbtrace/format.h - layout of an rbtrace trace file.
 *
 * The file is shared, through MAP_SHARED mappings, by every process and
 * thread of one traced application (the writers, librbtrace) and any number
 * of monitors (the readers, rbmon).  Every field has a fixed width and natural
 * alignment so that all 64-bit processes agree on it; every offset below is
 * from the start of the file.
 *
 *   +---------------------------+ 0
 *   | struct rb_header          |
 *   +---------------------------+ gma_off
 *   | global message area       |  global_sz bytes (length in the header)
 *   +---------------------------+ owners_off
 *   | struct rb_owner[rings]    |  free map: who owns each ring
 *   +---------------------------+ objects_off
 *   | struct rb_object[objects] |  loaded objects of every process image
 *   +---------------------------+ bpfilter_off (64-byte aligned)
 *   | breakpoint filter         |  RB_BP_FILTER_BITS bits
 *   +---------------------------+ bps_off
 *   | struct rb_bp[bps]         |  breakpoints of every process image
 *   +---------------------------+ dyn_off (64-byte aligned)
 *   | struct rb_dynproc[dyn_procs] |  dynamic tracing of every process
 *   +---------------------------+ capfn_off (64-byte aligned)
 *   | struct rb_capfn[capfns]   |  functions armed for captures
 *   +---------------------------+ cap_off (64-byte aligned)
 *   | struct rb_capture[caps]   |  captures of slow calls
 *   +---------------------------+ rings_off (4096-byte aligned)
 *   | ring 0                    |  ring_size bytes each:
 *   | ring 1                    |    struct rb_ring
 *   | ...                       |    msgarea[msg_sz]
 *   +---------------------------+    (pad to 64) slots[slots], slot_size each
 *                                    (pad to 64) struct rb_evlog and
 *                                    struct rb_event[events]: the event log
 *
 * A reader must check every size and offset in the header against the file
 * size before use (see rbtrace(5)); nothing in the file is trusted.  The
 * offsets, strides and total_size are exactly what rb_layout_compute()
 * gives for the geometry; anything else is a corrupt file.
 */
#ifndef RBTRACE_FORMAT_H
#define RBTRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define RB_MAGIC		"RBTRACE\x1a"	/* 8 bytes, no terminator */
#define RB_MAGIC_LEN		8
#define RB_VERSION		7
#define RB_ENDIAN_MARK		0x01020304u

#define RB_PROGRAM_MAX		64	/* program name, NUL-terminated */
#define RB_BOOT_ID_MAX		40	/* /proc/sys/kernel/random/boot_id */
#define RB_THREAD_NAME_MAX	16	/* as the kernel's comm */
#define RB_PATH_MAX		256	/* loaded object path */
#define RB_BUILD_ID_MAX		32
#define RB_WATCHES		4
#define RB_EXPR_MAX		256
#define RB_RESULT_MAX		512
#define RB_CACHELINE		64

/* Geometry defaults and limits (RBTRACE_* environment, rbtrace options). */
#define RB_DEF_RINGS		64
#define RB_MIN_RINGS		1
#define RB_MAX_RINGS		65536
#define RB_DEF_SLOTS		64
#define RB_MIN_SLOTS		2
#define RB_MAX_SLOTS		65536
#define RB_DEF_SLOT_SZ		200
#define RB_MIN_SLOT_SZ		8
#define RB_MAX_SLOT_SZ		4096
#define RB_DEF_MSG_SZ		256
#define RB_MIN_MSG_SZ		64
#define RB_MAX_MSG_SZ		65536
#define RB_DEF_GLOBAL_SZ	16384
#define RB_MIN_GLOBAL_SZ	1024
#define RB_MAX_GLOBAL_SZ	(16u << 20)
#define RB_DEF_OBJECTS		256
#define RB_MAX_OBJECTS		65536
#define RB_MAX_FILE_SIZE	(1ull << 34)	/* 16 GiB: refuse anything larger */
#define RB_DEF_EVENTS		4096	/* event log records per ring */
#define RB_MIN_EVENTS		2	/* a ring log shows events - 1 */
#define RB_MAX_EVENTS		(1u << 22)	/* a power of two; 0: no log */

/* The breakpoint table and its filter: fixed sizes, see struct rb_bp. */
#define RB_BP_ENTRIES		256	/* one per location of a breakpoint */
#define RB_BP_NAME		128	/* the name as given, NUL-terminated */
#define RB_BP_FILTER_SHIFT	12
#define RB_BP_FILTER_BITS	(1u << RB_BP_FILTER_SHIFT)

/* rb_header.clock: what slot and event timestamps count. */
#define RB_CLOCK_MONO		1	/* CLOCK_MONOTONIC nanoseconds */
#define RB_CLOCK_TSC		2	/* x86-64 invariant TSC ticks; see clock_* */
#define RB_CLOCK_NONE		3	/* no time: slots 0, events a sequence */
#define RB_CLOCK_CNTVCT		4	/* aarch64 CNTVCT_EL0 ticks; see clock_* */
#define RB_CLOCK_MAX		RB_CLOCK_CNTVCT

struct rb_header {
	char		magic[RB_MAGIC_LEN];
	uint32_t	version;
	uint32_t	header_size;	/* sizeof(struct rb_header) */
	uint64_t	total_size;	/* file size; every offset lies below */
	uint32_t	endian;		/* RB_ENDIAN_MARK in the writer's order */
	uint32_t	ready;		/* 1 once the creator finished laying out */

	/* geometry, fixed at creation */
	uint32_t	rings;
	uint32_t	slots;
	uint32_t	slot_sz;	/* name bytes per slot */
	uint32_t	msg_sz;
	uint32_t	global_sz;
	uint32_t	objects;	/* entries in the object table */
	uint32_t	ring_size;	/* stride between rings */
	uint32_t	slot_size;	/* stride between slots */
	uint64_t	gma_off;
	uint64_t	owners_off;
	uint64_t	objects_off;
	uint64_t	rings_off;
	uint32_t	slots_off;	/* from the start of a ring */
	uint32_t	msgarea_off;	/* from the start of a ring */

	/* the creator */
	int32_t		creator_pid;
	uint32_t	creator_uid;
	uint64_t	creator_start;	/* /proc/PID/stat starttime, clock ticks */
	uint64_t	created_realtime_ns;
	char		program[RB_PROGRAM_MAX];
	char		boot_id[RB_BOOT_ID_MAX];

	/*
	 * Clock: clock_tsc0 and clock_ns0 were read together (the CPU's
	 * counter, TSC or CNTVCT, and CLOCK_MONOTONIC) at creation.  On the
	 * same boot a reader converts a counter stamp with its own (counter,
	 * CLOCK_MONOTONIC) pair; clock_tsc_hz is the writers' latest estimate
	 * of the counter's rate (0 = none yet) for other readers.
	 */
	uint32_t	clock;		/* RB_CLOCK_* */
	uint32_t	pad0;
	uint64_t	clock_tsc0;
	uint64_t	clock_ns0;
	uint64_t	clock_tsc_hz;

	/* global flags, int32 so they can be changed with single stores */
	int32_t		single;
	int32_t		stop_on_create;
	int32_t		trace_on_create;
	int32_t		pad1;

	/* counters, updated with atomic adds */
	uint64_t	untraced_threads;	/* threads that found no ring */
	uint64_t	rings_reclaimed;	/* taken back from dead processes */
	uint64_t	objects_lost;		/* no room in the object table */
	uint64_t	next_image;		/* process image ids handed out */
	uint64_t	monitor_heartbeat_ns;	/* CLOCK_MONOTONIC, 0 = never */

	/*
	 * Global message area: the continuation of one long response or
	 * watch value at a time.  gma_owner says whose (RB_GMA_*), 0 when
	 * free; gma_pos is where in that text the GMA's gma_len bytes start.
	 * See rbtrace(5), "Long responses".
	 */
	uint32_t	gma_len;
	uint32_t	gma_owner;
	uint64_t	gma_pos;

	/* breakpoints, see struct rb_bp; bps and bpfilter_bits are fixed */
	uint64_t	bpfilter_off;
	uint64_t	bps_off;
	uint32_t	bps;		/* RB_BP_ENTRIES */
	uint32_t	bpfilter_bits;	/* RB_BP_FILTER_BITS */
	uint64_t	bp_next_id;	/* the last id handed out; atomic adds */

	/* geometry derived from slots: see rb_slot_index() */
	uint32_t	pinned;

	/* the event log of every ring: see struct rb_evlog */
	uint32_t	events;		/* records per ring, 0 or a power of two */
	uint32_t	ev_policy;	/* RB_POLICY_* */
	uint32_t	events_off;	/* struct rb_evlog, from a ring's start */

	/*
	 * drain: the recorder consuming every ring's log (its pid in the low
	 * 32 bits, and in the high 32 how many milliseconds a thread whose
	 * log is full may wait for it, 0: never; taken with compare-and-swap
	 * from 0, given back at its end), and the records never consumed in
	 * logs whose rings went to new threads (atomic adds by the claimers).
	 */
	uint64_t	ev_consumer;
	uint64_t	ev_reused_lost;

	/* dynamic tracing, see struct rb_dynproc; dyn_procs is fixed */
	uint64_t	dyn_off;
	uint32_t	dyn_procs;	/* RB_DYN_PROCS */
	uint32_t	pad2;
	uint64_t	dyn_lost;	/* processes that found no entry; atomic adds */

	/*
	 * Trigger snapshots (rbtrace(5), "SNAPSHOTS"): one trigger at a time
	 * freezes every event log of its process and records itself here;
	 * the writer (rbmon snapshot) copies the logs into a recording and
	 * switches them back on.  snap_state is the handshake and a futex
	 * word (RB_SNAP_*); snap_gen a seqlock over the trigger's fields
	 * (odd while they change); snap_writer the writer's pid, taken with
	 * compare-and-swap from 0; the counters take atomic adds.
	 */
	uint32_t	snap_state;	/* RB_SNAP_*, compare-and-swap */
	uint32_t	snap_gen;	/* odd while the fields below change */
	int32_t		snap_writer;	/* the writer's pid, 0: none */
	int32_t		snap_pid;	/* the process frozen */
	int32_t		snap_tid;	/* the thread that triggered */
	uint32_t	snap_reason;	/* RB_SNAPR_* */
	uint64_t	snap_fn;	/* a function, as the reason says */
	uint64_t	snap_arg;	/* the signal, watch entry, duration */
	uint64_t	snap_ts;	/* the freeze, rb_header.clock units */
	uint64_t	snap_ns;	/* CLOCK_MONOTONIC ns of the freeze */
	uint64_t	snap_interval_ns;	/* the least spacing */
	uint64_t	snap_taken;	/* freezes, ever */
	uint64_t	snap_written;	/* recordings the writers made */
	uint64_t	snap_missed;	/* triggers with no writer attached */
	uint64_t	snap_suppressed;	/* refused by the rate limit */
	/* captures of slow calls, see struct rb_capfn and struct rb_capture */
	uint64_t	capfn_off;
	uint64_t	cap_off;
	uint32_t	capfns;		/* RB_CAP_FNS */
	uint32_t	caps;		/* RB_CAP_SLOTS */
	uint64_t	cap_lost;	/* functions a process could not arm
					   (table full); atomic adds */
	uint64_t	cap_next_id;	/* the last arming id; atomic adds */

	/*
	 * Minimum duration (rbtrace(5), "EVENT LOG", "Short calls"): a call
	 * that returns sooner and kept nothing it called is taken back out
	 * of the event log.  min_duration is the threshold in clock units
	 * (0: off), which each log copies (struct rb_evlog); min_duration_ns
	 * is the same as set, for readers.  Written by the creator and by
	 * monitors (ns first, then units, then every log's copy).
	 */
	uint64_t	min_duration_ns;
	uint64_t	min_duration;
};

/* rb_header.snap_state */
#define RB_SNAP_IDLE		0	/* no snapshot in flight */
#define RB_SNAP_FILLING		1	/* a trigger fills in, freezes */
#define RB_SNAP_FROZEN		2	/* logs frozen: the writer's turn */
#define RB_SNAP_WRITING		3	/* the writer copies them */

/* rb_header.snap_reason */
#define RB_SNAPR_SIGNAL		1	/* the signal; arg = its number */
#define RB_SNAPR_WATCH		2	/* a watch became true; arg = entry */
#define RB_SNAPR_CAPTURE	3	/* a capture's condition; fn, arg = ns */
#define RB_SNAPR_NOW		4	/* rbmon snapshot --now */
#define RB_SNAPR_MAX		RB_SNAPR_NOW

/*
 * A freeze holds longer than this only if its writer died: the next
 * trigger or writer thaws it (rbtrace(5), "SNAPSHOTS").
 */
#define RB_SNAP_HOLD_NS		(10ull * 1000000000ull)

/* rb_header.ev_consumer: the recorder's pid and its blocking time. */
#define RB_CONSUMER_PID(c)	((uint32_t)((c) & 0xffffffffu))
#define RB_CONSUMER_BLOCK_MS(c)	((uint32_t)((c) >> 32))
#define RB_CONSUMER_MAKE(pid, ms)	\
	((uint64_t)(uint32_t)(pid) | ((uint64_t)(uint32_t)(ms) << 32))
/* Its low half, the pid, is also the futex word the recorder sleeps on. */
static inline uint32_t *rb_consumer_word(uint64_t *c)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return (uint32_t *)c + 1;
#else
	return (uint32_t *)c;
#endif
}

/*
 * rb_header.gma_owner: the ring (index + 1) in the low 24 bits; for a watch
 * value, the watch entry + 1 in the next three (0: a command's response);
 * RB_GMA_BUSY while a watch value is being written.
 */
#define RB_GMA_RING(o)		((o) & 0xffffffu)
#define RB_GMA_ENTRY(o)		(((o) >> 24) & 0x7u)
#define RB_GMA_BUSY		0x80000000u
#define RB_GMA_MAKE(ring, entry)	(((uint32_t)(ring) + 1u) | ((uint32_t)(entry) << 24))

/* rb_owner.ctl: state in the low 32 bits, the claiming pid in the high 32. */
#define RB_OWN_FREE		0	/* never used */
#define RB_OWN_CLAIMING		1	/* being set up by pid */
#define RB_OWN_LIVE		2	/* owned by a running thread of pid */
#define RB_OWN_EXITED		3	/* released; kept readable until reused */
#define RB_OWN_STATE(ctl)	((uint32_t)((ctl) & 0xffffffffu))
#define RB_OWN_PID(ctl)		((int32_t)((ctl) >> 32))
#define RB_OWN_MAKE(st, pid)	(((uint64_t)(uint32_t)(pid) << 32) | (uint32_t)(st))

struct rb_owner {
	uint64_t	ctl;		/* changed only by compare-and-swap */
	uint64_t	stamp;		/* CLOCK_MONOTONIC ns of the last change */
	uint64_t	gen;		/* bumped at every claim */
	uint64_t	pad;
};

/* rb_object.state */
#define RB_OBJ_FREE		0
#define RB_OBJ_WRITING		1
#define RB_OBJ_VALID		2

/* rb_object.flags */
#define RB_OBJF_MAIN		0x1u	/* the image's main executable */
#define RB_OBJF_EVOFF		0x2u	/* on the main entry: the process's
					   new threads start with their event
					   log off (EVOF for a process) */

/*
 * One loaded ELF object of one process image.  A process image is one
 * exec'd program; its forked children get an image of their own (a copy of
 * the parent's entries) so that later dlopen()s do not mix.
 */
struct rb_object {
	uint32_t	state;		/* RB_OBJ_*, claimed by compare-and-swap */
	uint32_t	build_id_len;
	uint32_t	flags;		/* RB_OBJF_* */
	int32_t		pid;		/* the process that registered it */
	uint64_t	pstart;		/* and its start time */
	uint64_t	image;		/* rb_ring.image of the processes using it */
	uint64_t	base;		/* load bias: runtime = file vaddr + base */
	uint64_t	lo, hi;		/* runtime address range of PT_LOADs */
	uint8_t		build_id[RB_BUILD_ID_MAX];
	char		path[RB_PATH_MAX];
};

/*
 * rb_bp.ctl: the state in the low two bits, a generation above them that
 * every claim bumps, so that a reader who finds ctl unchanged across its
 * copy of an entry knows the entry did not change meanwhile.
 */
#define RB_BP_FREE		0
#define RB_BP_WRITING		1	/* claimed by setter, being filled */
#define RB_BP_SET		2	/* in force */
#define RB_BP_STATE(c)		((c) & 3u)
#define RB_BP_GEN(c)		((c) >> 2)
#define RB_BP_MAKE(st, gen)	((uint32_t)(st) | (uint32_t)(gen) << 2)

/*
 * One location of a breakpoint: a breakpoint whose function has several
 * entry addresses has one entry per address, all with its id.  Written by
 * the monitors (set, clear) and by librbtrace (a fork child's copies, a
 * thread's own at its exit); read by the hooks of the process image it
 * belongs to.  See rbtrace(5), "BREAKPOINTS".
 */
struct rb_bp {
	uint32_t	ctl;		/* RB_BP_*, changed by compare-and-swap */
	uint32_t	id;
	int32_t		pid;		/* the process ... */
	int32_t		tid;		/* ... and its thread, 0: every thread */
	uint64_t	pstart;		/* the process's start time */
	uint64_t	image;		/* rb_ring.image of the process */
	uint64_t	addr;		/* the function's entry, runtime */
	uint64_t	hits;		/* entries counted here; atomic adds */
	uint32_t	from;		/* stop from this hit of the id on */
	uint32_t	loc;		/* this location's index ... */
	uint32_t	nlocs;		/* ... among the id's */
	int32_t		setter;		/* pid of who wrote the entry */
	char		name[RB_BP_NAME];
};

/*
 * The filter word and bit of a function address: a hook tests the bit of
 * the function it enters and looks at the table only when it is set.
 */
static inline uint32_t rb_bp_hash(uint64_t addr)
{
	return (uint32_t)((addr * 0x9e3779b97f4a7c15ull) >>
			  (64 - RB_BP_FILTER_SHIFT));
}

/* Watch entry, see rbtrace(5), "WATCH PROTOCOL". */
struct rb_watch {
	int32_t		inuse;		/* RB_WATCH_*: who has the entry */
	int32_t		exprlength;
	int32_t		resready;	/* 1 when result holds a fresh value */
	int32_t		reslength;	/* full length; < 0: error text */
	char		expr[RB_EXPR_MAX];
	char		result[RB_RESULT_MAX];
};

/* rb_ring.state */
#define RB_STATE_RUNNING	1
#define RB_STATE_STOPPED	2
#define RB_STATE_EXITED		3
#define RB_STATE_DETACHED	4	/* released at a detach: the thread runs on, untraced */

/*
 * rb_ring.why, while state is RB_STATE_STOPPED: the reason in the low
 * seven bits, RB_WHY_EXIT when the thread stopped in a function's exit
 * (stopfn returned) rather than its entry (stopfn entered), and a
 * breakpoint's id above the low byte (RB_WHY_BREAKPOINT | id << 8).
 */
#define RB_WHY_NONE		0
#define RB_WHY_STOP		1	/* STOP command */
#define RB_WHY_SIGNAL		2	/* the ring's signal flag */
#define RB_WHY_STEP		3
#define RB_WHY_NEXT		4
#define RB_WHY_FINISH		5
#define RB_WHY_BREAKPOINT	6
#define RB_WHY_CREATE		7	/* stop_on_create */
#define RB_WHY_SINGLE		8	/* global single stepping */
#define RB_WHY_EXIT		0x80	/* stopped as stopfn returned */
#define RB_WHY_REASON(w)	((uint32_t)(w) & 0x7fu)
#define RB_WHY_ID(w)		((uint32_t)(w) >> 8)

/*
 * rb_ring.attention bits: the hot path checks the word as a whole; any bit
 * sends the hook to the cold path.  Both sides change it only with atomic
 * or/and.  A monitor sets a bit after the request it announces (cmdready,
 * signal, header.single); the owner clears a bit before it looks at the
 * request, so a request made meanwhile is never lost.
 */
#define RB_ATTN_UNTRACED	0x1u	/* trace is off: keep no stack */
#define RB_ATTN_COMMAND		0x2u	/* cmdready == 1 */
#define RB_ATTN_WATCH		0x4u	/* a watch wants a value */
#define RB_ATTN_SIGNAL		0x8u	/* signal set: stop at the next hook */
#define RB_ATTN_SINGLE		0x10u	/* global single stepping */
/* 0x20 is free: breakpoints are found through their filter instead. */
#define RB_ATTN_SELF		0x40u	/* owner's own: step, finish, create */

/*
 * rb_ring.cmdready (rbtrace(5), "Command handshake"): three states, plus
 * two transient ones that make the handshake safe between several
 * monitors and against a timeout: a monitor claims an empty area by
 * compare-and-swap 0 -> WRITING, and the owner takes a posted command by
 * compare-and-swap POSTED -> TAKEN, so a monitor that gives up can
 * withdraw a command (POSTED -> EMPTY) that was never started.
 */
#define RB_CMD_EMPTY		0
#define RB_CMD_POSTED		1
#define RB_CMD_RESPONSE		(-2)
#define RB_CMD_WRITING		2	/* a monitor is writing a command */
#define RB_CMD_TAKEN		3	/* the owner is executing it */

/*
 * rb_watch.inuse (rbtrace(5), "WATCH PROTOCOL"), as cmdready: a monitor
 * claims a free entry by compare-and-swap FREE -> WRITING, fills it and
 * stores SET; it asks for removal by compare-and-swap SET -> REMOVING,
 * and only the owner frees the entry (REMOVING -> FREE).  The owner serves
 * SET, frees REMOVING and leaves any other value alone.
 */
#define RB_WATCH_FREE		0
#define RB_WATCH_SET		1	/* the owner evaluates it when asked */
#define RB_WATCH_REMOVING	(-2)	/* removal asked: the owner frees it */
#define RB_WATCH_WRITING	2	/* a monitor is filling it */

/*
 * An expression that begins so is a snapshot trigger (rbtrace(5),
 * "SNAPSHOTS"): the owner evaluates the rest, and a value that goes from
 * false (0, empty) to true triggers a snapshot of its process.
 */
#define RB_WATCH_SNAP_PREFIX	"@snapshot "
#define RB_WATCH_SNAP_PREFIX_LEN	10

struct rb_ring {
	/* identity: written by the owner before it publishes the claim */
	int32_t		pid;
	int32_t		tid;
	uint64_t	pstart;		/* process start time, as creator_start */
	uint64_t	image;		/* selects rb_object entries */
	uint64_t	gen;		/* copy of rb_owner.gen at claim */
	uint64_t	created_ns;	/* CLOCK_MONOTONIC */
	uint64_t	exited_ns;	/* CLOCK_MONOTONIC, 0 while running */
	char		name[RB_THREAD_NAME_MAX];
	int32_t		state;		/* RB_STATE_* */
	int32_t		why;		/* stop reason, see control commands */
	int32_t		ppid;
	int32_t		inherited;	/* frames copied from the parent at fork */
	uint64_t	stop_ns;	/* CLOCK_MONOTONIC of the last stop */
	uint64_t	stopfn;		/* function of the last stop, see why */
	uint32_t	stops;		/* times the thread stopped */
	uint32_t	orphaned;	/* times it resumed itself: no monitor */

	/* the stack: written only by the owning thread */
	int32_t		currSlot __attribute__((aligned(RB_CACHELINE)));
	int32_t		depth;		/* frames on the stack, wrapped or not */
	int32_t		trace;		/* 1: keep the stack */
	int32_t		signal;		/* 1: stop at the next hook */
	uint32_t	attention;	/* RB_ATTN_*: non-zero sends hooks slow */
	uint32_t	wake;		/* futex: bumped after every request */
	uint64_t	pinned_site;	/* site of level `pinned` once the
					   ring reused its slot */

	/* commands and watches: monitor <-> owner */
	int32_t		cmdready __attribute__((aligned(RB_CACHELINE)));
	char		command[4];
	int32_t		msglen;
	int32_t		cmdpid;		/* the monitor that posted */
	struct rb_watch	watches[RB_WATCHES];
	/* msgarea[msg_sz] at msgarea_off, slots at slots_off */
};

/* rb_slot.flags */
#define RB_SLOT_NAMED		0x1u	/* name holds "function\0file" */
#define RB_SLOT_ATTACH		0x2u	/* with NAMED: the frames a thread had
					   entered before an attach, unknown */
#define RB_SLOT_SEEDED		0x4u	/* entered before an attach, found by
					   unwinding the stack: no entry time */

/* The before-attach frame's name. */
#define RB_ATTACH_MARKER	"[frames before attach]"

/*
 * One frame.  seq is odd while the owner rewrites the slot; depth says
 * which stack level the slot holds, so a slot overwritten by a deeper,
 * wrapped frame is recognised after the stack unwinds.
 */
struct rb_slot {
	uint32_t	seq;
	uint32_t	depth;
	uint64_t	fn;		/* function address (0 for named frames) */
	uint64_t	site;		/* return address in the caller */
	uint64_t	hook;		/* return address of the entry hook's
					   call, in the function's code or in
					   the code it was inlined into; 0 for
					   named and seeded frames */
	uint64_t	sp;		/* the function's stack pointer when it
					   called the entry hook; RB_SP_NONE
					   for named frames */
	uint64_t	ts;		/* entry time, rb_header.clock units
					   (0 with RB_CLOCK_NONE) */
	int32_t		line;		/* line mark, 0 = none */
	uint32_t	flags;		/* RB_SLOT_* */
	/* char name[slot_sz] */
};

#define RB_SP_NONE		UINT64_MAX

/*
 * Which slot holds stack level @level.  The first @pinned levels (the
 * outermost frames: main and its first callees) keep slots of their own;
 * deeper levels share the others as a ring, so a stack deeper than the
 * ring keeps its outermost and its innermost frames.  With 8 slots, 2
 * pinned, and a stack 11 levels deep:
 *
 *	slot     0   1 | 2   3   4   5   6   7
 *	level    0   1 | 8   9  10   5   6   7      depth 11
 *	         pinned| level l >= 2 in slot 2 + (l - 2) % 6
 *
 * Levels 2 to 4 were overwritten by 8 to 10.  A reader shows 10 down to
 * 5, a gap, then 1 and 0; the gap's site is pinned_site, which the owner
 * kept from slot 2 (level 2's return address into level 1) before level 8
 * took that slot.  Once the stack unwinds to level 4, slots 2 to 4 still
 * hold levels 8 to 10: each slot's depth field says so, and a reader
 * counts them as overwritten, not as levels 2 to 4.
 */
static inline uint32_t rb_slot_index(uint32_t level, uint32_t slots,
				     uint32_t pinned)
{
	if (level < pinned)
		return level;
	return pinned + (level - pinned) % (slots - pinned);
}

/* How many of @slots slots a file pins to the outermost levels. */
static inline uint32_t rb_slots_pinned(uint32_t slots)
{
	return slots / 4;
}

/*
 * The event log: each ring's recent history, written by the ring's owner
 * only (rbtrace(5), "EVENT LOG").  head counts the records ever stored and
 * is published with release after each; the record with index i is
 * records[i % events].  Policies (rb_header.ev_policy), DTrace's:
 */
#define RB_POLICY_RING		0	/* overwrite the oldest */
#define RB_POLICY_FILL		1	/* keep the first, then drop */
#define RB_POLICY_DRAIN		2	/* a consumer advances tail; drop
					   when full, mark the gap */
#define RB_POLICY_MAX		RB_POLICY_DRAIN

/* rb_event.kind */
#define RB_EV_NONE		0
#define RB_EV_ENTRY		1	/* fn entered from site (arg) */
#define RB_EV_EXIT		2	/* fn left */
#define RB_EV_LOST		3	/* arg records dropped just before */
#define RB_EV_NAMED		4	/* rbtrace_push(): arg = line; the
					   next `aux` records are RB_EV_TEXT
					   holding "name\0file\0" */
#define RB_EV_NAMED_EXIT	5	/* rbtrace_pop() */
#define RB_EV_TEXT		6	/* 24 bytes of a name in ts, fn, arg */
#define RB_EV_LINE		7	/* rbtrace_line(): arg = line, fn = the
					   function on top (0: named) */
#define RB_EV_STOP		8	/* the thread stopped: arg = why
					   (RB_WHY_*), fn = where */
#define RB_EV_RESUME		9	/* ... and ran on: arg = what resumed
					   it (0: a command, 1: its orphan
					   timeout) */
#define RB_EV_OFF		10	/* recording switched off (EVOF) */
#define RB_EV_ON		11	/* and on again (EVON) */
#define RB_EV_KIND_MAX		RB_EV_ON

#define RB_EV_TEXT_MAX		5	/* text records of one name: 120 bytes */
#define RB_EV_TEXT_BYTES	24

/* One record, 32 bytes. */
struct rb_event {
	uint64_t	ts;		/* rb_header.clock units; with
					   RB_CLOCK_NONE a sequence, no time */
	uint64_t	fn;		/* function address, or as the kind says */
	uint64_t	arg;		/* call site, or as the kind says */
	uint32_t	kind;		/* RB_EV_* */
	uint32_t	aux;		/* RB_EV_NAMED: text records that follow */
};

/*
 * A ring's event log header, followed by struct rb_event[events].  The
 * owner writes head, dropped, pending_lost, stalled, rewinds and peak; a
 * consumer (drain) writes tail, on a cache line of its own; monitors
 * write off; both write waiting and min_duration.
 */
struct rb_evlog {
	uint64_t	head;		/* records stored, ever (release) */
	uint64_t	dropped;	/* records offered and not stored */
	uint64_t	pending_lost;	/* drain: dropped, gap not marked yet */
	uint32_t	off;		/* RB_EVOFF_*: recording off */
	uint32_t	pad0;
	uint64_t	stalled;	/* drain, blocking: tail + 1 when the
					   owner's last wait ran out, 0 */
	uint64_t	rewinds;	/* short calls taken back: head moved
					   back over their entry (release,
					   after the head's store) */
	uint64_t	peak;		/* the highest head a rewind moved
					   back from (before the head's store) */
	uint64_t	min_duration;	/* rb_header.min_duration as the owner
					   compares it: copied at its start,
					   stored by monitors after the header */
	uint64_t	tail __attribute__((aligned(RB_CACHELINE)));
					/* drain: records consumed (release) */
	uint32_t	waiting;	/* drain, blocking: 1 while the owner
					   waits for room (a futex word) */
	uint32_t	pad3;
	uint64_t	pad2[6];
};

/* rb_evlog.off: any bit set switches recording off. */
#define RB_EVOFF_USER		0x1u	/* EVOF, by a monitor */
#define RB_EVOFF_SNAP		0x2u	/* frozen for a snapshot */

/* Records per ring a file may have: 0, or a power of two in range. */
static inline int rb_events_valid(uint64_t n)
{
	return n == 0 || (n >= RB_MIN_EVENTS && n <= RB_MAX_EVENTS &&
			  (n & (n - 1)) == 0);
}

/*
 * Dynamic tracing (rbtrace(5), "DYNAMIC TRACING"): every call of the hooks
 * in a process's code is a site, switched between the call and a no-op
 * at run time.  One entry per process that ever switched a site off, written
 * only by that process's librbtrace, as a seqlock: gen odd while it
 * changes, readers copy the entry between two equal even loads of gen.
 */
#define RB_DYN_PROCS		16
#define RB_DYN_LISTED		1024	/* functions off named per process */
#define RB_DYN_WHY_MAX		128

/* rb_dynproc.state */
#define RB_DYNP_FREE		0
#define RB_DYNP_CLAIMED		1

/* rb_dynproc.flags */
#define RB_DYNF_DORMANT		0x01u	/* asleep: every site off */
#define RB_DYNF_REFUSED		0x02u	/* the system refused to write code:
					   no site can be switched; why says
					   why */
#define RB_DYNF_AUTO		0x04u	/* automatic exclusion asked for */
#define RB_DYNF_AUTO_DONE	0x08u	/* its warm-up is over */
#define RB_DYNF_PARTIAL		0x10u	/* some objects have no site table
					   (why says which) */

/* rb_dynfn.reason: why a function is off (bits). */
#define RB_DYN_BY_NAME		0x1u	/* --exclude, or a monitor */
#define RB_DYN_BY_AUTO		0x2u	/* --auto-exclude */

struct rb_dynfn {
	uint64_t	addr;		/* the function (this_fn), runtime */
	uint32_t	reason;		/* RB_DYN_BY_* */
	uint32_t	pad;
};

struct rb_dynproc {
	uint32_t	state;		/* RB_DYNP_*, claimed by compare-and-swap */
	uint32_t	gen;		/* odd while the entry changes */
	int32_t		pid;
	uint32_t	flags;		/* RB_DYNF_* */
	uint64_t	pstart;		/* the process's start time */
	uint64_t	image;		/* rb_ring.image of the process */
	uint32_t	objects;	/* objects with sites */
	uint32_t	funcs;		/* functions with sites */
	uint64_t	sites;		/* sites in the tables */
	uint64_t	sites_off;	/* sites that are a no-op now */
	uint32_t	off_name;	/* functions off by name */
	uint32_t	off_auto;	/* functions off automatically */
	uint32_t	listed;		/* entries of fns[] in use */
	uint32_t	pad;
	uint64_t	batches;	/* patch batches applied */
	uint64_t	traps;		/* threads sent on from a trap */
	uint64_t	private_bytes;	/* text made private by writing it */
	uint64_t	last_ns;	/* how long the last batch took */
	char		why[RB_DYN_WHY_MAX];
	struct rb_dynfn	fns[RB_DYN_LISTED];
};

/*
 * Captures of slow calls (rbtrace(5), "CAPTURES").  The armed table names
 * a function (an entry address of one process image) and how slow a call
 * must be; its address's bit in the breakpoint filter sends the entry
 * hook to the table.  When a call of it returns slower than that, the
 * thread copies the call's event-log records, entry to exit, and the
 * frames below it into one of the entry's RB_CAP_KEEP_MAX capture slots
 * (slot entry * RB_CAP_KEEP_MAX + k): those it kept are the slowest.
 */
#define RB_CAP_FNS		8	/* armed table entries, one per address */
#define RB_CAP_KEEP_MAX		8	/* captures kept per entry, at most */
#define RB_CAP_KEEP_DEF		8
#define RB_CAP_SLOTS		(RB_CAP_FNS * RB_CAP_KEEP_MAX)
#define RB_CAP_EVENTS		1024	/* records one capture holds */
#define RB_CAP_FRAMES		32	/* frames below the function */
#define RB_CAP_NAME		128

/* rb_capfn.ctl: as rb_bp.ctl, RB_BP_FREE, RB_BP_WRITING, RB_BP_SET. */

/* rb_capfn.flags */
#define RB_CAPF_MAX		0x1u	/* slower than the slowest so far
					   (max_ns), not than threshold_ns */

/*
 * One armed function location.  Written by monitors (CAPT, CCLR) and by
 * librbtrace (--capture at start-up), published as struct rb_bp through
 * ctl; the counters are atomic adds of the threads that capture.
 */
struct rb_capfn {
	uint32_t	ctl;		/* RB_BP_*, changed by compare-and-swap */
	uint32_t	flags;		/* RB_CAPF_* */
	int32_t		pid;		/* the process ... */
	int32_t		setter;		/* pid of who wrote the entry */
	uint64_t	pstart;		/* ... its start time */
	uint64_t	image;		/* rb_ring.image of the process */
	uint64_t	addr;		/* the function's entry, runtime */
	uint64_t	threshold_ns;	/* captured when slower than this */
	uint32_t	keep;		/* captures kept, 1 .. RB_CAP_KEEP_MAX */
	uint32_t	id;		/* the arming's id, shared by its
					   locations */
	uint64_t	max_ns;		/* the slowest call so far; CAS */
	uint64_t	fired;		/* calls slower than the condition */
	uint64_t	stored;		/* captures written */
	uint64_t	dropped;	/* fired, not kept: faster than every
					   kept one, or their slot busy */
	char		name[RB_CAP_NAME];	/* as armed, NUL-terminated */
};

/* A frame below the captured function: frames[0] is its caller. */
struct rb_capframe {
	uint64_t	fn;		/* 0: a named frame or not known */
	uint64_t	site;
};

/* rb_capture.flags */
#define RB_CAPT_NOLOG		0x1u	/* the thread had no event log on:
					   the records are the call's own */

/*
 * One capture, published seqlock style (rbtrace(5), "CAPTURES"): seq odd
 * while a thread writes it, even once it is whole, 0 never written.  A
 * reader copies it between two equal even loads of seq.
 */
struct rb_capture {
	uint32_t	seq;
	uint32_t	entry;		/* the armed entry it was taken for */
	uint32_t	id;		/* that entry's id then */
	uint32_t	flags;		/* RB_CAPT_* */
	int32_t		pid;
	int32_t		tid;
	uint64_t	pstart;
	uint64_t	image;
	uint64_t	fn;		/* the function */
	uint64_t	ts_entry;	/* rb_header.clock units */
	uint64_t	ts_exit;
	uint64_t	dur_ns;		/* the call's duration */
	uint64_t	realtime_ns;	/* CLOCK_REALTIME at its return */
	uint64_t	lost;		/* records of the call not held */
	uint32_t	nrec;		/* records[] used */
	uint32_t	nframes;	/* frames[] used */
	uint32_t	depth;		/* the function's stack level */
	uint32_t	ring;
	char		thread[RB_THREAD_NAME_MAX];
	char		name[RB_CAP_NAME];	/* the entry's name then */
	struct rb_capframe frames[RB_CAP_FRAMES];
	struct rb_event	records[RB_CAP_EVENTS];
};

#define RB_ALIGN(x, a)		(((x) + ((uint64_t)(a) - 1)) & ~((uint64_t)(a) - 1))

/* The layout arithmetic, shared by writers and readers. */
struct rb_geometry {
	uint32_t	rings, slots, slot_sz, msg_sz, global_sz, objects;
	uint32_t	events, ev_policy;
};

struct rb_layout {
	uint64_t	gma_off, owners_off, objects_off, rings_off;
	uint64_t	bpfilter_off, bps_off, dyn_off;
	uint64_t	capfn_off, cap_off;
	uint32_t	msgarea_off, slots_off, slot_size, ring_size;
	uint32_t	events_off;
	uint64_t	total_size;
};

/**
 * rb_layout_compute - place every part of a file of geometry @g
 * @g: validated geometry
 * @l: filled in
 *
 * Return: 0, or -1 if the file would exceed RB_MAX_FILE_SIZE.
 */
static inline int rb_layout_compute(const struct rb_geometry *g,
				    struct rb_layout *l)
{
	uint64_t ring;

	l->gma_off = RB_ALIGN(sizeof(struct rb_header), RB_CACHELINE);
	l->owners_off = RB_ALIGN(l->gma_off + g->global_sz, RB_CACHELINE);
	l->objects_off = RB_ALIGN(l->owners_off +
				  (uint64_t)g->rings * sizeof(struct rb_owner),
				  RB_CACHELINE);
	l->bpfilter_off = RB_ALIGN(l->objects_off +
				   (uint64_t)g->objects * sizeof(struct rb_object),
				   RB_CACHELINE);
	l->bps_off = l->bpfilter_off + RB_BP_FILTER_BITS / 8;
	l->dyn_off = RB_ALIGN(l->bps_off +
			      (uint64_t)RB_BP_ENTRIES * sizeof(struct rb_bp),
			      RB_CACHELINE);
	l->capfn_off = RB_ALIGN(l->dyn_off +
				(uint64_t)RB_DYN_PROCS * sizeof(struct rb_dynproc),
				RB_CACHELINE);
	l->cap_off = RB_ALIGN(l->capfn_off +
			      (uint64_t)RB_CAP_FNS * sizeof(struct rb_capfn),
			      RB_CACHELINE);
	l->rings_off = RB_ALIGN(l->cap_off +
				(uint64_t)RB_CAP_SLOTS * sizeof(struct rb_capture),
				4096);
	l->msgarea_off = (uint32_t)sizeof(struct rb_ring);
	l->slots_off = (uint32_t)RB_ALIGN(l->msgarea_off + g->msg_sz,
					  RB_CACHELINE);
	l->slot_size = (uint32_t)RB_ALIGN(sizeof(struct rb_slot) + g->slot_sz, 8);
	ring = RB_ALIGN(l->slots_off + (uint64_t)g->slots * l->slot_size,
			RB_CACHELINE);
	l->events_off = 0;
	if (ring > UINT32_MAX)
		return -1;
	l->events_off = (uint32_t)ring;
	ring = RB_ALIGN(ring + sizeof(struct rb_evlog) +
			(uint64_t)g->events * sizeof(struct rb_event),
			RB_CACHELINE);
	l->ring_size = 0;
	l->total_size = 0;
	if (ring > UINT32_MAX)
		return -1;
	l->ring_size = (uint32_t)ring;
	l->total_size = RB_ALIGN(l->rings_off + (uint64_t)g->rings * ring, 4096);
	return l->total_size > RB_MAX_FILE_SIZE ? -1 : 0;
}

/**
 * rb_header_check_layout - is a header's geometry within its limits, its
 * clock known, and its layout exactly what the geometry implies?
 * @h: a private copy of the header (magic, version, sizes checked before)
 * @what: set to the first field found wrong, or to "layout"
 * @value: set to that field's value
 *
 * The one rule writers joining a file and readers share.
 * Return: 0, or -1 with @what and @value set.
 */
static inline int rb_header_check_layout(const struct rb_header *h,
					 const char **what, uint64_t *value)
{
	static const struct {
		const char	*name;
		size_t		off;
		uint32_t	lo, hi;
	} lim[] = {
		{ "rings", offsetof(struct rb_header, rings), RB_MIN_RINGS, RB_MAX_RINGS },
		{ "slots", offsetof(struct rb_header, slots), RB_MIN_SLOTS, RB_MAX_SLOTS },
		{ "slot_sz", offsetof(struct rb_header, slot_sz), RB_MIN_SLOT_SZ, RB_MAX_SLOT_SZ },
		{ "msg_sz", offsetof(struct rb_header, msg_sz), RB_MIN_MSG_SZ, RB_MAX_MSG_SZ },
		{ "global_sz", offsetof(struct rb_header, global_sz), RB_MIN_GLOBAL_SZ, RB_MAX_GLOBAL_SZ },
		{ "objects", offsetof(struct rb_header, objects), 0, RB_MAX_OBJECTS },
	};
	struct rb_geometry g;
	struct rb_layout l;
	size_t i;

	for (i = 0; i < sizeof(lim) / sizeof(lim[0]); i++) {
		uint32_t v = *(const uint32_t *)((const char *)h + lim[i].off);

		if (v < lim[i].lo || v > lim[i].hi) {
			*what = lim[i].name;
			*value = v;
			return -1;
		}
	}
	if (h->clock < RB_CLOCK_MONO || h->clock > RB_CLOCK_MAX) {
		*what = "clock";
		*value = h->clock;
		return -1;
	}
	g.rings = h->rings;
	g.slots = h->slots;
	g.slot_sz = h->slot_sz;
	g.msg_sz = h->msg_sz;
	g.global_sz = h->global_sz;
	g.objects = h->objects;
	g.events = h->events;
	g.ev_policy = h->ev_policy;
	if (!rb_events_valid(h->events)) {
		*what = "events";
		*value = h->events;
		return -1;
	}
	if (h->ev_policy > RB_POLICY_MAX) {
		*what = "ev_policy";
		*value = h->ev_policy;
		return -1;
	}
	*what = "layout";
	*value = 0;
	if (rb_layout_compute(&g, &l) < 0 ||
	    l.gma_off != h->gma_off || l.owners_off != h->owners_off ||
	    l.objects_off != h->objects_off || l.rings_off != h->rings_off ||
	    l.bpfilter_off != h->bpfilter_off || l.bps_off != h->bps_off ||
	    h->bps != RB_BP_ENTRIES || h->bpfilter_bits != RB_BP_FILTER_BITS ||
	    l.dyn_off != h->dyn_off || h->dyn_procs != RB_DYN_PROCS ||
	    l.capfn_off != h->capfn_off || h->capfns != RB_CAP_FNS ||
	    l.cap_off != h->cap_off || h->caps != RB_CAP_SLOTS ||
	    l.msgarea_off != h->msgarea_off || l.slots_off != h->slots_off ||
	    l.slot_size != h->slot_size || l.ring_size != h->ring_size ||
	    l.events_off != h->events_off ||
	    l.total_size != h->total_size)
		return -1;
	if (h->pinned != rb_slots_pinned(h->slots)) {
		*what = "pinned";
		*value = h->pinned;
		return -1;
	}
	return 0;
}

static inline struct rb_owner *rb_owner_at(void *base,
					   const struct rb_header *h, uint32_t i)
{
	return (struct rb_owner *)((char *)base + h->owners_off) + i;
}

static inline struct rb_object *rb_object_at(void *base,
					     const struct rb_header *h, uint32_t i)
{
	return (struct rb_object *)((char *)base + h->objects_off) + i;
}

static inline struct rb_dynproc *rb_dynproc_at(void *base,
					       const struct rb_header *h,
					       uint32_t i)
{
	return (struct rb_dynproc *)((char *)base + h->dyn_off) + i;
}

static inline struct rb_capfn *rb_capfn_at(void *base,
					   const struct rb_header *h, uint32_t i)
{
	return (struct rb_capfn *)((char *)base + h->capfn_off) + i;
}

static inline struct rb_capture *rb_capture_at(void *base,
					       const struct rb_header *h,
					       uint32_t i)
{
	return (struct rb_capture *)((char *)base + h->cap_off) + i;
}

static inline struct rb_bp *rb_bp_at(void *base, const struct rb_header *h,
				     uint32_t i)
{
	return (struct rb_bp *)((char *)base + h->bps_off) + i;
}

static inline uint64_t *rb_bpfilter(void *base, const struct rb_header *h)
{
	return (uint64_t *)((char *)base + h->bpfilter_off);
}

static inline struct rb_ring *rb_ring_at(void *base,
					 const struct rb_header *h, uint32_t i)
{
	return (struct rb_ring *)((char *)base + h->rings_off +
				  (uint64_t)i * h->ring_size);
}

static inline struct rb_slot *rb_slot_at(const struct rb_header *h,
					 struct rb_ring *r, uint32_t i)
{
	return (struct rb_slot *)((char *)r + h->slots_off +
				  (uint64_t)i * h->slot_size);
}

static inline char *rb_slot_name(struct rb_slot *s)
{
	return (char *)(s + 1);
}

static inline struct rb_evlog *rb_ring_evlog(const struct rb_header *h,
					    struct rb_ring *r)
{
	return (struct rb_evlog *)((char *)r + h->events_off);
}

static inline struct rb_event *rb_evlog_records(struct rb_evlog *l)
{
	return (struct rb_event *)(l + 1);
}

static inline char *rb_ring_msgarea(const struct rb_header *h,
				    struct rb_ring *r)
{
	return (char *)r + h->msgarea_off;
}

#endif /* RBTRACE_FORMAT_H */
