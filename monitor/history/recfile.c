/* SPDX-License-Identifier: MIT */
/*
 * rbmon recordings (rbtrace(5), "RECORDINGS"): writing chunks as the
 * recorder goes, and reading them back from a file nothing vouches for.
 *
 * A reader maps the file and indexes its chunks once: every length is
 * checked against the file, every string is bounded, streams must be
 * numbered in order, and a chunk that does not decode is reported and
 * skipped, never trusted.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "monitor/core/model.h"
#include "monitor/history/recfile.h"

/* The byte before each encoded record: the kind and which fields follow. */
#define ENC_KIND_MASK	0x0f
#define ENC_KIND_WIDE	0x0f	/* the kind follows as a varint */
#define ENC_FN		0x10	/* fn changed: a signed difference follows */
#define ENC_ARG		0x20	/* arg is not 0: follows */
#define ENC_AUX		0x40	/* aux is not 0: follows */
#define ENC_RESERVED	0x80

#define ENC_MAX_RECORD	(1 + 10 + 10 + 10 + 10 + 10)	/* wide kind .. aux */

/* ---- varints ------------------------------------------------------------- */

static size_t
put_uvarint(unsigned char *p, uint64_t v)
{
	size_t	n = 0;

	while (v >= 0x80) {
		p[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (unsigned char)v;
	return n;
}

static size_t
put_svarint(unsigned char *p, int64_t v)
{
	return put_uvarint(p, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static int
get_uvarint(const unsigned char **pp, const unsigned char *end, uint64_t *v)
{
	const unsigned char	*p = *pp;
	uint64_t		 x = 0;
	unsigned		 shift = 0;

	for (;;) {
		if (p == end || shift > 63)
			return -1;
		x |= (uint64_t)(*p & 0x7f) << shift;
		if ((*p++ & 0x80) == 0)
			break;
		shift += 7;
	}
	*pp = p;
	*v = x;
	return 0;
}

static int
get_svarint(const unsigned char **pp, const unsigned char *end, int64_t *v)
{
	uint64_t	u;

	if (get_uvarint(pp, end, &u) != 0)
		return -1;
	*v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
	return 0;
}

/* ---- writing ------------------------------------------------------------- */

#define REC_OUT_FLUSH	(1u << 20)	/* queued bytes that make a write */

/* Queue @len bytes. */
static void
wr_queue(struct rbrec_writer *w, const void *p, size_t len)
{
	size_t	cap;

	if (w->outlen + len > w->outcap) {
		cap = w->outcap == 0 ? REC_OUT_FLUSH : w->outcap;
		while (cap < w->outlen + len)
			cap *= 2;
		w->out = rbmon_xreallocarray(w->out, cap, 1);
		w->outcap = cap;
	}
	memcpy(w->out + w->outlen, p, len);
	w->outlen += len;
}

/* The chunk queued last ends at w->bytes: counted once it is written. */
static void
wr_pending(struct rbrec_writer *w, uint64_t records, uint64_t lost,
    uint32_t stream)
{
	if (w->npend == w->cappend) {
		w->cappend = w->cappend == 0 ? 256 : w->cappend * 2;
		w->pend = rbmon_xreallocarray(w->pend, w->cappend,
		    sizeof *w->pend);
	}
	w->pend[w->npend].end = w->bytes;
	w->pend[w->npend].records = records;
	w->pend[w->npend].lost = lost;
	w->put_records += records;
	w->pend[w->npend].stream = stream;
	w->npend++;
}

/* Count the chunks that write(2) took whole. */
static void
wr_commit(struct rbrec_writer *w)
{
	size_t	i;

	for (i = 0; i < w->npend && w->pend[i].end <= w->written; i++) {
		w->kept = w->pend[i].end;
		w->records += w->pend[i].records;
		w->lost += w->pend[i].lost;
		if (w->pend[i].stream != 0)
			w->streams = w->pend[i].stream;
	}
	if (i > 0) {
		memmove(w->pend, w->pend + i, (w->npend - i) * sizeof *w->pend);
		w->npend -= i;
	}
}

/*
 * Write what is queued.  On a failure the file is cut back to its last
 * whole chunk (a reader would read no further anyway) and w->err says
 * why; nothing more is written.
 */
static int
wr_drain(struct rbrec_writer *w)
{
	size_t	off = 0;
	ssize_t	n;

	if (w->err != 0)
		return -1;
	while (off < w->outlen) {
		n = write(w->fd, w->out + off, w->outlen - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			w->err = n < 0 && errno != 0 ? errno : EIO;
			break;
		}
		off += (size_t)n;
		w->written += (uint64_t)n;
	}
	wr_commit(w);
	if (w->err != 0) {
		if (w->written > w->kept && ftruncate(w->fd, (off_t)w->kept) == 0)
			w->written = w->kept;
		w->outlen = 0;
		return -1;
	}
	w->outlen = 0;
	return 0;
}

/**
 * rbrec_open_write - begin the recording @path in @fd
 * @fd: the file, new and empty (rb_outfile_open()); closed by
 *	rbrec_close_write(), or now on failure
 * @realtime_ns: when the recording begins, for its header
 *
 * Return: 0, or -1 with errno set.
 */
int
rbrec_open_write(struct rbrec_writer *w, int fd, const char *path,
    uint64_t realtime_ns)
{
	struct rbrec_header	h;

	memset(w, 0, sizeof *w);
	w->fd = fd;
	w->path = path;
	memset(&h, 0, sizeof h);
	memcpy(h.magic, RBREC_MAGIC, sizeof h.magic);
	h.version = RBREC_VERSION;
	h.header_size = sizeof h;
	h.endian = RB_ENDIAN_MARK;
	h.created_realtime_ns = realtime_ns;
	wr_queue(w, &h, sizeof h);
	w->bytes = sizeof h;
	wr_pending(w, 0, 0, 0);
	if (wr_drain(w) != 0) {
		int	e = w->err;

		close(w->fd);
		w->fd = -1;
		free(w->out);
		free(w->pend);
		w->out = NULL;
		w->pend = NULL;
		errno = e;
		return -1;
	}
	return 0;
}

/* A chunk of @records records (lost marks aside) and @lost lost, queued. */
static int
wr_put(struct rbrec_writer *w, uint32_t type, const void *a, size_t alen,
    const void *b, size_t blen, uint64_t records, uint64_t lost)
{
	static const unsigned char	zero[RBREC_ALIGN];
	struct rbrec_chunk		c;
	struct rbrec_thread		t;
	struct rbrec_lost		l;
	size_t				pad;
	uint32_t			stream = 0;

	if (w->err != 0)
		return -1;
	if (alen + blen > RBREC_CHUNK_MAX) {
		w->err = EFBIG;
		return -1;
	}
	c.type = type;
	c.len = (uint32_t)(alen + blen);
	pad = (RBREC_ALIGN - c.len % RBREC_ALIGN) % RBREC_ALIGN;
	wr_queue(w, &c, sizeof c);
	if (alen != 0)
		wr_queue(w, a, alen);
	if (blen != 0)
		wr_queue(w, b, blen);
	if (pad != 0)
		wr_queue(w, zero, pad);
	w->bytes += sizeof c + c.len + pad;
	if (type == RBREC_THREAD && alen >= sizeof t) {
		memcpy(&t, a, sizeof t);
		stream = t.stream;
	} else if (type == RBREC_LOST && alen >= sizeof l) {
		memcpy(&l, a, sizeof l);
		lost = l.count;
	}
	wr_pending(w, records, lost, stream);
	if (w->outlen >= REC_OUT_FLUSH)
		return wr_drain(w);
	return 0;
}

/**
 * rbrec_put - append a chunk of @type whose payload is @a then @b
 *
 * Return: 0, or -1 (w->err says why; nothing more is written after it).
 */
int
rbrec_put(struct rbrec_writer *w, uint32_t type, const void *a, size_t alen,
    const void *b, size_t blen)
{
	return wr_put(w, type, a, alen, b, blen, 0, 0);
}

static size_t
encode_one(unsigned char *p, const struct rb_event *e, uint64_t *ts,
    uint64_t *fn)
{
	unsigned char	*q = p + 1;
	unsigned	 b;

	b = e->kind < ENC_KIND_WIDE ? e->kind : ENC_KIND_WIDE;
	if (b == ENC_KIND_WIDE)
		q += put_uvarint(q, e->kind);
	if (e->kind == RB_EV_TEXT) {
		/* Name bytes in place of the time, function and argument. */
		memcpy(q, &e->ts, 8);
		memcpy(q + 8, &e->fn, 8);
		memcpy(q + 16, &e->arg, 8);
		q += 24;
	} else {
		q += put_svarint(q, (int64_t)(e->ts - *ts));
		*ts = e->ts;
		if (e->fn != *fn) {
			b |= ENC_FN;
			q += put_svarint(q, (int64_t)(e->fn - *fn));
			*fn = e->fn;
		}
		if (e->arg != 0) {
			b |= ENC_ARG;
			if (e->kind == RB_EV_ENTRY)
				q += put_svarint(q, (int64_t)(e->arg - e->fn));
			else
				q += put_uvarint(q, e->arg);
		}
	}
	if (e->aux != 0) {
		b |= ENC_AUX;
		q += put_uvarint(q, e->aux);
	}
	p[0] = (unsigned char)b;
	return (size_t)(q - p);
}

/**
 * rbrec_put_events - append @n records of stream @stream, the first at
 * index @first of its log, in as many chunks as they need
 *
 * Return: 0, or -1 as rbrec_put().
 */
int
rbrec_put_events(struct rbrec_writer *w, uint32_t stream, uint64_t first,
    const struct rb_event *recs, size_t n)
{
	struct rbrec_events	eh;
	size_t			i, len, per, want;
	uint64_t		ts, fn, kept, lost;

	while (n > 0) {
		/* Records per chunk: the worst case fits RBREC_CHUNK_MAX. */
		per = (RBREC_CHUNK_MAX - sizeof eh) / ENC_MAX_RECORD;
		if (per > n)
			per = n;
		want = per * ENC_MAX_RECORD;
		if (w->cap < want) {
			w->buf = rbmon_xreallocarray(w->buf, want, 1);
			w->cap = want;
		}
		memset(&eh, 0, sizeof eh);
		eh.stream = stream;
		eh.count = (uint32_t)per;
		eh.first = first;
		/* The first record's time as the base: a TEXT has none. */
		for (i = 0; i < per && recs[i].kind == RB_EV_TEXT; i++)
			;
		eh.ts0 = i < per ? recs[i].ts : 0;
		ts = eh.ts0;
		fn = 0;
		for (i = 0, len = 0, kept = 0, lost = 0; i < per; i++) {
			len += encode_one(w->buf + len, &recs[i], &ts, &fn);
			if (recs[i].kind == RB_EV_LOST)
				lost += recs[i].arg;
			else
				kept++;
		}
		if (wr_put(w, RBREC_EVENTS, &eh, sizeof eh, w->buf, len,
		    kept, lost) != 0)
			return -1;
		recs += per;
		first += per;
		n -= per;
	}
	return 0;
}

/* Write what is queued.  Return: 0, or -1 as rbrec_put(). */
int
rbrec_flush(struct rbrec_writer *w)
{
	if (w->fd < 0)
		return -1;
	return wr_drain(w);
}

/**
 * rbrec_close_write - write what is queued, fsync and close
 *
 * Return: 0, or -1 with w->err the first error met.
 */
int
rbrec_close_write(struct rbrec_writer *w)
{
	if (w->fd < 0)
		return -1;
	if (wr_drain(w) == 0 && fsync(w->fd) != 0 && errno != EINVAL &&
	    errno != EROFS)
		w->err = errno != 0 ? errno : EIO;
	if (close(w->fd) != 0 && w->err == 0 && errno != EINTR)
		w->err = errno != 0 ? errno : EIO;
	w->fd = -1;
	free(w->buf);
	free(w->out);
	free(w->pend);
	w->buf = w->out = NULL;
	w->pend = NULL;
	w->cap = w->outlen = w->outcap = 0;
	w->npend = w->cappend = 0;
	return w->err != 0 ? -1 : 0;
}

/* ---- reading: the index -------------------------------------------------- */

static void
rec_warn(struct rbrec *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
rec_warn(struct rbrec *r, const char *fmt, ...)
{
	va_list	ap;
	char	*msg;

	if (r->warning != NULL)
		return;		/* the first tells most */
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	r->warning = msg;
}

static void
terminate(char *s, size_t size)
{
	s[size - 1] = '\0';
}

/*
 * Room for one more after the @n elements of @size at @p: twice as many
 * whenever @n is a power of two (or 0), so that a recording of n chunks
 * copies O(n) elements, not O(n^2), whatever realloc does.
 */
static void *
rec_more(void *p, size_t n, size_t size)
{
	if (n == 0 || (n & (n - 1)) == 0)
		p = rbmon_xreallocarray(p, n == 0 ? 1 : 2 * n, size);
	return p;
}

static void
stream_chunk(struct rbrec_stream *s, size_t off)
{
	if (s->nchunks == s->capchunks) {
		s->capchunks = s->capchunks == 0 ? 16 : s->capchunks * 2;
		s->chunks = rbmon_xreallocarray(s->chunks, s->capchunks,
		    sizeof *s->chunks);
	}
	s->chunks[s->nchunks++] = off;
}

/* The stream numbered @n, or NULL (with a warning) if there is none. */
static struct rbrec_stream *
stream_of(struct rbrec *r, uint32_t n, size_t off)
{
	if (n == 0 || n > r->nstreams) {
		rec_warn(r, "a chunk at byte %zu names stream %u, which was "
		    "never begun: skipped", off, n);
		return NULL;
	}
	return &r->streams[n - 1];
}

static int
dyn_fn_cmp(const void *a, const void *b)
{
	const struct rb_dynfn	*x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The index's entry of a process image, made if new; NULL: too many. */
static struct rbrec_dynproc *
dyn_proc(struct rbrec *r, const struct rbrec_dyn *d, size_t off)
{
	struct rbrec_dynproc	*e;
	size_t			 i;

	for (i = 0; i < r->ndyn; i++) {
		e = &r->dyn[i];
		if (e->last.pid == d->pid && e->last.pstart == d->pstart &&
		    e->last.image == d->image)
			return e;
	}
	if (r->ndyn == RBREC_DYN_PROCS_MAX) {
		rec_warn(r, "the dynamic tracing chunk at byte %zu is of a "
		    "process image after %d others: skipped", off,
		    RBREC_DYN_PROCS_MAX);
		return NULL;
	}
	r->dyn = rec_more(r->dyn, r->ndyn, sizeof *r->dyn);
	e = &r->dyn[r->ndyn++];
	memset(e, 0, sizeof *e);
	return e;
}

/*
 * Merge the @n functions of @fns, sorted, into those @e listed before,
 * keeping the first RBREC_DYN_FNS_MAX addresses.
 */
static void
dyn_merge(struct rbrec_dynproc *e, const struct rb_dynfn *fns, size_t n)
{
	uint64_t	*a;
	uint32_t	*why;
	size_t		 i = 0, j = 0, k = 0;

	a = rbmon_xcalloc(e->nfns + n + 1, sizeof *a);
	why = rbmon_xcalloc(e->nfns + n + 1, sizeof *why);
	while ((i < e->nfns || j < n) && k < RBREC_DYN_FNS_MAX) {
		if (j == n || (i < e->nfns && e->fns[i] < fns[j].addr)) {
			a[k] = e->fns[i];
			why[k++] = e->reasons[i++];
		} else if (i == e->nfns || fns[j].addr < e->fns[i]) {
			a[k] = fns[j].addr;
			why[k++] = fns[j++].reason;
		} else {
			a[k] = e->fns[i];
			why[k++] = e->reasons[i++] | fns[j++].reason;
		}
	}
	free(e->fns);
	free(e->reasons);
	e->fns = a;
	e->reasons = why;
	e->nfns = k;
}

/*
 * A DYN chunk: the state it gives is its process image's last; the
 * functions it lists join those listed before.  The list is read within
 * the chunk and RBREC_DYN_FNS_MAX, whatever the count says; an entry
 * without an address or a known reason is dropped.
 */
static void
rec_dyn(struct rbrec *r, const unsigned char *p, size_t len, size_t off)
{
	struct rbrec_dyn	 d;
	struct rbrec_dynproc	*e;
	struct rb_dynfn		*fns;
	size_t			 i, n, have, k;
	uint64_t		 nowoff;

	memcpy(&d, p, sizeof d);
	if (d.pid <= 0) {
		rec_warn(r, "the dynamic tracing chunk at byte %zu names "
		    "process %d: skipped", off, (int)d.pid);
		return;
	}
	have = (len - sizeof d) / sizeof *fns;
	n = d.nfns;
	if (n > have || n > RBREC_DYN_FNS_MAX) {
		rec_warn(r, "the dynamic tracing chunk at byte %zu lists %u "
		    "functions and holds %zu: %zu read", off, d.nfns, have,
		    have < RBREC_DYN_FNS_MAX ? have : RBREC_DYN_FNS_MAX);
		n = have < RBREC_DYN_FNS_MAX ? have : RBREC_DYN_FNS_MAX;
	}
	if ((e = dyn_proc(r, &d, off)) == NULL)
		return;
	fns = rbmon_xcalloc(n + 1, sizeof *fns);
	for (i = 0, k = 0; i < n; i++) {
		memcpy(&fns[k], p + sizeof d + i * sizeof *fns, sizeof *fns);
		fns[k].reason &= RBREC_DYN_REASONS;
		if (fns[k].addr != 0 && fns[k].reason != 0)
			k++;
	}
	qsort(fns, k, sizeof *fns, dyn_fn_cmp);
	/* A function listed twice is one, with both reasons. */
	for (i = 0, n = 0; i < k; i++) {
		if (n > 0 && fns[n - 1].addr == fns[i].addr)
			fns[n - 1].reason |= fns[i].reason;
		else
			fns[n++] = fns[i];
	}
	k = n;
	dyn_merge(e, fns, k);
	free(fns);
	d.flags &= RBREC_DYN_FLAGS;
	d.nfns = (uint32_t)k;
	e->last = d;
	e->chunks++;
	nowoff = (uint64_t)d.off_name + d.off_auto;
	if (nowoff > UINT32_MAX)
		nowoff = UINT32_MAX;
	if (nowoff > e->max_off)
		e->max_off = (uint32_t)nowoff;
	e->dormant |= (d.flags & RB_DYNF_DORMANT) != 0;
	e->refused |= (d.flags & RB_DYNF_REFUSED) != 0;
}

/* One chunk's payload @p of @len bytes at offset @off. */
static void
rec_index(struct rbrec *r, uint32_t type, const unsigned char *p,
    size_t len, size_t off)
{
	struct rbrec_stream	*s;

	switch (type) {
	case RBREC_INFO:
		if (len < sizeof r->info || r->have_info)
			break;
		memcpy(&r->info, p, sizeof r->info);
		terminate(r->info.program, sizeof r->info.program);
		terminate(r->info.boot_id, sizeof r->info.boot_id);
		terminate(r->info.trace, sizeof r->info.trace);
		r->have_info = 1;
		return;
	case RBREC_CLOCK:
		if (len < sizeof(struct rbrec_clock))
			break;
		r->clocks = rec_more(r->clocks, r->nclocks, sizeof *r->clocks);
		memcpy(&r->clocks[r->nclocks++], p, sizeof *r->clocks);
		return;
	case RBREC_OBJECT:
		if (len < sizeof(struct rbrec_object))
			break;
		r->objects = rec_more(r->objects, r->nobjects,
		    sizeof *r->objects);
		memcpy(&r->objects[r->nobjects], p, sizeof *r->objects);
		terminate(r->objects[r->nobjects].path, RB_PATH_MAX);
		if (r->objects[r->nobjects].build_id_len > RB_BUILD_ID_MAX)
			r->objects[r->nobjects].build_id_len = 0;
		r->nobjects++;
		return;
	case RBREC_THREAD: {
		struct rbrec_thread	t;

		if (len < sizeof t)
			break;
		memcpy(&t, p, sizeof t);
		if (t.stream != r->nstreams + 1) {
			rec_warn(r, "the thread chunk at byte %zu is stream %u, "
			    "not %zu: skipped", off, t.stream, r->nstreams + 1);
			return;
		}
		terminate(t.name, sizeof t.name);
		r->streams = rec_more(r->streams, r->nstreams,
		    sizeof *r->streams);
		s = &r->streams[r->nstreams++];
		memset(s, 0, sizeof *s);
		s->info = t;
		return;
	}
	case RBREC_EVENTS: {
		struct rbrec_events	eh;

		if (len < sizeof eh)
			break;
		memcpy(&eh, p, sizeof eh);
		if ((s = stream_of(r, eh.stream, off)) == NULL)
			return;
		stream_chunk(s, off);
		s->records += eh.count;
		return;
	}
	case RBREC_LOST: {
		struct rbrec_lost	l;

		if (len < sizeof l)
			break;
		memcpy(&l, p, sizeof l);
		if ((s = stream_of(r, l.stream, off)) == NULL)
			return;
		stream_chunk(s, off);
		s->lost += l.count;
		return;
	}
	case RBREC_SHORT: {
		struct rbrec_short	k;

		if (len < sizeof k)
			break;
		memcpy(&k, p, sizeof k);
		if ((s = stream_of(r, k.stream, off)) == NULL)
			return;
		s->short_calls = k.count;
		return;
	}
	case RBREC_THREAD_END: {
		struct rbrec_thread_end	e;

		if (len < sizeof e)
			break;
		memcpy(&e, p, sizeof e);
		if ((s = stream_of(r, e.stream, off)) == NULL)
			return;
		terminate(e.name, sizeof e.name);
		s->ended = 1;
		s->end = e;
		return;
	}
	case RBREC_END:
		if (len < sizeof r->end)
			break;
		memcpy(&r->end, p, sizeof r->end);
		r->have_end = 1;
		return;
	case RBREC_DYN:
		if (len < sizeof(struct rbrec_dyn))
			break;
		rec_dyn(r, p, len, off);
		return;
	case RBREC_SNAP:
		if (len < sizeof r->snap || r->have_snap)
			break;
		memcpy(&r->snap, p, sizeof r->snap);
		r->have_snap = 1;
		return;
	default:
		return;		/* a later version's: not needed to read */
	}
	rec_warn(r, "a chunk of type %u at byte %zu is too short (%zu bytes): "
	    "skipped", type, off, len);
}

static void
rec_clock(struct rbrec *r)
{
	const struct rbrec_clock	*a, *b;
	struct rbrec_clock		 first;

	if (!r->have_info)
		return;
	if (r->info.clock == RB_CLOCK_MONO) {
		r->clock_ok = 1;
		return;
	}
	if (!rb_clock_is_counter(r->info.clock))
		return;		/* no clock (RBTRACE_CLOCK=none), or unknown */
	/* The trace file's creation is a pair too, often the earliest. */
	if (r->nclocks >= 1 && r->info.clock_tsc0 != 0 &&
	    r->info.clock_ns0 != 0 && r->info.clock_ns0 < r->clocks[0].ns) {
		first.tsc = r->info.clock_tsc0;
		first.ns = r->info.clock_ns0;
	} else if (r->nclocks >= 1) {
		first = r->clocks[0];
	}
	if (r->nclocks >= 1) {
		a = &first;
		b = &r->clocks[r->nclocks - 1];
		/* A millisecond at least, for a rate worth the name. */
		if (b->tsc > a->tsc && b->ns > a->ns + 1000000) {
			r->hz = (long double)(b->tsc - a->tsc) * 1e9L /
			    (long double)(b->ns - a->ns);
			r->tsc_base = a->tsc;
			r->ns_base = a->ns;
			r->clock_ok = 1;
			return;
		}
	}
	if (r->info.clock_tsc_hz != 0) {
		r->hz = (long double)r->info.clock_tsc_hz;
		if (r->nclocks >= 1) {
			r->tsc_base = r->clocks[0].tsc;
			r->ns_base = r->clocks[0].ns;
		} else {
			r->tsc_base = r->info.clock_tsc0;
			r->ns_base = r->info.clock_ns0;
		}
		r->clock_ok = 1;
	}
}

/**
 * rbrec_open - map and index the recording @path
 * @why: on failure, what is wrong (to free)
 *
 * A recording cut short is read up to its last whole chunk, with
 * r->warning saying so.
 *
 * Return: 0, or -1.
 */
int
rbrec_open(struct rbrec *r, const char *path, char **why)
{
	struct stat	 st;
	size_t		 off, pad;
	struct rbrec_chunk c;
	void		*map;
	int		 fd;

	memset(r, 0, sizeof *r);
	*why = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rbmon_xasprintf(why, "%s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		rbmon_xasprintf(why, "not a regular file");
		close(fd);
		return -1;
	}
	if ((uint64_t)st.st_size < sizeof r->hdr) {
		rbmon_xasprintf(why, "not a recording (%lld bytes)",
		    (long long)st.st_size);
		close(fd);
		return -1;
	}
	if ((uint64_t)st.st_size > SIZE_MAX / 2) {
		rbmon_xasprintf(why, "too large");
		close(fd);
		return -1;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		rbmon_xasprintf(why, "mmap: %s", strerror(errno));
		return -1;
	}
	r->base = map;
	r->size = (size_t)st.st_size;
	r->uid = st.st_uid;
	r->gid = st.st_gid;
	r->path = rbmon_xstrdup(path);
	memcpy(&r->hdr, r->base, sizeof r->hdr);
	if (memcmp(r->hdr.magic, RBREC_MAGIC, sizeof r->hdr.magic) != 0) {
		rbmon_xasprintf(why, "not a recording (no %s magic)",
		    "rbtrace record");
		goto bad;
	}
	if (r->hdr.endian != RB_ENDIAN_MARK) {
		rbmon_xasprintf(why, "recorded on a machine of the other "
		    "byte order");
		goto bad;
	}
	if (r->hdr.version != RBREC_VERSION) {
		rbmon_xasprintf(why, "recording version %u; this rbmon reads "
		    "version %u", r->hdr.version, RBREC_VERSION);
		goto bad;
	}
	if (r->hdr.header_size < sizeof r->hdr ||
	    r->hdr.header_size > r->size ||
	    r->hdr.header_size % RBREC_ALIGN != 0) {
		rbmon_xasprintf(why, "bad header size %u", r->hdr.header_size);
		goto bad;
	}
	for (off = r->hdr.header_size; off < r->size; ) {
		if (r->size - off < sizeof c) {
			rec_warn(r, "cut short: %zu stray bytes at the end",
			    r->size - off);
			break;
		}
		memcpy(&c, r->base + off, sizeof c);
		pad = (RBREC_ALIGN - c.len % RBREC_ALIGN) % RBREC_ALIGN;
		if (c.len > RBREC_CHUNK_MAX) {
			rec_warn(r, "a chunk at byte %zu claims %u bytes: the "
			    "rest of the file is not read", off, c.len);
			break;
		}
		if ((size_t)c.len + pad > r->size - off - sizeof c) {
			rec_warn(r, "cut short: the last chunk (at byte %zu) "
			    "is incomplete", off);
			break;
		}
		rec_index(r, c.type, r->base + off + sizeof c, c.len, off);
		off += sizeof c + c.len + pad;
	}
	r->used = off;
	if (!r->have_info) {
		rbmon_xasprintf(why, "no recording information in it");
		goto bad;
	}
	rec_clock(r);
	return 0;
bad:
	rbrec_close(r);
	return -1;
}

void
rbrec_close(struct rbrec *r)
{
	size_t	i;

	if (r->base != NULL)
		munmap((void *)r->base, r->size);
	for (i = 0; i < r->nstreams; i++)
		free(r->streams[i].chunks);
	free(r->streams);
	for (i = 0; i < r->ndyn; i++) {
		free(r->dyn[i].fns);
		free(r->dyn[i].reasons);
	}
	free(r->dyn);
	free(r->clocks);
	free(r->objects);
	free(r->warning);
	free(r->path);
	memset(r, 0, sizeof *r);
}

/**
 * rbrec_ts_ns - a record's time @ts as CLOCK_MONOTONIC nanoseconds
 *
 * Return: 0, or -1 if the recording has no calibration for its clock or
 * @ts is further from it than 64 bits of nanoseconds reach.
 */
int
rbrec_ts_ns(const struct rbrec *r, uint64_t ts, uint64_t *ns)
{
	long double	d;

	if (!r->clock_ok)
		return -1;
	if (r->info.clock == RB_CLOCK_MONO) {
		*ns = ts;
		return 0;
	}
	d = ((long double)ts - (long double)r->tsc_base) * 1e9L / r->hz +
	    (long double)r->ns_base;
	/* A time no 64-bit count of ns holds is unknown (rbtrace(5)). */
	if (!(d < 0x1p64L))
		return -1;
	*ns = d <= 0 ? 0 : (uint64_t)d;
	return 0;
}

/* ---- reading: the records ------------------------------------------------ */

void
rbrec_cursor_init(struct rbrec_cursor *c, const struct rbrec *r,
    const struct rbrec_stream *s)
{
	memset(c, 0, sizeof *c);
	c->r = r;
	c->s = s;
	c->index = s->info.first;
}

static int
decode_one(struct rbrec_cursor *c, struct rb_event *e)
{
	const unsigned char	*p = c->p;
	uint64_t		 u;
	int64_t			 d;
	unsigned		 b;

	if (p == c->end)
		return -1;
	b = *p++;
	if (b & ENC_RESERVED)
		return -1;
	memset(e, 0, sizeof *e);
	e->kind = b & ENC_KIND_MASK;
	if (e->kind == ENC_KIND_WIDE) {
		if (get_uvarint(&p, c->end, &u) != 0 || u > UINT32_MAX)
			return -1;
		e->kind = (uint32_t)u;
	}
	if (e->kind == RB_EV_TEXT) {
		if ((b & (ENC_FN | ENC_ARG)) != 0 || c->end - p < 24)
			return -1;
		memcpy(&e->ts, p, 8);
		memcpy(&e->fn, p + 8, 8);
		memcpy(&e->arg, p + 16, 8);
		p += 24;
	} else {
		if (get_svarint(&p, c->end, &d) != 0)
			return -1;
		c->ts += (uint64_t)d;
		e->ts = c->ts;
		if (b & ENC_FN) {
			if (get_svarint(&p, c->end, &d) != 0)
				return -1;
			c->fn += (uint64_t)d;
		}
		e->fn = c->fn;
		if (b & ENC_ARG) {
			if (e->kind == RB_EV_ENTRY) {
				if (get_svarint(&p, c->end, &d) != 0)
					return -1;
				e->arg = e->fn + (uint64_t)d;
			} else if (get_uvarint(&p, c->end, &e->arg) != 0) {
				return -1;
			}
		}
	}
	if (b & ENC_AUX) {
		if (get_uvarint(&p, c->end, &u) != 0 || u > UINT32_MAX)
			return -1;
		e->aux = (uint32_t)u;
	}
	c->p = p;
	return 0;
}

/*
 * Start the next chunk of the stream.  Return: 1 with @out set if the
 * chunk is itself a record to show (a loss), 0 when an EVENTS chunk is
 * ready to decode (or skipped), -1 at the end.
 */
static int
cursor_chunk(struct rbrec_cursor *c, struct rbrec_rec *out)
{
	const struct rbrec	*r = c->r;
	struct rbrec_chunk	 ch;
	const unsigned char	*p;
	size_t			 off;

	if (c->chunk == c->s->nchunks)
		return -1;
	off = c->s->chunks[c->chunk++];
	memcpy(&ch, r->base + off, sizeof ch);
	p = r->base + off + sizeof ch;
	if (ch.type == RBREC_LOST) {
		struct rbrec_lost	l;

		memcpy(&l, p, sizeof l);
		memset(out, 0, sizeof *out);
		out->lost = 1;
		out->e.kind = RB_EV_LOST;
		out->e.arg = l.count;
		out->e.ts = c->ts;
		out->index = l.at;
		/* Dropped records never had an index: the next is still l.at. */
		if (l.count != 0 && l.at >= c->index &&
		    l.why != RBREC_LOST_DROPPED)
			c->index = l.at + l.count;
		return 1;
	} else {
		struct rbrec_events	eh;

		memcpy(&eh, p, sizeof eh);
		c->p = p + sizeof eh;
		c->end = p + ch.len;
		c->left = eh.count;
		c->ts = eh.ts0;
		c->fn = 0;
		if (eh.first > c->index) {
			/* A gap no LOST chunk accounts for. */
			memset(out, 0, sizeof *out);
			out->lost = 1;
			out->e.kind = RB_EV_LOST;
			out->e.arg = eh.first - c->index;
			out->e.ts = c->ts;
			out->index = c->index;
			c->index = eh.first;
			return 1;
		}
		c->index = eh.first;
		return 0;
	}
}

/**
 * rbrec_next - the stream's next record
 * @out: the record; out->lost for a gap (records never recorded, or a
 *	chunk that did not decode)
 *
 * Return: 1 with @out filled, 0 at the end of the stream.
 */
int
rbrec_next(struct rbrec_cursor *c, struct rbrec_rec *out)
{
	int	k;

	for (;;) {
		if (c->left > 0) {
			if (decode_one(c, &out->e) == 0) {
				out->index = c->index++;
				out->lost = 0;
				c->left--;
				return 1;
			}
			/* The rest of this chunk is unreadable: a gap. */
			c->bad++;
			memset(out, 0, sizeof *out);
			out->lost = 1;
			out->e.kind = RB_EV_LOST;
			out->e.arg = c->left;
			out->e.ts = c->ts;
			out->index = c->index;
			c->index += c->left;
			c->left = 0;
			return 1;
		}
		k = cursor_chunk(c, out);
		if (k < 0)
			return 0;
		if (k > 0)
			return 1;
	}
}
