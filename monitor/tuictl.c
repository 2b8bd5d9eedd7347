/*
 * rbmon tuictl: control from the full-screen monitor.  Commands go to the
 * selected thread one at a time, without blocking the screen: the loop
 * polls for the answer (rbmon_tuictl_tick) and shows it on the message
 * line.  Breakpoints need no thread: they are set, listed and cleared at
 * once in the file (breakpoint.c), for the selected thread's process.  What this rbmon changed (threads it stopped, breakpoints it set,
 * single stepping or stop-on-create it turned on) is remembered so that
 * quitting can undo it, after asking.  The watches added from here
 * (tuiwatch.c) are removed on leaving, without asking.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

#include "dump.h"
#include "safeio.h"
#include "tty.h"
#include "tui.h"

#define TUICTL_TIMEOUT_NS	(5 * 1000000000ull)	/* an answer, at most */
#define TUICTL_BEAT_NS		(500 * 1000000ull)	/* heartbeat period */
#define TUICTL_UNDO_NS		(2 * 1000000000ull)	/* per undo step */
#define TUI_CTRL(c)		((c) & 0x1f)
#define TUI_ESC			0x1b

void
rbmon_tuictl_init(struct rbmon_tui *t)
{
	char	*cause = NULL;

	if (rbmon_ctl_open(&t->ctl, t->m, &cause) == 0) {
		t->ctl_ok = 1;
		if (rbmon_safeio_shared_write(t->m->fd))
			rbmon_tui_message(t, RBMON_MSG_ERROR, "warning: the "
			    "file is writable by others than its owner: they "
			    "can change what rbmon writes to it");
		rbmon_ctl_heartbeat(&t->ctl);
		t->beat_ns = rbmon_mono_ns();
	} else {
		t->ctl_error = cause;
	}
}

int
rbmon_tuictl_usable(struct rbmon_tui *t)
{
	if (t->ctl_ok)
		return 1;
	rbmon_tui_message(t, RBMON_MSG_ERROR, "cannot control the program: "
	    "%s", t->ctl_error ? t->ctl_error : "file not writable");
	return 0;
}

/* The selected thread, if it is alive and can take a command or a watch. */
const struct rbmon_thread *
rbmon_tuictl_thread(struct rbmon_tui *t, const struct rbmon_process **pp)
{
	const struct rbmon_process	*p = NULL;
	const struct rbmon_thread	*th;

	th = t->have_snap ? rbmon_view_selected(&t->v, &t->s, &p) : NULL;
	if (th == NULL) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "select a thread first");
		return NULL;
	}
	switch (rbmon_thread_state(p, th)) {
	case RBMON_TS_EXITED:
	case RBMON_TS_GONE:
		rbmon_tui_message(t, RBMON_MSG_ERROR, "thread %d has ended",
		    th->tid);
		return NULL;
	default:
		break;
	}
	if (pp != NULL)
		*pp = p;
	return th;
}

/* Post @cmd @args to @th; the answer is handled as @kind. */
static int
tuictl_send(struct rbmon_tui *t, const struct rbmon_thread *th,
    const char *cmd, const char *args, int kind)
{
	char	*cause = NULL;

	if (!rbmon_tuictl_usable(t))
		return RBMON_REDRAW;
	if (t->cmd_busy) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "still waiting for "
		    "thread %d to answer %s", t->cmd.tid, t->cmd.cmd);
		return RBMON_REDRAW;
	}
	rbmon_cmd_free(&t->cmd);
	if (rbmon_ctl_target(&t->ctl, th->tid, &t->cmd, &cause) != 0 ||
	    rbmon_ctl_post(&t->ctl, &t->cmd, cmd, args, &cause) != 0) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "%s", cause);
		free(cause);
		return RBMON_REDRAW;
	}
	t->cmd_busy = 1;
	t->cmd_kind = kind;
	t->cmd_deadline = rbmon_mono_ns() + TUICTL_TIMEOUT_NS;
	rbmon_tui_message(t, RBMON_MSG_INFO, "%s%s%s sent to thread %d ...",
	    cmd, *args ? " " : "", args, th->tid);
	return RBMON_REDRAW;
}

static void
tuictl_mine_add(struct rbmon_tui *t)
{
	size_t	i;

	for (i = 0; i < t->nmine; i++)
		if (t->mine[i].tid == t->cmd.tid &&
		    t->mine[i].ring == t->cmd.ring)
			return;
	t->mine = rbmon_xreallocarray(t->mine, t->nmine + 1, sizeof *t->mine);
	t->mine[t->nmine].ring = t->cmd.ring;
	t->mine[t->nmine].pid = t->cmd.pid;
	t->mine[t->nmine].tid = t->cmd.tid;
	t->nmine++;
}

static void
tuictl_bp_add(struct rbmon_tui *t, const struct rbmon_bp_scope *sc,
    uint32_t id)
{
	t->bps = rbmon_xreallocarray(t->bps, t->nbps + 1, sizeof *t->bps);
	t->bps[t->nbps].sc = *sc;
	t->bps[t->nbps].id = id;
	t->nbps++;
}

/* Forget breakpoint @id of @sc's image (0: all of it), cleared by BCLR. */
static void
tuictl_bp_forget(struct rbmon_tui *t, const struct rbmon_bp_scope *sc,
    uint32_t id)
{
	size_t	i, j;

	for (i = j = 0; i < t->nbps; i++)
		if (t->bps[i].sc.image != sc->image ||
		    (id != 0 && t->bps[i].id != id))
			t->bps[j++] = t->bps[i];
	t->nbps = j;
}

static int
tuictl_is_mine_bp(const struct rbmon_tui *t, int32_t pid, uint32_t id)
{
	size_t	i;

	for (i = 0; i < t->nbps; i++)
		if (t->bps[i].sc.pid == pid && t->bps[i].id == id)
			return 1;
	return 0;
}

static void
tuictl_blist_free(struct rbmon_tui *t)
{
	size_t	i;

	for (i = 0; i < t->bl_n; i++)
		free(t->bl_lines[i]);
	free(t->bl_lines);
	t->bl_lines = NULL;
	t->bl_n = 0;
}

/* BLST's text: one breakpoint per line starting with its id. */
static void
tuictl_blist_fill(struct rbmon_tui *t, const char *text)
{
	const char	*p = text, *nl;

	tuictl_blist_free(t);
	while (*p) {
		nl = strchr(p, '\n');
		if (nl == NULL)
			nl = p + strlen(p);
		if (*p >= '0' && *p <= '9') {
			t->bl_lines = rbmon_xreallocarray(t->bl_lines,
			    t->bl_n + 1, sizeof *t->bl_lines);
			t->bl_lines[t->bl_n] = rbmon_xcalloc(1,
			    (size_t)(nl - p) + 1);
			memcpy(t->bl_lines[t->bl_n], p, (size_t)(nl - p));
			t->bl_n++;
		}
		p = *nl ? nl + 1 : nl;
	}
	if (t->bl_sel >= t->bl_n)
		t->bl_sel = t->bl_n ? t->bl_n - 1 : 0;
}

static void
tuictl_answer(struct rbmon_tui *t)
{
	struct rbmon_cmd	*k = &t->cmd;
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
	if (t->cmd_kind == TUICTL_STOPPER)
		tuictl_mine_add(t);
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
	r = rbmon_ctl_target(&t->ctl, tid, &k, &cause);
	if (r == 0)
		r = rbmon_bp_scope_of(&t->ctl, &k, sc, &cause);
	if (r != 0) {
		rbmon_tui_message(t, RBMON_MSG_ERROR, "%s", cause);
		free(cause);
	}
	rbmon_cmd_free(&k);
	return r;
}

/*
 * BRKP, BCLR or BLST (@kind TUICTL_BREAK, _CLEAR, _LIST) for @sc: done at
 * once, the answer on the message line as a thread's would be.
 */
static int
tuictl_bp(struct rbmon_tui *t, const struct rbmon_bp_scope *sc,
    const char *cmd, const char *args, int kind)
{
	char		*text = NULL, first[200];
	unsigned	 id;
	int		 r;

	if (!rbmon_tuictl_usable(t))
		return RBMON_REDRAW;
	r = rbmon_bp_run(&t->ctl, t->sy, sc, cmd, args, &text);
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
	switch (kind) {
	case TUICTL_BREAK:
		if (sscanf(text, "breakpoint %u", &id) == 1)
			tuictl_bp_add(t, sc, id);
		break;
	case TUICTL_CLEAR:
		tuictl_bp_forget(t, sc, sscanf(args, "%u", &id) == 1 ? id : 0);
		break;
	case TUICTL_LIST:
		tuictl_blist_fill(t, text);
		t->bl_scope = *sc;
		t->bl_pid = sc->pid;
		t->bl_tid = sc->tid;
		t->blist = 1;
		rbmon_tui_message(t, RBMON_MSG_INFO, "%zu breakpoint%s in "
		    "process %d", t->bl_n, t->bl_n == 1 ? "" : "s", sc->pid);
		free(text);
		return RBMON_REDRAW | RBMON_RESCAN;
	}
	rbmon_tui_message(t, RBMON_MSG_INFO, "thread %d: %s", sc->tid, first);
	free(text);
	return RBMON_REDRAW | RBMON_RESCAN;
}

/* BRKP or BLST for the selected thread's process. */
static int
tuictl_bp_thread(struct rbmon_tui *t, const struct rbmon_thread *th,
    const char *cmd, const char *args, int kind)
{
	struct rbmon_bp_scope	 sc;

	if (!rbmon_tuictl_usable(t) || tuictl_scope(t, th->tid, &sc) != 0)
		return RBMON_REDRAW;
	return tuictl_bp(t, &sc, cmd, args, kind);
}

/**
 * rbmon_tuictl_tick - heartbeat, and collect the answer in flight
 *
 * Return: RBMON_REDRAW | RBMON_RESCAN when an answer came or timed out.
 */
int
rbmon_tuictl_tick(struct rbmon_tui *t)
{
	uint64_t	 now = rbmon_mono_ns();
	char		*cause = NULL;
	int		 r, w;

	if (!t->ctl_ok)
		return 0;
	if (now - t->beat_ns >= TUICTL_BEAT_NS) {
		rbmon_ctl_heartbeat(&t->ctl);
		t->beat_ns = now;
	}
	w = rbmon_tuiwatch_tick(t);
	if (!t->cmd_busy)
		return w;
	r = rbmon_ctl_poll(&t->ctl, &t->cmd, &cause);
	if (r == 1) {
		t->cmd_busy = 0;
		tuictl_answer(t);
		return w | RBMON_REDRAW | RBMON_RESCAN;
	}
	if (r < 0) {
		t->cmd_busy = 0;
		rbmon_tui_message(t, RBMON_MSG_ERROR, "%s", cause);
		free(cause);
		return w | RBMON_REDRAW | RBMON_RESCAN;
	}
	if (now < t->cmd_deadline)
		return w;
	if (rbmon_ctl_withdraw(&t->ctl, &t->cmd)) {
		t->cmd_busy = 0;
		rbmon_tui_message(t, RBMON_MSG_ERROR, "thread %d did not answer "
		    "%s within 5 s: it passed no hook (blocked in a system "
		    "call?); withdrawn, nothing done", t->cmd.tid, t->cmd.cmd);
		return w | RBMON_REDRAW;
	}
	/* Taken: its answer is on the way; give it a while longer. */
	t->cmd_deadline = now + TUICTL_TIMEOUT_NS;
	return w;
}

/* ------------------------------------------------------------------
 * The prompt: a one-line editor with history and Tab completion.
 */

/* The history of the prompt being edited. */
static struct rbmon_tui_hist *
tuictl_hist(struct rbmon_tui *t)
{
	return t->prompting == TUICTL_BREAK ? &t->bhist : &t->whist;
}

/**
 * rbmon_tuictl_prompt - start editing a line
 * @what: TUICTL_BREAK or a TUICTL_WATCH kind: what Enter does
 * @text: the line to start from, or NULL
 */
void
rbmon_tuictl_prompt(struct rbmon_tui *t, int what, const char *text)
{
	t->prompting = what;
	strlcpy(t->prompt, text != NULL ? text : "", sizeof t->prompt);
	t->hist_pos = tuictl_hist(t)->n;
	t->complete[0] = '\0';
}

/**
 * rbmon_tuictl_complete_word - complete @word, the end of the prompt line
 * @names: sorted, unique; @n of them
 * @room: how many bytes @word may grow to (not counting the NUL)
 * @kind: what the names are, for "no KIND starts with ..."
 *
 * @word becomes the longest common prefix of the names it starts; the
 * message line shows them when there are several.
 * Return: how many names matched.
 */
size_t
rbmon_tuictl_complete_word(struct rbmon_tui *t, char *const *names, size_t n,
    char *word, size_t room, const char *kind)
{
	size_t	len = strlen(word), lo, hi, i, c;
	int	w;

	/* The range of names starting with the word (the list is sorted). */
	for (lo = 0; lo < n && strncmp(names[lo], word, len) < 0; lo++)
		;
	for (hi = lo; hi < n && strncmp(names[hi], word, len) == 0; hi++)
		;
	if (lo == hi) {
		snprintf(t->complete, sizeof t->complete, "no %s starts "
		    "with \"%.60s\"", kind, word);
		return 0;
	}
	/* Longest common prefix of the range, as far as the line holds. */
	c = strlen(names[lo]);
	for (i = lo + 1; i < hi; i++) {
		size_t k = 0;

		while (k < c && names[i][k] == names[lo][k])
			k++;
		c = k;
	}
	if (c > room)
		c = room;
	memcpy(word, names[lo], c);
	word[c] = '\0';
	t->complete[0] = '\0';
	if (hi - lo == 1)
		return 1;
	w = snprintf(t->complete, sizeof t->complete, "%zu matches:",
	    hi - lo);
	for (i = lo; i < hi && w > 0 && (size_t)w < sizeof t->complete - 1;
	    i++)
		w += snprintf(t->complete + w, sizeof t->complete - (size_t)w,
		    " %s", names[i]);
	return hi - lo;
}

/* Tab: complete the function name (the first word) from the symbols. */
static void
tuictl_complete(struct rbmon_tui *t)
{
	const struct rbmon_process	*p = NULL;
	char *const			*fn;
	size_t				 n;

	if (strchr(t->prompt, ' ') != NULL || !t->have_snap ||
	    rbmon_view_selected(&t->v, &t->s, &p) == NULL) {
		snprintf(t->complete, sizeof t->complete, "Tab completes the "
		    "function name");
		return;
	}
	fn = rbmon_symbols_functions(t->sy, &t->s, p, &n);
	/* One name: a space after it, ready for the count. */
	if (rbmon_tuictl_complete_word(t, fn, n, t->prompt,
	    sizeof t->prompt - 2, "function") == 1)
		strlcat(t->prompt, " ", sizeof t->prompt);
}

static void
tuictl_hist_add(struct rbmon_tui_hist *h, const char *line)
{
	if (*line == '\0' || (h->n > 0 &&
	    strcmp(h->line[h->n - 1], line) == 0))
		return;
	if (h->n == TUICTL_HIST) {
		memmove(h->line[0], h->line[1],
		    sizeof h->line[0] * (TUICTL_HIST - 1));
		h->n--;
	}
	strlcpy(h->line[h->n++], line, sizeof h->line[0]);
}

static int
tuictl_prompt_key(struct rbmon_tui *t, int key, int is_key)
{
	const struct rbmon_thread	*th;
	struct rbmon_tui_hist		*h = tuictl_hist(t);
	size_t				 len = strlen(t->prompt);
	char				 line[sizeof t->prompt];
	int				 what = t->prompting;

	if (is_key && key == KEY_RESIZE)
		return -1;
	if (!is_key && key == TUI_ESC) {
		t->prompting = 0;
		rbmon_tui_message(t, RBMON_MSG_NONE, " ");
		return RBMON_REDRAW;
	}
	if ((!is_key && (key == '\r' || key == '\n')) ||
	    (is_key && key == KEY_ENTER)) {
		t->prompting = 0;
		strlcpy(line, t->prompt, sizeof line);
		while (strlen(line) > 0 && line[strlen(line) - 1] == ' ')
			line[strlen(line) - 1] = '\0';
		if (line[0] == '\0') {
			rbmon_tui_message(t, RBMON_MSG_NONE, " ");
			return RBMON_REDRAW;
		}
		tuictl_hist_add(h, line);
		if (what != TUICTL_BREAK)
			return rbmon_tuiwatch_submit(t, what, line);
		th = rbmon_tuictl_thread(t, NULL);
		if (th == NULL)
			return RBMON_REDRAW;
		return tuictl_bp_thread(t, th, "BRKP", line, TUICTL_BREAK);
	}
	if (!is_key && key == '\t') {
		if (what == TUICTL_BREAK)
			tuictl_complete(t);
		else
			rbmon_tuiwatch_complete(t);
		return RBMON_REDRAW;
	}
	if ((is_key && (key == KEY_BACKSPACE || key == KEY_DC)) ||
	    (!is_key && (key == 0x7f || key == TUI_CTRL('h')))) {
		if (len > 0)
			t->prompt[len - 1] = '\0';
		return RBMON_REDRAW;
	}
	if (!is_key && key == TUI_CTRL('u')) {
		t->prompt[0] = '\0';
		return RBMON_REDRAW;
	}
	if (is_key && (key == KEY_UP || key == KEY_DOWN)) {
		if (key == KEY_UP && t->hist_pos > 0)
			t->hist_pos--;
		else if (key == KEY_DOWN && t->hist_pos < h->n)
			t->hist_pos++;
		if (t->hist_pos < h->n)
			strlcpy(t->prompt, h->line[t->hist_pos],
			    sizeof t->prompt);
		else
			t->prompt[0] = '\0';
		return RBMON_REDRAW;
	}
	if (is_key || key < 0x20 || key > 0x7e || len + 1 >= sizeof t->prompt)
		return RBMON_REDRAW;
	t->prompt[len] = (char)key;
	t->prompt[len + 1] = '\0';
	return RBMON_REDRAW;
}

/* ------------------------------------------------------------------
 * The breakpoint list.
 */

static int
tuictl_blist_key(struct rbmon_tui *t, int key, int is_key)
{
	char		 id[16], msg[sizeof t->msg];
	enum rbmon_msg	 kind;
	int		 r;

	if (is_key && key == KEY_RESIZE)
		return -1;
	if ((is_key && key == KEY_UP) || (!is_key && key == 'k')) {
		if (t->bl_sel > 0)
			t->bl_sel--;
		return RBMON_REDRAW;
	}
	if ((is_key && key == KEY_DOWN) || (!is_key && key == 'j')) {
		if (t->bl_sel + 1 < t->bl_n)
			t->bl_sel++;
		return RBMON_REDRAW;
	}
	if ((is_key && key == KEY_DC) || (!is_key && (key == 'd' ||
	    key == 'x' || key == 'D' || key == '*'))) {
		if (t->bl_n == 0)
			return RBMON_REDRAW;
		if (key == 'D' || key == '*')
			strlcpy(id, "*", sizeof id);
		else
			snprintf(id, sizeof id, "%u", (unsigned)strtoul(
			    t->bl_lines[t->bl_sel], NULL, 10));
		r = tuictl_bp(t, &t->bl_scope, "BCLR", id, TUICTL_CLEAR);
		/* The list as it is now, the answer kept on the message line. */
		strlcpy(msg, t->msg, sizeof msg);
		kind = t->msg_kind;
		r |= tuictl_bp(t, &t->bl_scope, "BLST", "", TUICTL_LIST);
		rbmon_tui_message(t, kind, "%s", msg);
		return r;
	}
	if (!is_key && (key == 'r' || key == TUI_CTRL('l')))
		return tuictl_bp(t, &t->bl_scope, "BLST", "", TUICTL_LIST);
	if (!is_key && key == 'b') {
		t->blist = 0;
		rbmon_tuictl_prompt(t, TUICTL_BREAK, NULL);
		return RBMON_REDRAW;
	}
	t->blist = 0;
	return RBMON_REDRAW;
}

/* ------------------------------------------------------------------
 * Quitting.
 */

/* Threads stopped by what this rbmon did, in the current snapshot. */
static size_t
tuictl_stopped_mine(struct rbmon_tui *t, struct rbmon_ident *out)
{
	size_t	i, j, k, n = 0;

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
			for (k = 0; k < t->nmine; k++)
				if (t->mine[k].tid == th->tid &&
				    t->mine[k].pid == th->pid &&
				    (why == RB_WHY_STOP || why == RB_WHY_STEP ||
				    why == RB_WHY_NEXT || why == RB_WHY_FINISH))
					mine = 1;
			if (why == RB_WHY_BREAKPOINT &&
			    tuictl_is_mine_bp(t, th->pid, RB_WHY_ID(th->why)))
				mine = 1;
			if ((why == RB_WHY_SINGLE && t->set_single) ||
			    (why == RB_WHY_CREATE && t->set_soc))
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

/**
 * rbmon_tuictl_quit - the user asks to quit
 *
 * Return: RBMON_QUIT when nothing needs undoing, else RBMON_REDRAW and
 * the question is on the message line.
 */
int
rbmon_tuictl_quit(struct rbmon_tui *t)
{
	size_t	stopped = tuictl_stopped_mine(t, NULL);
	char	what[160];
	int	w = 0;

	if (!t->ctl_ok || (stopped == 0 && t->nbps == 0 && !t->set_single &&
	    !t->set_soc))
		return RBMON_QUIT;
	what[0] = '\0';
	if (stopped > 0)
		w += snprintf(what + w, sizeof what - (size_t)w, "resume %zu "
		    "stopped thread%s", stopped, stopped == 1 ? "" : "s");
	if (t->nbps > 0)
		w += snprintf(what + w, sizeof what - (size_t)w, "%sclear %zu "
		    "breakpoint%s", w ? ", " : "", t->nbps,
		    t->nbps == 1 ? "" : "s");
	if (t->set_single || t->set_soc)
		w += snprintf(what + w, sizeof what - (size_t)w, "%sturn %s%s%s "
		    "off", w ? ", " : "", t->set_single ? "single" : "",
		    t->set_single && t->set_soc ? " and " : "",
		    t->set_soc ? "stop-on-create" : "");
	t->asking_quit = 1;
	rbmon_tui_message(t, RBMON_MSG_ERROR, "Quit: %s first? y yes, n no "
	    "(leave them), Esc stay", what);
	return RBMON_REDRAW;
}

/* Wait for one command's answer, synchronously, for undoing at exit. */
static void
tuictl_sync(struct rbmon_tui *t, int32_t tid, const char *cmd,
    const char *args)
{
	struct rbmon_cmd	 k;
	char			*cause = NULL;

	memset(&k, 0, sizeof k);
	if (rbmon_ctl_target(&t->ctl, tid, &k, &cause) == 0 &&
	    rbmon_ctl_post(&t->ctl, &k, cmd, args, &cause) == 0 &&
	    rbmon_ctl_wait(&t->ctl, &k, TUICTL_UNDO_NS, &cause) == 0)
		rbmon_ctl_withdraw(&t->ctl, &k);
	free(cause);
	rbmon_cmd_free(&k);
}

/**
 * rbmon_tuictl_end - leave: undo what this rbmon changed if @undo, close
 */
void
rbmon_tuictl_end(struct rbmon_tui *t, int undo)
{
	struct rbmon_ident	*ids;
	size_t			 n, i;
	char			*cause = NULL;

	if (t->ctl_ok && t->cmd_busy)
		rbmon_ctl_withdraw(&t->ctl, &t->cmd);
	if (t->ctl_ok && undo) {
		/* The flags first, so resumed threads do not stop again. */
		if (t->set_single)
			rbmon_ctl_set_flag(&t->ctl, "single", 0, &cause);
		if (t->set_soc)
			rbmon_ctl_set_flag(&t->ctl, "stop_on_create", 0, &cause);
		free(cause);
		for (i = 0; i < t->nbps; i++) {
			char id[16], *text = NULL;

			snprintf(id, sizeof id, "%u", t->bps[i].id);
			rbmon_bp_run(&t->ctl, t->sy, &t->bps[i].sc, "BCLR", id,
			    &text);
			free(text);
		}
		n = tuictl_stopped_mine(t, NULL);
		ids = rbmon_xcalloc(n ? n : 1, sizeof *ids);
		tuictl_stopped_mine(t, ids);
		for (i = 0; i < n; i++)
			tuictl_sync(t, ids[i].tid, "CONT", "");
		free(ids);
	}
	/* The watches added from here are the monitor's: always removed. */
	rbmon_tuiwatch_end(t);
	rbmon_cmd_free(&t->cmd);
	tuictl_blist_free(t);
	free(t->mine);
	free(t->bps);
	free(t->ctl_error);
	rbmon_ctl_close(&t->ctl);
}

static int
tuictl_quit_key(struct rbmon_tui *t, int key, int is_key)
{
	if (is_key && key == KEY_RESIZE)
		return -1;
	t->asking_quit = 0;
	if (!is_key && (key == 'y' || key == 'Y')) {
		t->quit_undo = 1;
		return RBMON_QUIT;
	}
	if (!is_key && (key == 'n' || key == 'N')) {
		t->quit_undo = 0;
		return RBMON_QUIT;
	}
	rbmon_tui_message(t, RBMON_MSG_INFO, "not quitting");
	return RBMON_REDRAW;
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
	if (rbmon_ctl_set_flag(&t->ctl, name, value, &cause) != 0) {
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
 * rbmon_tuictl_key - a key for control, or for a mode control owns
 *
 * Return: the loop's flags, or -1 if the key is not control's.
 */
int
rbmon_tuictl_key(struct rbmon_tui *t, int key, int is_key)
{
	const struct rbmon_thread	*th;
	int				 r;

	if (t->asking_quit)
		return tuictl_quit_key(t, key, is_key);
	if (t->prompting)
		return tuictl_prompt_key(t, key, is_key);
	if (t->blist)
		return tuictl_blist_key(t, key, is_key);
	if ((r = rbmon_tuiwatch_key(t, key, is_key)) >= 0)
		return r;
	if (is_key)
		return -1;
	switch (key) {
	case 'b':
		if (!rbmon_tuictl_usable(t) || rbmon_tuictl_thread(t, NULL) == NULL)
			return RBMON_REDRAW;
		rbmon_tuictl_prompt(t, TUICTL_BREAK, NULL);
		return RBMON_REDRAW;
	case 'B':
		if ((th = rbmon_tuictl_thread(t, NULL)) == NULL)
			return RBMON_REDRAW;
		return tuictl_bp_thread(t, th, "BLST", "", TUICTL_LIST);
	case 'p':
	case 's':
	case 'n':
	case 'f':
		if ((th = rbmon_tuictl_thread(t, NULL)) == NULL)
			return RBMON_REDRAW;
		return tuictl_send(t, th, key == 'p' ? "STOP" : key == 's' ?
		    "STEP" : key == 'n' ? "NEXT" : "FINI", "", TUICTL_STOPPER);
	case 'c':
		if ((th = rbmon_tuictl_thread(t, NULL)) == NULL)
			return RBMON_REDRAW;
		return tuictl_send(t, th, "CONT", "", TUICTL_PLAIN);
	case 't':
		if ((th = rbmon_tuictl_thread(t, NULL)) == NULL)
			return RBMON_REDRAW;
		return tuictl_send(t, th, th->trace ? "TROF" : "TRON", "",
		    TUICTL_PLAIN);
	case 'g':
		return tuictl_flag(t, "single", t->have_snap ? t->s.single : 0,
		    &t->set_single, "single stepping: every thread stops at "
		    "each hook (c: one step; g again ends it)",
		    "single stepping off: threads stopped by it resume");
	case 'C':
		return tuictl_flag(t, "stop_on_create", t->have_snap ?
		    t->s.stop_on_create : 0, &t->set_soc, "stop-on-create on: "
		    "new threads stop at their first call",
		    "stop-on-create off");
	case 'T':
		return tuictl_flag(t, "trace_on_create", t->have_snap ?
		    t->s.trace_on_create : 1, NULL, "trace-on-create on: new "
		    "threads keep their stacks", "trace-on-create off: new "
		    "threads start untraced");
	}
	return -1;
}
