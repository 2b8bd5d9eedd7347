/* SPDX-License-Identifier: MIT */
/*
 * control.c - the cold path: commands, stops and steps.
 *
 * The hot path loads one word, rb_ring.attention, and tests the function's
 * bit in the breakpoint filter; either sends the hook here (see format.h
 * for the bits and who sets them, breakpoint.c for the filter).
 * Everything in this file runs inside a hook of the calling thread, with
 * its recursion guard set, and touches only its own ring, the header's
 * global flags and the global message area under its ownership rule
 * (msgarea.c).
 *
 * The handshake (rbtrace(5), "Command handshake"):
 *
 *   monitor                                 owner thread (a hook)
 *   CAS cmdready 0 -> WRITING
 *   command, msglen, msgarea, cmdpid
 *   cmdready = POSTED          (release)    attention &= ~COMMAND  (seq_cst)
 *   attention |= COMMAND       (seq_cst)    CAS cmdready POSTED -> TAKEN
 *   wake++, FUTEX_WAKE(wake)                 (acquire: sees the command)
 *                                           execute; command = "OK  "/"ERR "
 *                                           msgarea, msglen, GMA
 *   sees RESPONSE (acquire), reads     <-   cmdready = RESPONSE    (release)
 *   cmdready = 0                            FUTEX_WAKE(cmdready)
 *
 * The owner clears the attention bit before it looks at cmdready and the
 * monitor sets it after cmdready, so a command is never left unseen.
 *
 * A stopped thread sleeps in FUTEX_WAIT on its ring's wake word (the file
 * is MAP_SHARED, so the futex is shared with other processes): the monitor
 * bumps the word after every request.  It wakes at least once a second to
 * check the monitor's heartbeat, and resumes by itself once no monitor has
 * shown one for RBTRACE_ORPHAN_TIMEOUT seconds; the breakpoints and global
 * flags that stop threads lapse with it (rb_control_lapse()).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/futex.h"
#include "dyn/dyn.h"
#include "internal.h"

#define RB_ARGS_MAX	1024	/* longest argument text a command takes */
#define RB_SEC		1000000000ull

/**
 * rb_control_thread_start - arm a new thread for what is in force
 * @t: the calling thread, its ring just published LIVE
 *
 * A monitor that sets header.single meanwhile ORs the bit into every ring;
 * setup's plain store of attention may have overwritten it, so look again
 * after a full fence (the monitor stores single before it ORs: one of the
 * two sees the other).  Breakpoints need no arming: every entry hook
 * tests the filter (rbtrace(5), "BREAKPOINTS").
 */
void rb_control_thread_start(struct rb_thread *t)
{
	/* Orders the setup's attention store before the load of single; pairs with the monitor's seq_cst store of single before its OR. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (RB_LOAD(&rb_proc.map.hdr->single))
		RB_ATTN_OR(t->ring, RB_ATTN_SINGLE);
}

/* -------------------------------------------------------------------------
 * Responses: a window of the full text goes to the ring's msgarea, the part
 * after it to the global message area when that can be had.
 */

struct rb_resp {
	struct rb_thread *t;
	char		*area;
	uint32_t	 area_sz;
	uint64_t	 off;		/* the window's start in the full text */
	uint64_t	 total;		/* bytes of the full text so far */
	int		 gma;		/* 1 owned, 0 not tried, -1 not to be had */
	uint32_t	 gma_len;
	int		 ok;
};

static void rb_resp_put(struct rb_resp *o, const char *s, size_t n)
{
	const struct rb_header *g = &rb_proc.map.geo;
	char *gma = (char *)rb_proc.map.base + g->gma_off;
	uint64_t end = o->off + o->area_sz;
	size_t i;

	for (i = 0; i < n; i++, o->total++) {
		uint64_t p = o->total;

		if (p < o->off)
			continue;
		if (p < end) {
			o->area[p - o->off] = s[i];
			continue;
		}
		if (o->gma == 0)
			o->gma = rb_gma_claim(RB_GMA_MAKE(o->t->index, 0), end) ? 1 : -1;
		if (o->gma == 1 && p - end < g->global_sz) {
			gma[p - end] = s[i];
			o->gma_len = (uint32_t)(p - end + 1);
		}
	}
}

static __attribute__((format(printf, 2, 3)))
void rb_resp_printf(struct rb_resp *o, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	rb_resp_put(o, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

static void rb_resp_publish(struct rb_resp *o)
{
	struct rb_ring *r = o->t->ring;
	struct rb_header *h = rb_proc.map.hdr;
	int32_t taken = RB_CMD_TAKEN;

	if (o->gma == 1)
		RB_STORE(&h->gma_len, o->gma_len);
	memcpy(r->command, o->ok ? "OK  " : "ERR ", 4);
	RB_STORE(&r->msglen, (int32_t)(o->total > INT32_MAX ? INT32_MAX : o->total));
	/*
	 * Release: the response (command, msgarea, msglen, GMA) before
	 * RESPONSE; pairs with the monitor's acquire load of cmdready.  A
	 * compare-and-swap: an area a monitor reclaimed meanwhile is its own.
	 */
	if (__atomic_compare_exchange_n(&r->cmdready, &taken, RB_CMD_RESPONSE,
					false, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		rb_futex_wake(&r->cmdready);
}

/* -------------------------------------------------------------------------
 * Commands.
 */

#define RB_STEP_NONE	0
#define RB_STEP_STEP	1
#define RB_STEP_NEXT	2
#define RB_STEP_FINISH	3

struct rb_ctx {
	struct rb_thread *t;
	char		*args;
	bool		 stopped;	/* executing while stopped */
	uint32_t	*why;		/* running: set to stop at this hook */
	struct rb_resp	*out;
};

static int rb_cmd_err(struct rb_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int rb_cmd_err(struct rb_ctx *c, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	c->out->total = 0;
	c->out->off = 0;	/* an error is never continued: all of it */
	c->out->gma_len = 0;
	c->out->ok = 0;
	rb_resp_put(c->out, buf, strlen(buf));
	return 0;
}

static int rb_cmd_noargs(struct rb_ctx *c, const char *cmd)
{
	if (c->args[0] != '\0')
		return rb_cmd_err(c, "%s takes no argument", cmd);
	return 1;
}

static void rb_step_arm(struct rb_thread *t, uint32_t mode)
{
	t->step = mode;
	t->level = 0;
	RB_ATTN_OR(t->ring, RB_ATTN_SELF);
}

static int rb_cmd_stop(struct rb_ctx *c)
{
	if (!rb_cmd_noargs(c, "STOP"))
		return 0;
	if (c->stopped) {
		rb_resp_printf(c->out, "already stopped");
		return 1;
	}
	*c->why = RB_WHY_STOP;
	rb_resp_printf(c->out, "stopped at depth %u", c->t->depth);
	return 1;
}

static int rb_cmd_cont(struct rb_ctx *c)
{
	if (!rb_cmd_noargs(c, "CONT"))
		return 0;
	c->t->step = RB_STEP_NONE;
	if (!c->stopped) {
		rb_resp_printf(c->out, "not stopped");
		return 1;
	}
	c->t->resume = 1;
	rb_resp_printf(c->out, "continuing");
	return 1;
}

static int rb_cmd_step_common(struct rb_ctx *c, const char *cmd, uint32_t mode,
			      uint32_t why)
{
	if (!rb_cmd_noargs(c, cmd))
		return 0;
	if (c->stopped) {
		rb_step_arm(c->t, mode);
		c->t->resume = 1;
		rb_resp_printf(c->out, mode == RB_STEP_FINISH ? "finishing" :
			       mode == RB_STEP_NEXT ? "stepping over" :
			       "stepping");
		return 1;
	}
	if (mode == RB_STEP_FINISH) {
		/* Running: finish the function this hook is in; this hook does not count. */
		rb_step_arm(c->t, mode);
		c->t->fresh = 1;
		rb_resp_printf(c->out, "finishing");
		return 1;
	}
	/* Running: this hook is the next one. */
	*c->why = why;
	rb_resp_printf(c->out, "stopped at depth %u", c->t->depth);
	return 1;
}

static int rb_cmd_step(struct rb_ctx *c)
{
	return rb_cmd_step_common(c, "STEP", RB_STEP_STEP, RB_WHY_STEP);
}

static int rb_cmd_next(struct rb_ctx *c)
{
	return rb_cmd_step_common(c, "NEXT", RB_STEP_NEXT, RB_WHY_NEXT);
}

static int rb_cmd_fini(struct rb_ctx *c)
{
	return rb_cmd_step_common(c, "FINI", RB_STEP_FINISH, RB_WHY_FINISH);
}

static int rb_cmd_trace(struct rb_ctx *c, bool on)
{
	struct rb_thread *t = c->t;
	struct rb_ring *r = t->ring;

	if (!rb_cmd_noargs(c, on ? "TRON" : "TROF"))
		return 0;
	if (on) {
		RB_STORE(&r->trace, 1);
		RB_ATTN_AND(r, ~RB_ATTN_UNTRACED);
	} else if (RB_LOAD(&r->trace)) {
		RB_STORE(&r->trace, 0);
		RB_ATTN_OR(r, RB_ATTN_UNTRACED);
		/* A stack that is no longer kept would only mislead. */
		t->depth = 0;
		t->cur = 0;
		RB_STORE(&r->depth, 0);
		RB_STORE(&r->currSlot, 0);
	}
	rb_resp_printf(c->out, "trace %s", on ? "on" : "off");
	return 1;
}

static int rb_cmd_tron(struct rb_ctx *c)
{
	return rb_cmd_trace(c, true);
}

static int rb_cmd_trof(struct rb_ctx *c)
{
	return rb_cmd_trace(c, false);
}

static int rb_cmd_ping(struct rb_ctx *c)
{
	struct rb_thread *t = c->t;

	if (!rb_cmd_noargs(c, "PING"))
		return 0;
	rb_resp_printf(c->out, "pong pid %d tid %d depth %u %s trace %s",
		       (int)rb_proc.pid, (int)t->tid, t->depth,
		       c->stopped ? "stopped" : "running",
		       RB_LOAD(&t->ring->trace) ? "on" : "off");
	return 1;
}

/* Split off the next space-separated word of *@s. */
static char *rb_word(char **s)
{
	char *p = *s, *w;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\0') {
		*s = p;
		return NULL;
	}
	w = p;
	while (*p && *p != ' ' && *p != '\t')
		p++;
	if (*p)
		*p++ = '\0';
	*s = p;
	return w;
}

/*
 * DYN REQUEST: a dynamic tracing request (rb_dyn_request()'s lines:
 * "exclude-addr 0xADDR", "include PATTERN", ...), handed to the library's
 * worker: it changes code, which a hook must not do.  OK says it is queued.
 */
static int rb_cmd_dyn(struct rb_ctx *c)
{
	char msg[256];
	char *a = c->args;

	while (*a == ' ' || *a == '\t')
		a++;
	if (*a == '\0')
		return rb_cmd_err(c, "usage: DYN REQUEST (exclude-addr 0xADDR, "
				  "include-addr 0xADDR, include-all, exclude PATTERN, "
				  "include PATTERN)");
	msg[0] = '\0';
	if (rb_dyn_post(c->t, a, msg, sizeof(msg)) != 0)
		return rb_cmd_err(c, "%s", msg[0] != '\0' ? msg : "refused");
	rb_resp_printf(c->out, "%s", msg[0] != '\0' ? msg : "queued");
	return 1;
}

struct rb_cmd {
	char	name[5];
	bool	more;		/* may be continued with MORE (no side effect) */
	int	(*run)(struct rb_ctx *);
};

static int rb_cmd_more(struct rb_ctx *c);

static const struct rb_cmd rb_cmds[] = {
	{ "STOP", false, rb_cmd_stop },
	{ "CONT", false, rb_cmd_cont },
	{ "STEP", false, rb_cmd_step },
	{ "NEXT", false, rb_cmd_next },
	{ "FINI", false, rb_cmd_fini },
	{ "TRON", false, rb_cmd_tron },
	{ "TROF", false, rb_cmd_trof },
	{ "PING", true, rb_cmd_ping },
	{ "MORE", false, rb_cmd_more },
	{ "DYN ", false, rb_cmd_dyn },
};

static const struct rb_cmd *rb_cmd_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(rb_cmds) / sizeof(rb_cmds[0]); i++)
		if (memcmp(rb_cmds[i].name, name, 4) == 0)
			return &rb_cmds[i];
	return NULL;
}

/* MORE OFFSET CMD [ARGS]: the text of CMD from byte OFFSET on. */
static int rb_cmd_more(struct rb_ctx *c)
{
	char *a = c->args, *w = rb_word(&a), *cmd = rb_word(&a);
	const struct rb_cmd *k;
	uint32_t off;

	if (w == NULL || cmd == NULL || rb_parse_uint(w, 0, INT32_MAX, &off) != 0)
		return rb_cmd_err(c, "usage: MORE OFFSET COMMAND [ARGUMENTS]");
	k = strlen(cmd) == 4 ? rb_cmd_find(cmd) : NULL;
	if (k == NULL || !k->more)
		return rb_cmd_err(c, "MORE cannot continue '%.8s'", cmd);
	while (*a == ' ')
		a++;
	c->args = a;
	c->out->off = off;
	if (!k->run(c) || !c->out->ok)
		return 0;
	/* Nothing of the text from there on: say so rather than leave the request in the area. */
	if (off > 0 && off >= c->out->total)
		return rb_cmd_err(c, "MORE offset %u is past the end of the %llu-byte answer",
				  off, (unsigned long long)c->out->total);
	return 1;
}

/* A command name for a message: printable, at most 4 bytes. */
static void rb_cmd_show(const char *cmd, char *buf)
{
	int i;

	for (i = 0; i < 4; i++)
		buf[i] = cmd[i] >= 0x20 && cmd[i] < 0x7f ? cmd[i] : '?';
	buf[4] = '\0';
}

/*
 * Execute a posted command, if there is one.  @why is NULL while stopped;
 * running, a command that stops the thread sets it.
 */
static void rb_command(struct rb_thread *t, uint32_t *why)
{
	struct rb_ring *r = t->ring;
	const struct rb_header *g = &rb_proc.map.geo;
	int32_t expect = RB_CMD_POSTED, len;
	char cmd[5], args[RB_ARGS_MAX + 1];
	struct rb_resp out;
	struct rb_ctx c;
	const struct rb_cmd *k;
	uint32_t dummy = 0;

	/* Clear before looking: a command posted after this load sets the bit again. */
	RB_ATTN_AND(r, ~RB_ATTN_COMMAND);
	/* Acquire: the command and its arguments; pairs with the monitor's release store of POSTED. */
	if (!RB_CAS(&r->cmdready, &expect, RB_CMD_TAKEN))
		return;
	memcpy(cmd, r->command, 4);
	cmd[4] = '\0';
	len = RB_LOAD(&r->msglen);

	memset(&out, 0, sizeof(out));
	out.t = t;
	out.area = rb_ring_msgarea(g, r);
	out.area_sz = g->msg_sz;
	out.ok = 1;
	c.t = t;
	c.args = args;
	c.stopped = why == NULL;
	c.why = why ? why : &dummy;
	c.out = &out;

	if (len < 0 || (uint32_t)len > g->msg_sz) {
		rb_cmd_err(&c, "bad argument length %d (0..%u)", (int)len,
			   g->msg_sz);
	} else if (len > RB_ARGS_MAX) {
		rb_cmd_err(&c, "arguments longer than %d bytes", RB_ARGS_MAX);
	} else {
		memcpy(args, out.area, (size_t)len);
		args[len] = '\0';
		k = rb_cmd_find(cmd);
		if (strlen(args) != (size_t)len) {
			rb_cmd_err(&c, "NUL byte in the arguments");
		} else if (k == NULL) {
			char shown[5];

			rb_cmd_show(cmd, shown);
			rb_cmd_err(&c, "unknown command '%s' (known: STOP CONT STEP NEXT FINI TRON TROF PING MORE DYN)",
				   shown);
		} else {
			k->run(&c);
		}
	}
	rb_resp_publish(&out);
}

/* -------------------------------------------------------------------------
 * Stopping.
 */

/*
 * When a monitor was last seen, given heartbeat @hb read @now.  A monitor
 * stores its CLOCK_MONOTONIC time, so a heartbeat from the future is no
 * monitor's: it counts as seen now, once per value written, and a stray
 * write cannot hold a thread stopped.  @last is the last such value.
 */
static uint64_t rb_heartbeat_seen(uint64_t hb, uint64_t *last, uint64_t seen,
				  uint64_t now)
{
	if (hb <= now)
		return hb > seen ? hb : seen;
	if (hb != *last) {
		*last = hb;
		return now;
	}
	return seen;
}

/*
 * No monitor showed a heartbeat for the orphan timeout: what monitors set
 * to stop threads lapses with them, as their stops do (rbtrace(5),
 * "Stopping"): this image's breakpoints, single stepping and stop on
 * create.  One thread at a time does it and says so, once, in one line.
 */
int32_t rb_lapse_busy;	/* pid of the process lapsing, 0: none */

/*
 * A lapse is under way in this process (another thread's): it clears
 * single stepping, so a thread that resumed by itself meanwhile must not
 * stop for single stepping again.  Acquire: a lapse seen ended has cleared
 * single; load this before single (rb_control()).
 */
static bool rb_lapsing(void)
{
	return __atomic_load_n(&rb_lapse_busy, __ATOMIC_ACQUIRE) ==
	       (int32_t)rb_proc.pid;
}

static void rb_control_lapse(void)
{
	int32_t *busy = &rb_lapse_busy;
	struct rb_header *h = rb_proc.map.hdr;
	int32_t cur;
	uint32_t n;
	int32_t single, soc;
	char what[80];
	int k = 0;

	/*
	 * Acquire: after the last lapse's work; never waits (no lock in a
	 * hook).  A parent's pid is a lapse a fork interrupted: not ours.
	 */
	cur = __atomic_load_n(busy, __ATOMIC_RELAXED);
	if (cur == (int32_t)rb_proc.pid ||
	    !__atomic_compare_exchange_n(busy, &cur, (int32_t)rb_proc.pid, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	n = rb_bp_lapse();
	/* Seq_cst: pairs with the owners' clear-then-look of single in rb_control(). */
	single = __atomic_exchange_n(&h->single, 0, __ATOMIC_SEQ_CST);
	soc = __atomic_exchange_n(&h->stop_on_create, 0, __ATOMIC_SEQ_CST);
	if (n != 0)
		k += snprintf(what, sizeof(what), "%u breakpoint%s", n,
			      n == 1 ? "" : "s");
	if (single != 0)
		k += snprintf(what + k, sizeof(what) - (size_t)k, "%ssingle",
			      k ? ", " : "");
	if (soc != 0)
		k += snprintf(what + k, sizeof(what) - (size_t)k,
			      "%sstop_on_create", k ? ", " : "");
	if (k != 0)
		rb_warnf("rbtrace: process %d: no monitor for %u s: cleared %s (RBTRACE_ORPHAN_TIMEOUT)",
			 (int)rb_proc.pid, rb_proc.set.orphan_timeout, what);
	/* Release: pairs with the acquire above. */
	__atomic_store_n(busy, 0, __ATOMIC_RELEASE);
}

/*
 * Stop here for @why until a command resumes the thread, global single
 * stepping ends (for a single-step stop), or no monitor shows a heartbeat
 * for the orphan timeout.  Commands and later watches are served meanwhile.
 * The time of the stop is kept here, not read back from the ring.
 */
static void rb_stop(struct rb_thread *t, uint32_t why, uint64_t fn)
{
	struct rb_ring *r = t->ring;
	struct rb_header *h = rb_proc.map.hdr;
	uint64_t timeout = (uint64_t)rb_proc.set.orphan_timeout * RB_SEC;
	uint64_t seen, last, now, wait, orphan = 0;

	t->step = RB_STEP_NONE;
	t->resume = 0;
	now = rb_clock_mono_ns();
	seen = now;
	last = RB_LOAD(&h->monitor_heartbeat_ns);
	RB_STORE(&r->why, (int32_t)why);
	RB_STORE(&r->stopfn, fn);
	RB_STORE(&r->stop_ns, now);
	RB_STORE(&r->stops, r->stops + 1);
	RB_STORE(&r->signal, 0);
	rb_ev_mark(t, RB_EV_STOP, fn, why);
	/* The reason before the state that announces it; pairs with the monitor's acquire load of state. */
	RB_STORE_REL(&r->state, RB_STATE_STOPPED);
	for (;;) {
		/* Acquire: requests made before the bump are seen below; pairs with the monitor's bump. */
		uint32_t w = RB_LOAD_ACQ(&r->wake);

		if (RB_LOAD(&r->attention) & RB_ATTN_COMMAND)
			rb_command(t, NULL);
		if (RB_LOAD(&r->attention) & RB_ATTN_WATCH)
			rb_watch_serve(t);
		if (RB_LOAD(&r->attention) & RB_ATTN_SIGNAL) {
			/* A stop asked of a stopped thread is done. */
			RB_ATTN_AND(r, ~RB_ATTN_SIGNAL);
			RB_STORE(&r->signal, 0);
		}
		if (t->resume)
			break;
		if (RB_WHY_REASON(why) == RB_WHY_SINGLE && !RB_LOAD(&h->single))
			break;
		now = rb_clock_mono_ns();
		wait = RB_SEC;
		if (timeout != 0) {
			seen = rb_heartbeat_seen(RB_LOAD(&h->monitor_heartbeat_ns),
						 &last, seen, now);
			if (now - seen >= timeout) {
				RB_STORE(&r->orphaned, r->orphaned + 1);
				rb_warnf("rbtrace: thread %d resumed by itself: no monitor for %u s (RBTRACE_ORPHAN_TIMEOUT)",
					 (int)t->tid, rb_proc.set.orphan_timeout);
				rb_control_lapse();
				orphan = 1;
				break;
			}
			if (seen + timeout - now < wait)
				wait = seen + timeout - now;
		}
		rb_futex_wait(&r->wake, w, wait);
	}
	RB_STORE(&r->why, RB_WHY_NONE);
	rb_ev_mark(t, RB_EV_RESUME, 0, orphan);
	/* Release: whatever the stop changed (stepping, trace) before RUNNING is seen; pairs with the monitor's acquire load of state. */
	RB_STORE_REL(&r->state, RB_STATE_RUNNING);
}

/**
 * rb_control - a hook found attention bits set
 * @t: the calling thread, traced, inside a hook
 * @exiting: true in the exit hook (after the pop), false in the entry
 *           hook (after the push)
 * @fn: the function entered or left
 */
void rb_control(struct rb_thread *t, bool exiting, uint64_t fn)
{
	struct rb_ring *r = t->ring;
	struct rb_header *h = rb_proc.map.hdr;
	uint32_t a = RB_LOAD(&r->attention), why = 0, id;
	int saved = errno;

	if (a & RB_ATTN_COMMAND)
		rb_command(t, &why);
	if (a & RB_ATTN_WATCH)
		rb_watch_serve(t);
	if (a & RB_ATTN_SIGNAL) {
		RB_ATTN_AND(r, ~RB_ATTN_SIGNAL);
		if (__atomic_exchange_n(&r->signal, 0, __ATOMIC_SEQ_CST) && !why)
			why = RB_WHY_SIGNAL;
	}
	if (a & RB_ATTN_SELF) {
		if (t->pending) {
			if (!why)
				why = t->pending;
			t->pending = 0;
		}
		if (t->step != RB_STEP_NONE && !t->fresh) {
			t->level += exiting ? -1 : 1;
			if (!why &&
			    (t->step == RB_STEP_STEP ||
			     (t->step == RB_STEP_NEXT && t->level <= 0) ||
			     (t->step == RB_STEP_FINISH && t->level < 0)))
				why = t->step == RB_STEP_STEP ? RB_WHY_STEP :
				      t->step == RB_STEP_NEXT ? RB_WHY_NEXT :
				      RB_WHY_FINISH;
		}
		/* Only the owner sets SELF: no request can be lost here. */
		if (!t->pending && (t->step == RB_STEP_NONE || why))
			RB_ATTN_AND(r, ~RB_ATTN_SELF);
	}
	if (a & RB_ATTN_SINGLE) {
		if (rb_lapsing()) {
			/* Keep the bit: the lapse clears single, then it goes. */
		} else if (RB_LOAD(&h->single)) {
			if (!why)
				why = RB_WHY_SINGLE;
		} else {
			RB_ATTN_AND(r, ~RB_ATTN_SINGLE);
			/* Clear, then look again: pairs with the monitor's store of single before its OR. */
			if (RB_LOAD(&h->single)) {
				RB_ATTN_OR(r, RB_ATTN_SINGLE);
				if (!why)
					why = RB_WHY_SINGLE;
			}
		}
	}
	t->fresh = 0;
	if (!exiting && rb_bp_filtered(fn)) {
		id = rb_bp_check(t, fn);
		if (id != 0)
			why = RB_WHY_BREAKPOINT | id << 8;
	}
	if (why)
		rb_stop(t, why | (exiting ? RB_WHY_EXIT : 0), fn);
	errno = saved;
}
