/* SPDX-License-Identifier: MIT */
/*
 * recording.c - fuzz the readers of a recording (rbtrace(5), "RECORDINGS"):
 * the index (its DYN state bounded and sorted) and the walk, checked frame
 * by frame, then every command that
 * reads one: replay, report, hot and latency (text and JSON), and the
 * Chrome, Perfetto, folded and speedscope exports, whole and through the
 * filters.
 *
 * An input is a recording's bytes, as they are: written to a file, which
 * the readers map.  Their output goes to /dev/null (FUZZ_VERBOSE=1: to
 * stderr, with what they say about the recording).
 *
 * Under libFuzzer each input is walked and then read by one command, the
 * one its last byte picks: running them all made an execution many times as
 * long, with no path that only their sequence reaches (each opens the
 * file afresh).  A byte the readers see as well keeps every input a plain
 * recording.  Replayed by driver.c (`make check`), an input is read by all.
 */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monitor/cmd/cmd.h"
#include "monitor/history/calls.h"
#include "monitor/history/readback.h"
#include "monitor/history/walk.h"

#include "fuzz.h"

static char	 rec_path[256];
static int	 rec_fd = -1;
static FILE	*rec_null;
static int	 rec_is_rec;	/* the input begins with RBREC_MAGIC */

static void
rec_cleanup(void)
{
	if (rec_path[0] != '\0')
		unlink(rec_path);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_path(rec_path, sizeof rec_path);
	rec_fd = mkstemp(rec_path);
	if (rec_fd < 0)
		fuzz_fail("mkstemp %s failed", rec_path);
	atexit(rec_cleanup);
	/* Every export estimates its size first, filtered or not. */
	setenv("RBMON_EXPORT_WARN", "1", 1);
	rec_null = fopen("/dev/null", "w");
	if (rec_null == NULL)
		fuzz_fail("cannot open /dev/null");
	return 0;
}

static int
rec_write(const uint8_t *data, size_t size)
{
	size_t	done = 0;
	ssize_t	n;

	if (ftruncate(rec_fd, 0) != 0)
		return -1;
	while (done < size) {
		n = pwrite(rec_fd, data + done, size - done, (off_t)done);
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

/* ---- the walk, checked --------------------------------------------------- */

struct rec_check {
	uint64_t	entered, left;
};

static void
rec_enter(struct rbcalls_walk *w, struct rbcalls_frame *f, size_t depth)
{
	struct rec_check	*k = w->h->arg;

	if (depth + 1 != w->n || f != &w->stack[depth])
		fuzz_fail("entered at depth %zu of %zu", depth, w->n);
	if (f->func >= w->ctx->nfuncs)
		fuzz_fail("function %u of %zu", f->func, w->ctx->nfuncs);
	if (depth > 0 && f->start < w->stack[depth - 1].start)
		fuzz_fail("a callee entered before its caller");
	k->entered++;
}

static void
rec_leave(struct rbcalls_walk *w, struct rbcalls_frame *f, size_t depth,
    uint64_t end, int how)
{
	struct rec_check	*k = w->h->arg;

	if (depth + 1 != w->n || f != &w->stack[depth])
		fuzz_fail("left at depth %zu of %zu", depth, w->n);
	if (end < f->start || end < f->cend)
		fuzz_fail("a frame left before it was entered");
	if (how < RBCALLS_L_EXIT || how > RBCALLS_L_OPEN)
		fuzz_fail("left how %d", how);
	k->left++;
}

static void
rec_mark(struct rbcalls_walk *w, const struct rbrec_rec *r, size_t depth)
{
	char	name[64];

	if (depth > w->n)
		fuzz_fail("a mark at depth %zu of %zu", depth, w->n);
	(void)rbread_mark_name(name, sizeof name, r);
}

/* What the index keeps of DYN chunks: bounded, sorted, named. */
static void
rec_dyn_check(struct rbwalk_ctx *x)
{
	struct rbread_dyn	 d;
	char			*t;
	size_t			 i, j;

	if (x->rec.ndyn > RBREC_DYN_PROCS_MAX)
		fuzz_fail("%zu process images with DYN chunks", x->rec.ndyn);
	for (i = 0; i < x->rec.ndyn; i++) {
		const struct rbrec_dynproc	*e = &x->rec.dyn[i];

		if (e->nfns > RBREC_DYN_FNS_MAX || e->last.nfns >
		    RBREC_DYN_FNS_MAX || e->chunks == 0 || e->last.pid <= 0)
			fuzz_fail("DYN image %zu: %zu functions, %u last",
			    i, e->nfns, e->last.nfns);
		for (j = 0; j < e->nfns; j++)
			if (e->fns[j] == 0 || (j > 0 &&
			    e->fns[j] <= e->fns[j - 1]) ||
			    (e->reasons[j] & ~RBREC_DYN_REASONS) != 0 ||
			    e->reasons[j] == 0)
				fuzz_fail("DYN image %zu: function %zu", i, j);
	}
	rbread_dyn(x, -1, &d);
	if (d.nnames > RBREAD_DYN_NAMES || d.functions != d.nnames + d.more)
		fuzz_fail("%zu names, %llu functions", d.nnames,
		    (unsigned long long)d.functions);
	t = rbread_dyn_text(&d, RBREAD_DYN_SHOWN, 0);
	free(t);
	rbread_dyn_free(&d);
}

static void
rec_walk(const char *path)
{
	struct rec_check	 k;
	struct rbcalls_handler	 h = { rec_enter, rec_leave, rec_mark, &k };
	struct rbrec_cursor	 c;
	struct rbrec_rec	 r;
	struct rbcalls_walk	 w;
	struct rbwalk_ctx	 x;
	const char		*file;
	uint64_t		 records, lost, ns;
	size_t			 i;
	char			*why = NULL;
	int			 line;

	if (rbwalk_open(&x, path, &why) != 0) {
		if (why == NULL || *why == '\0')
			fuzz_fail("open failed without a cause");
		free(why);
		return;
	}
	if (x.rec.used > x.rec.size)
		fuzz_fail("chunks end at %zu of %zu", x.rec.used, x.rec.size);
	for (i = 0; i < x.rec.nstreams; i++) {
		const struct rbrec_stream	*s = &x.rec.streams[i];

		/* The records as the index counted them, gaps aside. */
		records = lost = 0;
		rbrec_cursor_init(&c, &x.rec, s);
		while (rbrec_next(&c, &r)) {
			if (r.lost)
				lost++;
			else
				records++;
			(void)rbrec_ts_ns(&x.rec, r.e.ts, &ns);
		}
		if (records > s->records)
			fuzz_fail("stream %zu: %llu records of %llu", i,
			    (unsigned long long)records,
			    (unsigned long long)s->records);

		memset(&k, 0, sizeof k);
		rbcalls_walk_init(&w, &x, i, &h);
		while (rbcalls_walk_step(&w))
			if (w.n > 0 && w.stack[w.n - 1].site != 0)
				rbwalk_site(&x, i, w.stack[w.n - 1].site, &file,
				    &line);
		rbcalls_walk_finish(&w);
		if (w.n != 0 || k.entered != k.left)
			fuzz_fail("stream %zu: %llu entered, %llu left, %zu open",
			    i, (unsigned long long)k.entered,
			    (unsigned long long)k.left, w.n);
		rbcalls_walk_free(&w);
	}
	(void)rbwalk_rel_ns(&x, 0);
	rec_dyn_check(&x);
	rbwalk_close(&x);
}

/* ---- the commands ---------------------------------------------------------- */

static const char *const rec_cmds[][10] = {
	{ "replay" },
	{ "replay", "-F", "main", "-D", "2", "--min", "1ns" },
	{ "report" },
	{ "report", "--json", "-s", "name" },
	{ "hot" },
	{ "hot", "--json", "-n", "3" },
	{ "export", "--chrome" },
	{ "export", "--perfetto", "-o", "/dev/null" },
	{ "export", "--folded", "-D", "3" },
	{ "export", "--speedscope" },
	/* The filters every reader shares (rbmon(1), FILTERS). */
	{ "replay", "--time-range", "1us~1s", "-N", "*b*" },
	{ "report", "-F", "m*", "--min-duration", "10ns", "-D", "4" },
	{ "hot", "-t", "1,2,3", "--time-range", "10ns~" },
	{ "export", "--chrome", "-N", "main", "--min-duration", "1ns" },
	{ "export", "--perfetto", "-o", "/dev/null", "--time-range", "~1ms",
	  "-F", "*" },
	{ "export", "--speedscope", "-D", "1", "-F", "f*" },
	/* Only on a recording's magic: else latency watches a live file. */
	{ "latency" },
	{ "latency", "--json", "-s", "p99", "-F", "*", "-t", "1,2" },
};
#define REC_NCMDS	(sizeof rec_cmds / sizeof rec_cmds[0])

static int
rec_run(int argc, char **argv)
{
	if (strcmp(argv[0], "replay") == 0)
		return rbmon_cmd_replay(argc, argv);
	if (strcmp(argv[0], "report") == 0)
		return rbmon_cmd_report(argc, argv);
	if (strcmp(argv[0], "hot") == 0)
		return rbmon_cmd_hot(argc, argv);
	if (strcmp(argv[0], "latency") == 0)
		return rec_is_rec ? rbmon_cmd_latency(argc, argv) : 0;
	return rbmon_cmd_export(argc, argv);
}

/* Run commands [from, to) on the recording at path. */
static void
rec_commands(const char *path, size_t from, size_t upto)
{
	FILE	*out = stdout, *err = stderr, *to;
	char	*argv[12];
	size_t	 i;
	int	 argc;

	/* glibc's stdout and stderr are variables: the commands use them. */
	to = getenv("FUZZ_VERBOSE") != NULL ? stderr : rec_null;
	for (i = from; i < upto; i++) {
		for (argc = 0; argc < 10 && rec_cmds[i][argc] != NULL; argc++)
			argv[argc] = (char *)rec_cmds[i][argc];
		argv[argc++] = (char *)path;
		argv[argc] = NULL;
		stdout = to;
		stderr = to;
		(void)rec_run(argc, argv);
		fflush(to);
		stdout = out;
		stderr = err;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (rec_write(data, size) != 0)
		return 0;
	rec_is_rec = size >= 8 && memcmp(data, RBREC_MAGIC, 8) == 0;
	rec_walk(rec_path);
#ifdef FUZZ_LIBFUZZER
	if (size > 0) {
		size_t	i = data[size - 1] % REC_NCMDS;

		rec_commands(rec_path, i, i + 1);
	}
#else
	rec_commands(rec_path, 0, REC_NCMDS);
#endif
	return 0;
}
