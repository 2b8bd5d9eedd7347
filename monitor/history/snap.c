/* SPDX-License-Identifier: MIT */
/*
 * rbmon snapshot: the snapshot writer (rbtrace(5), "SNAPSHOTS").  It takes
 * the file's snap_writer word, so that triggers freeze instead of counting
 * themselves missed, and sleeps on snap_state.  At each freeze it copies
 * the frozen process's event logs into a recording of their own with the
 * recorder's code (record.c, once: nothing consumed), switches the logs
 * back on as soon as they are copied, and names the file after the
 * program, the process and the file's count of snapshots taken:
 * DIR/PROGRAM.PID.snap.N.rbr.
 *
 * With a watch it asks the chosen thread for the value of
 * "@snapshot EXPR" every millisecond; the thread itself triggers when the
 * value turns true.  With --now it triggers one freeze itself.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/atomic.h"
#include "common/clock.h"
#include "common/futex.h"
#include "common/snap.h"
#include "monitor/core/control.h"
#include "monitor/core/model.h"
#include "monitor/core/symbols.h"
#include "monitor/history/recfile.h"
#include "monitor/history/record.h"
#include "monitor/history/snap.h"
#include "monitor/util/escape.h"
#include "monitor/util/util.h"

#define SNAP_WAIT_NS		100000000ull	/* liveness, signals */
#define SNAP_SETTLE_NS		20000000ull	/* for the threads' off marks */
#define SNAP_ALIVE_NS		200000000ull

static volatile sig_atomic_t snap_stop;

static void
snap_on_signal(int sig)
{
	snap_stop = sig;
}

struct snapw {
	const struct rbmon_snap_opts *o;
	struct rbmon_model	 m;
	struct rbmon_symbols	*sy;		/* made at the first capture named */
	struct rbmon_ctl	 ctl;
	struct rb_header	 h;	/* validated */
	struct rb_header	*sh;	/* the shared one, writable */
	int32_t			 me;
	int			 claimed;
	int			 thawed;	/* this snapshot's logs are on */
	uint32_t		 written, failed;
	/* the watch */
	struct rbmon_cmd	 k;
	int			 entry;	/* -1: none */
	char			*cause;
};

/* ---- the block, guarded against a file cut short ------------------------- */

struct snap_call {
	struct snapw	*w;
	int		 op;
	int		 rc;
	uint32_t	 st;
	struct rb_snap_info info;
	uint64_t	 taken, missed, suppressed, written;
	int32_t		 holder;
};

#define SNAP_OP_CLAIM	1
#define SNAP_OP_RELEASE	2
#define SNAP_OP_STATE	3
#define SNAP_OP_TAKE	4	/* FROZEN -> WRITING, the fields */
#define SNAP_OP_THAW	5	/* logs on, written++, WRITING -> IDLE */
#define SNAP_OP_COUNTS	6
#define SNAP_OP_ALIVE	7
#define SNAP_OP_SETTLED	8	/* rings of info.pid without their mark */

static void
snap_guarded(void *arg)
{
	struct snap_call	*a = arg;
	struct snapw		*w = a->w;
	struct rb_header	*h = w->sh;
	uint32_t		 st;
	int32_t			 cur;
	uint64_t		 ctl;
	uint32_t		 i;

	switch (a->op) {
	case SNAP_OP_CLAIM:
		cur = RB_LOAD(&h->snap_writer);
		a->holder = cur;
		if (cur != 0 && cur != w->me && !rb_snap_writer_gone(cur))
			return;
		if (!RB_CAS(&h->snap_writer, &cur, w->me)) {
			a->holder = cur;
			return;
		}
		RB_STORE(&h->snap_interval_ns, w->o->interval_ns);
		/* A freeze its last writer left: ours to end. */
		st = RB_LOAD_ACQ(&h->snap_state);
		if (st != RB_SNAP_IDLE) {
			rb_snap_thaw(w->ctl.base, &w->h);
			RB_STORE_REL(&h->snap_state, RB_SNAP_IDLE);
		}
		a->rc = 1;
		return;
	case SNAP_OP_RELEASE:
		cur = w->me;
		/* Release: our last thaw before the word says no writer. */
		(void)RB_CAS_REL(&h->snap_writer, &cur, 0);
		return;
	case SNAP_OP_STATE:
		/* Acquire: the trigger's fields and freeze (S2). */
		a->st = RB_LOAD_ACQ(&h->snap_state);
		/* The word taken from us (a stray write): taken back. */
		cur = RB_LOAD(&h->snap_writer);
		if (cur != w->me && rb_snap_writer_gone(cur))
			(void)RB_CAS(&h->snap_writer, &cur, w->me);
		/* A state that is none, or a trigger that never finished. */
		if (a->st > RB_SNAP_WRITING ||
		    (a->st == RB_SNAP_FILLING && a->rc > 0)) {
			st = a->st;
			if (RB_CAS(&h->snap_state, &st, RB_SNAP_WRITING)) {
				rb_snap_thaw(w->ctl.base, &w->h);
				st = RB_SNAP_WRITING;
				(void)RB_CAS_REL(&h->snap_state, &st,
				    RB_SNAP_IDLE);
			}
		}
		return;
	case SNAP_OP_TAKE:
		st = RB_SNAP_FROZEN;
		if (!RB_CAS_ACQ(&h->snap_state, &st, RB_SNAP_WRITING))
			return;
		a->rc = rb_snap_read(h, &a->info) == 0 ? 1 : 2;
		a->taken = RB_LOAD(&h->snap_taken);
		a->missed = RB_LOAD(&h->snap_missed);
		a->suppressed = RB_LOAD(&h->snap_suppressed);
		return;
	case SNAP_OP_THAW:
		rb_snap_thaw(w->ctl.base, &w->h);
		if (a->rc)
			RB_FETCH_ADD(&h->snap_written, 1);
		st = RB_SNAP_WRITING;
		/* Release: the thaw before the next trigger may freeze. */
		(void)RB_CAS_REL(&h->snap_state, &st, RB_SNAP_IDLE);
		return;
	case SNAP_OP_COUNTS:
		a->taken = RB_LOAD(&h->snap_taken);
		a->missed = RB_LOAD(&h->snap_missed);
		a->suppressed = RB_LOAD(&h->snap_suppressed);
		a->written = RB_LOAD(&h->snap_written);
		return;
	case SNAP_OP_SETTLED:
		for (i = 0; i < w->h.rings; i++) {
			struct rb_ring	*r = rb_ring_at(w->ctl.base, &w->h, i);
			struct rb_evlog	*l = rb_ring_evlog(&w->h, r);
			uint64_t	 head;

			ctl = RB_LOAD_ACQ(&rb_owner_at(w->ctl.base, &w->h,
			    i)->ctl);
			if (RB_OWN_STATE(ctl) != RB_OWN_LIVE ||
			    RB_OWN_PID(ctl) != a->info.pid)
				continue;
			/* Acquire: the record below head; pairs with (E). */
			head = RB_LOAD_ACQ(&l->head);
			if (head == 0 || RB_LOAD(&rb_evlog_records(l)[(head - 1) &
			    (w->h.events - 1)].kind) != RB_EV_OFF)
				a->rc++;
		}
		return;
	case SNAP_OP_ALIVE:
		for (i = 0; i < w->h.rings && !a->rc; i++) {
			struct rb_ring	*r = rb_ring_at(w->ctl.base, &w->h, i);

			ctl = RB_LOAD_ACQ(&rb_owner_at(w->ctl.base, &w->h,
			    i)->ctl);
			if (RB_OWN_STATE(ctl) != RB_OWN_LIVE)
				continue;
			a->rc = rbmon_model_pid_alive(RB_LOAD(&r->pid),
			    RB_LOAD(&r->pstart));
		}
		return;
	}
}

static int
snap_call_rc(struct snapw *w, struct snap_call *a, int op, int rc)
{
	memset(a, 0, sizeof *a);
	a->w = w;
	a->op = op;
	a->rc = rc;
	if (rbmon_model_guarded(&w->m, snap_guarded, a) != 0) {
		rbmon_esc_line(stderr, "rbmon snapshot: %s: the file is shorter "
		    "than its header says", w->o->trace);
		return -1;
	}
	return 0;
}

static int
snap_call(struct snapw *w, struct snap_call *a, int op)
{
	return snap_call_rc(w, a, op, 0);
}

/* ---- one snapshot -------------------------------------------------------- */

static void
snap_thaw(void *arg)
{
	struct snapw		*w = arg;
	struct snap_call	 a;

	if (w->thawed)
		return;
	w->thawed = 1;
	memset(&a, 0, sizeof a);
	a.w = w;
	a.op = SNAP_OP_THAW;
	a.rc = 1;
	(void)rbmon_model_guarded(&w->m, snap_guarded, &a);
}

/* The program's name as a file name: letters, digits, '.', '-', '_'. */
static void
snap_name_part(char *out, size_t size, const char *program)
{
	size_t	i;

	for (i = 0; i + 1 < size && program[i] != '\0' && i < 40; i++) {
		char	c = program[i];

		out[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '_' ||
		    (c == '.' && i != 0) ? c : '_';
	}
	out[i] = '\0';
	if (i == 0)
		snprintf(out, size, "program");
}

/*
 * The name of function @fn of process @pid, as the file's objects say, in
 * @buf; "" if it cannot be found (the process gone and its objects with it).
 */
static void
snap_fn_name(struct snapw *w, int32_t pid, uint64_t fn, char *buf,
    size_t size)
{
	struct rbmon_snapshot	 s;
	struct rbmon_sym	 sym;
	char			*cause = NULL;
	size_t			 i;

	buf[0] = '\0';
	memset(&s, 0, sizeof s);
	if (rbmon_model_snapshot(&w->m, &s, &cause) != 0) {
		free(cause);
		return;
	}
	if (w->sy == NULL)
		w->sy = rbmon_symbols_new(NULL);
	for (i = 0; i < s.nprocs && w->sy != NULL; i++) {
		if (s.procs[i].pid != pid)
			continue;
		memset(&sym, 0, sizeof sym);
		rbmon_symbols_lookup(w->sy, &s, &s.procs[i], fn, &sym);
		if (sym.function != NULL)
			snprintf(buf, size, "%s", sym.function);
		break;
	}
	rbmon_model_free(&s);
}

static void
snap_what(struct snapw *w, char *buf, size_t size,
    const struct rb_snap_info *s)
{
	char	name[512];

	switch (s->reason) {
	case RB_SNAPR_SIGNAL:
		snprintf(buf, size, "signal %" PRIu64 " in thread %d",
		    s->arg, (int)s->tid);
		break;
	case RB_SNAPR_WATCH:
		snprintf(buf, size, "watch %" PRIu64 " of thread %d turned "
		    "true", s->arg, (int)s->tid);
		break;
	case RB_SNAPR_CAPTURE:
		snap_fn_name(w, s->pid, s->fn, name, sizeof name);
		if (name[0] == '\0')
			snprintf(name, sizeof name, "0x%" PRIx64, s->fn);
		snprintf(buf, size, "capture: %s took %.2f ms in thread %d",
		    name, (double)s->arg / 1e6, (int)s->tid);
		break;
	case RB_SNAPR_NOW:
		snprintf(buf, size, "rbmon snapshot --now");
		break;
	default:
		snprintf(buf, size, "reason %u", s->reason);
		break;
	}
}

/*
 * Each running thread marks the freeze at its next hook, stamped after
 * the trigger: wait a little for the marks, so that the recording shows
 * every such thread up to the trigger and past it.  A thread blocked in a
 * system call makes no mark: the wait is bounded.
 */
static void
snap_settle(struct snapw *w, const struct rb_snap_info *info)
{
	const struct timespec	 tick = { 0, 200000 };
	struct snap_call	 a;
	uint64_t		 end = rbmon_mono_ns() + SNAP_SETTLE_NS;

	do {
		memset(&a, 0, sizeof a);
		a.w = w;
		a.op = SNAP_OP_SETTLED;
		a.info = *info;
		if (rbmon_model_guarded(&w->m, snap_guarded, &a) != 0 ||
		    a.rc == 0)
			return;
		nanosleep(&tick, NULL);
	} while (rbmon_mono_ns() < end);
}

/* The frozen logs into DIR/PROGRAM.PID.snap.N.rbr, then thawed. */
static void
snap_write(struct snapw *w, const struct snap_call *t)
{
	struct rbmon_record_opts	 ro;
	struct rbrec_snap		 s;
	char				 prog[48], what[160], *path = NULL;
	int				 rc;

	memset(&s, 0, sizeof s);
	s.reason = t->info.reason;
	s.pid = t->info.pid;
	s.tid = t->info.tid;
	s.number = (uint32_t)t->taken;
	s.fn = t->info.fn;
	s.arg = t->info.arg;
	s.ts = t->info.ts;
	s.ns = t->info.ns;
	s.taken = t->taken;
	s.missed = t->missed;
	s.suppressed = t->suppressed;
	snap_name_part(prog, sizeof prog, w->h.program);
	rbmon_xasprintf(&path, "%s/%s.%d.snap.%" PRIu64 ".rbr", w->o->dir,
	    prog, (int)s.pid, s.taken);
	memset(&ro, 0, sizeof ro);
	ro.trace = w->o->trace;
	ro.out = path;
	ro.quiet = 1;
	ro.wait_ms = 0;
	ro.once = 1;
	ro.pid = s.pid;
	ro.snap = &s;
	ro.copied = snap_thaw;
	ro.copied_arg = w;
	w->thawed = 0;
	snap_settle(w, &t->info);
	rc = rbmon_record(&ro);
	snap_thaw(w);
	snap_what(w, what, sizeof what, &t->info);
	if (rc == 0) {
		w->written++;
		rbmon_esc_line(stdout, "%s: snapshot %u of process %d: %s",
		    path, s.number, (int)s.pid, what);
		fflush(stdout);
	} else {
		w->failed++;
		rbmon_esc_line(stderr, "rbmon snapshot: %s: not written (%s)",
		    path, what);
	}
	free(path);
}

/* ---- triggers of the writer's own ---------------------------------------- */

static int
snap_now(struct snapw *w)
{
	struct rb_snap_req	q;
	int32_t			pid = w->o->pid != 0 ? w->o->pid :
				    w->h.creator_pid;
	int			rc;

	if (pid <= 0 || !rbmon_model_pid_alive(pid, 0)) {
		rbmon_esc_line(stderr, "rbmon snapshot: %s: process %d does not "
		    "run; give the one to freeze with -p PID", w->o->trace,
		    (int)pid);
		return -1;
	}
	memset(&q, 0, sizeof q);
	q.reason = RB_SNAPR_NOW;
	q.pid = pid;
	q.tid = 0;
	q.flags = RB_SNAP_REQ_FORCE;
	/* The file's counter, when it is this machine's; else none. */
	q.ts = 0;
	if (w->h.clock == RB_CLOCK_MONO)
		q.ts = rbmon_mono_ns();
	else if (RB_CLOCK_COUNTER != 0 && w->h.clock == RB_CLOCK_COUNTER)
		q.ts = rb_counter_read();
	rc = rb_snap_trigger(w->ctl.base, &w->h, &q, rbmon_mono_ns());
	if (rc != RB_SNAP_TAKEN) {
		rbmon_esc_line(stderr, "rbmon snapshot: %s: a snapshot is in "
		    "flight already", w->o->trace);
		return -1;
	}
	return 0;
}

/* "@snapshot EXPR" given to the watching thread. */
static int
snap_watch_start(struct snapw *w)
{
	char	*expr = NULL;
	int32_t	 tid = w->o->tid != 0 ? w->o->tid : w->h.creator_pid;
	int	 rc;

	w->entry = -1;
	if (rbmon_ctl_target(&w->ctl, tid, &w->k, &w->cause) != 0)
		return -1;
	rbmon_xasprintf(&expr, "%s%s", RB_WATCH_SNAP_PREFIX, w->o->watch);
	rc = rbmon_ctl_watch_add(&w->ctl, &w->k, expr, &w->entry, &w->cause);
	free(expr);
	return rc;
}

/* Its value read and asked for again: the thread triggers, not us. */
static void
snap_watch_poll(struct snapw *w)
{
	struct rbmon_wval	v;
	char			*cause = NULL;
	int			 rc;

	if (w->entry < 0)
		return;
	memset(&v, 0, sizeof v);
	rc = rbmon_ctl_watch_read(&w->ctl, &w->k, w->entry, &v, &cause);
	if (rc == 1) {
		if (v.text != NULL && v.error) {
			rbmon_esc_line(stderr, "rbmon snapshot: watch %s: %s",
			    w->o->watch, v.text);
			snap_stop = SIGTERM;
		}
		rbmon_wval_free(&v);
		(void)rbmon_ctl_watch_ask(&w->ctl, &w->k, w->entry);
	} else if (rc < 0) {
		rbmon_esc_line(stderr, "rbmon snapshot: watch %s: %s",
		    w->o->watch, cause != NULL ? cause : "the watch is gone");
		w->entry = -1;
	}
	free(cause);
}

/* ---- the loop ------------------------------------------------------------ */

static void
snap_summary(struct snapw *w)
{
	struct snap_call	a;

	if (snap_call(w, &a, SNAP_OP_COUNTS) != 0)
		return;
	fprintf(stderr, "rbmon snapshot: wrote %u snapshot%s%s; the file "
	    "counts %" PRIu64 " taken, %" PRIu64 " written, %" PRIu64
	    " missed, %" PRIu64 " suppressed\n", w->written,
	    w->written == 1 ? "" : "s", w->failed ? " (some failed)" : "",
	    a.taken, a.written, a.missed, a.suppressed);
}

static int
snap_loop(struct snapw *w)
{
	struct snap_call	a;
	uint64_t		start = rbmon_mono_ns(), now, next_alive = 0;
	uint64_t		wait, next_poll = 0, filling_since = 0;
	int			stuck;

	for (;;) {
		if (snap_stop || w->written + w->failed >= w->o->count)
			return 0;
		now = rbmon_mono_ns();
		if (w->o->timeout_ns != 0 && now - start >= w->o->timeout_ns)
			return 0;
		/* FILLING lasts a few instructions: held this long, stuck. */
		stuck = filling_since != 0 &&
		    now - filling_since >= RB_SNAP_HOLD_NS;
		if (snap_call_rc(w, &a, SNAP_OP_STATE, stuck) != 0)
			return 1;
		if (a.st != RB_SNAP_FILLING || stuck)
			filling_since = 0;
		else if (filling_since == 0)
			filling_since = now;
		if (a.st == RB_SNAP_FROZEN) {
			if (snap_call(w, &a, SNAP_OP_TAKE) != 0)
				return 1;
			if (a.rc == 1)
				snap_write(w, &a);
			else if (a.rc == 2) {
				/* Fields that never settled: a stray writer. */
				w->thawed = 0;
				snap_thaw(w);
			}
			continue;
		}
		if (now >= next_alive) {
			if (snap_call(w, &a, SNAP_OP_ALIVE) != 0)
				return 1;
			if (!a.rc) {
				fprintf(stderr, "rbmon snapshot: %s: no process "
				    "of the file runs any more\n",
				    w->o->trace);
				return 0;
			}
			next_alive = now + SNAP_ALIVE_NS;
		}
		if (w->entry >= 0 && now >= next_poll) {
			snap_watch_poll(w);
			next_poll = now + RBMON_SNAP_POLL_NS;
		}
		wait = w->entry >= 0 ? RBMON_SNAP_POLL_NS : SNAP_WAIT_NS;
		if (snap_call(w, &a, SNAP_OP_STATE) != 0)
			return 1;
		if (a.st != RB_SNAP_FROZEN)
			rb_futex_wait(&w->sh->snap_state, a.st, wait);
	}
}

/**
 * rbmon_snap_run - write a snapshot of each trigger until o->count are
 * written, o->timeout_ns has passed, the program ends or a signal says
 * stop; with o->now, one snapshot triggered at once
 *
 * Return: the exit status: 0, or 1 with a message on stderr.
 */
int
rbmon_snap_run(const struct rbmon_snap_opts *o)
{
	struct snapw		 w;
	struct snap_call	 a;
	struct sigaction	 sa, old[3];
	static const int	 sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	char			*cause = NULL;
	int			 i, status = 1;

	memset(&w, 0, sizeof w);
	w.o = o;
	w.me = (int32_t)getpid();
	w.entry = -1;
	if (rbmon_model_open(&w.m, o->trace, RBMON_READY_WAIT_MS, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon snapshot: %s: %s", o->trace,
		    cause);
		free(cause);
		return 1;
	}
	w.h = w.m.hdr;
	if (w.h.events == 0) {
		rbmon_esc_line(stderr, "rbmon snapshot: %s: it has no event log "
		    "(RBTRACE_EVENTS=0): nothing to snapshot", o->trace);
		rbmon_model_close(&w.m);
		return 1;
	}
	if (rbmon_ctl_open(&w.ctl, &w.m, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon snapshot: %s: a writer must "
		    "write the file, and %s", o->trace, cause);
		free(cause);
		rbmon_model_close(&w.m);
		return 1;
	}
	w.sh = w.ctl.base;
	snap_stop = 0;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = snap_on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	if (snap_call(&w, &a, SNAP_OP_CLAIM) != 0)
		goto out;
	if (!a.rc) {
		rbmon_esc_line(stderr, "rbmon snapshot: %s: process %d writes "
		    "its snapshots already", o->trace, (int)a.holder);
		goto out;
	}
	w.claimed = 1;
	if (o->watch != NULL && snap_watch_start(&w) != 0) {
		rbmon_esc_line(stderr, "rbmon snapshot: watch %s: %s", o->watch,
		    w.cause);
		goto out;
	}
	if (o->now && snap_now(&w) != 0)
		goto out;
	status = snap_loop(&w);
	if (o->now && w.written == 0)
		status = 1;
	if (w.failed != 0)
		status = 1;
	snap_summary(&w);
out:
	if (w.entry >= 0)
		(void)rbmon_ctl_watch_remove(&w.ctl, &w.k, w.entry);
	if (w.claimed) {
		/* A freeze we took and did not finish: ended here. */
		if (snap_call(&w, &a, SNAP_OP_STATE) == 0 &&
		    a.st == RB_SNAP_WRITING) {
			w.thawed = 0;
			snap_thaw(&w);
		}
		(void)snap_call(&w, &a, SNAP_OP_RELEASE);
	}
	for (i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	free(w.cause);
	rbmon_cmd_free(&w.k);
	rbmon_ctl_close(&w.ctl);
	if (w.sy != NULL)
		rbmon_symbols_free(w.sy);
	rbmon_model_close(&w.m);
	return status;
}
