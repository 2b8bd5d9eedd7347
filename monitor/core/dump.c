/* SPDX-License-Identifier: MIT */
/* rbmon dump: print every process, thread and live stack as text or JSON. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "monitor/core/capture.h"
#include "monitor/core/dump.h"
#include "monitor/core/dyn.h"
#include "monitor/util/cxxname.h"
#include "monitor/util/escape.h"
#include "monitor/core/taskstat.h"
#include "monitor/core/view.h"

#define RBMON_DUMP_NAME_COLS	100	/* a name in the text, at most */

static int
dump_thread_exited(const struct rbmon_thread *t)
{
	return t->own == RB_OWN_EXITED || t->state == RB_STATE_EXITED;
}

static const char *
dump_ring_state(const struct rbmon_thread *t)
{
	if (t->state == RB_STATE_DETACHED)
		return "detached";
	if (dump_thread_exited(t))
		return "exited";
	if (t->state == RB_STATE_STOPPED)
		return "stopped";
	return "running";
}

/**
 * rbmon_dump_state - a thread's state as the JSON contract names it
 * @p: its process
 * @t: the thread
 *
 * Return: "exited" if the thread or its process is gone, or its ring was
 * given back at a detach, else "stopped" or "running".
 */
const char *
rbmon_dump_state(const struct rbmon_process *p, const struct rbmon_thread *t)
{
	if (!p->alive || t->state == RB_STATE_DETACHED)
		return "exited";
	return dump_ring_state(t);
}

/**
 * rbmon_dump_kstate - a kernel state letter in words
 * @state: as /proc has it (R, S, D, T ...)
 *
 * Return: "sleeping" and the like; "unknown" for a letter proc(5) does
 * not list.
 */
const char *
rbmon_dump_kstate(char state)
{
	switch (state) {
	case 'R':
		return "running";
	case 'S':
		return "sleeping";
	case 'D':
		return "disk sleep";
	case 'T':
		return "stopped";
	case 't':
		return "tracing stop";
	case 'Z':
		return "zombie";
	case 'X':
	case 'x':
		return "dead";
	case 'I':
		return "idle";
	case 'P':
		return "parked";
	case 'W':
		return "waking";
	case 'K':
		return "wakekill";
	}
	return "unknown";
}

/*
 * What a thread the snapshot saw blocked in the kernel waits in: the one
 * the snapshot has, else read now.  A new string, or NULL.
 */
static char *
dump_blocked(const struct rbmon_process *p, const struct rbmon_thread *t)
{
	if (t->blocked_in != NULL)
		return rbmon_xstrdup(t->blocked_in);
	if (!p->alive || (t->kstate != 'S' && t->kstate != 'D'))
		return NULL;
	return rbmon_task_blocked(p->pid, t->tid);
}

/*
 * A function's name in the text, shortened as on the screen (cxxname.c)
 * when longer than RBMON_DUMP_NAME_COLS; JSON has it whole.
 */
static void
dump_text_name(FILE *out, const char *name)
{
	char	buf[RBMON_DUMP_NAME_COLS * 4 + 1];

	rbmon_cxxname_fit(buf, sizeof buf, name, NULL, RBMON_DUMP_NAME_COLS,
	    RBMON_CXX_ELL_ASCII);
	rbmon_esc_fputs(buf, out);
}

/* " (breakpoint 2 at f)", " (step: returned from f)" after "stopped". */
static void
dump_text_stop(FILE *out, struct rbmon_symbols *sy,
    const struct rbmon_snapshot *s, const struct rbmon_process *p,
    const struct rbmon_thread *t)
{
	struct rbmon_sym	sym;

	memset(&sym, 0, sizeof sym);
	if (t->stopfn != 0)
		rbmon_symbols_lookup(sy, s, p, t->stopfn, &sym);
	fprintf(out, " (%s", rbmon_why_json(t->why));
	if (RB_WHY_REASON(t->why) == RB_WHY_BREAKPOINT)
		fprintf(out, " %u", RB_WHY_ID(t->why));
	fprintf(out, "%s ", (t->why & RB_WHY_EXIT) ? ": returned from" : " at");
	if (sym.function != NULL)
		dump_text_name(out, sym.function);
	else
		fprintf(out, "0x%" PRIx64, t->stopfn);
	fputc(')', out);
}

/**
 * rbmon_dump_resolve - name, locate and age frame @i of a thread
 * @sy: symbol cache
 * @s: the snapshot
 * @p: the process
 * @t: the thread, its frames resolved by rbmon_stack_resolve()
 * @i: frame index, 0 = innermost shown
 * @c: clocks for ages
 * @out: filled in; strings belong to @sy or @s
 *
 * The innermost frame is located at its function (or its line mark);
 * an outer frame at the call it made (see stack.c).  A frame not resolved
 * shows its function alone.
 */
void
rbmon_dump_resolve(struct rbmon_symbols *sy, const struct rbmon_snapshot *s,
    const struct rbmon_process *p, const struct rbmon_thread *t, size_t i,
    const struct rbmon_clock *c, struct rbmon_shown *out)
{
	const struct rbmon_frame	*f = &t->frames[i];
	struct rbmon_sym		 fn;

	memset(out, 0, sizeof *out);
	if (f->torn) {
		out->torn = 1;
		return;
	}
	if (!f->synthetic)
		out->have_age = rbmon_clock_age(c, f->ts, &out->age_ns) == 0;
	if (!f->synthetic && c->kind == RB_CLOCK_NONE && f->seen_ns != 0) {
		out->have_seen = 1;
		out->seen_ns = c->now_ns > f->seen_ns ? c->now_ns - f->seen_ns :
		    0;
	}
	out->named = f->named;
	out->before_attach = f->before_attach;
	out->seeded = f->seeded;
	out->inlined = f->inlined;
	out->address = f->fn;
	if (f->resolved) {
		out->function = f->at_function;
		out->file = f->at_file;
		out->line = f->at_line;
		return;
	}
	if (f->named) {
		out->function = f->function;
		return;
	}
	rbmon_symbols_lookup(sy, s, p, f->fn, &fn);
	out->function = fn.function;
	out->file = fn.file;
}

static void
dump_text_frame(FILE *out, size_t i, const struct rbmon_shown *sh)
{
	char	age[32];

	if (sh->torn) {
		fprintf(out, "    #%zu <torn frame>\n", i);
		return;
	}
	fprintf(out, "    #%zu ", i);
	if (sh->function != NULL)
		dump_text_name(out, sh->function);
	else
		fprintf(out, "0x%" PRIx64, sh->address);
	if (sh->file != NULL) {
		fputs(" (", out);
		rbmon_esc_fputs(sh->file, out);
		if (sh->line != 0)
			fprintf(out, ":%d", sh->line);
		fputc(')', out);
	} else if (sh->line != 0)
		fprintf(out, " (line %d)", sh->line);
	else if (!sh->before_attach)	/* that one has no place to show */
		fputs(" (?\?)", out);
	if (sh->inlined)
		fputs(" [inlined]", out);
	if (sh->seeded)
		fputs(" before attach", out);
	else if (sh->have_age) {
		rbmon_age_format(age, sizeof age, sh->age_ns);
		fprintf(out, " %s", age);
	} else if (sh->have_seen) {
		rbmon_age_format(age, sizeof age, sh->seen_ns);
		fprintf(out, " seen %s", age);
	}
	fputc('\n', out);
}

static const char *
dump_program(const struct rbmon_model *m, const struct rbmon_snapshot *s)
{
	size_t	i;

	for (i = 0; i < s->nprocs; i++) {
		if (s->procs[i].creator)
			return rbmon_model_program(m, s, s->procs[i].image);
	}
	return m->hdr.program;
}

/*
 * "  dynamic: ..." for a process's dynamic tracing entry, and what the
 * system refused or which objects have no site table, when it says.
 */
static void
dump_text_dyn(FILE *out, const struct rbmon_dyn *d)
{
	char	line[256];

	rbmon_dyn_summary(d, line, sizeof line);
	fprintf(out, "  dynamic: %s\n", line);
	if (d->torn)
		return;
	if (d->flags & RB_DYNF_REFUSED) {
		fputs("  dynamic: refused", out);
		if (d->why[0] != '\0') {
			fputs(": ", out);
			rbmon_esc_fputs(d->why, out);
		} else
			fputs(" (no reason given)", out);
		fputc('\n', out);
	} else if ((d->flags & RB_DYNF_PARTIAL) && d->why[0] != '\0') {
		fputs("  dynamic: partial: ", out);
		rbmon_esc_fputs(d->why, out);
		fputc('\n', out);
	}
}

/*
 * A process the dynamic tracing table names but no ring does (asleep from
 * its start, say): what symbols.c and the dumps need of it.
 */
static void
dump_dyn_process(const struct rbmon_dyn *d, struct rbmon_process *p)
{
	memset(p, 0, sizeof *p);
	p->pid = d->pid;
	p->pstart = d->pstart;
	p->image = d->image;
	p->alive = rbmon_model_pid_alive(d->pid, d->pstart);
	p->cpu = -1;
	p->dyn = d;
}

/* The file's trigger snapshots (rbtrace(5), "SNAPSHOTS"), one line. */
static void
dump_snap_text(FILE *out, const struct rbmon_snapcount *n)
{
	fprintf(out, "snapshots: %" PRIu64 " taken, %" PRIu64 " written, %"
	    PRIu64 " missed, %" PRIu64 " suppressed; ", n->taken, n->written,
	    n->missed, n->suppressed);
	if (n->writer > 0)
		fprintf(out, "writer %d%s\n", (int)n->writer,
		    n->state == RB_SNAP_FROZEN || n->state == RB_SNAP_WRITING ?
		    ", logs frozen" : "");
	else
		fputs("no writer\n", out);
}

/*
 * "snapshots": {"taken", "written", "missed", "suppressed", "writer"
 * (its pid, or null), "frozen"}
 */
static void
dump_snap_json(FILE *out, const struct rbmon_snapcount *n)
{
	fprintf(out, "\"snapshots\": {\"taken\": %" PRIu64 ", \"written\": %"
	    PRIu64 ", \"missed\": %" PRIu64 ", \"suppressed\": %" PRIu64
	    ", \"writer\": ", n->taken, n->written, n->missed, n->suppressed);
	if (n->writer > 0)
		fprintf(out, "%d", (int)n->writer);
	else
		fputs("null", out);
	fprintf(out, ", \"frozen\": %s}, ", n->state == RB_SNAP_FROZEN ||
	    n->state == RB_SNAP_WRITING ? "true" : "false");
}

/**
 * rbmon_dump_text - print a snapshot like jstack or eu-stack would
 * @out: stream
 * @m: the model
 * @s: a snapshot of it
 * @sy: symbol cache
 * @c: clocks for ages
 */
void
rbmon_dump_text(FILE *out, const struct rbmon_model *m,
    const struct rbmon_snapshot *s, struct rbmon_symbols *sy,
    const struct rbmon_clock *c)
{
	const struct rbmon_process	*p;
	const struct rbmon_thread	*t;
	struct rbmon_process		 dp;
	struct rbmon_shown		 sh;
	char				*blocked;
	size_t				 i, j, k;

	rbmon_esc_fputs(m->path, out);
	fputs(": program ", out);
	rbmon_esc_fputs(dump_program(m, s), out);
	fprintf(out, ", %u of %u rings used, %" PRIu64 " thread%s untraced\n",
	    s->rings_used, s->rings_total, s->untraced, s->untraced == 1 ? "" :
	    "s");
	if (s->snap.taken + s->snap.missed + s->snap.suppressed != 0 ||
	    s->snap.writer != 0)
		dump_snap_text(out, &s->snap);
	if (c->kind == RB_CLOCK_NONE)
		fputs("no clock (RBTRACE_CLOCK=none): frames show how long "
		    "rbmon has seen them, not their age\n", out);
	if (s->min_duration_ns != 0)
		fprintf(out, "event logs: calls shorter than %" PRIu64 " ns "
		    "dropped (min-duration)\n", s->min_duration_ns);
	for (i = 0; i < s->nprocs; i++) {
		p = &s->procs[i];
		fprintf(out, "process %d (", p->pid);
		rbmon_esc_fputs(rbmon_model_program(m, s, p->image), out);
		fprintf(out, ") %s, parent %d", p->alive ? "alive" :
		    rbmon_process_exited(p) ? "exited" : "gone", p->ppid);
		if ((k = rbmon_caps_count(m, p->pid, p->pstart)) > 0)
			fprintf(out, ", %zu capture%s of slow calls", k,
			    k == 1 ? "" : "s");
		fputc('\n', out);
		if (p->dyn != NULL)
			dump_text_dyn(out, p->dyn);
		for (j = 0; j < p->nthreads; j++) {
			t = &p->threads[j];
			fprintf(out, "  thread %d \"", t->tid);
			rbmon_esc_fputs(t->name, out);
			fputs("\" ", out);
			if (p->alive || dump_thread_exited(t))
				fputs(dump_ring_state(t), out);
			else
				fprintf(out, "gone (was %s)",
				    dump_ring_state(t));
			if (p->alive && t->state == RB_STATE_STOPPED &&
			    !dump_thread_exited(t))
				dump_text_stop(out, sy, s, p, t);
			if (t->orphaned != 0)
				fprintf(out, ", resumed by itself %u time%s "
				    "(no monitor left)", t->orphaned,
				    t->orphaned == 1 ? "" : "s");
			fprintf(out, ", depth %d", t->depth);
			if (t->ev_rewinds != 0)
				fprintf(out, ", %" PRIu64 " short call%s "
				    "dropped", t->ev_rewinds,
				    t->ev_rewinds == 1 ? "" : "s");
			if (t->kstate != 0) {
				fputs(", kernel ", out);
				rbmon_esc_write(out, (char[2]){ t->kstate, '\0' },
				    0);
				fprintf(out, " (%s)", rbmon_dump_kstate(t->kstate));
			}
			if (t->cpu >= 0)
				fprintf(out, ", cpu %.1f%%", t->cpu);
			fputc('\n', out);
			blocked = dump_blocked(p, t);
			if (blocked != NULL) {
				fputs("    blocked in ", out);
				rbmon_esc_fputs(blocked, out);
				fputc('\n', out);
				free(blocked);
			}
			for (k = 0; k <= t->nframes; k++) {
				if (k == t->gap_at && t->wrapped != 0)
					fprintf(out, "    ... %u frame%s "
					    "overwritten\n", t->wrapped,
					    t->wrapped == 1 ? "" : "s");
				if (k == t->nframes)
					break;
				rbmon_dump_resolve(sy, s, p, t, k, c, &sh);
				dump_text_frame(out,
				    rbmon_frame_number(t, k), &sh);
			}
		}
	}
	for (i = 0; i < s->dyn.n; i++) {
		if (s->dyn.v[i].linked)
			continue;
		dump_dyn_process(&s->dyn.v[i], &dp);
		fprintf(out, "process %d (", dp.pid);
		rbmon_esc_fputs(rbmon_model_program(m, s, dp.image), out);
		fprintf(out, ") %s, no traced thread\n", dp.alive ? "alive" :
		    "gone");
		dump_text_dyn(out, dp.dyn);
	}
}

/**
 * rbmon_json_string - print a JSON string literal
 * @out: stream
 * @str: NUL-terminated bytes; NULL prints null
 *
 * Quotes, backslashes and what rbmon_esc_unsafe() names (controls, C1
 * and bidirectional controls included) are escaped, so the output is
 * plain to a terminal too; bytes that are not valid UTF-8 become U+FFFD.
 */
void
rbmon_json_string(FILE *out, const char *str)
{
	const unsigned char	*s = (const unsigned char *)str;
	uint32_t		 cp;
	size_t			 n;

	if (s == NULL) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	while (*s != '\0') {
		switch (*s) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\b':
			fputs("\\b", out);
			break;
		case '\f':
			fputs("\\f", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		default:
			n = rbmon_utf8_decode((const char *)s, &cp);
			if (n == 0) {
				fputs("\\ufffd", out);
				break;
			}
			if (rbmon_esc_unsafe(cp))
				fprintf(out, "\\u%04x", (unsigned)cp);
			else
				fwrite(s, 1, n, out);
			s += n;
			continue;
		}
		s++;
	}
	fputc('"', out);
}

static void
dump_json_cpu(FILE *out, double cpu)
{
	if (cpu >= 0)
		fprintf(out, "%.1f", cpu);
	else
		fputs("null", out);
}

/*
 * What the kernel says of a thread: "kstate" (its state letter), "cpu" (%
 * of one core over the last interval), "cpu_ns" (utime + stime) and
 * "blocked_in"; each null when unknown (a thread or process gone, the
 * first snapshot for "cpu", not blocked in the kernel for "blocked_in").
 */
static void
dump_json_kernel(FILE *out, const struct rbmon_process *p,
    const struct rbmon_thread *t)
{
	char	*blocked;

	fputs("\"kstate\": ", out);
	if (t->kstate != 0)
		rbmon_json_string(out, (char[2]){ t->kstate, '\0' });
	else
		fputs("null", out);
	fputs(", \"cpu\": ", out);
	dump_json_cpu(out, t->cpu);
	if (t->kstate != 0)
		fprintf(out, ", \"cpu_ns\": %" PRIu64, t->cpu_ns);
	else
		fputs(", \"cpu_ns\": null", out);
	fputs(", \"blocked_in\": ", out);
	blocked = dump_blocked(p, t);
	rbmon_json_string(out, blocked);
	free(blocked);
	fputs(", ", out);
}

static void
dump_json_frame(FILE *out, const struct rbmon_shown *sh)
{
	fputs("{\"function\": ", out);
	rbmon_json_string(out, sh->function);
	fputs(", \"file\": ", out);
	rbmon_json_string(out, sh->file);
	if (sh->line != 0)
		fprintf(out, ", \"line\": %d", sh->line);
	else
		fputs(", \"line\": null", out);
	if (sh->have_age)
		fprintf(out, ", \"age_ns\": %" PRIu64, sh->age_ns);
	else
		fputs(", \"age_ns\": null", out);
	if (sh->have_seen)
		fprintf(out, ", \"seen_ns\": %" PRIu64, sh->seen_ns);
	if (sh->address != 0)
		fprintf(out, ", \"address\": \"0x%" PRIx64 "\"", sh->address);
	else
		fputs(", \"address\": null", out);
	fprintf(out, ", \"inlined\": %s", sh->inlined ? "true" : "false");
	if (sh->torn)
		fputs(", \"torn\": true", out);
	if (sh->before_attach)
		fputs(", \"before_attach\": true", out);
	if (sh->seeded)
		fputs(", \"seeded\": true", out);
	fputc('}', out);
}

/*
 * "watches": the entries in use, each {"entry", "inuse", "expr",
 * "resready", "reslength"} and, once evaluated, "value" (the first
 * RB_RESULT_MAX bytes; reslength is the full length) or "error".
 */
static void
dump_json_watches(FILE *out, const struct rbmon_thread *t)
{
	const struct rbmon_watch	*w;
	int				 i, n = 0;

	fputs("\"watches\": [", out);
	for (i = 0; t->watches != NULL && i < RB_WATCHES; i++) {
		w = &t->watches[i];
		if (w->inuse == RB_WATCH_FREE)
			continue;
		fprintf(out, "%s{\"entry\": %d, \"inuse\": %d, \"expr\": ",
		    n++ ? ", " : "", i, (int)w->inuse);
		rbmon_json_string(out, w->expr);
		fprintf(out, ", \"resready\": %d, \"reslength\": %d",
		    (int)w->resready, (int)w->reslength);
		if (w->inuse == RB_WATCH_SET && w->resready == 1) {
			fputs(w->reslength < 0 ? ", \"error\": " :
			    ", \"value\": ", out);
			rbmon_json_string(out, w->result);
		}
		fputc('}', out);
	}
	fputs("], ", out);
}

/*
 * The control fields of a thread: "trace", "stops", "orphan_resumes" and,
 * while it is stopped, "stop": {"reason", "breakpoint" (id, breakpoints
 * only), "at" ("entry" of function, or "exit": function returned),
 * "function", "address"}.
 */
static void
dump_json_control(FILE *out, struct rbmon_symbols *sy,
    const struct rbmon_snapshot *s, const struct rbmon_process *p,
    const struct rbmon_thread *t)
{
	struct rbmon_sym	sym;

	fprintf(out, "\"trace\": %s, \"stops\": %u, \"orphan_resumes\": %u, ",
	    t->trace ? "true" : "false", t->stops, t->orphaned);
	dump_json_watches(out, t);
	if (strcmp(rbmon_dump_state(p, t), "stopped") != 0)
		return;
	fprintf(out, "\"stop\": {\"reason\": \"%s\", ",
	    rbmon_why_json(t->why));
	if (RB_WHY_REASON(t->why) == RB_WHY_BREAKPOINT)
		fprintf(out, "\"breakpoint\": %u, ", RB_WHY_ID(t->why));
	fprintf(out, "\"at\": \"%s\", \"function\": ",
	    (t->why & RB_WHY_EXIT) ? "exit" : "entry");
	memset(&sym, 0, sizeof sym);
	if (t->stopfn != 0)
		rbmon_symbols_lookup(sy, s, p, t->stopfn, &sym);
	rbmon_json_string(out, sym.function);
	fprintf(out, ", \"address\": \"0x%" PRIx64 "\"}, ", t->stopfn);
}

/*
 * "dynamic": a process's dynamic tracing entry, or null: {"dormant",
 * "refused" (null, or why), "sites", "sites_off", "functions_off", "off"
 * (the functions named, each {"function", "address", "reason"}), "more"
 * (those off but not named), "batches", "traps", "private_bytes",
 * "last_batch_ns"}; {"torn": true} for an entry that changed at every
 * try.
 */
static void
dump_json_dyn(FILE *out, struct rbmon_symbols *sy,
    const struct rbmon_snapshot *s, const struct rbmon_process *p)
{
	const struct rbmon_dyn	*d = p->dyn;
	struct rbmon_sym	 sym;
	size_t			 i;

	fputs("\"dynamic\": ", out);
	if (d == NULL) {
		fputs("null, ", out);
		return;
	}
	if (d->torn) {
		fputs("{\"torn\": true}, ", out);
		return;
	}
	fprintf(out, "{\"dormant\": %s, \"refused\": ",
	    (d->flags & RB_DYNF_DORMANT) ? "true" : "false");
	rbmon_json_string(out, (d->flags & RB_DYNF_REFUSED) ? d->why : NULL);
	fprintf(out, ", \"sites\": %" PRIu64 ", \"sites_off\": %" PRIu64
	    ", \"functions_off\": %" PRIu64 ", \"off\": [", d->sites,
	    d->sites_off, rbmon_dyn_off(d));
	for (i = 0; i < d->nfns; i++) {
		rbmon_symbols_lookup(sy, s, p, d->fns[i].addr, &sym);
		fputs(i == 0 ? "{\"function\": " : ", {\"function\": ", out);
		rbmon_json_string(out, sym.function);
		fprintf(out, ", \"address\": \"0x%" PRIx64 "\", \"reason\": "
		    "\"%s\"}", d->fns[i].addr, rbmon_dyn_reason(d->fns[i].reason));
	}
	fprintf(out, "], \"more\": %" PRIu64 ", \"batches\": %" PRIu64
	    ", \"traps\": %" PRIu64 ", \"private_bytes\": %" PRIu64
	    ", \"last_batch_ns\": %" PRIu64 "}, ", rbmon_dyn_more(d),
	    d->batches, d->traps, d->private_bytes, d->last_ns);
}

/**
 * rbmon_dump_json - a snapshot as one JSON object (rbmon(1), "JSON OUTPUT")
 * @out: stream
 * @m: the model
 * @s: a snapshot of it
 * @sy: symbol cache
 * @c: clocks for ages
 */
void
rbmon_dump_json(FILE *out, const struct rbmon_model *m,
    const struct rbmon_snapshot *s, struct rbmon_symbols *sy,
    const struct rbmon_clock *c)
{
	const struct rbmon_process	*p;
	const struct rbmon_thread	*t;
	struct rbmon_process		 dp;
	struct rbmon_shown		 sh;
	size_t				 i, j, k;

	fputs("{\"file\": ", out);
	rbmon_json_string(out, m->path);
	fputs(", \"program\": ", out);
	rbmon_json_string(out, dump_program(m, s));
	fputs(", \"clock\": ", out);
	rbmon_json_string(out, rb_clock_name(m->hdr.clock));
	fprintf(out, ", \"rings\": {\"total\": %u, \"used\": %u, "
	    "\"untraced_threads\": %" PRIu64 "}, \"min_duration_ns\": %"
	    PRIu64 ", ", s->rings_total, s->rings_used, s->untraced,
	    s->min_duration_ns);
	dump_snap_json(out, &s->snap);
	fputs("\"processes\": [", out);
	for (i = 0; i < s->nprocs; i++) {
		p = &s->procs[i];
		fprintf(out, "%s{\"pid\": %d, \"ppid\": %d, \"alive\": %s, "
		    "\"cpu\": ", i == 0 ? "" : ", ", p->pid, p->ppid,
		    p->alive ? "true" : "false");
		dump_json_cpu(out, p->cpu);
		if (p->kstate != 0)
			fprintf(out, ", \"cpu_ns\": %" PRIu64, p->cpu_ns);
		else
			fputs(", \"cpu_ns\": null", out);
		fprintf(out, ", \"captures\": %zu",
		    rbmon_caps_count(m, p->pid, p->pstart));
		fputs(", ", out);
		dump_json_dyn(out, sy, s, p);
		fputs("\"threads\": [", out);
		for (j = 0; j < p->nthreads; j++) {
			t = &p->threads[j];
			fprintf(out, "%s{\"tid\": %d, \"name\": ",
			    j == 0 ? "" : ", ", t->tid);
			rbmon_json_string(out, t->name);
			fprintf(out, ", \"state\": \"%s\", \"depth\": %d, "
			    "\"wrapped\": %u, ",
			    rbmon_dump_state(p, t), t->depth, t->wrapped);
			if (t->wrapped != 0)
				fprintf(out, "\"wrapped_at\": %zu, ", t->gap_at);
			fprintf(out, "\"detached\": %s, \"short_calls\": %"
			    PRIu64 ", ", t->state == RB_STATE_DETACHED ?
			    "true" : "false", t->ev_rewinds);
			dump_json_control(out, sy, s, p, t);
			dump_json_kernel(out, p, t);
			fputs("\"frames\": [", out);
			for (k = 0; k < t->nframes; k++) {
				if (k != 0)
					fputs(", ", out);
				rbmon_dump_resolve(sy, s, p, t, k, c, &sh);
				dump_json_frame(out, &sh);
			}
			fputs("]}", out);
		}
		fputs("]}", out);
	}
	j = s->nprocs;
	for (i = 0; i < s->dyn.n; i++) {
		if (s->dyn.v[i].linked)
			continue;
		dump_dyn_process(&s->dyn.v[i], &dp);
		fprintf(out, "%s{\"pid\": %d, \"ppid\": null, \"alive\": %s, "
		    "\"cpu\": null, \"cpu_ns\": null, ", j++ == 0 ? "" : ", ",
		    dp.pid, dp.alive ? "true" : "false");
		dump_json_dyn(out, sy, s, &dp);
		fputs("\"threads\": []}", out);
	}
	fputs("]}\n", out);
}
