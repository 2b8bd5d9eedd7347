/*
 * rbmon tuihelp: the help screen.  Its key lines come from the key table
 * (keytab.c); the rest is prose about what the screen shows.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "keytab.h"
#include "panel.h"
#include "tty.h"
#include "tuimodes.h"

struct help_state {
	char	**line;
	int	 *bold;
	size_t	  n;
	int	  top;
};

static const char *const help_intro[] = {
	"rbmon: the live call stacks of a traced program",
	"",
	"The top lists every traced process and its threads; the middle shows",
	"the selected thread's call stack, innermost call (#0) first; below",
	"it are the thread's watch entries.  Viewing only reads the program;",
	"the control keys below pause and step single threads while the",
	"others keep running.",
	"",
};

static const char *const help_control[] = {
	"  A thread blocked in a system call passes no hook and cannot",
	"  answer: after 5 s the command is withdrawn, nothing done.",
	"",
};

static const char *const help_watch[] = {
	"  Up/Down, j/k      with the watch pane focused (Tab or a click):",
	"                    move the cursor; e and d act on the watch under",
	"                    it (the first one until it is moved)",
	"  Values refresh with the display; each shows its age on the right.",
	"  A thread that passes no hook (blocked in a system call) keeps its",
	"  last value, marked stale; errors show in the error colour.",
	"  Watches added here are removed when rbmon ends.",
	"",
};

static const char *const help_rest[] = {
	"Thread states",
	"  running           traced, its stack is live",
	"  untraced          running with tracing turned off (no stack kept)",
	"  stopped:WHY       paused at a hook (break N, step, next, finish,",
	"                    stop, signal, single, create); the stack title",
	"                    says the function it stopped at or returned from",
	"  exited            the thread ended; its last stack is kept (dimmed)",
	"  gone              its process died without ending it, e.g. killed;",
	"                    the last stack is kept (dimmed)",
	"",
	"Columns",
	"  S                 the kernel's state: R running, S sleeping, D in",
	"                    uninterruptible sleep, T stopped, Z zombie",
	"  CPU%              share of a CPU over the last refresh interval",
	"  DEPTH             calls on the stack, counting overwritten ones",
	"  TIME              how long the innermost call has been running",
	"  FUNCTION          the innermost call",
	"  Stack rows show the function, the source line it is at (for outer",
	"  frames: the call it made), and how long ago the frame was entered",
	"  (blank once the thread has ended: exited or gone).  A thread",
	"  asleep in the kernel first shows what it waits in (blocked in ...).",
	"  A ring keeps the outermost and the newest frames of deep stacks;",
	"  those in between are counted as overwritten.",
	"",
	"Header",
	"  Rings: rings in use of all in the file; Untraced: threads that",
	"  found no free ring; single, stop-on-create, trace-on-create: the",
	"  file's global flags.",
	"",
	"Help screen",
};

#define HELP_N(a)	(sizeof (a) / sizeof (a)[0])

static void
help_add(struct help_state *hs, const char *s, int bold)
{
	hs->line = rbmon_xreallocarray(hs->line, hs->n + 1, sizeof *hs->line);
	hs->bold = rbmon_xreallocarray(hs->bold, hs->n + 1, sizeof *hs->bold);
	hs->line[hs->n] = rbmon_xstrdup(s);
	hs->bold[hs->n++] = bold;
}

static void
help_add_prose(struct help_state *hs, const char *const *l, size_t n)
{
	size_t	i;

	/* A line starting in the first column is a section's title. */
	for (i = 0; i < n; i++)
		help_add(hs, l[i], l[i][0] != ' ' && l[i][0] != '\0');
}

static void
help_add_keys(struct help_state *hs, enum rbmon_kmode mode,
    enum rbmon_ksection section)
{
	char	**l;
	size_t	  n, i;

	n = rbmon_keytab_help(mode, section, &l);
	for (i = 0; i < n; i++) {
		help_add(hs, l[i], 0);
		free(l[i]);
	}
	free(l);
}

static void
help_free(void *arg)
{
	struct help_state	*hs = arg;
	size_t			 i;

	for (i = 0; i < hs->n; i++)
		free(hs->line[i]);
	free(hs->line);
	free(hs->bold);
	free(hs);
}

static int
help_key(struct rbmon_tui *t, void *arg, int key)
{
	struct help_state	*hs = arg;

	switch (rbmon_keytab_action(RBMON_KM_HELP, key)) {
	case RBMON_ACT_HELP_UP:
		hs->top--;
		break;
	case RBMON_ACT_HELP_DOWN:
		hs->top++;
		break;
	case RBMON_ACT_HELP_PGUP:
		hs->top -= LINES - 2;
		break;
	case RBMON_ACT_HELP_PGDN:
		hs->top += LINES - 2;
		break;
	default:
		if (key == RBMON_KEY_MOUSE)
			return 0;
		/* Any other key goes back, and does nothing else. */
		rbmon_tui_pop(t);
		clear();
		rbmon_tui_relayout(t);
		return RBMON_REDRAW;
	}
	if (hs->top < 0)
		hs->top = 0;
	return RBMON_REDRAW;
}

static void
help_draw(struct rbmon_tui *t, void *arg)
{
	struct help_state	*hs = arg;
	int			 n = (int)hs->n, i, y;

	(void)t;
	if (hs->top > n - 1)
		hs->top = n - 1;
	erase();
	for (y = 0, i = hs->top; y < LINES && i < n; y++, i++)
		rbmon_panel_text(y, 0, COLS, i == 0 || hs->bold[i] ? A_BOLD :
		    A_NORMAL, hs->line[i]);
	curs_set(0);
}

static const struct rbmon_mode_ops help_ops = {
	.name = "help",
	.key = help_key,
	.draw = help_draw,
	.free = help_free,
};

void
rbmon_help_open(struct rbmon_tui *t)
{
	struct help_state	*hs = rbmon_xcalloc(1, sizeof *hs);

	help_add_prose(hs, help_intro, HELP_N(help_intro));
	help_add(hs, "Keys", 1);
	help_add_keys(hs, RBMON_KM_MAIN, RBMON_KS_KEYS);
	help_add(hs, "", 0);
	help_add(hs, "Control (the selected thread; the answer shows on the "
	    "bottom line)", 1);
	help_add_keys(hs, RBMON_KM_MAIN, RBMON_KS_CONTROL);
	help_add_prose(hs, help_control, HELP_N(help_control));
	help_add(hs, "Breakpoint list (B)", 1);
	help_add_keys(hs, RBMON_KM_BLIST, RBMON_KS_CONTROL);
	help_add(hs, "  other keys        back to the monitor", 0);
	help_add(hs, "", 0);
	help_add(hs, "Watches (C expressions the selected thread evaluates at "
	    "its hooks)", 1);
	help_add_keys(hs, RBMON_KM_MAIN, RBMON_KS_WATCH);
	help_add_prose(hs, help_watch, HELP_N(help_watch));
	help_add(hs, "Editing a line (the search, the filter, every prompt)", 1);
	help_add_keys(hs, RBMON_KM_EDIT, RBMON_KS_EDIT);
	help_add(hs, "  other characters  typed where the cursor is", 0);
	help_add(hs, "  In the search:", 0);
	help_add_keys(hs, RBMON_KM_SEARCH, RBMON_KS_KEYS);
	help_add(hs, "", 0);
	help_add(hs, "Source view (v) and a watch's value (V)", 1);
	help_add_keys(hs, RBMON_KM_SOURCE, RBMON_KS_KEYS);
	help_add(hs, "  other keys        back to the monitor", 0);
	help_add(hs, "", 0);
	help_add_prose(hs, help_rest, HELP_N(help_rest));
	help_add_keys(hs, RBMON_KM_HELP, RBMON_KS_KEYS);
	help_add(hs, "", 0);
	help_add(hs, "Press any key to go back.", 0);
	if (rbmon_tui_push(t, &help_ops, hs) != 0)
		help_free(hs);
}
