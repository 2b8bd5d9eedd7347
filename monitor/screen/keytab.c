/* SPDX-License-Identifier: MIT */
/*
 * rbmon keytab: the one key table (htop's Action_setBindings, with the
 * bar and the help screen made from it too).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/screen/keytab.h"
#include "monitor/core/model.h"

#define M	RBMON_KM_MAIN
#define KS_K	RBMON_KS_KEYS
#define KS_C	RBMON_KS_CONTROL
#define KS_W	RBMON_KS_WATCH

#define BIND(k, m, a, s)	{ .key = (k), .mode = (m), .act = (a), .section = (s)

static const struct rbmon_binding keytab[] = {
	/* The main screen: moving. */
	BIND(RBMON_KEY_UP, M, RBMON_ACT_UP, KS_K),
	    .help = "move in the focused pane", .pair_with = RBMON_ACT_DOWN },
	BIND('k', M, RBMON_ACT_UP, KS_K) },
	BIND(RBMON_KEY_DOWN, M, RBMON_ACT_DOWN, KS_K) },
	BIND('j', M, RBMON_ACT_DOWN, KS_K) },
	BIND(RBMON_KEY_PPAGE, M, RBMON_ACT_PGUP, KS_K),
	    .help = "a page up or down", .pair_with = RBMON_ACT_PGDN },
	BIND(RBMON_CTRL('b'), M, RBMON_ACT_PGUP, KS_K) },
	BIND(RBMON_KEY_NPAGE, M, RBMON_ACT_PGDN, KS_K) },
	BIND(RBMON_CTRL('f'), M, RBMON_ACT_PGDN, KS_K) },
	BIND(RBMON_KEY_HOME, M, RBMON_ACT_HOME, KS_K),
	    .help = "first or last row", .pair_with = RBMON_ACT_END },
	BIND(RBMON_KEY_END, M, RBMON_ACT_END, KS_K) },
	BIND('G', M, RBMON_ACT_END, KS_K) },
	BIND('\t', M, RBMON_ACT_NEXT_PANE, KS_K), .bar_pos = 5, .bar = "Pane",
	    .help = "next or previous pane (threads, stack, watches)",
	    .pair_with = RBMON_ACT_PREV_PANE },
	BIND(RBMON_KEY_BTAB, M, RBMON_ACT_PREV_PANE, KS_K) },
	BIND('\r', M, RBMON_ACT_ENTER, KS_K), .bar_pos = 6, .bar = "Stack",
	    .bar_on = "List",
	    .help = "the selected thread's stack; from the stack or the\n"
	    "watches, back to the thread list" },
	BIND('\n', M, RBMON_ACT_ENTER, KS_K) },
	BIND(RBMON_KEY_RIGHT, M, RBMON_ACT_STACK, KS_K),
	    .help = "the selected thread's stack" },
	BIND(RBMON_KEY_ENTER, M, RBMON_ACT_STACK, KS_K) },
	BIND(RBMON_KEY_LEFT, M, RBMON_ACT_LIST, KS_K),
	    .help = "back to the thread list" },
	BIND(RBMON_KEY_ESC, M, RBMON_ACT_LIST, KS_K) },
	/* The main screen: what it shows. */
	BIND('/', M, RBMON_ACT_SEARCH, KS_K), .bar_pos = 2, .bar = "Search",
	    .help = "search thread names and functions on the stacks\n"
	    "(typing jumps to the first match; Enter keeps it,\n"
	    "Esc goes back; F3 or ^N: next match)" },
	BIND(RBMON_KEY_F(3), M, RBMON_ACT_SEARCH_NEXT, KS_K),
	    .help = "the next match of the last search" },
	BIND(RBMON_KEY_F(4), M, RBMON_ACT_FILTER, KS_K), .bar_pos = 20,
	    .bar = "Filter", .bar_cols = 100,
	    .help = "show only threads whose name or a function on whose\n"
	    "stack holds a text (any case; Enter keeps it, Esc\n"
	    "goes back, an empty text shows every thread)" },
	BIND('\\', M, RBMON_ACT_FILTER, KS_K) },
	BIND('o', M, RBMON_ACT_FOLD, KS_K),
	    .help = "in the stack pane: show a run of recursion (fn x31)\n"
	    "frame by frame, or fold it into one row again" },
	BIND('v', M, RBMON_ACT_SOURCE, KS_K),
	    .help = "the source around the selected frame's line (in\n"
	    "the thread list: the innermost frame's)" },
	BIND('i', M, RBMON_ACT_NAME, KS_K),
	    .help = "the selected frame's function by its full name\n"
	    "(the panes shorten long C++ names to fit)" },
	BIND('L', M, RBMON_ACT_HISTORY, KS_K),
	    .help = "the selected thread's history: its recent calls\n"
	    "as a live function graph with durations (its event log)" },
	BIND('P', M, RBMON_ACT_TOP, KS_K),
	    .help = "top: the functions the selected thread (or its\n"
	    "process, or every thread) is sampled in most, live" },
	BIND('l', M, RBMON_ACT_LATENCY, KS_K),
	    .help = "latency: per function its calls, p50, p99 and max\n"
	    "over the last seconds of the event logs, live, with\n"
	    "the selected function's histogram" },
	BIND('S', M, RBMON_ACT_SAVE, KS_K),
	    .help = "save the selected process's stacks as --dump text\n"
	    "in a file (its name on the message line)" },
	BIND(RBMON_KEY_F(6), M, RBMON_ACT_SORT, KS_K), .bar_pos = 21,
	    .bar = "SortBy", .bar_cols = 100,
	    .help = "sort each process's threads by the next column:\n"
	    "TID, NAME, CPU%, DEPTH, TIME (the list's title\n"
	    "marks it)" },
	BIND('>', M, RBMON_ACT_SORT, KS_K) },
	BIND('h', M, RBMON_ACT_HIDE_EXITED, KS_K), .bar_pos = 7,
	    .bar = "HideExited", .bar_on = "ShowExited",
	    .help = "hide or show threads that have exited" },
	BIND('H', M, RBMON_ACT_HIDE_EXITED, KS_K) },
	BIND(' ', M, RBMON_ACT_FREEZE, KS_K), .bar_pos = 8, .bar = "Freeze",
	    .bar_on = "Resume", .help = "freeze or resume the display" },
	BIND('+', M, RBMON_ACT_SLOWER, KS_K), .bar_pos = 9, .bar = "Delay",
	    .bar_key = "+-", .bar_cols = 86,
	    .help = "refresh less or more often", .pair_with = RBMON_ACT_FASTER },
	BIND('=', M, RBMON_ACT_SLOWER, KS_K) },
	BIND('-', M, RBMON_ACT_FASTER, KS_K) },
	BIND('_', M, RBMON_ACT_FASTER, KS_K) },
	BIND(RBMON_CTRL('l'), M, RBMON_ACT_REDRAW, KS_K),
	    .help = "redraw the screen (and read the file again)" },
	BIND(RBMON_KEY_F(1), M, RBMON_ACT_HELP, KS_K), .bar_pos = 1,
	    .bar = "Help", .help = "this help" },
	BIND('?', M, RBMON_ACT_HELP, KS_K) },
	BIND(RBMON_CTRL('z'), M, RBMON_ACT_SUSPEND, KS_K),
	    .help = "suspend rbmon (the shell's fg brings it back)" },
	BIND('q', M, RBMON_ACT_QUIT, KS_K), .bar_pos = 99, .bar = "Quit",
	    .help = "quit (the program keeps running; if threads are\n"
	    "stopped from here, or breakpoints set, rbmon\n"
	    "asks whether to resume and clear them first)" },
	BIND('Q', M, RBMON_ACT_QUIT, KS_K) },
	BIND(RBMON_KEY_F(10), M, RBMON_ACT_QUIT, KS_K) },
	BIND(RBMON_CTRL('c'), M, RBMON_ACT_QUIT, KS_K) },
	BIND(RBMON_KEY_MOUSE, M, RBMON_ACT_MOUSE, KS_K),
	    .help = "click selects a row or a pane; wheel scrolls" },

	/* Control of the selected thread. */
	BIND('b', M, RBMON_ACT_BREAK, KS_C), .bar_pos = 10, .bar = "Break",
	    .help = "set a breakpoint: FUNCTION [COUNT] [thread]; Tab\n"
	    "completes names; COUNT: stop from that hit on;\n"
	    "thread: this thread only, else the whole process" },
	BIND('B', M, RBMON_ACT_BLIST, KS_C),
	    .help = "list breakpoints (d deletes one, D all)" },
	BIND('p', M, RBMON_ACT_PAUSE, KS_C), .bar_pos = 30, .bar = "Pause",
	    .bar_cols = 130,
	    .help = "pause the thread at its next call or return" },
	BIND('c', M, RBMON_ACT_CONT, KS_C), .bar_pos = 31, .bar = "Cont",
	    .bar_cols = 130, .help = "continue a stopped thread" },
	BIND('s', M, RBMON_ACT_STEP, KS_C), .bar_pos = 32, .bar = "Step",
	    .bar_cols = 130, .help = "step: stop at the next call or return" },
	BIND('n', M, RBMON_ACT_NEXT, KS_C),
	    .help = "next: step over calls, stop at this depth or out" },
	BIND('f', M, RBMON_ACT_FINISH, KS_C),
	    .help = "finish: stop when the current function returns" },
	BIND('t', M, RBMON_ACT_TRACE, KS_C),
	    .help = "trace on or off (off: no stack is kept)" },
	BIND('g', M, RBMON_ACT_SINGLE, KS_C),
	    .help = "single stepping: every thread stops at each call\n"
	    "and return (c steps one); g again ends it" },
	BIND('C', M, RBMON_ACT_SOC, KS_C),
	    .help = "stop-on-create: new threads stop at their first call" },
	BIND('T', M, RBMON_ACT_TOC, KS_C),
	    .help = "trace-on-create: new threads keep their stacks" },
	BIND('x', M, RBMON_ACT_DYN_OFF, KS_C),
	    .help = "in the stack pane: stop tracing the selected frame's\n"
	    "function in its process (dynamic tracing)" },
	BIND('A', M, RBMON_ACT_CAP_ARM, KS_C),
	    .help = "capture the calls of the selected frame's function\n"
	    "slower than a duration (asked), with their calls" },
	BIND('K', M, RBMON_ACT_CAP_LIST, KS_C),
	    .help = "the captures of slow calls" },
	BIND('X', M, RBMON_ACT_DLIST, KS_C),
	    .help = "list the functions not traced in the thread's\n"
	    "process (Enter traces one again, a all)" },

	/* Watches. */
	BIND('w', M, RBMON_ACT_WATCH, KS_W), .bar_pos = 11, .bar = "Watch",
	    .help = "watch an expression in the selected thread, over\n"
	    "globals, statics and thread-locals (members, [i],\n"
	    "*, casts); Tab completes a variable name, Up/Down\n"
	    "recall earlier expressions; 4 per thread at most" },
	BIND('W', M, RBMON_ACT_WATCH_ALL, KS_W),
	    .help = "watch it in every thread of the thread's process" },
	BIND('e', M, RBMON_ACT_WATCH_EDIT, KS_W),
	    .help = "edit the watch under the watch pane's cursor" },
	BIND('d', M, RBMON_ACT_WATCH_DEL, KS_W),
	    .help = "remove it" },
	BIND(RBMON_KEY_DC, M, RBMON_ACT_WATCH_DEL_PANE, KS_W),
	    .help = "remove it, with the watch pane focused" },
	BIND('V', M, RBMON_ACT_VALUE, KS_W),
	    .help = "the whole value of the watch under the cursor, on\n"
	    "a screen of its own (a long value is cut in the pane)" },

	/* The help screen: any other key goes back. */
	BIND(RBMON_KEY_UP, RBMON_KM_HELP, RBMON_ACT_TEXT_UP, KS_K),
	    .help = "scroll", .pair_with = RBMON_ACT_TEXT_DOWN },
	BIND('k', RBMON_KM_HELP, RBMON_ACT_TEXT_UP, KS_K) },
	BIND(RBMON_KEY_DOWN, RBMON_KM_HELP, RBMON_ACT_TEXT_DOWN, KS_K) },
	BIND('j', RBMON_KM_HELP, RBMON_ACT_TEXT_DOWN, KS_K) },
	BIND(RBMON_KEY_PPAGE, RBMON_KM_HELP, RBMON_ACT_TEXT_PGUP, KS_K),
	    .help = "a page up or down", .pair_with = RBMON_ACT_TEXT_PGDN },
	BIND(RBMON_KEY_NPAGE, RBMON_KM_HELP, RBMON_ACT_TEXT_PGDN, KS_K) },

	/* The source view and a watch's value: any other key goes back. */
#define TEXT_KEYS(m) \
	BIND(RBMON_KEY_UP, m, RBMON_ACT_TEXT_UP, KS_K), .bar_pos = 1, \
	    .bar = "scroll", .bar_key = "Up/Down", .help = "scroll", \
	    .pair_with = RBMON_ACT_TEXT_DOWN }, \
	BIND('k', m, RBMON_ACT_TEXT_UP, KS_K) }, \
	BIND(RBMON_KEY_DOWN, m, RBMON_ACT_TEXT_DOWN, KS_K) }, \
	BIND('j', m, RBMON_ACT_TEXT_DOWN, KS_K) }, \
	BIND(RBMON_KEY_PPAGE, m, RBMON_ACT_TEXT_PGUP, KS_K), .bar_pos = 2, \
	    .bar = "page", .bar_key = "PgUp/PgDn", .help = "a page up or down", \
	    .pair_with = RBMON_ACT_TEXT_PGDN }, \
	BIND(RBMON_KEY_NPAGE, m, RBMON_ACT_TEXT_PGDN, KS_K) }, \
	BIND(' ', m, RBMON_ACT_TEXT_PGDN, KS_K) }, \
	BIND(RBMON_KEY_HOME, m, RBMON_ACT_TEXT_HOME, KS_K), .bar_pos = 3, \
	    .bar = "ends", .bar_key = "Home/End", .help = "the first or last line", \
	    .pair_with = RBMON_ACT_TEXT_END }, \
	BIND(RBMON_KEY_END, m, RBMON_ACT_TEXT_END, KS_K) }, \
	BIND('G', m, RBMON_ACT_TEXT_END, KS_K) }
	TEXT_KEYS(RBMON_KM_SOURCE),
	TEXT_KEYS(RBMON_KM_VALUE),
	TEXT_KEYS(RBMON_KM_HIST),
	TEXT_KEYS(RBMON_KM_TOP),
	TEXT_KEYS(RBMON_KM_LAT),
#undef TEXT_KEYS
	BIND('r', RBMON_KM_HIST, RBMON_ACT_RECORD, KS_K), .bar_pos = 4,
	    .bar = "Record", .help = "switch the thread's recording off or on\n"
	    "(End: follow the thread again)" },
	BIND('a', RBMON_KM_TOP, RBMON_ACT_TOP_SCOPE, KS_K), .bar_pos = 4,
	    .bar = "Scope", .help = "the thread, its process, every thread" },
	BIND('c', RBMON_KM_TOP, RBMON_ACT_TOP_CPU, KS_K), .bar_pos = 5,
	    .bar = "CPU", .help = "every sample (wall clock), on CPU only, "
	    "off CPU only" },
	BIND('s', RBMON_KM_TOP, RBMON_ACT_TOP_SORT, KS_K), .bar_pos = 6,
	    .bar = "Sort", .help = "sort by own samples or by total" },
	BIND('r', RBMON_KM_TOP, RBMON_ACT_TOP_RESET, KS_K), .bar_pos = 7,
	    .bar = "Reset", .help = "start counting again" },
	BIND('s', RBMON_KM_LAT, RBMON_ACT_LAT_SORT, KS_K), .bar_pos = 4,
	    .bar = "Sort", .help = "sort by calls, total, p50, p99, max, name" },

	/* Editing a line: printable characters not bound here are typed. */
#define E	RBMON_KM_EDIT
#define KS_E	RBMON_KS_EDIT
	BIND(RBMON_KEY_LEFT, E, RBMON_ACT_ED_LEFT, KS_E),
	    .help = "a character left or right", .pair_with = RBMON_ACT_ED_RIGHT },
	BIND(RBMON_CTRL('b'), E, RBMON_ACT_ED_LEFT, KS_E) },
	BIND(RBMON_KEY_RIGHT, E, RBMON_ACT_ED_RIGHT, KS_E) },
	BIND(RBMON_CTRL('f'), E, RBMON_ACT_ED_RIGHT, KS_E) },
	BIND(RBMON_KEY_HOME, E, RBMON_ACT_ED_HOME, KS_E),
	    .help = "the start or the end of the line",
	    .pair_with = RBMON_ACT_ED_END },
	BIND(RBMON_CTRL('a'), E, RBMON_ACT_ED_HOME, KS_E) },
	BIND(RBMON_KEY_END, E, RBMON_ACT_ED_END, KS_E) },
	BIND(RBMON_CTRL('e'), E, RBMON_ACT_ED_END, KS_E) },
	BIND(RBMON_KEY_BACKSPACE, E, RBMON_ACT_ED_BACK, KS_E),
	    .help = "erase the character before the cursor" },
	BIND(RBMON_KEY_DEL, E, RBMON_ACT_ED_BACK, KS_E) },
	BIND(RBMON_CTRL('h'), E, RBMON_ACT_ED_BACK, KS_E) },
	BIND(RBMON_KEY_DC, E, RBMON_ACT_ED_DELETE, KS_E),
	    .help = "erase the character under the cursor" },
	BIND(RBMON_CTRL('d'), E, RBMON_ACT_ED_DELETE, KS_E) },
	BIND(RBMON_CTRL('w'), E, RBMON_ACT_ED_WORD, KS_E),
	    .help = "erase the word before the cursor" },
	BIND(RBMON_CTRL('u'), E, RBMON_ACT_ED_KILL_START, KS_E),
	    .help = "erase from the start of the line to the cursor" },
	BIND(RBMON_CTRL('k'), E, RBMON_ACT_ED_KILL_END, KS_E),
	    .help = "erase from the cursor to the end of the line" },
	BIND(RBMON_KEY_UP, E, RBMON_ACT_ED_OLDER, KS_E),
	    .help = "earlier or later lines of this kind of prompt,\n"
	    "kept from one run to the next",
	    .pair_with = RBMON_ACT_ED_NEWER },
	BIND(RBMON_CTRL('p'), E, RBMON_ACT_ED_OLDER, KS_E) },
	BIND(RBMON_KEY_DOWN, E, RBMON_ACT_ED_NEWER, KS_E) },
	BIND(RBMON_CTRL('n'), E, RBMON_ACT_ED_NEWER, KS_E) },
	BIND('\t', E, RBMON_ACT_ED_TAB, KS_E),
	    .help = "complete the name before the cursor" },
	BIND('\r', E, RBMON_ACT_ED_ENTER, KS_E),
	    .help = "take the line" },
	BIND('\n', E, RBMON_ACT_ED_ENTER, KS_E) },
	BIND(RBMON_KEY_ENTER, E, RBMON_ACT_ED_ENTER, KS_E) },
	BIND(RBMON_KEY_ESC, E, RBMON_ACT_ED_CANCEL, KS_E),
	    .help = "leave it" },
	BIND(RBMON_CTRL('g'), E, RBMON_ACT_ED_CANCEL, KS_E) },
#undef E
#undef KS_E
	/* The search, before the editor. */
	BIND(RBMON_KEY_F(3), RBMON_KM_SEARCH, RBMON_ACT_SEARCH_NEXT, KS_K),
	    .help = "the next match (Down and ^N: unless Up went back in\n"
	    "the history)" },
	BIND(RBMON_KEY_DOWN, RBMON_KM_SEARCH, RBMON_ACT_SEARCH_NEXT, KS_K) },
	BIND(RBMON_CTRL('n'), RBMON_KM_SEARCH, RBMON_ACT_SEARCH_NEXT, KS_K) },

	/* The file picker (plain rbmon on a terminal). */
#define P	RBMON_KM_PICK
	BIND('\r', P, RBMON_ACT_PICK_OPEN, KS_K), .bar_pos = 1, .bar = "Open",
	    .bar_key = "Enter", .help = "open the selected file" },
	BIND('\n', P, RBMON_ACT_PICK_OPEN, KS_K) },
	BIND(RBMON_KEY_ENTER, P, RBMON_ACT_PICK_OPEN, KS_K) },
	BIND(RBMON_KEY_UP, P, RBMON_ACT_PICK_UP, KS_K), .bar_pos = 2,
	    .bar = "Move", .bar_key = "Up/Down", .help = "move",
	    .pair_with = RBMON_ACT_PICK_DOWN },
	BIND('k', P, RBMON_ACT_PICK_UP, KS_K) },
	BIND(RBMON_KEY_DOWN, P, RBMON_ACT_PICK_DOWN, KS_K) },
	BIND('j', P, RBMON_ACT_PICK_DOWN, KS_K) },
	BIND(RBMON_KEY_HOME, P, RBMON_ACT_PICK_HOME, KS_K),
	    .help = "the first or the last file", .pair_with = RBMON_ACT_PICK_END },
	BIND(RBMON_KEY_END, P, RBMON_ACT_PICK_END, KS_K) },
	BIND('r', P, RBMON_ACT_PICK_RESCAN, KS_K),
	    .help = "look for files again (also every second)" },
	BIND(RBMON_CTRL('l'), P, RBMON_ACT_PICK_RESCAN, KS_K) },
	BIND('q', P, RBMON_ACT_PICK_QUIT, KS_K), .bar_pos = 3, .bar = "Quit",
	    .help = "quit without opening one" },
	BIND('Q', P, RBMON_ACT_PICK_QUIT, KS_K) },
	BIND(RBMON_CTRL('c'), P, RBMON_ACT_PICK_QUIT, KS_K) },
	BIND(RBMON_KEY_ESC, P, RBMON_ACT_PICK_QUIT, KS_K) },
	BIND(RBMON_KEY_F(10), P, RBMON_ACT_PICK_QUIT, KS_K) },
#undef P

	/* Quitting with threads stopped from here: any other key stays. */
	BIND('y', RBMON_KM_QUIT, RBMON_ACT_QUIT_UNDO, KS_C),
	    .help = "quit, resuming and clearing first what rbmon did" },
	BIND('Y', RBMON_KM_QUIT, RBMON_ACT_QUIT_UNDO, KS_C) },
	BIND('n', RBMON_KM_QUIT, RBMON_ACT_QUIT_LEAVE, KS_C),
	    .help = "quit, leaving them as they are" },
	BIND('N', RBMON_KM_QUIT, RBMON_ACT_QUIT_LEAVE, KS_C) },

	/* The breakpoint list: any other key goes back. */
	BIND(RBMON_KEY_UP, RBMON_KM_BLIST, RBMON_ACT_BL_UP, KS_C),
	    .bar_pos = 5, .bar = "move", .bar_key = "Up/Down",
	    .help = "move", .pair_with = RBMON_ACT_BL_DOWN },
	BIND('k', RBMON_KM_BLIST, RBMON_ACT_BL_UP, KS_C) },
	BIND(RBMON_KEY_DOWN, RBMON_KM_BLIST, RBMON_ACT_BL_DOWN, KS_C) },
	BIND('j', RBMON_KM_BLIST, RBMON_ACT_BL_DOWN, KS_C) },
	BIND('d', RBMON_KM_BLIST, RBMON_ACT_BL_DELETE, KS_C), .bar_pos = 1,
	    .bar = "delete", .help = "delete the breakpoint under the cursor" },
	BIND('x', RBMON_KM_BLIST, RBMON_ACT_BL_DELETE, KS_C) },
	BIND(RBMON_KEY_DC, RBMON_KM_BLIST, RBMON_ACT_BL_DELETE, KS_C) },
	BIND('D', RBMON_KM_BLIST, RBMON_ACT_BL_DELETE_ALL, KS_C), .bar_pos = 2,
	    .bar = "delete all", .help = "delete them all" },
	BIND('*', RBMON_KM_BLIST, RBMON_ACT_BL_DELETE_ALL, KS_C) },
	BIND('b', RBMON_KM_BLIST, RBMON_ACT_BL_ADD, KS_C), .bar_pos = 3,
	    .bar = "add", .help = "set another one" },
	BIND('r', RBMON_KM_BLIST, RBMON_ACT_BL_REFRESH, KS_C), .bar_pos = 4,
	    .bar = "refresh", .help = "read the list again" },
	BIND(RBMON_CTRL('l'), RBMON_KM_BLIST, RBMON_ACT_BL_REFRESH, KS_C) },

	/* The functions not traced: any other key goes back. */
	BIND(RBMON_KEY_UP, RBMON_KM_DLIST, RBMON_ACT_DL_UP, KS_C),
	    .bar_pos = 3, .bar = "move", .bar_key = "Up/Down",
	    .help = "move", .pair_with = RBMON_ACT_DL_DOWN },
	BIND('k', RBMON_KM_DLIST, RBMON_ACT_DL_UP, KS_C) },
	BIND(RBMON_KEY_DOWN, RBMON_KM_DLIST, RBMON_ACT_DL_DOWN, KS_C) },
	BIND('j', RBMON_KM_DLIST, RBMON_ACT_DL_DOWN, KS_C) },
	BIND('\r', RBMON_KM_DLIST, RBMON_ACT_DL_INCLUDE, KS_C), .bar_pos = 1,
	    .bar = "trace", .help = "trace the function under the cursor again" },
	BIND('\n', RBMON_KM_DLIST, RBMON_ACT_DL_INCLUDE, KS_C) },
	BIND(RBMON_KEY_ENTER, RBMON_KM_DLIST, RBMON_ACT_DL_INCLUDE, KS_C) },
	BIND('i', RBMON_KM_DLIST, RBMON_ACT_DL_INCLUDE, KS_C) },
	BIND('a', RBMON_KM_DLIST, RBMON_ACT_DL_INCLUDE_ALL, KS_C),
	    .bar_pos = 2, .bar = "trace all",
	    .help = "trace every function switched off by name again" },

	/* The captures: any other key goes back. */
	BIND(RBMON_KEY_UP, RBMON_KM_CAPS, RBMON_ACT_CL_UP, KS_C),
	    .bar_pos = 1, .bar = "move", .bar_key = "Up/Down",
	    .help = "select a capture", .pair_with = RBMON_ACT_CL_DOWN },
	BIND('k', RBMON_KM_CAPS, RBMON_ACT_CL_UP, KS_C) },
	BIND(RBMON_KEY_DOWN, RBMON_KM_CAPS, RBMON_ACT_CL_DOWN, KS_C) },
	BIND('j', RBMON_KM_CAPS, RBMON_ACT_CL_DOWN, KS_C) },
};

#define KEYTAB_N	(sizeof keytab / sizeof keytab[0])

const struct rbmon_binding *
rbmon_keytab_rows(size_t *n)
{
	*n = KEYTAB_N;
	return keytab;
}

/**
 * rbmon_keytab_action - what @key does in @mode
 *
 * Return: the action, or RBMON_ACT_NONE when the key is not bound there.
 */
enum rbmon_action
rbmon_keytab_action(enum rbmon_kmode mode, int key)
{
	size_t	i;

	for (i = 0; i < KEYTAB_N; i++)
		if (keytab[i].mode == mode && keytab[i].key == key)
			return keytab[i].act;
	return RBMON_ACT_NONE;
}

static const char *const key_names[] = {
	[RBMON_KEY_UP - RBMON_KEY_NAMED] = "Up",
	[RBMON_KEY_DOWN - RBMON_KEY_NAMED] = "Down",
	[RBMON_KEY_LEFT - RBMON_KEY_NAMED] = "Left",
	[RBMON_KEY_RIGHT - RBMON_KEY_NAMED] = "Right",
	[RBMON_KEY_HOME - RBMON_KEY_NAMED] = "Home",
	[RBMON_KEY_END - RBMON_KEY_NAMED] = "End",
	[RBMON_KEY_PPAGE - RBMON_KEY_NAMED] = "PgUp",
	[RBMON_KEY_NPAGE - RBMON_KEY_NAMED] = "PgDn",
	[RBMON_KEY_DC - RBMON_KEY_NAMED] = "Delete",
	[RBMON_KEY_IC - RBMON_KEY_NAMED] = "Insert",
	[RBMON_KEY_BACKSPACE - RBMON_KEY_NAMED] = "Backspace",
	[RBMON_KEY_ENTER - RBMON_KEY_NAMED] = "Enter",
	[RBMON_KEY_BTAB - RBMON_KEY_NAMED] = "Shift-Tab",
	[RBMON_KEY_RESIZE - RBMON_KEY_NAMED] = "Resize",
	[RBMON_KEY_MOUSE - RBMON_KEY_NAMED] = "Mouse",
};

/**
 * rbmon_key_name - how the help screen and the bar write @key
 *
 * Return: @buf, holding "Up", "^L", "F3", "Space", "Tab", "Enter", "Esc"
 * or the character itself (UTF-8).
 */
const char *
rbmon_key_name(int key, char *buf, size_t size)
{
	if (size == 0)
		return buf;
	if (key >= RBMON_KEY_F(1) && key <= RBMON_KEY_LAST)
		snprintf(buf, size, "F%d", key - RBMON_KEY_F0);
	else if (key >= RBMON_KEY_NAMED && key < RBMON_KEY_F0 &&
	    key_names[key - RBMON_KEY_NAMED] != NULL)
		snprintf(buf, size, "%s", key_names[key - RBMON_KEY_NAMED]);
	else if (key == ' ')
		snprintf(buf, size, "Space");
	else if (key == '\t')
		snprintf(buf, size, "Tab");
	else if (key == '\r' || key == '\n')
		snprintf(buf, size, "Enter");
	else if (key == RBMON_KEY_ESC)
		snprintf(buf, size, "Esc");
	else if (key == RBMON_KEY_DEL)
		snprintf(buf, size, "Backspace");
	else if (key >= 0 && key < 0x20)
		snprintf(buf, size, "^%c", key + '@');
	else if (key > 0x20 && key < 0x7f)
		snprintf(buf, size, "%c", key);
	else
		snprintf(buf, size, "U+%04X", (unsigned)key);
	return buf;
}

static int
keytab_bar_cmp(const void *a, const void *b)
{
	const struct rbmon_binding *const *x = a, *const *y = b;

	return (*x)->bar_pos - (*y)->bar_pos;
}

/**
 * rbmon_keytab_bar - the function bar of @mode at @cols columns
 * @on: whether an action's toggle is on (its bar_on label), or NULL
 * @it: filled with at most @max items, in bar order
 *
 * Return: how many items.
 */
size_t
rbmon_keytab_bar(enum rbmon_kmode mode, int cols, rbmon_keytab_on_fn on,
    void *arg, struct rbmon_bar_item *it, size_t max)
{
	const struct rbmon_binding	*b[KEYTAB_N];
	size_t				 i, n = 0;

	for (i = 0; i < KEYTAB_N; i++)
		if (keytab[i].mode == mode && keytab[i].bar_pos > 0 &&
		    cols >= keytab[i].bar_cols)
			b[n++] = &keytab[i];
	qsort(b, n, sizeof b[0], keytab_bar_cmp);
	if (n > max)
		n = max;
	for (i = 0; i < n; i++) {
		it[i].act = b[i]->act;
		it[i].label = b[i]->bar_on != NULL && on != NULL &&
		    on(arg, b[i]->act) ? b[i]->bar_on : b[i]->bar;
		if (b[i]->bar_key != NULL) {
			snprintf(it[i].key, sizeof it[i].key, "%s",
			    b[i]->bar_key);
			it[i].code = 0;
		} else {
			rbmon_key_name(b[i]->key, it[i].key, sizeof it[i].key);
			it[i].code = b[i]->key;
		}
	}
	return n;
}

/**
 * rbmon_keytab_bar_click - the key a click at column @x of a bar stands for
 * @it: the bar's @n items, drawn as KEY LABEL, one blank between items
 *
 * Return: the key, or 0.
 */
int
rbmon_keytab_bar_click(const struct rbmon_bar_item *it, size_t n, int x)
{
	size_t	i;
	int	c = 0, w;

	for (i = 0; i < n; i++) {
		w = (int)(strlen(it[i].key) + strlen(it[i].label)) + 1;
		if (x >= c && x < c + w)
			return it[i].code;
		c += w;
	}
	return 0;
}

/* The keys of @act in @mode, distinct names in table order. */
static size_t
keytab_names(enum rbmon_kmode mode, enum rbmon_action act,
    char names[][16], size_t max)
{
	size_t	i, j, n = 0;
	char	one[16];

	for (i = 0; i < KEYTAB_N && n < max; i++) {
		if (keytab[i].mode != mode || keytab[i].act != act)
			continue;
		rbmon_key_name(keytab[i].key, one, sizeof one);
		for (j = 0; j < n && strcmp(names[j], one) != 0; j++)
			;
		if (j == n)
			memcpy(names[n++], one, sizeof one);
	}
	return n;
}

static void
keytab_push(char ***lines, size_t *n, const char *keys, const char *text)
{
	*lines = rbmon_xreallocarray(*lines, *n + 1, sizeof **lines);
	rbmon_xasprintf(&(*lines)[(*n)++], "  %-18s%s", keys, text);
}

#define KEYTAB_MAXKEYS	8

/**
 * rbmon_keytab_help - the help screen's lines for the keys of @mode filed
 * under @section: "  KEYS              WHAT THEY DO", continued lines
 * indented under the text
 * @out: set to an array of lines, each and the array to free()
 *
 * Two paired actions share a line, their keys side by side: "Up/Down, k/j".
 * Return: how many lines.
 */
size_t
rbmon_keytab_help(enum rbmon_kmode mode, enum rbmon_ksection section,
    char ***out)
{
	char	a[KEYTAB_MAXKEYS][16], b[KEYTAB_MAXKEYS][16];
	char	keys[160], part[40], *text, *nl, *p;
	size_t	i, k, na, nb, n = 0;

	*out = NULL;
	for (i = 0; i < KEYTAB_N; i++) {
		const struct rbmon_binding *r = &keytab[i];

		if (r->mode != mode || r->section != section || r->help == NULL)
			continue;
		na = keytab_names(mode, r->act, a, KEYTAB_MAXKEYS);
		nb = r->pair_with != RBMON_ACT_NONE ? keytab_names(mode,
		    r->pair_with, b, KEYTAB_MAXKEYS) : 0;
		keys[0] = '\0';
		for (k = 0; k < na || k < nb; k++) {
			if (k < na && k < nb)
				snprintf(part, sizeof part, "%.15s/%.15s", a[k], b[k]);
			else
				snprintf(part, sizeof part, "%.15s",
				    k < na ? a[k] : b[k]);
			if (k > 0)
				strncat(keys, ", ", sizeof keys - strlen(keys) - 1);
			strncat(keys, part, sizeof keys - strlen(keys) - 1);
		}
		rbmon_xasprintf(&text, "%s", r->help);
		for (p = text; p != NULL; p = nl) {
			if ((nl = strchr(p, '\n')) != NULL)
				*nl++ = '\0';
			keytab_push(out, &n, p == text ? keys : "", p);
		}
		free(text);
	}
	return n;
}
