/* SPDX-License-Identifier: MIT */
/*
 * rbmon readback: what the commands that read a recording (rbtrace(5),
 * "RECORDINGS") back and the exports share: opening one and saying what
 * it lacks, what its threads lost, durations and the names of marks.
 * Names come from the program: text goes through the escaper, JSON
 * through the JSON string writer.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/core/dump.h"
#include "monitor/core/model.h"
#include "monitor/core/view.h"
#include "monitor/history/readback.h"
#include "monitor/history/walk.h"
#include "monitor/util/escape.h"

/* ---- opening --------------------------------------------------------------- */

/*
 * A snapshot's trigger, in one line: what, by whom, and when, from the
 * recording's first record as the outputs count times.
 */
static void
rbread_snap_say(struct rbwalk_ctx *x, const char *cmd, const char *path)
{
	const struct rbrec_snap	*s = &x->rec.snap;
	char			 what[640], at[64], name[512];
	size_t			 i;

	switch (s->reason) {
	case RB_SNAPR_SIGNAL:
		snprintf(what, sizeof what, "signal %" PRIu64 " in thread %d",
		    s->arg, (int)s->tid);
		break;
	case RB_SNAPR_WATCH:
		snprintf(what, sizeof what, "a watch of thread %d turned true",
		    (int)s->tid);
		break;
	case RB_SNAPR_CAPTURE:
		snprintf(name, sizeof name, "0x%" PRIx64, s->fn);
		for (i = 0; i < x->rec.nstreams; i++)
			if (x->procs[i].pid == s->pid) {
				rbwalk_name_at(x, x->procs[i].image, s->fn,
				    name, sizeof name);
				break;
			}
		snprintf(what, sizeof what, "capture: %s took %.2f ms in "
		    "thread %d", name, (double)s->arg / 1e6, (int)s->tid);
		break;
	case RB_SNAPR_NOW:
		snprintf(what, sizeof what, "rbmon snapshot --now");
		break;
	default:
		snprintf(what, sizeof what, "trigger %u", s->reason);
		break;
	}
	at[0] = '\0';
	if (x->have_t0 && x->rec.clock_ok && s->ts != 0)
		snprintf(at, sizeof at, ", at %.3f us",
		    s->ts <= x->t0 ? 0.0 :
		    (double)rbwalk_rel_ns(x, s->ts) / 1e3);
	rbmon_esc_line(stderr, "rbmon %s: %s: snapshot %u of process %d: %s%s",
	    cmd, path, s->number, (int)s->pid, what, at);
}

/* Recorded without a clock: its stamps are a sequence, no time. */
int
rbread_no_times(const struct rbwalk_ctx *x)
{
	return x->rec.info.clock == RB_CLOCK_NONE;
}

/*
 * Open @path for @cmd, saying what the recording lacks; @needs (what of
 * @cmd needs times, NULL: nothing) refuses one without times.
 */
int
rbread_open_or_say(struct rbwalk_ctx *x, const char *cmd, const char *path,
    const char *needs)
{
	char	*why = NULL;

	if (rbwalk_open(x, path, &why) != 0) {
		rbmon_esc_line(stderr, "rbmon %s: %s: %s", cmd, path, why);
		free(why);
		return -1;
	}
	if (x->rec.warning != NULL)
		rbmon_esc_line(stderr, "rbmon %s: %s: %s", cmd, path,
		    x->rec.warning);
	if (x->rec.have_snap)
		rbread_snap_say(x, cmd, path);
	if (!x->rec.have_end)
		rbmon_esc_line(stderr, "rbmon %s: %s: incomplete: no END chunk "
		    "(its recorder was killed, or could not write): read to "
		    "its last whole chunk; what the threads lost after it is "
		    "unknown", cmd, path);
	if (rbread_no_times(x) && needs != NULL) {
		rbmon_esc_line(stderr, "rbmon %s: %s: %s needs times: the "
		    "program ran with RBTRACE_CLOCK=none", cmd, path, needs);
		rbwalk_close(x);
		return -1;
	}
	if (rbread_no_times(x))
		rbmon_esc_line(stderr, "rbmon %s: %s: no times: the program ran "
		    "with RBTRACE_CLOCK=none (the calls in order only)", cmd,
		    path);
	else if (!x->rec.clock_ok)
		rbmon_esc_line(stderr, "rbmon %s: %s: no clock calibration: "
		    "times are not shown", cmd, path);
	return 0;
}

/* A duration as the text outputs show it: "500 ns", "1.234 us", "2.000  s". */
void
rbread_time(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.3f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.3f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.3f  s", (double)ns / 1e9);
}

/* ---- losses --------------------------------------------------------------- */

void
rbread_losses(const struct rbwalk_ctx *x, struct rbread_losses *l)
{
	size_t	i;

	memset(l, 0, sizeof *l);
	l->incomplete = !x->rec.have_end;
	for (i = 0; i < x->rec.nstreams; i++) {
		const struct rbwalk_count	*c = &x->counts[i];

		if (c->walked)
			l->short_calls += x->rec.streams[i].short_calls;
		if (!c->walked || (c->lost == 0 && !c->lost_unknown))
			continue;
		l->lost += c->lost;
		l->unknown |= c->lost_unknown;
		l->threads++;
		l->gaps += c->gaps;
		l->gap_ns += c->gap_ns;
		l->exits_lost += c->exits_lost;
		l->entries_lost += c->entries_lost;
	}
}

/* Are the counts shown lower bounds? */
static int
rbread_lower_bounds(const struct rbread_losses *l)
{
	return l->threads != 0 || l->incomplete;
}

/* Are the counts a reader shows of @x lower bounds (records lost)? */
int
rbread_lower(const struct rbwalk_ctx *x)
{
	struct rbread_losses	l;

	rbread_losses(x, &l);
	return rbread_lower_bounds(&l);
}

/* @buf, a count or a time, as a lower bound if @lower: ">=4.245 ms". */
char *
rbread_ge(char *buf, size_t len, int lower)
{
	size_t	n = strlen(buf);

	if (!lower || strcmp(buf, "-") == 0 || n + 3 > len)
		return buf;
	memmove(buf + 2, buf, n + 1);
	memcpy(buf, ">=", 2);
	return buf;
}

/* "5,060 records lost", "at least 5,060 ...", "records lost" (none counted). */
static const char *
rbread_lost_text(char *buf, size_t len, uint64_t lost, int unknown)
{
	char	n[32];

	if (lost == 0)
		snprintf(buf, len, "records lost");
	else
		snprintf(buf, len, "%s%s record%s lost", unknown ? "at least " :
		    "", rbmon_group(n, sizeof n, lost), lost == 1 ? "" : "s");
	return buf;
}

/**
 * rbread_thread_label - a thread's name as the exports show it, with what it
 * lost: "@name (@more, 5,060 records lost)", "@name (@more)",
 * "@name (5,060 records lost)" or @name
 * @more: NULL, or what the name says besides
 */
void
rbread_thread_label(char *buf, size_t len, const struct rbwalk_ctx *x,
    size_t si, const char *name, const char *more)
{
	const struct rbwalk_count *c = &x->counts[si];
	char			 t[64];
	int			 lost = c->lost != 0 || c->lost_unknown;

	if (lost)
		rbread_lost_text(t, sizeof t, c->lost, c->lost_unknown);
	if (more != NULL && lost)
		snprintf(buf, len, "%s (%s, %s)", name, more, t);
	else if (more != NULL || lost)
		snprintf(buf, len, "%s (%s)", name, more != NULL ? more : t);
	else
		snprintf(buf, len, "%s", name);
}

/* A thread's name: its name at the end if it had one, else at the start. */
const char *
rbread_thread_name(const struct rbrec_stream *s)
{
	return s->ended && s->end.name[0] != '\0' ? s->end.name :
	    s->info.name;
}

/*
 * Per thread that lost records, as a table after a text output (each line
 * after @prefix): what it lost and what it kept; and whether the
 * recording is incomplete.
 */
void
rbread_lost_table(FILE *out, const struct rbwalk_ctx *x, const char *prefix)
{
	struct rbread_losses	l;
	char			a[64], b[32];
	int			blank = (int)strcspn(prefix, " ");
	size_t			i;

	rbread_losses(x, &l);
	/* A blank line first: the prefix without its trailing blanks. */
	if (l.short_calls != 0)
		fprintf(out, "%.*s\n%s%s short call%s dropped at record time "
		    "(min-duration): never recorded, not lost.\n", blank,
		    prefix, prefix, rbmon_group(a, sizeof a, l.short_calls),
		    l.short_calls == 1 ? "" : "s");
	if (l.incomplete)
		fprintf(out, "%.*s\n%sThe recording is incomplete (no END "
		    "chunk): the counts above are lower bounds.\n", blank,
		    prefix, prefix);
	if (l.threads == 0)
		return;
	fprintf(out, "%.*s\n%s%s in %zu thread%s (the counts above are lower "
	    "bounds):\n", blank, prefix, prefix, rbread_lost_text(a, sizeof a,
	    l.lost, l.unknown), l.threads, l.threads == 1 ? "" : "s");
	fprintf(out, "%s%12s  %10s  %6s  %10s  %9s  %10s  %8s  %s\n", prefix,
	    "Lost", "Kept", "Gaps", "In gaps", "Exit lost", "Entry lost",
	    "TID", "Thread");
	for (i = 0; i < x->rec.nstreams; i++) {
		const struct rbwalk_count	*c = &x->counts[i];
		char				 g[32], t[32], x1[32];
		char				 x2[32];

		if (!c->walked || (c->lost == 0 && !c->lost_unknown))
			continue;
		snprintf(a, sizeof a, "%s%s", c->lost_unknown ? ">=" : "",
		    rbmon_group(b, sizeof b, c->lost));
		if (rbread_no_times(x) || !x->rec.clock_ok)
			snprintf(t, sizeof t, "-");
		else
			rbread_time(t, sizeof t, c->gap_ns);
		fprintf(out, "%s%12s  %10s  %6s  %10s  %9s  %10s  %8d  ",
		    prefix, a, rbmon_group(b, sizeof b, c->records),
		    rbmon_group(g, sizeof g, c->gaps), t,
		    rbmon_group(x1, sizeof x1, c->exits_lost),
		    rbmon_group(x2, sizeof x2, c->entries_lost),
		    (int)x->rec.streams[i].info.tid);
		rbmon_esc_fputs(rbread_thread_name(&x->rec.streams[i]), out);
		fputc('\n', out);
	}
}

/*
 * The losses as JSON members, after others: "records", "lost",
 * "lost_unknown", "complete", "lower_bounds" and "threads", one object
 * per thread walked.
 */
void
rbread_lost_json(FILE *out, const struct rbwalk_ctx *x)
{
	struct rbread_losses	l;
	uint64_t		records = 0;
	size_t			i, n = 0;

	rbread_losses(x, &l);
	for (i = 0; i < x->rec.nstreams; i++)
		if (x->counts[i].walked)
			records += x->counts[i].records;
	fprintf(out, ", \"records\": %" PRIu64 ", \"lost\": %" PRIu64
	    ", \"lost_unknown\": %s, \"complete\": %s, \"lower_bounds\": %s"
	    ", \"short_calls\": %" PRIu64, records, l.lost,
	    l.unknown ? "true" : "false", l.incomplete ? "false" : "true",
	    rbread_lower_bounds(&l) ? "true" : "false", l.short_calls);
	fprintf(out, ", \"losses\": {\"records\": %" PRIu64 ", \"unknown\": %s"
	    ", \"threads\": %zu, \"gaps\": %" PRIu64 ", \"gap_ns\": %" PRIu64
	    ", \"exits_lost\": %" PRIu64 ", \"entries_lost\": %" PRIu64 "}"
	    ", \"threads\": [", l.lost, l.unknown ? "true" : "false",
	    l.threads, l.gaps, l.gap_ns, l.exits_lost, l.entries_lost);
	for (i = 0; i < x->rec.nstreams; i++) {
		const struct rbrec_stream	*s = &x->rec.streams[i];
		const struct rbwalk_count	*c = &x->counts[i];

		if (!c->walked)
			continue;
		fprintf(out, "%s{\"pid\": %d, \"tid\": %d, \"name\": ",
		    n++ == 0 ? "\n  " : ",\n  ", (int)s->info.pid,
		    (int)s->info.tid);
		rbmon_json_string(out, rbread_thread_name(s));
		fprintf(out, ", \"records\": %" PRIu64 ", \"lost\": %" PRIu64
		    ", \"lost_unknown\": %s, \"lower_bound\": %s"
		    ", \"short_calls\": %" PRIu64,
		    c->records, c->lost, c->lost_unknown ? "true" : "false",
		    c->lost != 0 || c->lost_unknown || l.incomplete ?
		    "true" : "false", s->short_calls);
		fprintf(out, ", \"losses\": {\"records\": %" PRIu64
		    ", \"unknown\": %s, \"gaps\": %" PRIu64 ", \"gap_ns\": %"
		    PRIu64 ", \"first_gap_ns\": ", c->lost,
		    c->lost_unknown ? "true" : "false", c->gaps, c->gap_ns);
		if (c->have_first_gap)
			fprintf(out, "%" PRIu64, c->first_gap_ns);
		else
			fputs("null", out);
		fprintf(out, ", \"exits_lost\": %" PRIu64
		    ", \"entries_lost\": %" PRIu64 "}}", c->exits_lost,
		    c->entries_lost);
	}
	fputs(n != 0 ? "\n]" : "]", out);
}

/*
 * One line on stderr when counts are lower bounds; @where: where the
 * output says it per thread.
 */
void
rbread_lost_say(const struct rbwalk_ctx *x, const char *cmd,
    const char *where)
{
	struct rbread_losses	l;
	char			a[64];

	rbread_losses(x, &l);
	if (l.threads == 0)
		return;
	rbmon_esc_line(stderr, "rbmon %s: %s: %s in %zu thread%s (%s): counts "
	    "and times are lower bounds; %" PRIu64 " gap%s, %" PRIu64 " call%s "
	    "cut at one (exit lost), %" PRIu64 " without an entry", cmd,
	    x->rec.path, rbread_lost_text(a, sizeof a, l.lost, l.unknown),
	    l.threads, l.threads == 1 ? "" : "s", where, l.gaps,
	    l.gaps == 1 ? "" : "s", l.exits_lost, l.exits_lost == 1 ? "" : "s",
	    l.entries_lost);
}

/* ---- functions not traced ------------------------------------------------ */

static int
rbread_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/**
 * rbread_dyn - what the processes of @x did not trace
 * @pid: the process whose images to count, or -1 for all
 * @d: filled in; release with rbread_dyn_free()
 *
 * A function counts once per name, across images; a process's functions
 * off beyond those its chunks list count in d->more.
 */
void
rbread_dyn(struct rbwalk_ctx *x, int32_t pid, struct rbread_dyn *d)
{
	char	 name[1024];
	size_t	 i, j, n;
	uint64_t off;

	memset(d, 0, sizeof *d);
	for (i = 0; i < x->rec.ndyn; i++) {
		const struct rbrec_dynproc	*e = &x->rec.dyn[i];

		if (pid >= 0 && e->last.pid != pid)
			continue;
		d->any = 1;
		off = e->max_off > e->nfns ? e->max_off : e->nfns;
		if (off == 0 && !e->dormant)
			continue;
		d->processes++;
		d->at_end += (uint64_t)e->last.off_name + e->last.off_auto;
		d->more += off - e->nfns;
		d->dormant |= e->dormant;
		d->refused |= e->refused;
		for (j = 0; j < e->nfns; j++) {
			if (d->nnames == RBREAD_DYN_NAMES) {
				d->more += e->nfns - j;
				break;
			}
			if (d->names == NULL)
				d->names = rbmon_xcalloc(RBREAD_DYN_NAMES,
				    sizeof *d->names);
			rbwalk_name_at(x, e->last.image, e->fns[j], name,
			    sizeof name);
			d->names[d->nnames++] = rbmon_xstrdup(name);
		}
	}
	if (d->nnames > 1)
		qsort(d->names, d->nnames, sizeof *d->names, rbread_name_cmp);
	for (i = 0, n = 0; i < d->nnames; i++) {
		if (n > 0 && strcmp(d->names[n - 1], d->names[i]) == 0)
			free(d->names[i]);
		else
			d->names[n++] = d->names[i];
	}
	d->nnames = n;
	d->functions = d->nnames + d->more;
}

void
rbread_dyn_free(struct rbread_dyn *d)
{
	size_t	i;

	for (i = 0; i < d->nnames; i++)
		free(d->names[i]);
	free(d->names);
	memset(d, 0, sizeof *d);
}

/* @s, then @add: @s grown (freed, and the result to free). */
static char *
rbread_cat(char *s, const char *add)
{
	char	*t;

	rbmon_xasprintf(&t, "%s%s", s != NULL ? s : "", add);
	free(s);
	return t;
}

/**
 * rbread_dyn_text - "2 functions not traced (switched off at run time):
 * dc_hot, dc_leaf", naming @shown at most, with "; dormant for some or
 * all of the recording (nothing traced meanwhile)" if a process slept;
 * @brief: shorter, for a name
 *
 * Return: the text (names as they are: escape it to show it), to free, or
 * NULL if every function was traced.
 */
char *
rbread_dyn_text(const struct rbread_dyn *d, size_t shown, int brief)
{
	char	 n[32], *s = NULL;
	size_t	 i;

	if (d->functions == 0 && !d->dormant)
		return NULL;
	if (d->functions != 0) {
		rbmon_xasprintf(&s, "%s function%s not traced%s",
		    rbmon_group(n, sizeof n, d->functions),
		    d->functions == 1 ? "" : "s", brief ? "" :
		    " (switched off at run time)");
		for (i = 0; i < d->nnames && i < shown; i++)
			s = rbread_cat(rbread_cat(s, i == 0 ? ": " : ", "),
			    d->names[i]);
		if (i > 0 && d->functions > i) {
			s = rbread_cat(s, " and ");
			s = rbread_cat(s, rbmon_group(n, sizeof n,
			    d->functions - i));
			s = rbread_cat(s, " more");
		}
	}
	if (d->dormant) {
		s = rbread_cat(s, s != NULL ? "; dormant" : "dormant");
		s = rbread_cat(s, brief ? " for a while" : " for some or all "
		    "of the recording (nothing traced meanwhile)");
	}
	return s;
}

/*
 * After a text output's tables (each line after @prefix): the functions
 * not traced, in one line; nothing when every function was.
 */
void
rbread_dyn_table(FILE *out, struct rbwalk_ctx *x, const char *prefix)
{
	struct rbread_dyn	 d;
	char			*t;
	int			 blank = (int)strcspn(prefix, " ");

	rbread_dyn(x, -1, &d);
	if ((t = rbread_dyn_text(&d, RBREAD_DYN_SHOWN, 0)) != NULL) {
		fprintf(out, "%.*s\n%s", blank, prefix, prefix);
		if (d.processes > 1)
			fprintf(out, "In %zu processes: ", d.processes);
		/* "Dormant ...", a sentence of its own. */
		if (d.processes <= 1 && t[0] >= 'a' && t[0] <= 'z')
			t[0] = (char)(t[0] - 'a' + 'A');
		rbmon_esc_fputs(t, out);
		fputs(".\n", out);
		free(t);
	}
	rbread_dyn_free(&d);
}

/*
 * The functions not traced as a JSON member, after others: "not_traced",
 * null when the recording has no DYN chunk.
 */
void
rbread_dyn_json(FILE *out, struct rbwalk_ctx *x)
{
	struct rbread_dyn	d;
	size_t			i;

	rbread_dyn(x, -1, &d);
	if (!d.any) {
		fputs(", \"not_traced\": null", out);
		return;
	}
	fprintf(out, ", \"not_traced\": {\"functions\": %" PRIu64
	    ", \"at_end\": %" PRIu64 ", \"more\": %" PRIu64
	    ", \"dormant\": %s, \"refused\": %s, \"processes\": %zu"
	    ", \"names\": [", d.functions, d.at_end, d.more,
	    d.dormant ? "true" : "false", d.refused ? "true" : "false",
	    d.processes);
	for (i = 0; i < d.nnames; i++) {
		if (i != 0)
			fputs(", ", out);
		rbmon_json_string(out, d.names[i]);
	}
	fputs("]}", out);
	rbread_dyn_free(&d);
}

/* One line on stderr when functions were not traced (the exports). */
void
rbread_dyn_say(struct rbwalk_ctx *x, const char *cmd)
{
	struct rbread_dyn	 d;
	char			*t;

	rbread_dyn(x, -1, &d);
	if ((t = rbread_dyn_text(&d, RBREAD_DYN_SHOWN, 0)) != NULL) {
		rbmon_esc_line(stderr, "rbmon %s: %s: %s", cmd, x->rec.path,
		    t);
		free(t);
	}
	rbread_dyn_free(&d);
}

/* Close @x; the exit status: 1 if !@ok, 3 if the recording has no END. */
int
rbread_done(struct rbwalk_ctx *x, int ok)
{
	int	status = !ok ? 1 : x->rec.have_end ? 0 : RBREAD_EXIT_INCOMPLETE;

	rbwalk_close(x);
	return status;
}

/* A duration as uftrace shows it: "  1.234 us", 10 wide. */
void
rbread_duration(char *buf, size_t len, const struct rbwalk_ctx *x, uint64_t a,
    uint64_t b)
{
	uint64_t	na, nb;
	char		t[32];

	if (rbwalk_ns(x, a, &na) != 0 || rbwalk_ns(x, b, &nb) != 0) {
		snprintf(buf, len, "%10s", "");
		return;
	}
	rbread_time(t, sizeof t, nb > na ? nb - na : 0);
	snprintf(buf, len, "%10s", t);
}

uint64_t
rbread_dur_ns(const struct rbwalk_ctx *x, uint64_t a, uint64_t b)
{
	uint64_t	na, nb;

	if (rbwalk_ns(x, a, &na) != 0 || rbwalk_ns(x, b, &nb) != 0 || nb < na)
		return 0;
	return nb - na;
}

/* "stopped: breakpoint 3", as rbmon --events says it. */
void
rbread_stop_text(char *buf, size_t len, uint64_t why)
{
	if (RB_WHY_REASON(why) == RB_WHY_BREAKPOINT)
		snprintf(buf, len, "stopped: %s %u", rbmon_why_json((int32_t)why),
		    RB_WHY_ID((uint32_t)why));
	else
		snprintf(buf, len, "stopped: %s", rbmon_why_json((int32_t)why));
}

/**
 * rbread_mark_name - what a mark (a line, a stop, lost records) is called in
 * the exports
 *
 * Return: 0, or -1 if @k is no mark they show.
 */
int
rbread_mark_name(char *name, size_t len, const struct rbrec_rec *k)
{
	if (k->lost || k->e.kind == RB_EV_LOST)
		snprintf(name, len, "[LOST %" PRIu64 " EVENTS]", k->e.arg);
	else if (k->e.kind == RB_EV_LINE)
		snprintf(name, len, "line %" PRId64, (int64_t)k->e.arg);
	else if (k->e.kind == RB_EV_STOP)
		rbread_stop_text(name, len, k->e.arg);
	else if (k->e.kind == RB_EV_RESUME)
		snprintf(name, len, "resumed");
	else if (k->e.kind == RB_EV_OFF)
		snprintf(name, len, "recording off");
	else if (k->e.kind == RB_EV_ON)
		snprintf(name, len, "recording on");
	else
		return -1;
	return 0;
}
