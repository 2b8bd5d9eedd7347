/* SPDX-License-Identifier: MIT */
/*
 * rbmon tui: the interactive monitor's loop (htop's ScreenManager_run):
 * refresh the snapshot when its time comes, draw the modes, give the top
 * mode the keys typed.  Also the helpers every mode uses: the message
 * line, pushing and popping modes, the layout, the selected thread.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "monitor/core/discover.h"
#include "monitor/core/dump.h"
#include "monitor/screen/tuidraw.h"
#include "monitor/core/stack.h"
#include "monitor/screen/tty.h"
#include "monitor/screen/tuictl.h"
#include "monitor/screen/tuimodes.h"
#include "monitor/screen/tuiwatch.h"

#define TUI_KEY_WAIT_MS	100	/* longest key wait: signals are seen */

void
rbmon_tui_message(struct rbmon_tui *t, enum rbmon_msg kind, const char *fmt,
    ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(t->msg, sizeof t->msg, fmt, ap);
	va_end(ap);
	t->msg_kind = kind;
}

/**
 * rbmon_tui_push - put a mode on top of the stack, with its state
 *
 * Return: 0, or -1 when the stack is full (the caller frees the state).
 */
int
rbmon_tui_push(struct rbmon_tui *t, const struct rbmon_mode_ops *ops,
    void *state)
{
	if (t->nmodes == RBMON_MODES_MAX) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "too many screens open");
		return -1;
	}
	t->modes[t->nmodes].ops = ops;
	t->modes[t->nmodes].state = state;
	t->nmodes++;
	return 0;
}

/* Close the top mode (never the main screen) and free its state. */
void
rbmon_tui_pop(struct rbmon_tui *t)
{
	struct rbmon_mode	*m;

	if (t->nmodes <= 1)
		return;
	m = &t->modes[--t->nmodes];
	if (m->ops->free != NULL)
		m->ops->free(m->state);
	m->ops = NULL;
	m->state = NULL;
}

/* The function a frame runs (an rbmon_namer): resolved through the cache. */
const char *
rbmon_tui_frame_name(void *arg, const struct rbmon_process *p,
    const struct rbmon_thread *th, size_t i)
{
	struct rbmon_tui	*t = arg;
	struct rbmon_shown	 sh;

	rbmon_dump_resolve(t->sy, &t->s, p, th, i, &t->c, &sh);
	return sh.function;
}

/* The selected thread of the snapshot on screen, or NULL. */
const struct rbmon_thread *
rbmon_tui_selected(const struct rbmon_tui *t, const struct rbmon_process **pp)
{
	if (!t->have_snap)
		return NULL;
	return rbmon_view_selected(&t->v, &t->s, pp);
}

static int
tui_watch_rows(const struct rbmon_thread *th)
{
	int	i, n = 0;

	if (th == NULL || th->watches == NULL)
		return 0;
	for (i = 0; i < RB_WATCHES; i++)
		n += th->watches[i].inuse != RB_WATCH_FREE;
	return n;
}

void
rbmon_tui_relayout(struct rbmon_tui *t)
{
	const struct rbmon_process	*p = NULL;
	const struct rbmon_thread	*th;

	th = rbmon_tui_selected(t, &p);
	/* What the selected thread waits in: read once per snapshot. */
	if (th != NULL && th != t->blocked_for) {
		rbmon_model_blocked(p, (struct rbmon_thread *)th);
		t->blocked_for = th;
	}
	rbmon_layout_compute(&t->lay, LINES, COLS, (int)t->v.nrows,
	    (int)rbmon_view_stack_rows(&t->v, th) + (th != NULL && th->nframes == 0),
	    tui_watch_rows(th));
	rbmon_view_scroll(&t->v, (size_t)(t->lay.list_h > 0 ?
	    t->lay.list_h : 1));
	rbmon_view_stack_move(&t->v, th, 0, (size_t)(t->lay.stack_h > 0 ?
	    t->lay.stack_h : 1));
}

static void
tui_notes(struct rbmon_tui *t)
{
	char	*line, *end;

	/* Show the newest line the symbol reader wrote, once. */
	if (t->notes == NULL || fflush(t->notes) != 0 ||
	    t->notes_len == t->notes_shown)
		return;
	line = t->notes_buf + t->notes_shown;
	t->notes_shown = t->notes_len;
	end = t->notes_buf + t->notes_len;
	while (end > line && end[-1] == '\n')
		end--;
	for (char *p = line; p < end; p++) {
		if (*p == '\n')
			line = p + 1;
	}
	if (end > line)
		rbmon_tui_message(t, RBMON_MSG_INFO, "%.*s", (int)(end - line),
		    line);
}

/*
 * A stop that lapsed because no monitor was left (rb_ring.orphaned,
 * rbtrace(5) "Stopping"), said once on the message line: the program's
 * stderr said it, but the one watching may not see that.
 */
static void
tui_orphans(struct rbmon_tui *t)
{
	const struct rbmon_process	*p;
	const struct rbmon_thread	*th, *last = NULL;
	uint64_t			 n = 0;
	size_t				 i, j;

	for (i = 0; i < t->s.nprocs; i++) {
		p = &t->s.procs[i];
		for (j = 0; j < p->nthreads; j++) {
			th = &p->threads[j];
			if (th->orphaned == 0)
				continue;
			n += th->orphaned;
			last = th;
		}
	}
	if (n > t->orphaned && last != NULL)
		rbmon_tui_message(t, RBMON_MSG_INFO, "thread %d resumed by "
		    "itself: no monitor was left, and what monitors had set "
		    "to stop threads lapsed", last->tid);
	t->orphaned = n;
}

static void
tui_rescan(struct rbmon_tui *t)
{
	struct rbmon_snapshot	 s;
	char			*cause = NULL;
	int			 gone;

	if (rbmon_model_snapshot(t->m, &s, &cause) != 0) {
		/* Keep the last good snapshot on screen; say why it is old. */
		free(t->read_error);
		t->read_error = cause;
		rbmon_tui_message(t, RBMON_MSG_ERROR, "%s: %s (showing the last "
		    "good read)", rbmon_basename(t->m->path), cause);
		return;
	}
	if (t->read_error != NULL) {
		free(t->read_error);
		t->read_error = NULL;
		rbmon_tui_message(t, RBMON_MSG_INFO, "reading the file again");
	}
	if (t->have_snap)
		rbmon_model_free(&t->s);
	t->s = s;
	t->blocked_for = NULL;
	t->have_snap = 1;
	t->snap_ns = rbmon_mono_ns();
	rbmon_clock_init(&t->c, &t->m->hdr);
	if (t->c.kind == RB_CLOCK_NONE)
		rbmon_seen_update(&t->seen, &t->s, t->c.now_ns);
	rbmon_stack_resolve_all(t->sy, &t->s);
	rbmon_view_rebuild(&t->v, &t->s);

	tui_orphans(t);
	gone = t->s.nprocs > 0 && !rbmon_any_alive(t->m, &t->s);
	if (gone && !t->all_gone)
		rbmon_tui_message(t, RBMON_MSG_INFO, "the program is gone; "
		    "its last stacks stay on screen");
	t->all_gone = gone;
	rbmon_tui_relayout(t);
	rbmon_tuiwatch_refresh(t);
	tui_notes(t);
}

/* Draw the top mode and what is under it, down to a full screen. */
static void
tui_draw(struct rbmon_tui *t)
{
	int	i, lo = t->nmodes - 1;

	while (lo > 0 && t->modes[lo].ops->overlay)
		lo--;
	for (i = lo; i < t->nmodes; i++)
		if (t->modes[i].ops->draw != NULL)
			t->modes[i].ops->draw(t, t->modes[i].state);
	refresh();
}

static int
tui_key(struct rbmon_tui *t, int key)
{
	struct rbmon_mode	*m = &t->modes[t->nmodes - 1];

	if (key == RBMON_KEY_RESIZE) {
		clear();
		rbmon_tui_relayout(t);
		return RBMON_REDRAW;
	}
	return m->ops->key(t, m->state, key);
}

/**
 * rbmon_tui_run - the interactive monitor on an open trace file
 * @m: the model; stays open
 * @o: options
 *
 * Each pass refreshes the snapshot when its interval is up (unless
 * frozen), draws when something changed, and waits for a key at most
 * TUI_KEY_WAIT_MS.  The traced program only ever sees reads.
 *
 * Return: the exit status: 0, or 1 if the terminal could not be used.
 */
int
rbmon_tui_run(struct rbmon_model *m, const struct rbmon_tui_opts *o)
{
	struct rbmon_tui	 t;
	struct rbmon_mode	*top;
	char			*cause = NULL;
	uint64_t		 now;
	int			 key, flags, wait_ms;

	memset(&t, 0, sizeof t);
	t.m = m;
	t.o = *o;
	/*
	 * The kernel's view of each thread (state, CPU): twice a second is
	 * enough for the eye, and reading hundreds of stat lines is most of
	 * what a fast refresh costs.
	 */
	m->kernel_every_ns = 500000000u;
	rbmon_view_init(&t.v);
	t.v.hide_exited = o->hide_exited;
	t.v.namer = rbmon_tui_frame_name;
	t.v.namer_arg = &t;
	if (rbmon_tty_start(o->color, o->ascii, &cause) != 0) {
		fprintf(stderr, "rbmon: %s\n", cause);
		free(cause);
		return 1;
	}
	rbmon_tui_push(&t, &rbmon_mode_main, NULL);
	rbmon_tuictl_init(&t);
	rbmon_tuiwatch_init(&t);
	t.notes = open_memstream(&t.notes_buf, &t.notes_len);
	t.sy = rbmon_symbols_new(t.notes);
	flags = RBMON_RESCAN | RBMON_REDRAW;
	while (!(flags & RBMON_QUIT) && !rbmon_tty_quit) {
		flags |= rbmon_tuictl_tick(&t) | rbmon_tuiwatch_tick(&t);
		top = &t.modes[t.nmodes - 1];
		if (top->ops->tick != NULL)
			flags |= top->ops->tick(&t, top->state);
		now = rbmon_mono_ns();
		if ((flags & RBMON_RESCAN) || (!t.frozen && now >= t.next_ns)) {
			tui_rescan(&t);
			t.next_ns = t.snap_ns + (uint64_t)t.o.delay * 100000000u;
			flags |= RBMON_REDRAW;
		}
		if (flags & RBMON_REDRAW)
			tui_draw(&t);
		flags = 0;
		now = rbmon_mono_ns();
		wait_ms = TUI_KEY_WAIT_MS;
		if (!t.frozen && t.next_ns > now &&
		    (t.next_ns - now) / 1000000u < (uint64_t)wait_ms)
			wait_ms = (int)((t.next_ns - now) / 1000000u);
		else if (!t.frozen && t.next_ns <= now)
			wait_ms = 0;
		top = &t.modes[t.nmodes - 1];
		if (top->ops->tick_ms > 0 && top->ops->tick_ms < wait_ms)
			wait_ms = top->ops->tick_ms;
		if ((key = rbmon_tty_getkey(wait_ms)) < 0)
			continue;
		flags = tui_key(&t, key);
		/* Drain what is already typed before drawing again. */
		while (!(flags & RBMON_QUIT) && (key = rbmon_tty_getkey(0)) >= 0)
			flags |= tui_key(&t, key);
	}
	rbmon_tty_end();
	while (t.nmodes > 1)
		rbmon_tui_pop(&t);
	/* The watches added from here are the monitor's: always removed. */
	rbmon_tuiwatch_end(&t);
	/* A signal (terminal closed, kill) cannot ask: undo, to be safe. */
	rbmon_tuictl_end(&t, rbmon_tty_quit);
	rbmon_prompt_free_all();
	rbmon_symbols_free(t.sy);
	if (t.notes != NULL)
		fclose(t.notes);
	free(t.notes_buf);
	if (t.have_snap)
		rbmon_model_free(&t.s);
	rbmon_seen_free(&t.seen);
	rbmon_view_free(&t.v);
	free(t.read_error);
	return 0;
}
