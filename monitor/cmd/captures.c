/* SPDX-License-Identifier: MIT */
/*
 * rbmon captures: the captures of slow calls a trace file holds
 * (rbtrace(5), "CAPTURES"): listed, shown as function graphs, as JSON, or
 * exported through a recording made of them (one stream per capture) to
 * the export writers recordings use.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "monitor/cmd/cmd.h"
#include "common/outfile.h"
#include "common/atomic.h"
#include "monitor/core/capture.h"
#include "monitor/core/discover.h"
#include "monitor/core/dump.h"
#include "monitor/core/model.h"
#include "monitor/core/safeio.h"
#include "monitor/core/symbols.h"
#include "monitor/history/calls.h"
#include "monitor/history/events.h"
#include "monitor/history/export.h"
#include "monitor/history/recfile.h"
#include "monitor/history/walk.h"
#include "monitor/util/alloc.h"
#include "monitor/util/escape.h"
#include "monitor/util/opts.h"
#include "monitor/util/util.h"

struct caps_run {
	struct rbmon_model	 m;
	struct rbmon_snapshot	 s;
	struct rbmon_caps	 c;
	struct rbmon_symbols	*sy;
	struct rbmon_clock	 clk;
};

static void
caps_usage(FILE *f)
{
	fputs("Usage: rbmon captures [OPTIONS] FILE\n"
	    "       rbmon captures [OPTIONS] -p PID\n"
	    "The captures of slow calls FILE holds (rbtrace --capture, or "
	    "CAPT sent live):\nfunction, process and thread, when, how long.\n"
	    "\n"
	    "      --show N|all     print capture N (from 1, as listed), or "
	    "every one, as a\n"
	    "                       function graph with durations and the "
	    "stack below it\n"
	    "      --json           the captures as JSON, their calls and "
	    "stacks included\n"
	    "      --export FORMAT  chrome or speedscope: every capture, one "
	    "thread each\n"
	    "  -o, --output FILE    --export: write to FILE, not standard "
	    "output\n"
	    "  -p, --pid PID        use the trace file PID writes to\n"
	    "  -h, --help           show this help\n", f);
}

/* The process of capture @v in the snapshot, or @tmp made for it. */
static const struct rbmon_process *
caps_proc(const struct caps_run *r, const struct rb_capture *v,
    struct rbmon_process *tmp)
{
	size_t	i;

	for (i = 0; i < r->s.nprocs; i++)
		if (r->s.procs[i].pid == v->pid &&
		    r->s.procs[i].pstart == v->pstart &&
		    r->s.procs[i].image == v->image)
			return &r->s.procs[i];
	memset(tmp, 0, sizeof *tmp);
	tmp->pid = v->pid;
	tmp->pstart = v->pstart;
	tmp->image = v->image;
	return tmp;
}

/* The function at @fn, or its address. */
static const char *
caps_name(struct caps_run *r, const struct rbmon_process *p, uint64_t fn,
    char *buf, size_t len)
{
	struct rbmon_sym	sym;

	memset(&sym, 0, sizeof sym);
	if (fn != 0)
		rbmon_symbols_lookup(r->sy, &r->s, p, fn, &sym);
	if (sym.function != NULL)
		return sym.function;
	if (fn == 0)
		return "?";
	snprintf(buf, len, "0x%" PRIx64, fn);
	return buf;
}

static void
caps_when(char *buf, size_t len, uint64_t ns)
{
	struct tm	tm;
	time_t		t = (time_t)(ns / 1000000000u);

	if (ns == 0 || localtime_r(&t, &tm) == NULL ||
	    strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm) == 0) {
		snprintf(buf, len, "?");
		return;
	}
	snprintf(buf + strlen(buf), len - strlen(buf), ".%03u",
	    (unsigned)(ns / 1000000u % 1000u));
}

/* Capture @v's records as a graph. */
static void
caps_graph(const struct rb_capture *v, struct rbmon_evgraph *g)
{
	struct rbmon_evcopy	copy;

	memset(&copy, 0, sizeof copy);
	copy.rec = (struct rb_event *)v->records;
	copy.n = v->nrec;
	copy.cap = v->nrec;
	copy.w.first = 0;
	copy.w.n = v->nrec;
	copy.w.head = v->nrec;
	copy.valid = 1;
	rbmon_evgraph_init(g);
	rbmon_evgraph_add(g, &copy);
}

static void
caps_list(FILE *out, struct caps_run *r)
{
	const struct rbmon_process *p;
	struct rbmon_process	 tmp;
	char			 d[32], w[48], a[32];
	size_t			 i;

	if (r->c.n == 0) {
		fprintf(out, "no captures%s\n", r->c.nfns > 0 ?
		    " yet (functions are armed: rbmon --send CLST)" : "");
		return;
	}
	fprintf(out, "%3s  %-24s %8s %8s  %-23s %10s\n", "#", "FUNCTION",
	    "PID", "TID", "WHEN", "DURATION");
	for (i = 0; i < r->c.n; i++) {
		const struct rb_capture *v = &r->c.v[i];
		char	 line[512];

		p = caps_proc(r, v, &tmp);
		rbmon_cap_duration(d, sizeof d, v->dur_ns);
		caps_when(w, sizeof w, v->realtime_ns);
		snprintf(line, sizeof line, "%3zu  %-24s %8d %8d  %-23s %10s%s",
		    i + 1, caps_name(r, p, v->fn, a, sizeof a), v->pid, v->tid,
		    w, d, v->lost > 0 ? "  (records lost)" : "");
		rbmon_esc_fputs(line, out);
		fputc('\n', out);
	}
	if (r->c.torn > 0)
		fprintf(out, "(%zu capture%s being written, not shown)\n",
		    r->c.torn, r->c.torn == 1 ? "" : "s");
}

static void
caps_show(FILE *out, struct caps_run *r, size_t i)
{
	const struct rb_capture	*v = &r->c.v[i];
	const struct rbmon_process *p;
	struct rbmon_process	 tmp;
	struct rbmon_evgraph	 g;
	char			 buf[1024], d[32], w[48], a[32];
	size_t			 k;
	int32_t			 base;

	p = caps_proc(r, v, &tmp);
	rbmon_cap_duration(d, sizeof d, v->dur_ns);
	caps_when(w, sizeof w, v->realtime_ns);
	snprintf(buf, sizeof buf, "capture %zu: %s took %s, pid %d tid %d "
	    "\"%s\", returned at %s", i + 1, caps_name(r, p, v->fn, a,
	    sizeof a), d, v->pid, v->tid, v->thread, w);
	rbmon_esc_fputs(buf, out);
	fputc('\n', out);
	if (v->lost > 0)
		fprintf(out, "  %" PRIu64 " record%s of the call lost (the "
		    "event log overwrote or dropped them)\n", v->lost,
		    v->lost == 1 ? "" : "s");
	if (v->flags & RB_CAPT_NOLOG)
		fputs("  (no event log: the call alone)\n", out);
	fputs("  called from:\n", out);
	for (k = 0; k < v->nframes; k++) {
		snprintf(buf, sizeof buf, "    #%zu %s", k + 1,
		    caps_name(r, p, v->frames[k].fn, a, sizeof a));
		rbmon_esc_fputs(buf, out);
		fputc('\n', out);
	}
	if (v->nframes == 0)
		fputs("    (nothing below)\n", out);
	caps_graph(v, &g);
	base = rbmon_evgraph_mindepth(&g);
	for (k = 0; k < g.n; k++) {
		rbmon_evrow_text(buf, sizeof buf, r->sy, &r->s, p, &r->clk,
		    &g.rows[k], base);
		fputs("  ", out);
		rbmon_esc_fputs(buf, out);
		fputc('\n', out);
	}
	rbmon_evgraph_free(&g);
}

static void
caps_json_ns(FILE *out, const struct rbmon_clock *c, const char *key,
    uint64_t a, uint64_t b)
{
	uint64_t	x, y;

	if (b != 0 && rbmon_clock_ns(c, a, &x) == 0 &&
	    rbmon_clock_ns(c, b, &y) == 0 && y >= x)
		fprintf(out, ", \"%s\": %" PRIu64, key, y - x);
	else
		fprintf(out, ", \"%s\": null", key);
}

static void
caps_json(FILE *out, struct caps_run *r)
{
	const struct rbmon_process *p;
	struct rbmon_process	 tmp;
	struct rbmon_evgraph	 g;
	char			 a[32];
	size_t			 i, k, n;
	int32_t			 base;

	fprintf(out, "{\"captures\": [");
	for (i = 0; i < r->c.n; i++) {
		const struct rb_capture *v = &r->c.v[i];

		p = caps_proc(r, v, &tmp);
		fprintf(out, "%s\n  {\"index\": %zu, \"function\": ",
		    i ? "," : "", i + 1);
		rbmon_json_string(out, caps_name(r, p, v->fn, a, sizeof a));
		fputs(", \"armed\": ", out);
		rbmon_json_string(out, v->name);
		fprintf(out, ", \"pid\": %d, \"tid\": %d, \"thread\": ",
		    v->pid, v->tid);
		rbmon_json_string(out, v->thread);
		fprintf(out, ", \"when_ns\": %" PRIu64 ", \"duration_ns\": %"
		    PRIu64 ", \"depth\": %u, \"lost\": %" PRIu64
		    ", \"records\": %u, \"below\": [", v->realtime_ns,
		    v->dur_ns, v->depth, v->lost, v->nrec);
		for (k = 0; k < v->nframes; k++) {
			fputs(k ? ", " : "", out);
			rbmon_json_string(out, caps_name(r, p, v->frames[k].fn,
			    a, sizeof a));
		}
		fputs("], \"calls\": [", out);
		caps_graph(v, &g);
		base = rbmon_evgraph_mindepth(&g);
		for (k = 0, n = 0; k < g.n; k++) {
			const struct rbmon_evrow *w = &g.rows[k];

			if (w->kind != RBMON_EVR_CALL)
				continue;
			fprintf(out, "%s{\"function\": ", n++ ? ", " : "");
			rbmon_json_string(out, caps_name(r, p, w->fn, a,
			    sizeof a));
			fprintf(out, ", \"depth\": %d", w->depth - base);
			caps_json_ns(out, &r->clk, "duration_ns", w->ts, w->end);
			fputc('}', out);
		}
		rbmon_evgraph_free(&g);
		fputs("]}", out);
	}
	fprintf(out, "%s], \"armed\": [", r->c.n ? "\n" : "");
	for (i = 0; i < r->c.nfns; i++) {
		const struct rb_capfn *f = &r->c.fns[i];

		fprintf(out, "%s{\"name\": ", i ? ", " : "");
		rbmon_json_string(out, f->name);
		fprintf(out, ", \"pid\": %d, \"address\": \"0x%" PRIx64
		    "\", \"max\": %s, \"threshold_ns\": %" PRIu64
		    ", \"keep\": %u, \"slowest_ns\": %" PRIu64 ", \"fired\": %"
		    PRIu64 ", \"stored\": %" PRIu64 ", \"dropped\": %" PRIu64
		    "}", f->pid, f->addr, f->flags & RB_CAPF_MAX ? "true" :
		    "false", f->threshold_ns, f->keep, f->max_ns, f->fired,
		    f->stored, f->dropped);
	}
	fprintf(out, "], \"torn\": %zu, \"lost\": %" PRIu64 "}\n", r->c.torn,
	    r->c.lost);
}

/*
 * The captures as a recording (rbtrace(5), "RECORDINGS") in @path: one
 * stream per capture, its thread's, and the objects of their images.
 */
static int
caps_recording(struct caps_run *r, const char *path, int fd, char **cause)
{
	struct rbrec_writer	 w;
	struct rbrec_info	 info;
	struct rbrec_object	 o;
	struct rbrec_thread	 t;
	struct rbrec_thread_end	 e;
	struct rbrec_end	 end;
	const struct rb_header	*h = &r->m.hdr;
	uint64_t		*images;
	size_t			 i, j, nimg = 0;

	if (rbrec_open_write(&w, fd, path, 0) != 0) {
		rbmon_xasprintf(cause, "%s", strerror(errno));
		return -1;
	}
	memset(&info, 0, sizeof info);
	memcpy(info.program, h->program, sizeof info.program);
	info.program[sizeof info.program - 1] = '\0';
	snprintf(info.trace, sizeof info.trace, "%s", r->m.path);
	info.clock = h->clock;
	info.policy = h->ev_policy;
	info.events = RB_CAP_EVENTS;
	info.rings = h->rings;
	info.creator_pid = h->creator_pid;
	info.recorder_pid = (int32_t)getpid();
	info.clock_tsc0 = h->clock_tsc0;
	info.clock_ns0 = h->clock_ns0;
	info.clock_tsc_hz = r->clk.hz > 0 ? (uint64_t)r->clk.hz : h->clock_tsc_hz;
	rbrec_put(&w, RBREC_INFO, &info, sizeof info, NULL, 0);
	images = rbmon_xcalloc(r->c.n + 1, sizeof *images);
	for (i = 0; i < r->c.n; i++) {
		for (j = 0; j < nimg && images[j] != r->c.v[i].image; j++)
			;
		if (j < nimg)
			continue;
		images[nimg++] = r->c.v[i].image;
		for (j = 0; j < r->s.nobjects; j++) {
			const struct rbmon_object *b = &r->s.objects[j];

			if (b->image != r->c.v[i].image)
				continue;
			memset(&o, 0, sizeof o);
			o.image = b->image;
			o.base = b->base;
			o.lo = b->lo;
			o.hi = b->hi;
			o.flags = b->flags;
			o.build_id_len = b->build_id_len;
			memcpy(o.build_id, b->build_id, sizeof o.build_id);
			memcpy(o.path, b->path, sizeof o.path);
			rbrec_put(&w, RBREC_OBJECT, &o, sizeof o, NULL, 0);
		}
	}
	free(images);
	for (i = 0; i < r->c.n; i++) {
		const struct rb_capture *v = &r->c.v[i];

		memset(&t, 0, sizeof t);
		t.stream = (uint32_t)i + 1;
		t.ring = v->ring;
		t.pid = v->pid;
		t.tid = v->tid;
		t.image = v->image;
		t.pstart = v->pstart;
		snprintf(t.name, sizeof t.name, "#%u %.10s", (unsigned)(i + 1) % 1000u, v->thread);
		rbrec_put(&w, RBREC_THREAD, &t, sizeof t, NULL, 0);
		rbrec_put_events(&w, t.stream, 0, v->records, v->nrec);
		memset(&e, 0, sizeof e);
		e.stream = t.stream;
		e.next = v->nrec;
		memcpy(e.name, t.name, sizeof e.name);
		rbrec_put(&w, RBREC_THREAD_END, &e, sizeof e, NULL, 0);
	}
	memset(&end, 0, sizeof end);
	end.reason = RBREC_END_EXITED;
	end.streams = (uint32_t)r->c.n;
	rbrec_put(&w, RBREC_END, &end, sizeof end, NULL, 0);
	if (rbrec_close_write(&w) != 0) {
		rbmon_xasprintf(cause, "%s", strerror(errno));
		return -1;
	}
	return 0;
}

static int
caps_export(struct caps_run *r, const char *format, const char *output)
{
	struct rbexp_export	 e;
	struct rbmon_tids	 tids = { NULL, 0 };
	struct rbmon_filter	 fl;
	struct rbwalk_ctx	 x;
	struct rb_outfile	 of;
	const char		*dir = getenv("TMPDIR");
	char			 tmp[4096];
	char			*cause = NULL;
	int			 fd, status = 0;

	if (strcmp(format, "chrome") != 0 && strcmp(format, "speedscope") != 0)
		rbmon_cmd_usage("captures", "--export: chrome or speedscope, "
		    "not '%s'", format);
	if (dir == NULL || *dir != '/')
		dir = "/tmp";
	snprintf(tmp, sizeof tmp, "%.4000s/rbmon-captures.XXXXXX", dir);
	if ((fd = mkstemp(tmp)) < 0) {
		rbmon_esc_line(stderr, "rbmon captures: %s: %s", tmp,
		    strerror(errno));
		return 1;
	}
	if (caps_recording(r, tmp, fd, &cause) != 0 ||
	    rbwalk_open(&x, tmp, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon captures: %s", cause);
		free(cause);
		unlink(tmp);
		return 1;
	}
	unlink(tmp);
	memset(&fl, 0, sizeof fl);
	x.filter = &fl;
	memset(&e, 0, sizeof e);
	e.x = &x;
	e.out = stdout;
	e.depth = RBEXP_FOLDED_DEPTH;
	if (output != NULL &&
	    (e.out = rbmon_safeio_output(&of, output, &cause)) == NULL) {
		rbmon_esc_line(stderr, "rbmon captures: cannot write %s: %s",
		    output, cause);
		free(cause);
		rbwalk_close(&x);
		return 1;
	}
	if (strcmp(format, "chrome") == 0)
		rbexp_chrome(&e, &tids);
	else
		rbexp_speedscope(&e, &tids);
	if (output == NULL && (fflush(e.out) != 0 || ferror(e.out))) {
		fprintf(stderr, "rbmon captures: standard output: %s\n",
		    strerror(errno));
		status = 1;
	}
	if (output != NULL &&
	    rbmon_safeio_output_done(&of, e.out, 1, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon captures: cannot write %s: %s",
		    output, cause);
		free(cause);
		status = 1;
	}
	free(e.nodes);
	rbwalk_map_free(&e.kids);
	rbmon_filter_free(&fl);
	rbwalk_close(&x);
	return status;
}

/** rbmon_cmd_captures - `rbmon captures [--show N|all] [--json] FILE` */
int
rbmon_cmd_captures(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "show", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "export", required_argument, NULL, 'e' },
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct caps_run		 r;
	const char		*show = NULL, *format = NULL, *output = NULL;
	const char		*file;
	char			*found = NULL, *cause = NULL;
	long			 pid = 0, n = 0;
	size_t			 i;
	int			 ch, json = 0, status = 0;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":o:p:h", opts, NULL)) != -1) {
		switch (ch) {
		case 's':
			show = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 'e':
			format = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'p':
			pid = rbmon_number("captures", "--pid", optarg, 1,
			    INT32_MAX);
			break;
		case 'h':
			caps_usage(stdout);
			return 0;
		case ':':
			rbmon_cmd_usage("captures", "option '%s' needs a value",
			    argv[optind - 1]);
		default:
			rbmon_cmd_usage("captures", "unknown option '%s'",
			    argv[optind - 1]);
		}
	}
	if (optind + 1 < argc || (optind == argc && pid == 0))
		rbmon_cmd_usage("captures", optind == argc ?
		    "no trace file given" : "too many arguments");
	if (show != NULL && strcmp(show, "all") != 0)
		n = rbmon_number("captures", "--show", show, 1, RB_CAP_SLOTS);
	if (output != NULL && format == NULL)
		rbmon_cmd_usage("captures", "-o goes with --export");
	if ((file = rbmon_discover_file(optind < argc ? argv[optind] : NULL,
	    pid, &found)) == NULL)
		return 1;
	memset(&r, 0, sizeof r);
	if (rbmon_safeio_open_trace(&r.m, file, &cause) != 0 ||
	    rbmon_model_snapshot(&r.m, &r.s, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon: %s: %s", file, cause);
		free(cause);
		free(found);
		return 1;
	}
	if (rbmon_caps_read(&r.m, &r.c, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon: %s: %s", file, cause);
		free(cause);
		status = 1;
		goto out;
	}
	rbmon_clock_init(&r.clk, &r.m.hdr);
	r.sy = rbmon_symbols_new(stderr);
	if (format != NULL)
		status = caps_export(&r, format, output);
	else if (json)
		caps_json(stdout, &r);
	else if (show == NULL)
		caps_list(stdout, &r);
	else if (n > 0 && (size_t)n > r.c.n) {
		fprintf(stderr, "rbmon captures: no capture %ld: the file "
		    "holds %zu\n", n, r.c.n);
		status = 1;
	} else {
		for (i = 0; i < r.c.n; i++)
			if (n == 0 || (size_t)n == i + 1) {
				if (n == 0 && i > 0)
					fputc('\n', stdout);
				caps_show(stdout, &r, i);
			}
		if (r.c.n == 0)
			fputs("no captures\n", stdout);
	}
	rbmon_symbols_free(r.sy);
	rbmon_caps_free(&r.c);
out:
	rbmon_model_free(&r.s);
	rbmon_model_close(&r.m);
	free(found);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "rbmon: write error: %s\n", strerror(errno));
		status = 1;
	}
	return status;
}
