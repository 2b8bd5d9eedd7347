/* SPDX-License-Identifier: MIT */
/*
 * rbmon recordings: the file `rbtrace record` and `rbmon --record` write
 * and replay, report and export read (rbtrace(5), "RECORDINGS").
 *
 * A recording is a header and a sequence of chunks, each a type, a length
 * and a payload padded to 8 bytes, written as the recorder goes: a
 * recording cut short (the recorder killed, the disk full) is read up to
 * its last whole chunk.  Everything a reader needs is in the file: the
 * clock and its calibration, the loaded objects with their build ids, the
 * threads and their records, the losses, and the totals.
 */
#ifndef RBMON_RECFILE_H
#define RBMON_RECFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "rbtrace/format.h"

#define RBREC_MAGIC		"RBTRREC\x1a"	/* 8 bytes */
#define RBREC_VERSION		1
#define RBREC_CHUNK_MAX		(16u << 20)	/* payload bytes */
#define RBREC_ALIGN		8

/* The file header: the first 64 bytes. */
struct rbrec_header {
	char		magic[8];
	uint32_t	version;
	uint32_t	header_size;	/* sizeof(struct rbrec_header) */
	uint32_t	endian;		/* RB_ENDIAN_MARK */
	uint32_t	flags;		/* 0 */
	uint64_t	created_realtime_ns;	/* when recording began */
	uint64_t	reserved[4];
};

/* Chunk types. */
#define RBREC_INFO		1	/* the traced program and its clock */
#define RBREC_CLOCK		2	/* a (TSC, CLOCK_MONOTONIC) pair */
#define RBREC_OBJECT		3	/* a loaded object of a process image */
#define RBREC_THREAD		4	/* a thread's stream begins */
#define RBREC_EVENTS		5	/* records of one stream, encoded */
#define RBREC_LOST		6	/* records of one stream never recorded */
#define RBREC_THREAD_END	7	/* a stream ends (its thread exited) */
#define RBREC_END		8	/* the recording's totals, last */
#define RBREC_DYN		9	/* functions a process did not trace */
#define RBREC_SNAP		10	/* a snapshot's trigger */
#define RBREC_SHORT		11	/* a stream's short calls taken back */
#define RBREC_TYPE_MAX		RBREC_SHORT

struct rbrec_chunk {
	uint32_t	type;		/* RBREC_* */
	uint32_t	len;		/* payload bytes, before the padding */
};

struct rbrec_info {
	char		program[RB_PROGRAM_MAX];
	char		boot_id[RB_BOOT_ID_MAX];
	char		trace[RB_PATH_MAX];	/* the trace file recorded */
	uint32_t	clock;		/* RB_CLOCK_* of every ts */
	uint32_t	policy;		/* RB_POLICY_* of the trace file */
	uint32_t	events;		/* its records per ring */
	uint32_t	rings;
	int32_t		creator_pid;
	int32_t		recorder_pid;
	uint64_t	clock_tsc0, clock_ns0, clock_tsc_hz;	/* the file's */
	uint64_t	start_ns;	/* CLOCK_MONOTONIC when recording began */
};

struct rbrec_clock {
	uint64_t	tsc;
	uint64_t	ns;		/* CLOCK_MONOTONIC, read next to tsc */
};

struct rbrec_object {
	uint64_t	image;
	uint64_t	base, lo, hi;
	uint32_t	flags;
	uint32_t	build_id_len;
	uint8_t		build_id[RB_BUILD_ID_MAX];
	char		path[RB_PATH_MAX];	/* NUL-terminated */
};

struct rbrec_thread {
	uint32_t	stream;		/* 1, 2, ... in the order first seen */
	uint32_t	ring;
	int32_t		pid, tid, ppid;
	uint32_t	pad;
	uint64_t	image;
	uint64_t	pstart;		/* the process's start time, ticks */
	uint64_t	created_ns;	/* CLOCK_MONOTONIC */
	uint64_t	first;		/* index of its first record in its log */
	char		name[RB_THREAD_NAME_MAX];
};

/*
 * Records of one stream, from index `first` of its log on: `count`
 * records, encoded after this header (see recfile.c): each a byte with the
 * kind and which fields follow, then the time as a signed difference to
 * the previous record's (ts0 for the first), the function as a difference
 * to the previous one when it changed, the argument and aux when not zero.
 */
struct rbrec_events {
	uint32_t	stream;
	uint32_t	count;
	uint64_t	first;
	uint64_t	ts0;
};

/* rbrec_lost.why */
#define RBREC_LOST_OVERWRITTEN	1	/* ring: overwritten before read */
#define RBREC_LOST_REUSED	2	/* the ring went to another thread first */
#define RBREC_LOST_DROPPED	3	/* dropped by the thread after its last
					   record: no lost record in its stream
					   says so (it ended, or recording did,
					   with its log full); at: no index */

struct rbrec_lost {
	uint32_t	stream;
	uint32_t	why;		/* RBREC_LOST_* */
	uint64_t	count;		/* records; 0: unknown how many */
	uint64_t	at;		/* the index the gap starts at */
};

/*
 * The short calls a stream's thread took back out of its log so far
 * (rbtrace(5), "EVENT LOG", "Short calls"): never recorded, and not lost
 * either.  The last chunk of a stream holds its count.
 */
struct rbrec_short {
	uint32_t	stream;
	uint32_t	pad;
	uint64_t	count;
};

struct rbrec_thread_end {
	uint32_t	stream;
	uint32_t	pad;
	uint64_t	next;		/* index after its last record */
	uint64_t	exited_ns;	/* CLOCK_MONOTONIC, 0: unknown */
	char		name[RB_THREAD_NAME_MAX];	/* its name at the end */
};

/* rbrec_end.reason */
#define RBREC_END_EXITED	1	/* every process of the file ended */
#define RBREC_END_STOPPED	2	/* interrupted (SIGINT, SIGTERM) */
#define RBREC_END_ERROR		3	/* the trace file went bad */
#define RBREC_END_SNAPSHOT	4	/* a snapshot: the logs as they were */

struct rbrec_end {
	uint32_t	reason;		/* RBREC_END_* */
	uint32_t	streams;
	uint64_t	records;	/* recorded, lost records aside */
	uint64_t	lost;		/* overwritten, reused: LOST chunks of
					   why 1 and 2, and reused rings */
	uint64_t	dropped;	/* by the writers: lost records in streams
					   and LOST chunks of why 3 */
	uint64_t	end_ns;		/* CLOCK_MONOTONIC */
	uint64_t	cpu_ns;		/* the recorder's user + system time */
	uint64_t	bytes;		/* the file, this chunk included */
};

/*
 * A process image's dynamic tracing (rbtrace(5), "DYNAMIC TRACING") as the
 * recorder saw its entry: at the start, whenever it changed, and at the
 * end.  `nfns` struct rb_dynfn follow, at most RBREC_DYN_FNS_MAX.
 */
#define RBREC_DYN_FNS_MAX	RB_DYN_LISTED
#define RBREC_DYN_FLAGS		(RB_DYNF_DORMANT | RB_DYNF_REFUSED | \
				 RB_DYNF_AUTO | RB_DYNF_AUTO_DONE | \
				 RB_DYNF_PARTIAL)
#define RBREC_DYN_REASONS	(RB_DYN_BY_NAME | RB_DYN_BY_AUTO)

struct rbrec_dyn {
	uint64_t	image;		/* rb_ring.image of the process */
	int32_t		pid;
	uint32_t	flags;		/* RB_DYNF_* */
	uint64_t	pstart;		/* the process's start time, ticks */
	uint64_t	sites;		/* sites in its tables */
	uint64_t	sites_off;	/* of them, a no-op when seen */
	uint32_t	funcs;		/* functions with sites */
	uint32_t	off_name;	/* functions off by name */
	uint32_t	off_auto;	/* functions off automatically only */
	uint32_t	nfns;		/* struct rb_dynfn that follow */
	uint64_t	seen_ns;	/* CLOCK_MONOTONIC when the entry was read */
};

/*
 * A snapshot (rbtrace(5), "SNAPSHOTS"): the trigger that froze the logs of
 * process pid, whose streams are the recording's.
 */
struct rbrec_snap {
	uint32_t	reason;		/* RB_SNAPR_* */
	int32_t		pid;		/* the process frozen */
	int32_t		tid;		/* the thread that triggered */
	uint32_t	number;		/* the writer's 1, 2, ... */
	uint64_t	fn;		/* as the reason says */
	uint64_t	arg;		/* signal, watch entry, duration (ns) */
	uint64_t	ts;		/* the freeze, in the clock's units */
	uint64_t	ns;		/* the freeze, CLOCK_MONOTONIC */
	uint64_t	taken;		/* the file's snapshots taken then */
	uint64_t	missed;		/* ... triggers missed */
	uint64_t	suppressed;	/* ... triggers suppressed */
};

/* ---- writing ------------------------------------------------------------ */

/* A chunk put and not yet written whole. */
struct rbrec_pending {
	uint64_t	end;		/* where it ends in the file */
	uint64_t	records;	/* its records, lost marks aside */
	uint64_t	lost;		/* records it says were lost */
	uint32_t	stream;		/* THREAD: the stream it begins, else 0 */
};

/*
 * Chunks are queued and written with write(2) at rbrec_flush() (and when
 * a MiB is queued); what the file holds is counted from what write(2)
 * took, whole chunks only.  After a failed write the file is cut back to
 * its last whole chunk and nothing more is written.
 */
struct rbrec_writer {
	int		 fd;		/* -1: closed */
	const char	*path;
	uint64_t	 bytes;		/* put: written or queued */
	uint64_t	 put_records;	/* in the chunks put, lost marks aside */
	uint64_t	 written;	/* taken by write(2) */
	uint64_t	 kept;		/* whole chunks in the file: its size */
	uint64_t	 records;	/* records in them, lost marks aside */
	uint64_t	 lost;		/* records they say were lost */
	uint32_t	 streams;	/* streams whose THREAD chunk is in them */
	int		 err;		/* errno of the first failure, 0: none */
	unsigned char	*out;		/* queued bytes */
	size_t		 outlen, outcap;
	struct rbrec_pending *pend;	/* chunks queued or partly written */
	size_t		 npend, cappend;
	unsigned char	*buf;		/* encoding scratch */
	size_t		 cap;
};

int	rbrec_open_write(struct rbrec_writer *, int, const char *,
	    uint64_t);
int	rbrec_put(struct rbrec_writer *, uint32_t, const void *, size_t,
	    const void *, size_t);
int	rbrec_put_events(struct rbrec_writer *, uint32_t, uint64_t,
	    const struct rb_event *, size_t);
int	rbrec_flush(struct rbrec_writer *);
int	rbrec_close_write(struct rbrec_writer *);

/* ---- reading ------------------------------------------------------------ */

/* A stream (one thread of the recording) and where its chunks are. */
struct rbrec_stream {
	struct rbrec_thread info;
	int		 ended;
	struct rbrec_thread_end end;
	size_t		*chunks;	/* offsets of its EVENTS and LOST chunks */
	size_t		 nchunks, capchunks;
	uint64_t	 records;	/* in its EVENTS chunks */
	uint64_t	 lost;		/* in its LOST chunks */
	uint64_t	 short_calls;	/* its last SHORT chunk's */
};

/*
 * A process image's DYN chunks, indexed: the last state, and what was
 * ever off while it was recorded.
 */
struct rbrec_dynproc {
	struct rbrec_dyn last;		/* its last chunk (nfns: of fns below
					   it listed) */
	uint32_t	 max_off;	/* off_name + off_auto, the most seen */
	int		 dormant;	/* asleep in some chunk */
	int		 refused;	/* the system refused in some chunk */
	uint64_t	*fns;		/* every function listed in some chunk,
					   sorted, at most RBREC_DYN_FNS_MAX */
	uint32_t	*reasons;	/* per fns[]: RB_DYN_BY_* ever given */
	size_t		 nfns;
	uint64_t	 chunks;
};

#define RBREC_DYN_PROCS_MAX	256	/* process images indexed */

struct rbrec {
	char		*path;
	const unsigned char *base;	/* the file, mapped */
	size_t		 size;
	uid_t		 uid;		/* its owner */
	gid_t		 gid;
	size_t		 used;		/* whole chunks end here */
	struct rbrec_header hdr;
	int		 have_info;
	struct rbrec_info info;
	struct rbrec_clock *clocks;
	size_t		 nclocks;
	struct rbrec_object *objects;
	size_t		 nobjects;
	struct rbrec_stream *streams;	/* by stream number - 1 */
	size_t		 nstreams;
	int		 have_end;
	struct rbrec_end end;
	int		 have_snap;	/* a snapshot: snap says its trigger */
	struct rbrec_snap snap;
	struct rbrec_dynproc *dyn;	/* per process image with DYN chunks */
	size_t		 ndyn;
	int		 clock_ok;	/* ts converts to ns (rbrec_ts_ns) */
	long double	 hz;		/* TSC ticks per second */
	uint64_t	 tsc_base, ns_base;
	char		*warning;	/* what was cut or skipped, or NULL */
};

/* One record of a stream as a reader walks it. */
struct rbrec_rec {
	struct rb_event	 e;
	uint64_t	 index;		/* in the thread's log */
	int		 lost;		/* 1: a gap, e.kind RB_EV_LOST, e.arg
					   the count (0: unknown) */
};

struct rbrec_cursor {
	const struct rbrec *r;
	const struct rbrec_stream *s;
	size_t		 chunk;		/* next chunk of s */
	const unsigned char *p, *end;	/* in the current EVENTS chunk */
	uint32_t	 left;		/* records left in it */
	uint64_t	 index;
	uint64_t	 ts, fn;
	int		 bad;		/* a chunk did not decode: skipped */
};

int	rbrec_open(struct rbrec *, const char *, char **);
void	rbrec_close(struct rbrec *);
void	rbrec_cursor_init(struct rbrec_cursor *, const struct rbrec *,
	    const struct rbrec_stream *);
int	rbrec_next(struct rbrec_cursor *, struct rbrec_rec *);
int	rbrec_ts_ns(const struct rbrec *, uint64_t, uint64_t *);

#endif /* RBMON_RECFILE_H */
