/* SPDX-License-Identifier: MIT */
/*
 * reader.c - fuzz rbmon's reading of a trace file: open, snapshot, the
 * screen's view, the stacks resolved with symbols, the text and JSON dumps,
 * the captures of slow calls (copied, counted, made function graphs).
 *
 * An input is a sparse trace file, chunk after chunk:
 *
 *   u32 offset, u16 length, length bytes      (little endian)
 *
 * written at their offsets into a file of zeros as long as the last chunk
 * or as the header's total_size, whichever is longer (that one at most
 * READER_MAX_SIZE): a real file's header, rings, objects and breakpoints
 * take a few KB this way, not the file's 150 KB of mostly zeros.
 * tests/fuzz/mkcorpus.sh makes such inputs from the files of real programs.
 */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monitor/core/capture.h"
#include "monitor/core/dump.h"
#include "monitor/history/events.h"
#include "monitor/core/model.h"
#include "monitor/core/stack.h"
#include "monitor/core/symbols.h"
#include "monitor/core/view.h"

#include "fuzz.h"

#define READER_MAX_SIZE	(16u << 20)

static char	 reader_path[256];
static int	 reader_fd = -1;
static FILE	*reader_out;

static void
reader_cleanup(void)
{
	if (reader_path[0] != '\0')
		unlink(reader_path);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_path(reader_path, sizeof reader_path);
	reader_fd = mkstemp(reader_path);
	if (reader_fd < 0)
		fuzz_fail("mkstemp %s failed", reader_path);
	atexit(reader_cleanup);
	/* FUZZ_VERBOSE=1: the dumps on stderr, to see what an input reads. */
	reader_out = getenv("FUZZ_VERBOSE") != NULL ? stderr :
	    fopen("/dev/null", "w");
	if (reader_out == NULL)
		fuzz_fail("cannot open /dev/null");
	return 0;
}

/* Lay the chunks out in the file; 0, or -1 if it cannot be written. */
static int
reader_write(const uint8_t *data, size_t size)
{
	uint64_t	end = 0, total = 0;
	uint32_t	off;
	uint16_t	len;
	size_t		i = 0;

	if (ftruncate(reader_fd, 0) != 0)
		return -1;
	while (size - i >= 6) {
		memcpy(&off, data + i, 4);
		memcpy(&len, data + i + 4, 2);
		i += 6;
		if (len > size - i)
			len = (uint16_t)(size - i);
		off %= READER_MAX_SIZE;
		if (pwrite(reader_fd, data + i, len, off) != (ssize_t)len)
			return -1;
		if ((uint64_t)off + len > end)
			end = (uint64_t)off + len;
		/* The header's total_size, as far as the chunk holds it. */
		if (off <= offsetof(struct rb_header, total_size) &&
		    (uint64_t)off + len >= offsetof(struct rb_header, total_size) + 8)
			memcpy(&total, data + i +
			    (offsetof(struct rb_header, total_size) - off), 8);
		i += len;
	}
	if (total > end && total <= READER_MAX_SIZE)
		end = total;
	return ftruncate(reader_fd, (off_t)end) == 0 ? 0 : -1;
}

struct reader_ctx {
	struct rbmon_symbols		*sy;
	const struct rbmon_snapshot	*s;
	const struct rbmon_clock	*c;
};

/* A frame's function, as the screen's search names it. */
static const char *
reader_namer(void *arg, const struct rbmon_process *p,
    const struct rbmon_thread *t, size_t i)
{
	struct reader_ctx	*x = arg;
	struct rbmon_shown	 sh;

	if (i >= t->nframes)
		fuzz_fail("search asked for frame %zu of %zu", i, t->nframes);
	rbmon_dump_resolve(x->sy, x->s, p, t, i, x->c, &sh);
	return sh.function;
}

/* What rbmon captures reads: every capture copied, its graph built. */
static void
reader_captures(struct rbmon_model *m, const struct rbmon_snapshot *s)
{
	struct rbmon_caps	 c;
	struct rbmon_evcopy	 copy;
	struct rbmon_evgraph	 g;
	char			*cause = NULL;
	size_t			 i, k;

	for (i = 0; i < s->nprocs; i++)
		(void)rbmon_caps_count(m, s->procs[i].pid, s->procs[i].pstart);
	if (rbmon_caps_read(m, &c, &cause) != 0) {
		free(cause);
		return;
	}
	for (i = 0; i < c.n; i++) {
		const struct rb_capture *v = &c.v[i];

		if (v->nrec > RB_CAP_EVENTS || v->nframes > RB_CAP_FRAMES ||
		    v->entry > RB_CAP_FNS || v->name[RB_CAP_NAME - 1] != '\0' ||
		    v->thread[RB_THREAD_NAME_MAX - 1] != '\0')
			fuzz_fail("capture %zu not checked", i);
		memset(&copy, 0, sizeof copy);
		copy.rec = (struct rb_event *)v->records;
		copy.n = v->nrec;
		copy.w.n = v->nrec;
		copy.w.head = v->nrec;
		copy.valid = 1;
		rbmon_evgraph_init(&g);
		rbmon_evgraph_add(&g, &copy);
		for (k = 0; k < g.n; k++)
			if (g.rows[k].kind > RBMON_EVR_BAD)
				fuzz_fail("capture %zu: row %zu of no kind", i, k);
		rbmon_evgraph_free(&g);
	}
	(void)rbmon_caps_of(&c, 1, 0);
	rbmon_caps_free(&c);
}

/* What the screen does with a snapshot, minus curses. */
static void
reader_view(struct reader_ctx *x)
{
	const struct rbmon_snapshot	*s = x->s;
	const struct rbmon_process	*p;
	const struct rbmon_thread	*t;
	struct rbmon_view		 v;
	struct rbmon_counts		 n;
	char				 buf[128];
	size_t				 i, k, rows, frame;

	rbmon_view_init(&v);
	rbmon_view_rebuild(&v, s);
	rbmon_view_count(s, &n);
	for (i = 0; i < v.nrows; i++) {
		rbmon_view_select_row(&v, s, i);
		t = rbmon_view_selected(&v, s, &p);
		if (v.rows[i].kind != RBMON_ROW_THREAD)
			continue;
		if (t == NULL)
			fuzz_fail("thread row %zu selects no thread", i);
		for (k = 0; k < (size_t)rbmon_view_tree_cols(&v.rows[i]); k++)
			(void)rbmon_view_tree_at(&v.rows[i], (int)k);
		rbmon_state_text(buf, sizeof buf, p, t);
		(void)rbmon_tstate_name(rbmon_thread_state(p, t));
		(void)rbmon_why_name(t->why);
		(void)rbmon_why_json(t->why);
		rows = rbmon_view_stack_rows(&v, t);
		for (k = 0; k < rows; k++) {
			struct rbmon_srow sr;

			if (!rbmon_view_stack_at(&v, t, k, &sr))
				fuzz_fail("stack row %zu of %zu missing", k, rows);
			if (sr.kind == RBMON_SROW_GAP)
				continue;
			frame = sr.frame;
			if (frame >= t->nframes ||
			    (sr.kind == RBMON_SROW_RUN &&
			    frame + sr.count > t->nframes) ||
			    rbmon_view_stack_row(&v, t, frame) != k)
				fuzz_fail("stack row %zu: frame %zu of %zu",
				    k, frame, t->nframes);
			(void)rbmon_frame_number(t, frame);
			/* Expand a run and fold it again. */
			if (sr.kind == RBMON_SROW_RUN &&
			    (!rbmon_view_stack_fold(&v, t, k) ||
			    rbmon_view_stack_rows(&v, t) != rows + sr.count - 1 ||
			    !rbmon_view_stack_fold(&v, t, k) ||
			    rbmon_view_stack_rows(&v, t) != rows))
				fuzz_fail("stack row %zu: a run of %zu that does "
				    "not fold", k, sr.count);
		}
		rbmon_view_stack_move(&v, t, 3, 5);
		rbmon_view_stack_move(&v, t, -2, 5);
	}
	rbmon_view_move(&v, s, 1);
	rbmon_view_move(&v, s, -1000);
	rbmon_view_scroll(&v, 4);
	(void)rbmon_view_search(&v, s, "a", 1, reader_namer, x, &frame);
	v.hide_exited = 1;
	rbmon_view_rebuild(&v, s);
	rbmon_view_free(&v);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rbmon_model	 m;
	struct rbmon_snapshot	 s;
	struct rbmon_symbols	*sy;
	struct rbmon_clock	 c;
	struct reader_ctx	 x;
	char			*cause = NULL;

	if (reader_write(data, size) != 0)
		return 0;
	if (rbmon_model_open(&m, reader_path, 0, &cause) != 0) {
		if (cause == NULL || *cause == '\0')
			fuzz_fail("open failed without a cause");
		if (reader_out == stderr)
			fprintf(stderr, "open: %s\n", cause);
		free(cause);
		return 0;
	}
	if (rbmon_model_snapshot(&m, &s, &cause) != 0) {
		if (reader_out == stderr)
			fprintf(stderr, "snapshot: %s\n", cause);
		free(cause);
		rbmon_model_close(&m);
		return 0;
	}
	rbmon_clock_init(&c, &m.hdr);
	/* Without a clock: the frames' first sight, as --dump and the screen. */
	if (c.kind == RB_CLOCK_NONE) {
		struct rbmon_seen	 sn = { NULL, 0 };

		rbmon_seen_update(&sn, &s, c.now_ns);
		rbmon_seen_update(&sn, &s, c.now_ns + 1);
		rbmon_seen_free(&sn);
	}
	sy = rbmon_symbols_new(NULL);
	rbmon_stack_resolve_all(sy, &s);
	x.sy = sy;
	x.s = &s;
	x.c = &c;
	reader_view(&x);
	rbmon_dump_text(reader_out, &m, &s, sy, &c);
	rbmon_dump_json(reader_out, &m, &s, sy, &c);
	rbmon_events_text(reader_out, &m, &s, sy, &c, 0);
	rbmon_events_json(reader_out, &m, &s, sy, &c, 0);
	reader_captures(&m, &s);
	fflush(reader_out);
	rbmon_symbols_free(sy);
	rbmon_model_free(&s);
	rbmon_model_close(&m);
	return 0;
}
