/*
 * rbmon tuiprompt: the one prompt (tmux's status_prompt_set): a line
 * edited on the message line, with a history per kind and Tab completion
 * through the caller's callback.  Breakpoints and watches use it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

#include "panel.h"
#include "tty.h"
#include "tuimodes.h"

#define PROMPT_LINE	(RB_EXPR_MAX + 1)	/* a watch expression, NUL included */
#define PROMPT_HIST	16

/* Lines typed at one kind of prompt, oldest first. */
struct prompt_hist {
	char	line[PROMPT_HIST][PROMPT_LINE];
	size_t	n;
};

static struct prompt_hist prompt_hists[RBMON_HIST_KINDS];

struct prompt_state {
	struct rbmon_prompt	 p;
	char			 text[PROMPT_LINE];
	char			 note[512];	/* what Tab found */
	size_t			 hpos;
};

static void
prompt_hist_add(struct prompt_hist *h, const char *line)
{
	if (*line == '\0' || (h->n > 0 && strcmp(h->line[h->n - 1], line) == 0))
		return;
	if (h->n == PROMPT_HIST) {
		memmove(h->line[0], h->line[1], sizeof h->line[0] *
		    (PROMPT_HIST - 1));
		h->n--;
	}
	strlcpy(h->line[h->n++], line, sizeof h->line[0]);
}

static void
prompt_free(void *arg)
{
	struct prompt_state	*ps = arg;

	if (ps->p.free_arg != NULL)
		ps->p.free_arg(ps->p.arg);
	free(ps);
}

static int
prompt_enter(struct rbmon_tui *t, struct prompt_state *ps)
{
	struct rbmon_prompt	 p = ps->p;
	char			 line[PROMPT_LINE];
	size_t			 n;
	int			 r;

	strlcpy(line, ps->text, sizeof line);
	for (n = strlen(line); n > 0 && line[n - 1] == ' '; n--)
		line[n - 1] = '\0';
	/* The callback may open a mode of its own: close this one first. */
	ps->p.free_arg = NULL;
	rbmon_tui_pop(t);
	if (line[0] == '\0') {
		rbmon_tui_message(t, RBMON_MSG_NONE, " ");
		r = RBMON_REDRAW;
	} else if (p.problem[0] != '\0') {
		/* Known when the prompt opened: the line goes nowhere. */
		rbmon_tui_message(t, RBMON_MSG_ERROR, "%s: \"%.40s\" not used",
		    p.problem, line);
		r = RBMON_REDRAW;
	} else {
		prompt_hist_add(&prompt_hists[p.hist], line);
		r = p.enter(t, p.arg, line);
	}
	if (p.free_arg != NULL)
		p.free_arg(p.arg);
	return r;
}

static int
prompt_edit(struct rbmon_tui *t, struct prompt_state *ps, int key)
{
	struct prompt_hist	*h = &prompt_hists[ps->p.hist];
	size_t			 len = strlen(ps->text);

	switch (key) {
	case RBMON_KEY_ESC:
		if (ps->p.cancel != NULL)
			ps->p.cancel(t, ps->p.arg);
		rbmon_tui_pop(t);
		rbmon_tui_message(t, RBMON_MSG_NONE, " ");
		return RBMON_REDRAW;
	case '\r':
	case '\n':
	case RBMON_KEY_ENTER:
		return prompt_enter(t, ps);
	case '\t':
		ps->note[0] = '\0';
		if (ps->p.tab != NULL)
			ps->p.tab(t, ps->p.arg, ps->text, sizeof ps->text,
			    ps->note, sizeof ps->note);
		return RBMON_REDRAW;
	case RBMON_KEY_BACKSPACE:
	case RBMON_KEY_DC:
	case RBMON_KEY_DEL:
	case RBMON_CTRL('h'):
		if (len > 0)
			ps->text[len - 1] = '\0';
		return RBMON_REDRAW;
	case RBMON_CTRL('u'):
		ps->text[0] = '\0';
		return RBMON_REDRAW;
	case RBMON_KEY_UP:
	case RBMON_KEY_DOWN:
		if (key == RBMON_KEY_UP && ps->hpos > 0)
			ps->hpos--;
		else if (key == RBMON_KEY_DOWN && ps->hpos < h->n)
			ps->hpos++;
		if (ps->hpos < h->n)
			strlcpy(ps->text, h->line[ps->hpos], sizeof ps->text);
		else
			ps->text[0] = '\0';
		return RBMON_REDRAW;
	}
	if (key < 0x20 || key > 0x7e || len + 1 >= sizeof ps->text)
		return RBMON_REDRAW;
	ps->text[len] = (char)key;
	ps->text[len + 1] = '\0';
	return RBMON_REDRAW;
}

static int
prompt_key(struct rbmon_tui *t, void *arg, int key)
{
	struct prompt_state	*ps = arg;
	char			 before[PROMPT_LINE];
	int			 r;

	/* Enter and Esc close the prompt: ps is gone after them. */
	if (key == RBMON_KEY_ESC || key == '\r' || key == '\n' ||
	    key == RBMON_KEY_ENTER)
		return prompt_edit(t, ps, key);
	strlcpy(before, ps->text, sizeof before);
	r = prompt_edit(t, ps, key);
	if (ps->p.change != NULL && strcmp(before, ps->text) != 0)
		ps->p.change(t, ps->p.arg, ps->text);
	return r;
}

static void
prompt_draw(struct rbmon_tui *t, void *arg)
{
	struct prompt_state	*ps = arg;
	const char		*bar;
	size_t			 len = strlen(ps->text);
	int			 y = t->lay.msg_y, x, room;

	if (t->lay.too_small)
		return;
	bar = ps->note[0] != '\0' ? ps->note : ps->p.problem[0] != '\0' ?
	    ps->p.problem : ps->p.hint;
	rbmon_panel_bar_text(t, bar, ps->p.problem[0] != '\0' &&
	    ps->note[0] == '\0');
	move(y, 0);
	clrtoeol();
	x = rbmon_panel_text(y, 0, t->lay.cols, A_BOLD, ps->p.label);
	/* A long line shows its end, where typing goes on. */
	room = t->lay.cols - x - 1;
	x += rbmon_panel_text(y, x, room, A_NORMAL, room > 0 &&
	    len > (size_t)room ? ps->text + len - (size_t)room : ps->text);
	move(y, x);
	curs_set(1);
}

static const struct rbmon_mode_ops prompt_ops = {
	.name = "prompt",
	.overlay = 1,
	.key = prompt_key,
	.draw = prompt_draw,
	.free = prompt_free,
};

/**
 * rbmon_prompt_open - edit a line on the message line
 * @p: what the prompt is for; copied (its arg is the prompt's from now on)
 * @initial: the line to start from, or NULL
 */
void
rbmon_prompt_open(struct rbmon_tui *t, const struct rbmon_prompt *p,
    const char *initial)
{
	struct prompt_state	*ps = rbmon_xcalloc(1, sizeof *ps);

	ps->p = *p;
	strlcpy(ps->text, initial != NULL ? initial : "", sizeof ps->text);
	ps->hpos = prompt_hists[p->hist].n;
	if (rbmon_tui_push(t, &prompt_ops, ps) != 0)
		prompt_free(ps);
}

/**
 * rbmon_prompt_complete_word - complete @word, the end of a prompt's line
 * @names: sorted, unique; @n of them
 * @room: how many bytes @word may grow to (not counting the NUL)
 * @kind: what the names are, for "no KIND starts with ..."
 * @note: what the bar says: the matches when there are several
 *
 * @word becomes the longest common prefix of the names it starts.
 * Return: how many names matched.
 */
size_t
rbmon_prompt_complete_word(char *const *names, size_t n, char *word,
    size_t room, const char *kind, char *note, size_t notesz)
{
	size_t	len = strlen(word), lo, hi, i, c;
	int	w;

	/* The range of names starting with the word (the list is sorted). */
	for (lo = 0; lo < n && strncmp(names[lo], word, len) < 0; lo++)
		;
	for (hi = lo; hi < n && strncmp(names[hi], word, len) == 0; hi++)
		;
	if (lo == hi) {
		snprintf(note, notesz, "no %s starts with \"%.60s\"", kind,
		    word);
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
	note[0] = '\0';
	if (hi - lo == 1)
		return 1;
	w = snprintf(note, notesz, "%zu matches:", hi - lo);
	for (i = lo; i < hi && w > 0 && (size_t)w < notesz - 1; i++)
		w += snprintf(note + w, notesz - (size_t)w, " %s", names[i]);
	return hi - lo;
}
