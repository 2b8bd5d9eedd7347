/* SPDX-License-Identifier: MIT */
/*
 * rbmon tuihelp: the help screen, a plain text screen (tuitext.c).  Its
 * key lines come from the key table (keytab.c); the rest is prose about
 * what the screen shows.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "monitor/screen/keytab.h"
#include "monitor/screen/tuidraw.h"
#include "monitor/screen/tty.h"
#include "monitor/screen/tuimodes.h"

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
	"  CPU%              share of a CPU, read at most twice a second",
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

/* Lines of prose: one starting in the first column is a section's title. */
static void
help_add_prose(struct rbmon_text *hs, const char *const *l, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		rbmon_text_add(hs, l[i], l[i][0] != ' ' && l[i][0] != '\0');
}

static void
help_add_keys(struct rbmon_text *hs, enum rbmon_kmode mode,
    enum rbmon_ksection section)
{
	char	**l;
	size_t	  n, i;

	n = rbmon_keytab_help(mode, section, &l);
	for (i = 0; i < n; i++) {
		rbmon_text_add(hs, l[i], 0);
		free(l[i]);
	}
	free(l);
}

void
rbmon_help_open(struct rbmon_tui *t)
{
	struct rbmon_text	*hs = rbmon_text_new(RBMON_KM_HELP, 1);

	help_add_prose(hs, help_intro, HELP_N(help_intro));
	rbmon_text_add(hs, "Keys", 1);
	help_add_keys(hs, RBMON_KM_MAIN, RBMON_KS_KEYS);
	rbmon_text_add(hs, "", 0);
	rbmon_text_add(hs, "Control (the selected thread; the answer shows on the "
	    "bottom line)", 1);
	help_add_keys(hs, RBMON_KM_MAIN, RBMON_KS_CONTROL);
	rbmon_text_add(hs, "  When quitting asks (threads stopped, breakpoints set from here):", 0);
	help_add_keys(hs, RBMON_KM_QUIT, RBMON_KS_CONTROL);
	rbmon_text_add(hs, "  other keys        stay", 0);
	help_add_prose(hs, help_control, HELP_N(help_control));
	rbmon_text_add(hs, "Breakpoint list (B)", 1);
	help_add_keys(hs, RBMON_KM_BLIST, RBMON_KS_CONTROL);
	rbmon_text_add(hs, "  other keys        back to the monitor", 0);
	rbmon_text_add(hs, "", 0);
	rbmon_text_add(hs, "Functions not traced (X): switched off in the "
	    "process by x, by name or automatically", 1);
	help_add_keys(hs, RBMON_KM_DLIST, RBMON_KS_CONTROL);
	rbmon_text_add(hs, "  other keys        back to the monitor", 0);
	rbmon_text_add(hs, "", 0);
	rbmon_text_add(hs, "Watches (C expressions the selected thread evaluates at "
	    "its hooks)", 1);
	help_add_keys(hs, RBMON_KM_MAIN, RBMON_KS_WATCH);
	help_add_prose(hs, help_watch, HELP_N(help_watch));
	rbmon_text_add(hs, "Editing a line (the search, the filter, every prompt)", 1);
	help_add_keys(hs, RBMON_KM_EDIT, RBMON_KS_EDIT);
	rbmon_text_add(hs, "  other characters  typed where the cursor is", 0);
	rbmon_text_add(hs, "  In the search:", 0);
	help_add_keys(hs, RBMON_KM_SEARCH, RBMON_KS_KEYS);
	rbmon_text_add(hs, "", 0);
	rbmon_text_add(hs, "Source view (v) and a watch's value (V)", 1);
	help_add_keys(hs, RBMON_KM_SOURCE, RBMON_KS_KEYS);
	rbmon_text_add(hs, "  other keys        back to the monitor", 0);
	rbmon_text_add(hs, "", 0);
	rbmon_text_add(hs, "History (L): the thread's recent calls, newest at "
	    "the bottom", 1);
	help_add_keys(hs, RBMON_KM_HIST, RBMON_KS_KEYS);
	rbmon_text_add(hs, "  other keys        back to the monitor", 0);
	rbmon_text_add(hs, "  At the bottom it follows the thread; [LOST N EVENTS] "
	    "marks records", 0);
	rbmon_text_add(hs, "  overwritten before they could be read.", 0);
	rbmon_text_add(hs, "", 0);
	rbmon_text_add(hs, "Top (P): functions by share of the samples of "
	    "the live stacks", 1);
	help_add_keys(hs, RBMON_KM_TOP, RBMON_KS_KEYS);
	rbmon_text_add(hs, "  other keys        back to the monitor", 0);
	rbmon_text_add(hs, "  Own: samples with the function innermost; Total: "
	    "with it anywhere", 0);
	rbmon_text_add(hs, "  on the stack.  Sampled 100 times a second while "
	    "it is open.", 0);
	rbmon_text_add(hs, "", 0);
	rbmon_text_add(hs, "Latency (l): per function, calls ended in the last "
	    "2 seconds", 1);
	help_add_keys(hs, RBMON_KM_LAT, RBMON_KS_KEYS);
	rbmon_text_add(hs, "  other keys        back to the monitor", 0);
	rbmon_text_add(hs, "  Up/Down select the function whose histogram shows "
	    "below; records", 0);
	rbmon_text_add(hs, "  overwritten before a copy are counted as lost on "
	    "the title.", 0);
	rbmon_text_add(hs, "", 0);
	help_add_prose(hs, help_rest, HELP_N(help_rest));
	help_add_keys(hs, RBMON_KM_HELP, RBMON_KS_KEYS);
	rbmon_text_add(hs, "", 0);
	rbmon_text_add(hs, "Press any key to go back.", 0);
	rbmon_text_show(t, hs);
}
