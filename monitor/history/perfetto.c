/* SPDX-License-Identifier: MIT */
/*
 * rbmon perfetto: a recording as Perfetto's native trace, for traces too
 * large for a JSON importer.
 *
 * The file is a protobuf `perfetto.protos.Trace`: a sequence of
 * `TracePacket`s, each field 1 of the Trace (so packets are written one
 * after the other and the file never needs to be held whole).  Field
 * numbers are those of Perfetto's protos/perfetto/trace/ (trace.proto,
 * trace_packet.proto, trace_packet_defaults.proto, the track_event/ ones,
 * interned_data/interned_data.proto, profiling/profile_common.proto).
 *
 * Per process a track descriptor (pid, program), per thread one (pid,
 * tid, name) and a packet sequence of its own: its first packet clears
 * the sequence's incremental state and sets the thread's track as the
 * default of every event after it; then the walk's frames as
 * TYPE_SLICE_BEGIN and TYPE_SLICE_END events, marks as TYPE_INSTANT, times
 * in ns since the recording's first record (the Chrome export's).  Names,
 * source locations and call sites are interned: sent once per sequence,
 * in the packet that first uses them, and named by their iid after.
 */
#include "config.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/history/calls.h"
#include "monitor/history/perfetto.h"
#include "monitor/history/readback.h"

/* Wire types. */
#define PF_VARINT	0
#define PF_LEN		2

/* Trace */
#define PF_TRACE_PACKET			1
/* TracePacket */
#define PF_TP_TIMESTAMP			8
#define PF_TP_TRACK_EVENT		11
#define PF_TP_TRACK_DESCRIPTOR		60
#define PF_TP_SEQUENCE_ID		10	/* trusted_packet_sequence_id */
#define PF_TP_INTERNED_DATA		12
#define PF_TP_SEQUENCE_FLAGS		13
#define PF_TP_DEFAULTS			59	/* trace_packet_defaults */
#define  PF_SEQ_INCREMENTAL_STATE_CLEARED	1
#define  PF_SEQ_NEEDS_INCREMENTAL_STATE		2
/* TracePacketDefaults */
#define PF_DEF_TRACK_EVENT		11	/* track_event_defaults */
/* TrackEventDefaults, TrackEvent */
#define PF_TE_TRACK_UUID		11
#define PF_TE_CATEGORY_IIDS		3
#define PF_TE_DEBUG_ANNOTATIONS		4
#define PF_TE_TYPE			9
#define  PF_TYPE_SLICE_BEGIN		1
#define  PF_TYPE_SLICE_END		2
#define  PF_TYPE_INSTANT		3
#define PF_TE_NAME_IID			10
#define PF_TE_NAME			23
#define PF_TE_SOURCE_LOCATION_IID	34
/* DebugAnnotation */
#define PF_DA_NAME_IID			1
#define PF_DA_BOOL_VALUE		2
#define PF_DA_STRING_VALUE_IID		17
/* TrackDescriptor */
#define PF_TD_UUID			1
#define PF_TD_PROCESS			3
#define PF_TD_THREAD			4
/* ProcessDescriptor */
#define PF_PD_PID			1
#define PF_PD_PROCESS_NAME		6
/* ThreadDescriptor */
#define PF_THD_PID			1
#define PF_THD_TID			2
#define PF_THD_THREAD_NAME		5
/* InternedData */
#define PF_ID_EVENT_CATEGORIES		1
#define PF_ID_EVENT_NAMES		2
#define PF_ID_DEBUG_ANNOTATION_NAMES	3
#define PF_ID_SOURCE_LOCATIONS		4
#define PF_ID_DEBUG_STRING_VALUES	29
/* EventCategory, EventName, DebugAnnotationName, InternedString */
#define PF_IN_IID			1
#define PF_IN_NAME			2	/* InternedString's str too */
/* SourceLocation */
#define PF_SL_IID			1
#define PF_SL_FILE_NAME			2
#define PF_SL_FUNCTION_NAME		3
#define PF_SL_LINE_NUMBER		4

/* Interned once per sequence, in its first packet. */
enum { PF_CAT_FUNCTION = 1, PF_CAT_NAMED, PF_CAT_RBTRACE };
static const char *const pf_categories[] = { NULL, "function", "named",
    "rbtrace" };
enum { PF_ARG_CALL_SITE = 1, PF_ARG_ENTRY_LOST, PF_ARG_UNWOUND, PF_ARG_CUT,
    PF_ARG_OPEN };
static const char *const pf_arg_names[] = { NULL, "call_site", "entry_lost",
    "unwound", "cut", "open" };

/* Track uuids: processes and threads apart. */
#define PF_UUID_PROCESS		(1ull << 40)
#define PF_UUID_THREAD		(2ull << 40)

#define PF_NEST_MAX	8

/* One packet being encoded. */
struct pf_buf {
	unsigned char	*p;
	size_t		 n, cap;
	size_t		 open[PF_NEST_MAX];	/* where each open message's
						   content begins */
	int		 depth;
};

struct pf_export {
	struct rbwalk_ctx *x;
	FILE		*out;
	struct pf_buf	 b;
	uint32_t	 seq;		/* the thread's sequence */
	uint64_t	 last;		/* its last time written, ns */
	/*
	 * What the sequence has interned, by function and by call site:
	 * the sequence that did it last, so that a new one starts with
	 * nothing interned without clearing them.
	 */
	uint32_t	*names, *sites;
	size_t		 capnames, capsites;
};

/* ---- the protobuf writer --------------------------------------------------- */

static void
pf_reserve(struct pf_buf *b, size_t more)
{
	if (b->n + more <= b->cap)
		return;
	while (b->n + more > b->cap)
		b->cap = b->cap == 0 ? 256 : b->cap * 2;
	b->p = rbmon_xreallocarray(b->p, b->cap, 1);
}

static size_t
pf_varint_len(uint64_t v)
{
	size_t	n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static void
pf_varint_at(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p = (unsigned char)v;
}

static void
pf_varint(struct pf_buf *b, uint64_t v)
{
	size_t	n = pf_varint_len(v);

	pf_reserve(b, n);
	pf_varint_at(b->p + b->n, v);
	b->n += n;
}

static void
pf_tag(struct pf_buf *b, uint32_t field, int wire)
{
	pf_varint(b, (uint64_t)field << 3 | (uint64_t)wire);
}

static void
pf_uint(struct pf_buf *b, uint32_t field, uint64_t v)
{
	pf_tag(b, field, PF_VARINT);
	pf_varint(b, v);
}

/* int32 and int64 fields: negative values as 64-bit two's complement. */
static void
pf_int(struct pf_buf *b, uint32_t field, int64_t v)
{
	pf_uint(b, field, (uint64_t)v);
}

static void
pf_bytes(struct pf_buf *b, uint32_t field, const void *s, size_t len)
{
	pf_tag(b, field, PF_LEN);
	pf_varint(b, len);
	pf_reserve(b, len);
	memcpy(b->p + b->n, s, len);
	b->n += len;
}

static void
pf_string(struct pf_buf *b, uint32_t field, const char *s)
{
	pf_bytes(b, field, s, strlen(s));
}

/*
 * A nested message: its content is written first, then moved up to make
 * room for its length, so every length is the shortest varint.
 */
static void
pf_open(struct pf_buf *b, uint32_t field)
{
	if (b->depth == PF_NEST_MAX) {
		fputs("rbmon: perfetto: messages nested too deep\n", stderr);
		abort();
	}
	pf_tag(b, field, PF_LEN);
	b->open[b->depth++] = b->n;
}

static void
pf_close(struct pf_buf *b)
{
	size_t	at = b->open[--b->depth], len = b->n - at;
	size_t	k = pf_varint_len(len);

	pf_reserve(b, k);
	memmove(b->p + at + k, b->p + at, len);
	pf_varint_at(b->p + at, len);
	b->n += k;
}

/* ---- packets ---------------------------------------------------------------- */

static void
pf_packet_open(struct pf_export *e)
{
	e->b.n = 0;
	e->b.depth = 0;
	pf_open(&e->b, PF_TRACE_PACKET);
}

static void
pf_packet_close(struct pf_export *e)
{
	pf_close(&e->b);
	fwrite(e->b.p, 1, e->b.n, e->out);
}

/* A raw time as the events' ns, never before the sequence's last one. */
static uint64_t
pf_time(struct pf_export *e, uint64_t ts)
{
	uint64_t	ns = rbwalk_rel_ns(e->x, ts);

	if (ns < e->last)
		ns = e->last;
	e->last = ns;
	return ns;
}

/* Has sequence @seq interned entry @i of @seqs already?  Now it has. */
static int
pf_seen(uint32_t **seqs, size_t *cap, size_t i, uint32_t seq)
{
	int	was;

	if (i >= *cap) {
		size_t	old = *cap;

		*cap = (i + 1) * 2;
		*seqs = rbmon_xreallocarray(*seqs, *cap, sizeof **seqs);
		memset(*seqs + old, 0, (*cap - old) * sizeof **seqs);
	}
	was = (*seqs)[i] == seq;
	(*seqs)[i] = seq;
	return was;
}

static void
pf_interned(struct pf_buf *b, uint32_t field, uint64_t iid, const char *s)
{
	pf_open(b, field);
	pf_uint(b, PF_IN_IID, iid);
	pf_string(b, PF_IN_NAME, s);
	pf_close(b);
}

static void
pf_flag(struct pf_buf *b, uint64_t name_iid)
{
	pf_open(b, PF_TE_DEBUG_ANNOTATIONS);
	pf_uint(b, PF_DA_NAME_IID, name_iid);
	pf_uint(b, PF_DA_BOOL_VALUE, 1);
	pf_close(b);
}

static void
pf_event_close(struct pf_export *e)
{
	pf_close(&e->b);	/* the TrackEvent */
	pf_uint(&e->b, PF_TP_SEQUENCE_ID, e->seq);
	pf_uint(&e->b, PF_TP_SEQUENCE_FLAGS, PF_SEQ_NEEDS_INCREMENTAL_STATE);
	pf_packet_close(e);
}

static void
pf_enter(struct rbcalls_walk *w, struct rbcalls_frame *f, size_t depth)
{
	struct pf_export	*e = w->h->arg;
	struct rbwalk_ctx	*x = e->x;
	const struct rbwalk_func *fn = &x->funcs[f->func];
	const char		*cf = "";
	char			 site[RB_PATH_MAX + 16];
	int			 cl = 0, has_src, has_site = 0, new_name;
	int			 new_site = 0;
	uint32_t		 sv = 0;
	uint64_t		 ts = pf_time(e, f->start);

	(void)depth;
	has_src = fn->file[0] != '\0' || fn->line > 0;
	if (f->site != 0 && !fn->named) {
		/* It may add a function: fn is looked up again after. */
		rbwalk_site(x, w->si, f->site, &cf, &cl);
		fn = &x->funcs[f->func];
		has_site = (cf[0] != '\0' || cl > 0) &&
		    rbwalk_map_get(&x->bysite, x->procs[w->si].image, f->site,
		    &sv);
		if (has_site)
			new_site = !pf_seen(&e->sites, &e->capsites, sv,
			    e->seq);
	}
	new_name = !pf_seen(&e->names, &e->capnames, f->func, e->seq);

	pf_packet_open(e);
	pf_uint(&e->b, PF_TP_TIMESTAMP, ts);
	if (new_name || new_site) {
		pf_open(&e->b, PF_TP_INTERNED_DATA);
		if (new_name) {
			pf_interned(&e->b, PF_ID_EVENT_NAMES, f->func + 1ull,
			    fn->name);
			if (has_src) {
				pf_open(&e->b, PF_ID_SOURCE_LOCATIONS);
				pf_uint(&e->b, PF_SL_IID, f->func + 1ull);
				pf_string(&e->b, PF_SL_FILE_NAME, fn->file);
				pf_string(&e->b, PF_SL_FUNCTION_NAME, fn->name);
				pf_uint(&e->b, PF_SL_LINE_NUMBER,
				    (uint32_t)(fn->line > 0 ? fn->line : 0));
				pf_close(&e->b);
			}
		}
		if (new_site) {
			snprintf(site, sizeof site, "%s:%d", cf, cl);
			pf_interned(&e->b, PF_ID_DEBUG_STRING_VALUES, sv + 1ull,
			    site);
		}
		pf_close(&e->b);
	}
	pf_open(&e->b, PF_TP_TRACK_EVENT);
	pf_uint(&e->b, PF_TE_TYPE, PF_TYPE_SLICE_BEGIN);
	pf_uint(&e->b, PF_TE_CATEGORY_IIDS, fn->named ? PF_CAT_NAMED :
	    PF_CAT_FUNCTION);
	pf_uint(&e->b, PF_TE_NAME_IID, f->func + 1ull);
	if (has_src)
		pf_uint(&e->b, PF_TE_SOURCE_LOCATION_IID, f->func + 1ull);
	if (has_site) {
		pf_open(&e->b, PF_TE_DEBUG_ANNOTATIONS);
		pf_uint(&e->b, PF_DA_NAME_IID, PF_ARG_CALL_SITE);
		pf_uint(&e->b, PF_DA_STRING_VALUE_IID, sv + 1ull);
		pf_close(&e->b);
	}
	if (f->flags & RBCALLS_F_ENTRY_LOST)
		pf_flag(&e->b, PF_ARG_ENTRY_LOST);
	pf_event_close(e);
}

static void
pf_leave(struct rbcalls_walk *w, struct rbcalls_frame *f, size_t depth,
    uint64_t end, int how)
{
	static const int flag[] = {
		[RBCALLS_L_EXIT] = 0, [RBCALLS_L_UNWOUND] = PF_ARG_UNWOUND,
		[RBCALLS_L_CUT] = PF_ARG_CUT, [RBCALLS_L_OPEN] = PF_ARG_OPEN,
	};
	struct pf_export	*e = w->h->arg;

	(void)f;
	(void)depth;
	pf_packet_open(e);
	pf_uint(&e->b, PF_TP_TIMESTAMP, pf_time(e, end));
	pf_open(&e->b, PF_TP_TRACK_EVENT);
	pf_uint(&e->b, PF_TE_TYPE, PF_TYPE_SLICE_END);
	if (flag[how] != 0)
		pf_flag(&e->b, (uint64_t)flag[how]);
	pf_event_close(e);
}

static void
pf_mark(struct rbcalls_walk *w, const struct rbrec_rec *k, size_t depth)
{
	struct pf_export	*e = w->h->arg;
	char			 name[64];

	(void)depth;
	if (rbread_mark_name(name, sizeof name, k) != 0)
		return;
	pf_packet_open(e);
	pf_uint(&e->b, PF_TP_TIMESTAMP, pf_time(e, k->lost ? w->last :
	    k->e.ts));
	pf_open(&e->b, PF_TP_TRACK_EVENT);
	pf_uint(&e->b, PF_TE_TYPE, PF_TYPE_INSTANT);
	pf_uint(&e->b, PF_TE_CATEGORY_IIDS, PF_CAT_RBTRACE);
	pf_string(&e->b, PF_TE_NAME, name);
	pf_event_close(e);
}

/* ---- tracks and sequences ------------------------------------------------------ */

static void
pf_process(struct pf_export *e, const struct rbrec_stream *s)
{
	struct rbread_dyn	 d;
	char			*t, *name;

	/* The program, with what the process did not trace. */
	rbread_dyn(e->x, s->info.pid, &d);
	t = rbread_dyn_text(&d, RBREAD_DYN_SHOWN, 1);
	if (t != NULL)
		rbmon_xasprintf(&name, "%s (%s)", e->x->rec.info.program, t);
	else
		name = rbmon_xstrdup(e->x->rec.info.program);
	free(t);
	rbread_dyn_free(&d);
	pf_packet_open(e);
	pf_open(&e->b, PF_TP_TRACK_DESCRIPTOR);
	pf_uint(&e->b, PF_TD_UUID, PF_UUID_PROCESS | (uint32_t)s->info.pid);
	pf_open(&e->b, PF_TD_PROCESS);
	pf_int(&e->b, PF_PD_PID, s->info.pid);
	pf_string(&e->b, PF_PD_PROCESS_NAME, name);
	pf_close(&e->b);
	pf_close(&e->b);
	pf_packet_close(e);
	free(name);
}

/* A thread's name: its name at the end if it had one, else at the start. */
static const char *
pf_thread_name(const struct rbrec_stream *s)
{
	return s->ended && s->end.name[0] != '\0' ? s->end.name :
	    s->info.name;
}

/* The thread's track, then its sequence's state: cleared, then set. */
static void
pf_thread(struct pf_export *e, size_t si)
{
	const struct rbrec_stream	*s = &e->x->rec.streams[si];
	uint64_t			 uuid = PF_UUID_THREAD | (si + 1);
	size_t				 i;
	char				 label[RB_THREAD_NAME_MAX + 64];

	/* With what it lost, which its walker's first pass counted. */
	rbread_thread_label(label, sizeof label, e->x, si, pf_thread_name(s),
	    NULL);
	pf_packet_open(e);
	pf_open(&e->b, PF_TP_TRACK_DESCRIPTOR);
	pf_uint(&e->b, PF_TD_UUID, uuid);
	pf_open(&e->b, PF_TD_THREAD);
	pf_int(&e->b, PF_THD_PID, s->info.pid);
	pf_int(&e->b, PF_THD_TID, s->info.tid);
	pf_string(&e->b, PF_THD_THREAD_NAME, label);
	pf_close(&e->b);
	pf_close(&e->b);
	pf_packet_close(e);

	e->seq = (uint32_t)si + 1;
	e->last = 0;
	pf_packet_open(e);
	pf_uint(&e->b, PF_TP_SEQUENCE_ID, e->seq);
	pf_uint(&e->b, PF_TP_SEQUENCE_FLAGS, PF_SEQ_INCREMENTAL_STATE_CLEARED);
	pf_open(&e->b, PF_TP_DEFAULTS);
	pf_open(&e->b, PF_DEF_TRACK_EVENT);
	pf_uint(&e->b, PF_TE_TRACK_UUID, uuid);
	pf_close(&e->b);
	pf_close(&e->b);
	pf_open(&e->b, PF_TP_INTERNED_DATA);
	for (i = 1; i < sizeof pf_categories / sizeof pf_categories[0]; i++)
		pf_interned(&e->b, PF_ID_EVENT_CATEGORIES, i, pf_categories[i]);
	for (i = 1; i < sizeof pf_arg_names / sizeof pf_arg_names[0]; i++)
		pf_interned(&e->b, PF_ID_DEBUG_ANNOTATION_NAMES, i,
		    pf_arg_names[i]);
	pf_close(&e->b);
	pf_packet_close(e);
}

static int
pf_wanted(const long *tids, size_t n, int32_t tid)
{
	size_t	i;

	if (n == 0)
		return 1;
	for (i = 0; i < n; i++)
		if (tids[i] == tid)
			return 1;
	return 0;
}

/**
 * rbmon_perfetto_write - write recording @x as a Perfetto protobuf trace
 * @out: where, binary
 * @tids: the threads wanted, @ntids of them (0: every thread)
 *
 * Streams as it walks: one thread's stack, one packet and what the
 * thread's sequence has interned are all it keeps.  The caller checks
 * @out for errors.
 */
void
rbmon_perfetto_write(struct rbwalk_ctx *x, FILE *out, const long *tids,
    size_t ntids)
{
	struct pf_export	 e;
	struct rbcalls_handler	 h = { pf_enter, pf_leave, pf_mark, &e };
	struct rbcalls_walk	 w;
	struct rbwalk_map	 pids;	/* (pid, 0): described already */
	uint32_t		 v;
	size_t			 i;

	memset(&e, 0, sizeof e);
	memset(&pids, 0, sizeof pids);
	e.x = x;
	e.out = out;
	for (i = 0; i < x->rec.nstreams; i++) {
		const struct rbrec_stream	*s = &x->rec.streams[i];

		if (!pf_wanted(tids, ntids, s->info.tid))
			continue;
		if (!rbwalk_map_get(&pids, (uint32_t)s->info.pid, 0, &v)) {
			rbwalk_map_put(&pids, (uint32_t)s->info.pid, 0, 0);
			pf_process(&e, s);
		}
		rbcalls_walk_init(&w, x, i, &h);
		pf_thread(&e, i);
		while (rbcalls_walk_step(&w))
			;
		rbcalls_walk_finish(&w);
		rbcalls_walk_free(&w);
	}
	rbwalk_map_free(&pids);
	free(e.b.p);
	free(e.names);
	free(e.sites);
}
