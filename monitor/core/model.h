/* SPDX-License-Identifier: MIT */
/* rbmon model: open, validate and snapshot a trace file, read-only. */
#ifndef RBMON_MODEL_H
#define RBMON_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "monitor/core/dyn.h"
#include "monitor/util/util.h"
#include "rbtrace/format.h"

#define RBMON_SLOT_TRIES	100	/* seq retries before a frame is torn */
#define RBMON_STACK_TRIES	10	/* whole-stack rereads */
#define RBMON_READY_WAIT_MS	1000	/* wait for header.ready */

/* An open trace file.  hdr is the one validated copy of the header. */
struct rbmon_model {
	char		*path;
	int		 fd;
	void		*base;
	size_t		 size;
	struct rb_header hdr;
	struct rbmon_tasks *tasks;	/* taskstat.c: /proc files and samples */
	uint64_t	 kernel_every_ns;	/* 0: /proc read at every snapshot */
	struct rbmon_slot_buf {
		char	*name;		/* slot_sz + 1 bytes of scratch */
	}		 scratch;
};

/* One loaded object of a process image, copied out of the file. */
struct rbmon_object {
	uint64_t	image;
	uint64_t	base, lo, hi;
	uint32_t	flags;
	uint32_t	build_id_len;
	uint8_t		build_id[RB_BUILD_ID_MAX];
	char		path[RB_PATH_MAX];
};

/* A slot as copied out of a ring (before validation against its level). */
struct rbmon_slot {
	uint32_t	seq;
	uint32_t	depth;
	uint64_t	fn, site, hook, ts;
	int32_t		line;
	uint32_t	flags;
	char		*name;		/* slot_sz + 1 bytes, NUL-terminated */
};

struct rbmon_frame {
	uint32_t	level;		/* stack level, 0 = outermost */
	uint32_t	seq;		/* slot seq when copied */
	int		torn;
	int		named;
	int		before_attach;	/* the frames entered before an attach */
	int		seeded;		/* entered before an attach, unwound */
	uint64_t	fn, site, ts;
	uint64_t	hook;		/* the entry hook's return address, 0:
					   none (rb_slot.hook) */
	uint64_t	seen_ns;	/* first seen, CLOCK_MONOTONIC; 0: not
					   tracked (rbmon_seen_update()) */
	int32_t		line;
	char		*function;	/* named frames only */
	char		*file;		/* named frames only, may be "" */
	/* what the frame shows, set by rbmon_stack_resolve() */
	int		resolved;
	int		inlined;	/* inlined into the frame below it */
	int		synthetic;	/* from debug info only: no slot */
	const char	*at_function;	/* NULL: unknown */
	const char	*at_file;	/* NULL: unknown */
	int		at_line;	/* 0: unknown */
};

/* A watch entry's protocol state, as copied out of a ring. */
struct rbmon_watch {
	int32_t		inuse;		/* RB_WATCH_* */
	int32_t		exprlength;
	int32_t		resready;
	int32_t		reslength;
	char		expr[RB_EXPR_MAX + 1];	/* unless inuse is FREE */
	char		result[RB_RESULT_MAX + 1];
};

struct rbmon_thread {
	uint32_t	ring;
	uint32_t	own;		/* RB_OWN_LIVE or RB_OWN_EXITED */
	int32_t		pid, tid, ppid;
	int32_t		state;		/* RB_STATE_* as the ring says */
	int32_t		why;		/* stop reason */
	uint64_t	stop_ns, stopfn;	/* last stop: when, which function */
	uint32_t	stops, orphaned;
	int32_t		trace;		/* 1: the stack is kept */
	int32_t		signal;
	uint32_t	attention;
	int32_t		cmdready;
	uint64_t	pstart, image, created_ns, exited_ns;
	char		name[RB_THREAD_NAME_MAX + 1];
	int32_t		depth;
	uint32_t	wrapped;	/* frames lost between ... */
	size_t		gap_at;		/* ... frames[gap_at - 1] and [gap_at] */
	uint64_t	gap_site;	/* return address into frames[gap_at] */
	size_t		nframes;
	struct rbmon_frame *frames;	/* newest first */
	struct rbmon_watch *watches;	/* RB_WATCHES, or NULL: none in use */
	/* What the kernel says (/proc/PID/task/TID); live threads only. */
	char		kstate;		/* R S D T t Z X I ...; 0: unknown */
	double		cpu;		/* % of a core, last interval; < 0: unknown */
	uint64_t	cpu_ns;		/* utime + stime, if kstate != 0 */
	char		*blocked_in;	/* rbmon_model_blocked(); NULL: not read */
	/* The ring's claim and its event log's counters (events.c). */
	uint64_t	gen;		/* rb_owner.gen when read */
	uint64_t	ev_head, ev_tail, ev_dropped, ev_pending;
	uint64_t	ev_rewinds;	/* short calls taken back */
	uint32_t	ev_off;		/* recording switched off */
};

/*
 * The number shown for frames[i] ("#N"): rows are numbered from the
 * innermost, and the rows after the overwritten frames count them, so the
 * outermost frame of a wrapped stack is numbered as deep as it is.
 */
static inline size_t
rbmon_frame_number(const struct rbmon_thread *t, size_t i)
{
	return t->wrapped != 0 && i >= t->gap_at ? i + t->wrapped : i;
}

struct rbmon_process {
	int32_t		pid;
	int32_t		ppid;		/* as its oldest ring says */
	uint64_t	pstart;
	uint64_t	image;		/* of its newest thread */
	int		alive;
	int		creator;
	uint64_t	first_ns;	/* earliest ring creation */
	size_t		nthreads;
	struct rbmon_thread *threads;	/* main thread first, then by tid */
	/* What the kernel says of the whole process (/proc/PID/stat). */
	char		kstate;		/* its main thread's; 0: unknown */
	double		cpu;		/* % of one core, all its threads (also
					   untraced and ended ones); < 0: unknown */
	uint64_t	cpu_ns;		/* utime + stime, if kstate != 0 */
	const struct rbmon_dyn *dyn;	/* its dynamic tracing entry (dyn.c),
					   in the snapshot's dyn[]; NULL: none */
};

struct rbmon_snapshot {
	uint32_t	rings_total;
	uint32_t	rings_used;	/* LIVE + CLAIMING */
	uint64_t	untraced;
	uint64_t	min_duration_ns;	/* as the file has it now */
	int32_t		single, stop_on_create, trace_on_create;
	/* trigger snapshots (rbtrace(5), "SNAPSHOTS"), the header's counts */
	struct rbmon_snapcount {
		uint64_t	taken, written, missed, suppressed;
		int32_t		writer;		/* its pid, 0: none */
		uint32_t	state;		/* RB_SNAP_* */
	}		snap;
	size_t		nprocs;
	struct rbmon_process *procs;
	size_t		nthreads;	/* while reading, before grouping */
	struct rbmon_thread *threads;
	size_t		nobjects;
	struct rbmon_object *objects;
	/*
	 * Names the object table: snapshots of one gen have the same
	 * objects (rbmon_snapshot_gen()).  0: unnamed, symbols.c indexes the
	 * table again at every lookup.
	 */
	uint64_t	gen;
	struct rbmon_dyns dyn;	/* the dynamic tracing table's entries */
};

/* Wall and trace clocks sampled once per snapshot. */
struct rbmon_clock {
	int		valid;		/* 0: ages unknown */
	uint64_t	now_ns;		/* CLOCK_MONOTONIC */
	uint32_t	kind;		/* RB_CLOCK_* */
	uint64_t	tsc0, ns0;
	long double	hz;
};

/*
 * For a file without a clock: when rbmon first saw each frame.  A frame
 * stays the same while its ring's claim, its level and its slot's seq do.
 */
struct rbmon_seen {
	struct rbmon_seen_ent	*v;	/* sorted */
	size_t			 n;
};

/* Called before a SIGBUS outside a snapshot kills rbmon (terminal reset). */
extern void (*rbmon_model_fatal_hook)(void);

int	rbmon_model_check_header(const struct rb_header *, uint64_t, char **);
int	rbmon_model_open(struct rbmon_model *, const char *, int, char **);
void	rbmon_model_close(struct rbmon_model *);
int	rbmon_model_snapshot(struct rbmon_model *, struct rbmon_snapshot *,
	    char **);
void	rbmon_model_free(struct rbmon_snapshot *);
uint64_t rbmon_snapshot_gen(void);
int	rbmon_model_guarded(struct rbmon_model *, void (*)(void *), void *);
int	rbmon_model_read_slot(const struct rb_slot *, uint32_t,
	    struct rbmon_slot *);
int	rbmon_model_read_stack(const struct rb_header *, struct rb_ring *,
	    struct rbmon_thread *, struct rbmon_slot *);
uint64_t rbmon_model_proc_start(pid_t);
const char *rbmon_model_blocked(const struct rbmon_process *,
	    struct rbmon_thread *);
uint64_t rbmon_mono_ns(void);
int	rbmon_model_pid_alive(pid_t, uint64_t);
const char *rbmon_model_program(const struct rbmon_model *,
	    const struct rbmon_snapshot *, uint64_t);

void	rbmon_clock_init(struct rbmon_clock *, const struct rb_header *);
int	rbmon_clock_pair(uint64_t *, uint64_t *);
int	rbmon_clock_age(const struct rbmon_clock *, uint64_t, uint64_t *);
int	rbmon_clock_ns(const struct rbmon_clock *, uint64_t, uint64_t *);
void	rbmon_age_format(char *, size_t, uint64_t);
void	rbmon_seen_update(struct rbmon_seen *, struct rbmon_snapshot *,
	    uint64_t);
void	rbmon_seen_free(struct rbmon_seen *);

#endif /* RBMON_MODEL_H */
