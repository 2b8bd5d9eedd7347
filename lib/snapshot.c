/* SPDX-License-Identifier: MIT */
/*
 * snapshot.c - the program's side of trigger snapshots (rbtrace(5),
 * "SNAPSHOTS"): the snapshot signal's handler and rb_snapshot_trigger(),
 * which a watch turning true and a capture's condition call too.  The
 * freeze itself is common/snap.c's, async-signal-safe.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/snap.h"
#include "internal.h"

static int rb_snap_signal;	/* the signal installed, 0: none */

/**
 * rb_snapshot_trigger - freeze every event log of this process for the
 * snapshot writer, with why (@reason, RB_SNAPR_*), who (@tid) and what
 * (@fn, @arg, as the reason says)
 *
 * Async-signal-safe, allocation-free, never blocks.
 * Return: RB_SNAP_TAKEN, RB_SNAP_MISSED (no writer) or RB_SNAP_SUPPRESSED
 * (one in flight, or too soon), or -1 before the file is set up.
 */
int rb_snapshot_trigger(uint32_t reason, int32_t tid, uint64_t fn,
			uint64_t arg)
{
	struct rb_snap_req q;

	/* Acquire: the mapping and its header; pairs with rb_process_init(). */
	if (atomic_load_explicit(&rb_proc.init, memory_order_acquire) !=
	    RB_INIT_DONE || rb_attach_state() == RB_ATT_OFF)
		return -1;
	q.reason = reason;
	q.pid = rb_proc.pid;
	q.tid = tid;
	q.flags = 0;
	q.fn = fn;
	q.arg = arg;
	q.ts = rb_clock_raw_slow();
	return rb_snap_trigger(rb_proc.map.base, &rb_proc.map.geo, &q,
			       rb_clock_mono_ns());
}

/**
 * rb_snapshot_heal - the calling thread's log is frozen for a snapshot:
 * at most every RB_SNAP_HEAL_NS per thread, end the freeze if its writer
 * is gone or it held longer than RB_SNAP_HOLD_NS (rb_snap_heal())
 *
 * Called by the hooks (out of line, only while the log is frozen).
 */
void rb_snapshot_heal(struct rb_thread *t)
{
	uint64_t now = rb_clock_mono_ns();

	if (t->snap_seen != 0 && now - t->snap_seen < RB_SNAP_HEAL_NS)
		return;
	t->snap_seen = now;
	/* Acquire: the mapping; pairs with rb_process_init(). */
	if (atomic_load_explicit(&rb_proc.init, memory_order_acquire) ==
	    RB_INIT_DONE)
		(void)rb_snap_heal(rb_proc.map.base, &rb_proc.map.geo, now);
}

static void rb_snapshot_on_signal(int sig)
{
	int saved = errno;

	(void)rb_snapshot_trigger(RB_SNAPR_SIGNAL, rb_gettid(), 0,
				  (uint64_t)sig);
	errno = saved;
}

/*
 * The signals a snapshot may take: none the kernel sends for a fault, a
 * child, a terminal or a timer of the program's.
 */
static const struct {
	const char	*name;
	int		 sig;
} rb_snap_signals[] = {
	{ "USR1", SIGUSR1 }, { "USR2", SIGUSR2 }, { "HUP", SIGHUP },
	{ "URG", SIGURG }, { "WINCH", SIGWINCH },
};
#define RB_SNAP_NSIGNALS	(sizeof(rb_snap_signals) / sizeof(rb_snap_signals[0]))

/* A signal's number from "USR2", "SIGUSR2", "12" or "RTMIN+3"; 0: refused. */
static int rb_snapshot_parse(const char *s)
{
	uint32_t n;
	size_t i;

	if (strncasecmp(s, "SIG", 3) == 0)
		s += 3;
	if (strncasecmp(s, "RTMIN", 5) == 0) {
		if (s[5] == '\0')
			return SIGRTMIN;
		if (s[5] != '+' || rb_parse_uint(s + 6, 0,
		    (uint32_t)(SIGRTMAX - SIGRTMIN), &n) != 0)
			return 0;
		return SIGRTMIN + (int)n;
	}
	for (i = 0; i < RB_SNAP_NSIGNALS; i++)
		if (strcasecmp(s, rb_snap_signals[i].name) == 0)
			return rb_snap_signals[i].sig;
	if (rb_parse_uint(s, 1, (uint32_t)SIGRTMAX, &n) != 0)
		return 0;
	if ((int)n >= SIGRTMIN)
		return (int)n;
	for (i = 0; i < RB_SNAP_NSIGNALS; i++)
		if (rb_snap_signals[i].sig == (int)n)
			return (int)n;
	return 0;
}

/**
 * rb_snapshot_setup - install the snapshot signal's handler
 * (RBTRACE_SNAPSHOT_SIGNAL), unless the program handles that signal
 * itself already: its handler is left in place and the signal refused,
 * in one line.  A handler the program installs later takes the signal
 * back (rbtrace(1), --snapshot-signal).
 */
void rb_snapshot_setup(const char *(*get)(const char *))
{
	const char *val = get("RBTRACE_SNAPSHOT_SIGNAL");
	struct sigaction sa, old;
	int sig;

	if (val == NULL || *val == '\0' || rb_snap_signal != 0)
		return;
	if ((sig = rb_snapshot_parse(val)) == 0) {
		rb_warnf("rbtrace: RBTRACE_SNAPSHOT_SIGNAL=%.32s: not a signal "
			 "a snapshot may take (USR1, USR2, HUP, URG, WINCH, "
			 "RTMIN+N); no snapshot signal", val);
		return;
	}
	if (sigaction(sig, NULL, &old) != 0)
		return;
	if ((old.sa_flags & SA_SIGINFO) ||
	    (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN)) {
		rb_warnf("rbtrace: RBTRACE_SNAPSHOT_SIGNAL=%.32s: the program "
			 "handles signal %d itself; no snapshot signal", val,
			 sig);
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = rb_snapshot_on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(sig, &sa, NULL) == 0)
		rb_snap_signal = sig;
}
