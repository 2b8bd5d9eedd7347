/* SPDX-License-Identifier: MIT */
/*
 * rbmon tuictl: control from the full-screen monitor.  Commands go to the
 * selected thread one at a time, without blocking the screen: the loop
 * polls for the answer (rbmon_tuictl_tick) and shows it on the message
 * line.  Breakpoints need no thread: they are set, listed and cleared at
 * once in the file (breakpoint.c), for the selected thread's process.
 * What this rbmon changed (threads it stopped, breakpoints it set, single
 * stepping or stop-on-create it turned on) is remembered so that quitting
 * can undo it, after asking (the quit question is a mode of this file).
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/strl.h"

#include "monitor/core/dump.h"
#include "monitor/core/safeio.h"
#include "monitor/screen/tty.h"
#include "monitor/screen/tuictl.h"
#include "monitor/screen/tuimodes.h"

#define TUICTL_TIMEOUT_NS	(5 * 1000000000ull)	/* an answer, at most */
#define TUICTL_BEAT_NS		(500 * 1000000ull)	/* heartbeat period */
#define TUICTL_UNDO_NS		(2 * 1000000000ull)	/* per undo step */

struct tuictl_bp {
	struct rbmon_bp_scope	 sc;
	uint32_t		 id;
};

struct rbmon_tuictl {
	struct rbmon_ctl	 ctl;
	int			 ok;
	char			*error;		/* why the file is not writable */
	uint64_t		 beat_ns;	/* last heartbeat */
	struct rbmon_cmd	 cmd;		/* the command in flight */
	int			 busy, stopper;	/* stopper: STOP, STEP, ... */
	uint64_t		 deadline;
	struct rbmon_ident	*mine;		/* threads stopped from here */
	size_t			 nmine;
	struct tuictl_bp	*bps;		/* breakpoints set from here */
	size_t			 nbps;
	int			 set_single, set_soc;	/* turned on from here */
	int			 undo;		/* the quit question said yes */
};

void
rbmon_tuictl_init(struct rbmon_tui *t)
{
	struct rbmon_tuictl	*c = rbmon_xcalloc(1, sizeof *c);
	char			*cause = NULL;

	t->ctl = c;
	if (rbmon_ctl_open(&c->ctl, t->m, &cause) == 0) {
		c->ok = 1;
		if (rbmon_safeio_shared_write(t->m->fd))
			rbmon_tui_message(t, RBMON_MSG_ERROR, "warning: the "
			    "file is writable by others than its owner: they "
			    "can change what rbmon writes to it");
		rbmon_ctl_heartbeat(&c->ctl);
		c->beat_ns = rbmon_mono_ns();
	} else {
		c->error = cause;
	}
}

/* Why control cannot be used, or NULL. */
static const char *
tuictl_problem(struct rbmon_tui *t)
{
	if (t->ctl->ok)
		return NULL;
	return t->ctl->error ? t->ctl->error : "file not writable";
}

int
rbmon_tuictl_usable(struct rbmon_tui *t)
{
	const char	*why = tuictl_problem(t);

	if (why == NULL)
		return 1;
	rbmon_tui_message(t, RBMON_MSG_ERROR, "cannot control the program: %s",
	    why);
	return 0;
}

/* The control channel, or NULL when the file cannot be written. */
struct rbmon_ctl *
rbmon_tuictl_ctl(struct rbmon_tui *t)
{
	return t->ctl->ok ? &t->ctl->ctl : NULL;
}

/* The selected thread if it has not ended; else NULL and why in @why. */
static const struct rbmon_thread *
tuictl_selected(struct rbmon_tui *t, const struct rbmon_process **pp,
    char *why, size_t size)
{
	const struct rbmon_process	*p = NULL;
	const struct rbmon_thread	*th;

	if ((th = rbmon_tui_selected(t, &p)) == NULL) {
		snprintf(why, size, "select a thread first");
		return NULL;
	}
	switch (rbmon_thread_state(p, th)) {
	case RBMON_TS_EXITED:
	case RBMON_TS_GONE:
		snprintf(why, size, "thread %d has ended", th->tid);
		return NULL;
	case RBMON_TS_DETACHED:
		snprintf(why, size, "thread %d runs untraced since a detach",
		    th->tid);
		return NULL;
	default:
		break;
	}
	if (pp != NULL)
		*pp = p;
	return th;
}

/**
 * rbmon_tuictl_target - the selected thread, if control can reach it
 * @why: set to the reason when it cannot (@size bytes), else ""
 *
 * Return: the thread, or NULL.
 */
const struct rbmon_thread *
rbmon_tuictl_target(struct rbmon_tui *t, const struct rbmon_process **pp,
    char *why, size_t size)
{
	const char	*no = tuictl_problem(t);

	why[0] = '\0';
	if (no != NULL) {
		snprintf(why, size, "cannot control the program: %s", no);
		return NULL;
	}
	return tuictl_selected(t, pp, why, size);
}

/* The selected thread, if it is alive; else NULL, and why on the message line. */
const struct rbmon_thread *
rbmon_tuictl_thread(struct rbmon_tui *t, const struct rbmon_process **pp)
{
	const struct rbmon_thread	*th;
	char				 why[160];

	if ((th = tuictl_selected(t, pp, why, sizeof why)) == NULL)
		rbmon_tui_message(t, RBMON_MSG_ERROR, "%s", why);
	return th;
}

/* Post @cmd @args to @th; @stopper: the thread is ours once it answers. */
static int
tuictl_send(struct rbmon_tui *t, const struct rbmon_thread *th,
    const char *cmd, const char *args, int stopper)
{
	struct rbmon_tuictl	*c = t->ctl;
	char			*cause = NULL;

	if (!rbmon_tuictl_usable(t))
		return RBMON_REDRAW;
	if (c->busy) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "still waiting for "
		    "thread %d to answer %s", c->cmd.tid, c->cmd.cmd);
		return RBMON_REDRAW;
	}
	rbmon_cmd_free(&c->cmd);
	if (rbmon_ctl_target(&c->ctl, th->tid, &c->cmd, &cause) != 0 ||
	    rbmon_ctl_post(&c->ctl, &c->cmd, cmd, args, &cause) != 0) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "%s", cause);
		free(cause);
		return RBMON_REDRAW;
	}
	c->busy = 1;
	c->stopper = stopper;
	c->deadline = rbmon_mono_ns() + TUICTL_TIMEOUT_NS;
	/* "DYN " is a word of three letters. */
	rbmon_tui_message(t, RBMON_MSG_INFO, "%.*s%s%s sent to thread %d ...",
	    (int)strcspn(cmd, " "), cmd, *args ? " " : "", args, th->tid);
	return RBMON_REDRAW;
}

static void
tuictl_mine_add(struct rbmon_tuictl *c)
{
	size_t	i;

	for (i = 0; i < c->nmine; i++)
		if (c->mine[i].tid == c->cmd.tid &&
		    c->mine[i].ring == c->cmd.ring)
			return;
	c->mine = rbmon_xreallocarray(c->mine, c->nmine + 1, sizeof *c->mine);
	c->mine[c->nmine].ring = c->cmd.ring;
	c->mine[c->nmine].pid = c->cmd.pid;
	c->mine[c->nmine].tid = c->cmd.tid;
	c->nmine++;
}

static void
tuictl_bp_add(struct rbmon_tuictl *c, const struct rbmon_bp_scope *sc,
    uint32_t id)
{
	c->bps = rbmon_xreallocarray(c->bps, c->nbps + 1, sizeof *c->bps);
	c->bps[c->nbps].sc = *sc;
	c->bps[c->nbps].id = id;
	c->nbps++;
}

/* Forget breakpoint @id of @sc's image (0: all of it), cleared by BCLR. */
static void
tuictl_bp_forget(struct rbmon_tuictl *c, const struct rbmon_bp_scope *sc,
    uint32_t id)
{
	size_t	i, j;

	for (i = j = 0; i < c->nbps; i++)
		if (c->bps[i].sc.image != sc->image ||
		    (id != 0 && c->bps[i].id != id))
			c->bps[j++] = c->bps[i];
	c->nbps = j;
}

static int
tuictl_is_mine_bp(const struct rbmon_tuictl *c, int32_t pid, uint32_t id)
{
	size_t	i;

	for (i = 0; i < c->nbps; i++)
		if (c->bps[i].sc.pid == pid && c->bps[i].id == id)
			return 1;
	return 0;
}

static void
tuictl_answer(struct rbmon_tui *t)
{
	struct rbmon_tuictl	*c = t->ctl;
	struct rbmon_cmd	*k = &c->cmd;
	char			 first[200];
	size_t			 n;

	n = strcspn(k->text, "\n");
	snprintf(first, sizeof first, "%.*s", (int)(n < 199 ? n : 199),
	    k->text);
	if (!k->ok) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "thread %d: %s", k->tid,
		    first);
		return;
	}
	if (c->stopper)
		tuictl_mine_add(c);
	rbmon_tui_message(t, RBMON_MSG_INFO, "thread %d: %s", k->tid, first);
}

/* The breakpoints a command to @th acts on: its process image's. */
static int
tuictl_scope(struct rbmon_tui *t, int32_t tid, struct rbmon_bp_scope *sc)
{
	struct rbmon_cmd	 k;
	char			*cause = NULL;
	int			 r;

	memset(&k, 0, sizeof k);
	r = rbmon_ctl_target(&t->ctl->ctl, tid, &k, &cause);
	if (r == 0)
		r = rbmon_bp_scope_of(&t->ctl->ctl, &k, sc, &cause);
	if (r != 0) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "%s", cause);
		free(cause);
	}
	rbmon_cmd_free(&k);
	return r;
}

/** rbmon_tuictl_scope - the process image a command to thread @tid acts on */
int
rbmon_tuictl_scope(struct rbmon_tui *t, int32_t tid, struct rbmon_bp_scope *sc)
{
	return tuictl_scope(t, tid, sc);
}

/**
 * rbmon_tuictl_bp - BRKP, BCLR or BLST for @sc, done at once; the answer
 * on the message line as a thread's would be
 * @list: for BLST, set to the list's text (to free), or NULL on failure
 *
 * Return: the loop's flags.
 */
int
rbmon_tuictl_bp(struct rbmon_tui *t, const struct rbmon_bp_scope *sc,
    const char *cmd, const char *args, char **list)
{
	struct rbmon_tuictl	*c = t->ctl;
	char			*text = NULL, first[200];
	unsigned		 id;
	int			 r;

	if (list != NULL)
		*list = NULL;
	if (!rbmon_tuictl_usable(t))
		return RBMON_REDRAW;
	r = rbmon_bp_run(&c->ctl, t->sy, sc, cmd, args, &text);
	if (r < 0) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "%s", text);
		free(text);
		return RBMON_REDRAW;
	}
	snprintf(first, sizeof first, "%.*s", (int)strcspn(text, "\n"), text);
	if (r == 0) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "thread %d: %s", sc->tid,
		    first);
		free(text);
		return RBMON_REDRAW;
	}
	if (strcmp(cmd, "BLST") == 0 && list != NULL) {
		*list = text;
		return RBMON_REDRAW | RBMON_RESCAN;
	}
	if (strcmp(cmd, "BRKP") == 0 && sscanf(text, "breakpoint %u", &id) == 1)
		tuictl_bp_add(c, sc, id);
	else if (strcmp(cmd, "BCLR") == 0)
		tuictl_bp_forget(c, sc, sscanf(args, "%u", &id) == 1 ? id : 0);
	rbmon_tui_message(t, RBMON_MSG_INFO, "thread %d: %s", sc->tid, first);
	free(text);
	return RBMON_REDRAW | RBMON_RESCAN;
}

/* BRKP or BLST for the selected thread's process. */
static int
tuictl_bp_thread(struct rbmon_tui *t, const struct rbmon_thread *th,
    const char *cmd, const char *args)
{
	struct rbmon_bp_scope	 sc;
	char			*text = NULL;
	int			 r;

	if (!rbmon_tuictl_usable(t) || tuictl_scope(t, th->tid, &sc) != 0)
		return RBMON_REDRAW;
	if (strcmp(cmd, "BLST") != 0)
		return rbmon_tuictl_bp(t, &sc, cmd, args, NULL);
	r = rbmon_tuictl_bp(t, &sc, cmd, args, &text);
	if (text != NULL)
		rbmon_blist_open(t, &sc, sc.tid, text);
	free(text);
	return r;
}

/**
 * rbmon_tuictl_tick - heartbeat, and collect the answer in flight
 *
 * Return: RBMON_REDRAW | RBMON_RESCAN when an answer came or timed out.
 */
int
rbmon_tuictl_tick(struct rbmon_tui *t)
{
	struct rbmon_tuictl	*c = t->ctl;
	uint64_t		 now = rbmon_mono_ns();
	char			*cause = NULL;
	int			 r;

	if (!c->ok)
		return 0;
	if (now - c->beat_ns >= TUICTL_BEAT_NS) {
		rbmon_ctl_heartbeat(&c->ctl);
		c->beat_ns = now;
	}
	if (!c->busy)
		return 0;
	r = rbmon_ctl_poll(&c->ctl, &c->cmd, &cause);
	if (r == 1) {
		c->busy = 0;
		tuictl_answer(t);
		return RBMON_REDRAW | RBMON_RESCAN;
	}
	if (r < 0) {
		c->busy = 0;
		rbmon_tui_message(t, RBMON_MSG_ERROR, "%s", cause);
		free(cause);
		return RBMON_REDRAW | RBMON_RESCAN;
	}
	if (now < c->deadline)
		return 0;
	if (rbmon_ctl_withdraw(&c->ctl, &c->cmd)) {
		c->busy = 0;
		rbmon_tui_message(t, RBMON_MSG_ERROR, "thread %d did not answer "
		    "%s within 5 s: it passed no hook (blocked in a system "
		    "call?); withdrawn, nothing done", c->cmd.tid, c->cmd.cmd);
		return RBMON_REDRAW;
	}
	/* Taken: its answer is on the way; give it a while longer. */
	c->deadline = now + TUICTL_TIMEOUT_NS;
	return 0;
}

/* ------------------------------------------------------------------
 * The breakpoint prompt.
 */

/* Tab: complete the function name (the first word) from the symbols. */
static void
tuictl_break_tab(struct rbmon_tui *t, void *arg, struct rbmon_edit *ed,
    char *note, size_t notesz)
{
	const struct rbmon_process	*p = NULL;
	char *const			*fn;
	size_t				 n;

	(void)arg;
	if (memchr(ed->text, ' ', ed->cur) != NULL ||
	    rbmon_tui_selected(t, &p) == NULL) {
		snprintf(note, notesz, "Tab completes the function name");
		return;
	}
	fn = rbmon_symbols_functions(t->sy, &t->s, p, &n);
	/* One name at the end of the line: a space after it, for the count. */
	if (rbmon_edit_complete(ed, 0, fn, n, "function", note, notesz) == 1 &&
	    ed->cur == ed->len)
		rbmon_edit_key(ed, ' ');
}

static int
tuictl_break_enter(struct rbmon_tui *t, void *arg, const char *line)
{
	const struct rbmon_thread	*th;

	(void)arg;
	if (!rbmon_tuictl_usable(t) || (th = rbmon_tuictl_thread(t, NULL)) ==
	    NULL)
		return RBMON_REDRAW;
	return tuictl_bp_thread(t, th, "BRKP", line);
}

/* b: the prompt opens even when nothing can be set, and says why. */
void
rbmon_tuictl_break_prompt(struct rbmon_tui *t)
{
	struct rbmon_prompt	 p;

	memset(&p, 0, sizeof p);
	strlcpy(p.label, "Break at: ", sizeof p.label);
	p.hint = "FUNCTION [COUNT] [thread]  Tab completes, Up/Down history, "
	    "Enter sets, Esc cancels";
	p.hist = RBMON_HIST_BREAK;
	p.enter = tuictl_break_enter;
	p.tab = tuictl_break_tab;
	rbmon_tuictl_target(t, NULL, p.problem, sizeof p.problem);
	rbmon_prompt_open(t, &p, NULL);
}

/* ------------------------------------------------------------------
 * Quitting.
 */

/* Threads stopped by what this rbmon did, in the current snapshot. */
static size_t
tuictl_stopped_mine(struct rbmon_tui *t, struct rbmon_ident *out)
{
	struct rbmon_tuictl	*c = t->ctl;
	size_t			 i, j, k, n = 0;

	if (!t->have_snap)
		return 0;
	for (i = 0; i < t->s.nprocs; i++) {
		const struct rbmon_process *p = &t->s.procs[i];

		for (j = 0; j < p->nthreads; j++) {
			const struct rbmon_thread *th = &p->threads[j];
			uint32_t why = RB_WHY_REASON(th->why);
			int mine = 0;

			if (rbmon_thread_state(p, th) != RBMON_TS_STOPPED)
				continue;
			/* Stopped by a command from here, not by another monitor's breakpoint. */
			for (k = 0; k < c->nmine; k++)
				if (c->mine[k].tid == th->tid &&
				    c->mine[k].pid == th->pid &&
				    (why == RB_WHY_STOP || why == RB_WHY_STEP ||
				    why == RB_WHY_NEXT || why == RB_WHY_FINISH))
					mine = 1;
			if (why == RB_WHY_BREAKPOINT &&
			    tuictl_is_mine_bp(c, th->pid, RB_WHY_ID(th->why)))
				mine = 1;
			if ((why == RB_WHY_SINGLE && c->set_single) ||
			    (why == RB_WHY_CREATE && c->set_soc))
				mine = 1;
			if (!mine)
				continue;
			if (out != NULL) {
				out[n].ring = th->ring;
				out[n].pid = th->pid;
				out[n].tid = th->tid;
			}
			n++;
		}
	}
	return n;
}

static int
tuictl_quit_key(struct rbmon_tui *t, void *arg, int key)
{
	(void)arg;
	rbmon_tui_pop(t);
	switch (rbmon_keytab_action(RBMON_KM_QUIT, key)) {
	case RBMON_ACT_QUIT_UNDO:
		t->ctl->undo = 1;
		return RBMON_QUIT;
	case RBMON_ACT_QUIT_LEAVE:
		t->ctl->undo = 0;
		return RBMON_QUIT;
	default:
		break;
	}
	rbmon_tui_message(t, RBMON_MSG_INFO, "not quitting");
	return RBMON_REDRAW;
}

/* The question is on the message line, drawn by the screen under it. */
static const struct rbmon_mode_ops tuictl_quit_ops = {
	.name = "quit",
	.overlay = 1,
	.key = tuictl_quit_key,
};

/**
 * rbmon_tuictl_quit - the user asks to quit
 *
 * Return: RBMON_QUIT when nothing needs undoing, else RBMON_REDRAW and
 * the question is on the message line.
 */
int
rbmon_tuictl_quit(struct rbmon_tui *t)
{
	struct rbmon_tuictl	*c = t->ctl;
	size_t			 stopped = tuictl_stopped_mine(t, NULL);
	char			 what[160];
	int			 w = 0;

	if (!c->ok || (stopped == 0 && c->nbps == 0 && !c->set_single &&
	    !c->set_soc))
		return RBMON_QUIT;
	what[0] = '\0';
	if (stopped > 0)
		w += snprintf(what + w, sizeof what - (size_t)w, "resume %zu "
		    "stopped thread%s", stopped, stopped == 1 ? "" : "s");
	if (c->nbps > 0)
		w += snprintf(what + w, sizeof what - (size_t)w, "%sclear %zu "
		    "breakpoint%s", w ? ", " : "", c->nbps,
		    c->nbps == 1 ? "" : "s");
	if (c->set_single || c->set_soc)
		w += snprintf(what + w, sizeof what - (size_t)w, "%sturn %s%s%s "
		    "off", w ? ", " : "", c->set_single ? "single" : "",
		    c->set_single && c->set_soc ? " and " : "",
		    c->set_soc ? "stop-on-create" : "");
	if (rbmon_tui_push(t, &tuictl_quit_ops, NULL) != 0)
		return RBMON_QUIT;
	rbmon_tui_message(t, RBMON_MSG_ERROR, "Quit: %s first? y yes, n no "
	    "(leave them), Esc stay", what);
	return RBMON_REDRAW;
}

/* Wait for one command's answer, synchronously, for undoing at exit. */
static void
tuictl_sync(struct rbmon_tuictl *c, int32_t tid, const char *cmd,
    const char *args)
{
	struct rbmon_cmd	 k;
	char			*cause = NULL;

	memset(&k, 0, sizeof k);
	if (rbmon_ctl_target(&c->ctl, tid, &k, &cause) == 0 &&
	    rbmon_ctl_post(&c->ctl, &k, cmd, args, &cause) == 0 &&
	    rbmon_ctl_wait(&c->ctl, &k, TUICTL_UNDO_NS, &cause) == 0)
		rbmon_ctl_withdraw(&c->ctl, &k);
	free(cause);
	rbmon_cmd_free(&k);
}

/**
 * rbmon_tuictl_end - leave: undo what this rbmon changed if the quit
 * question said so or @force, and close
 */
void
rbmon_tuictl_end(struct rbmon_tui *t, int force)
{
	struct rbmon_tuictl	*c = t->ctl;
	struct rbmon_ident	*ids;
	size_t			 n, i;
	char			*cause = NULL;

	if (c == NULL)
		return;
	if (c->ok && c->busy)
		rbmon_ctl_withdraw(&c->ctl, &c->cmd);
	if (c->ok && (c->undo || force)) {
		/* The flags first, so resumed threads do not stop again. */
		if (c->set_single)
			rbmon_ctl_set_flag(&c->ctl, "single", 0, &cause);
		if (c->set_soc)
			rbmon_ctl_set_flag(&c->ctl, "stop_on_create", 0, &cause);
		free(cause);
		for (i = 0; i < c->nbps; i++) {
			char id[16], *text = NULL;

			snprintf(id, sizeof id, "%u", c->bps[i].id);
			rbmon_bp_run(&c->ctl, t->sy, &c->bps[i].sc, "BCLR", id,
			    &text);
			free(text);
		}
		n = tuictl_stopped_mine(t, NULL);
		ids = rbmon_xcalloc(n ? n : 1, sizeof *ids);
		tuictl_stopped_mine(t, ids);
		for (i = 0; i < n; i++)
			tuictl_sync(c, ids[i].tid, "CONT", "");
		free(ids);
	}
	rbmon_cmd_free(&c->cmd);
	free(c->mine);
	free(c->bps);
	free(c->error);
	rbmon_ctl_close(&c->ctl);
	free(c);
	t->ctl = NULL;
}

/**
 * rbmon_tuictl_dyn - post a dynamic tracing request to a thread
 * @tid: the thread, which must still be there and not have ended
 * @req: "exclude-addr 0x...", "include-addr 0x..." or "include-all"
 *
 * The answer shows on the message line.  Return: the loop's flags.
 */
int
rbmon_tuictl_dyn(struct rbmon_tui *t, int32_t tid, const char *req)
{
	const struct rbmon_process	*p;
	const struct rbmon_thread	*th;
	size_t				 i, j;

	for (i = 0; t->have_snap && i < t->s.nprocs; i++) {
		p = &t->s.procs[i];
		for (j = 0; j < p->nthreads; j++) {
			th = &p->threads[j];
			if (th->tid != tid)
				continue;
			switch (rbmon_thread_state(p, th)) {
			case RBMON_TS_EXITED:
			case RBMON_TS_GONE:
			case RBMON_TS_DETACHED:
				continue;
			default:
				return tuictl_send(t, th, "DYN ", req, 0);
			}
		}
	}
	rbmon_tui_message(t, RBMON_MSG_ERROR, "thread %d has ended", tid);
	return RBMON_REDRAW;
}

/* x: the function of the stack pane's selected frame off. */
static int
tuictl_dyn_off(struct rbmon_tui *t)
{
	const struct rbmon_process	*p = NULL;
	const struct rbmon_thread	*th;
	const struct rbmon_frame	*f;
	struct rbmon_srow		 r;
	char				 req[64];

	if ((th = rbmon_tuictl_thread(t, &p)) == NULL)
		return RBMON_REDRAW;
	if (t->focus != RBMON_PANE_STACK) {
		rbmon_tui_message(t, RBMON_MSG_INFO, "x stops tracing the "
		    "function of a frame in the stack pane (Enter or Tab "
		    "goes there)");
		return RBMON_REDRAW;
	}
	if (!rbmon_view_stack_at(&t->v, th, t->v.stack_sel, &r) ||
	    r.kind == RBMON_SROW_GAP || r.kind == RBMON_SROW_BLOCKED ||
	    r.frame >= th->nframes) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "no frame selected");
		return RBMON_REDRAW;
	}
	f = &th->frames[r.frame];
	if (f->torn || f->named || f->synthetic || f->fn == 0) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "frame #%zu has no "
		    "function address of its own to switch off",
		    rbmon_frame_number(th, r.frame));
		return RBMON_REDRAW;
	}
	snprintf(req, sizeof req, "exclude-addr 0x%" PRIx64, f->fn);
	return tuictl_send(t, th, "DYN ", req, 0);
}

/* g, C, T: a global flag. */
static int
tuictl_flag(struct rbmon_tui *t, const char *name, int32_t now, int *mine,
    const char *on, const char *off)
{
	char	*cause = NULL;
	int	 value = !now;

	if (!rbmon_tuictl_usable(t))
		return RBMON_REDRAW;
	if (rbmon_ctl_set_flag(&t->ctl->ctl, name, value, &cause) != 0) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "%s", cause);
		free(cause);
		return RBMON_REDRAW;
	}
	if (mine != NULL)
		*mine = value;
	rbmon_tui_message(t, RBMON_MSG_INFO, "%s", value ? on : off);
	return RBMON_REDRAW | RBMON_RESCAN;
}

/**
 * rbmon_tuictl_action - a control key's action
 *
 * Return: the loop's flags, or -1 if the action is not control's.
 */
int
rbmon_tuictl_action(struct rbmon_tui *t, enum rbmon_action act)
{
	struct rbmon_tuictl		*c = t->ctl;
	const struct rbmon_thread	*th;
	static const char *const	 cmds[] = {
		[RBMON_ACT_PAUSE] = "STOP", [RBMON_ACT_STEP] = "STEP",
		[RBMON_ACT_NEXT] = "NEXT", [RBMON_ACT_FINISH] = "FINI",
	};

	switch (act) {
	case RBMON_ACT_BREAK:
		rbmon_tuictl_break_prompt(t);
		return RBMON_REDRAW;
	case RBMON_ACT_BLIST:
		if ((th = rbmon_tuictl_thread(t, NULL)) == NULL)
			return RBMON_REDRAW;
		return tuictl_bp_thread(t, th, "BLST", "");
	case RBMON_ACT_PAUSE:
	case RBMON_ACT_STEP:
	case RBMON_ACT_NEXT:
	case RBMON_ACT_FINISH:
		if ((th = rbmon_tuictl_thread(t, NULL)) == NULL)
			return RBMON_REDRAW;
		return tuictl_send(t, th, cmds[act], "", 1);
	case RBMON_ACT_CONT:
		if ((th = rbmon_tuictl_thread(t, NULL)) == NULL)
			return RBMON_REDRAW;
		return tuictl_send(t, th, "CONT", "", 0);
	case RBMON_ACT_TRACE:
		if ((th = rbmon_tuictl_thread(t, NULL)) == NULL)
			return RBMON_REDRAW;
		return tuictl_send(t, th, th->trace ? "TROF" : "TRON", "", 0);
	case RBMON_ACT_DYN_OFF:
		return tuictl_dyn_off(t);
	case RBMON_ACT_DLIST:
		rbmon_dlist_open(t);
		return RBMON_REDRAW;
	case RBMON_ACT_CAP_ARM:
		rbmon_cap_prompt(t);
		return RBMON_REDRAW;
	case RBMON_ACT_CAP_LIST:
		rbmon_caps_open(t);
		return RBMON_REDRAW;
	case RBMON_ACT_SINGLE:
		return tuictl_flag(t, "single", t->have_snap ? t->s.single : 0,
		    &c->set_single, "single stepping: every thread stops at "
		    "each hook (c: one step; g again ends it)",
		    "single stepping off: threads stopped by it resume");
	case RBMON_ACT_SOC:
		return tuictl_flag(t, "stop_on_create", t->have_snap ?
		    t->s.stop_on_create : 0, &c->set_soc, "stop-on-create on: "
		    "new threads stop at their first call",
		    "stop-on-create off");
	case RBMON_ACT_TOC:
		return tuictl_flag(t, "trace_on_create", t->have_snap ?
		    t->s.trace_on_create : 1, NULL, "trace-on-create on: new "
		    "threads keep their stacks", "trace-on-create off: new "
		    "threads start untraced");
	default:
		return -1;
	}
}
