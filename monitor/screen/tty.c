/* SPDX-License-Identifier: MIT */
/* rbmon tty: curses set-up, colours, glyphs, and the terminal reset on
 * every way out (quit, signals, fatal errors, exit()). */
#include "config.h"

#include <langinfo.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monitor/core/model.h"
#include "monitor/screen/tty.h"

volatile sig_atomic_t	 rbmon_tty_quit;

static SCREEN		*tty_screen;
static int		 tty_on;
static int		 tty_utf8;
static attr_t		 tty_attrs[RBMON_A_COUNT];

static const char *const tty_glyphs_utf8[RBMON_G_COUNT] = {
	"\xe2\x94\x9c\xe2\x94\x80",	/* ├─ */
	"\xe2\x94\x94\xe2\x94\x80",	/* └─ */
	"\xe2\x94\x82",		/* │ */
	"\xc3\x97",		/* × */
	"\xe2\x80\xa6",		/* … */
};

static const char *const tty_glyphs_ascii[RBMON_G_COUNT] = {
	"|-",
	"`-",
	"|",
	"x",
	"...",
};

enum {
	TTY_PAIR_TITLE = 1,
	TTY_PAIR_FOCUS,
	TTY_PAIR_SELECT,
	TTY_PAIR_SELECT_DIM,
	TTY_PAIR_RUNNING,
	TTY_PAIR_UNTRACED,
	TTY_PAIR_STOPPED,
	TTY_PAIR_GONE,
	TTY_PAIR_KEY,
	TTY_PAIR_BAR,
	TTY_PAIR_ERROR,
	TTY_PAIR_LABEL,
	TTY_PAIR_MATCH,
	TTY_PAIR_STALE,
};

static void
tty_mono_attrs(void)
{
	tty_attrs[RBMON_A_NORMAL] = A_NORMAL;
	tty_attrs[RBMON_A_TITLE] = A_REVERSE;
	tty_attrs[RBMON_A_TITLE_FOCUS] = A_REVERSE | A_BOLD;
	tty_attrs[RBMON_A_SELECT] = A_REVERSE;
	tty_attrs[RBMON_A_SELECT_DIM] = A_UNDERLINE;
	tty_attrs[RBMON_A_PROCESS] = A_BOLD;
	tty_attrs[RBMON_A_RUNNING] = A_NORMAL;
	tty_attrs[RBMON_A_UNTRACED] = A_NORMAL;
	tty_attrs[RBMON_A_STOPPED] = A_BOLD;
	tty_attrs[RBMON_A_EXITED] = A_DIM;
	tty_attrs[RBMON_A_GONE] = A_DIM;
	tty_attrs[RBMON_A_LABEL] = A_BOLD;
	tty_attrs[RBMON_A_KEY] = A_BOLD;
	tty_attrs[RBMON_A_BAR] = A_REVERSE;
	tty_attrs[RBMON_A_ERROR] = A_BOLD;
	tty_attrs[RBMON_A_INFO] = A_NORMAL;
	tty_attrs[RBMON_A_MATCH] = A_BOLD | A_UNDERLINE;
	tty_attrs[RBMON_A_STALE] = A_DIM;
}

static void
tty_color_attrs(void)
{
	init_pair(TTY_PAIR_TITLE, COLOR_BLACK, COLOR_WHITE);
	init_pair(TTY_PAIR_FOCUS, COLOR_BLACK, COLOR_GREEN);
	init_pair(TTY_PAIR_SELECT, COLOR_BLACK, COLOR_CYAN);
	init_pair(TTY_PAIR_SELECT_DIM, COLOR_BLACK, COLOR_WHITE);
	init_pair(TTY_PAIR_RUNNING, COLOR_GREEN, -1);
	init_pair(TTY_PAIR_UNTRACED, COLOR_CYAN, -1);
	init_pair(TTY_PAIR_STOPPED, COLOR_RED, -1);
	init_pair(TTY_PAIR_GONE, COLOR_RED, -1);
	init_pair(TTY_PAIR_KEY, COLOR_WHITE, COLOR_BLACK);
	init_pair(TTY_PAIR_BAR, COLOR_BLACK, COLOR_CYAN);
	init_pair(TTY_PAIR_ERROR, COLOR_RED, -1);
	init_pair(TTY_PAIR_LABEL, COLOR_CYAN, -1);
	init_pair(TTY_PAIR_MATCH, COLOR_BLACK, COLOR_YELLOW);
	init_pair(TTY_PAIR_STALE, COLOR_YELLOW, -1);

	tty_attrs[RBMON_A_TITLE] = COLOR_PAIR(TTY_PAIR_TITLE);
	tty_attrs[RBMON_A_TITLE_FOCUS] = COLOR_PAIR(TTY_PAIR_FOCUS) | A_BOLD;
	tty_attrs[RBMON_A_SELECT] = COLOR_PAIR(TTY_PAIR_SELECT);
	tty_attrs[RBMON_A_SELECT_DIM] = COLOR_PAIR(TTY_PAIR_SELECT_DIM);
	tty_attrs[RBMON_A_RUNNING] = COLOR_PAIR(TTY_PAIR_RUNNING);
	tty_attrs[RBMON_A_UNTRACED] = COLOR_PAIR(TTY_PAIR_UNTRACED);
	tty_attrs[RBMON_A_STOPPED] = COLOR_PAIR(TTY_PAIR_STOPPED) | A_BOLD;
	tty_attrs[RBMON_A_GONE] = COLOR_PAIR(TTY_PAIR_GONE) | A_DIM;
	tty_attrs[RBMON_A_KEY] = COLOR_PAIR(TTY_PAIR_KEY) | A_BOLD;
	tty_attrs[RBMON_A_BAR] = COLOR_PAIR(TTY_PAIR_BAR);
	tty_attrs[RBMON_A_ERROR] = COLOR_PAIR(TTY_PAIR_ERROR) | A_BOLD;
	tty_attrs[RBMON_A_LABEL] = COLOR_PAIR(TTY_PAIR_LABEL);
	tty_attrs[RBMON_A_MATCH] = COLOR_PAIR(TTY_PAIR_MATCH);
	tty_attrs[RBMON_A_STALE] = COLOR_PAIR(TTY_PAIR_STALE) | A_BOLD;
}

static void
tty_on_quit(int sig)
{
	(void)sig;
	rbmon_tty_quit = 1;
}

/*
 * A crash must not leave the terminal raw and on the alternate screen.
 * endwin() is not async-signal-safe; the process is dying anyway, and this
 * is what htop and tmux's clients do too.
 */
static void
tty_fatal_restore(void)
{
	if (tty_on) {
		tty_on = 0;
		endwin();
	}
}

static void
tty_on_fatal(int sig)
{
	tty_fatal_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
tty_signals(void)
{
	static const int	 fatal[] = { SIGSEGV, SIGABRT, SIGFPE, SIGILL };
	struct sigaction	 sa;
	size_t			 i;

	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = tty_on_quit;	/* no SA_RESTART: wake the key read */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = tty_on_fatal;
	sa.sa_flags = SA_RESETHAND;
	for (i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
		sigaction(fatal[i], &sa, NULL);
	rbmon_model_fatal_hook = tty_fatal_restore;
}

/**
 * rbmon_tty_start - take over the terminal
 * @color: 0 to draw without colour even if the terminal has it
 * @ascii: 1 to draw lines with ASCII even in a UTF-8 locale
 * @cause: message on failure
 *
 * The terminal is given back by rbmon_tty_end(), which also runs at
 * exit() and on fatal signals.
 *
 * Return: 0, or -1 with *@cause set.
 */
int
rbmon_tty_start(int color, int ascii, char **cause)
{
	static int	 registered;
	const char	*term = getenv("TERM"), *no_color;
	int		 colors;

	if (tty_on)
		return 0;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		rbmon_xasprintf(cause, "the interactive monitor needs a "
		    "terminal (use --dump or --json otherwise)");
		return -1;
	}
	if (term == NULL || *term == '\0' || strcmp(term, "dumb") == 0) {
		rbmon_xasprintf(cause, "TERM is %s; the interactive monitor "
		    "needs a terminal type (use --dump otherwise)",
		    term == NULL || *term == '\0' ? "not set" : "dumb");
		return -1;
	}
	if (tty_screen == NULL) {
		tty_screen = newterm(NULL, stdout, stdin);
		if (tty_screen == NULL) {
			rbmon_xasprintf(cause, "cannot use terminal type '%s' "
			    "(no terminfo entry?)", term);
			return -1;
		}
		set_term(tty_screen);
	} else
		reset_prog_mode();
	if (!registered) {
		atexit(rbmon_tty_end);
		registered = 1;
	}
	tty_on = 1;
	tty_signals();
	raw();		/* ^C and ^Z are keys: the traced program shares the tty */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	mouseinterval(0);

	tty_utf8 = !ascii && strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	tty_mono_attrs();
	no_color = getenv("NO_COLOR");
	colors = color && has_colors() &&
	    (no_color == NULL || *no_color == '\0');
	if (colors) {
		start_color();
		if (use_default_colors() != OK)
			assume_default_colors(COLOR_WHITE, COLOR_BLACK);
		tty_color_attrs();
	}
	return 0;
}

/**
 * rbmon_tty_end - give the terminal back as it was; safe to call twice
 */
void
rbmon_tty_end(void)
{
	if (!tty_on)
		return;
	tty_on = 0;
	mousemask(0, NULL);
	curs_set(1);
	endwin();
	fflush(stdout);
}

attr_t
rbmon_tty_attr(enum rbmon_attr a)
{
	return a < RBMON_A_COUNT ? tty_attrs[a] : A_NORMAL;
}

const char *
rbmon_tty_glyph(enum rbmon_glyph g)
{
	if (g >= RBMON_G_COUNT)
		return "?";
	return tty_utf8 ? tty_glyphs_utf8[g] : tty_glyphs_ascii[g];
}

/**
 * rbmon_tty_suspend - ^Z: stop the job, as the shell would, and come back
 *
 * With the terminal raw, ^Z is a key; the whole process group stops, like
 * it would have without rbmon.
 */
void
rbmon_tty_suspend(void)
{
	def_prog_mode();
	endwin();
	kill(0, SIGTSTP);
	reset_prog_mode();
	clearok(curscr, TRUE);
	refresh();
}

/**
 * rbmon_tty_getkey - the next key typed, as keys.h names it
 * @wait_ms: how long to wait for one; 0: only what is typed already
 *
 * Return: the key, or -1 when none came.
 */
int
rbmon_tty_getkey(int wait_ms)
{
	static const struct {
		int	code, key;
	} named[] = {
		{ KEY_UP, RBMON_KEY_UP },	{ KEY_DOWN, RBMON_KEY_DOWN },
		{ KEY_LEFT, RBMON_KEY_LEFT },	{ KEY_RIGHT, RBMON_KEY_RIGHT },
		{ KEY_HOME, RBMON_KEY_HOME },	{ KEY_END, RBMON_KEY_END },
		{ KEY_PPAGE, RBMON_KEY_PPAGE },	{ KEY_NPAGE, RBMON_KEY_NPAGE },
		{ KEY_DC, RBMON_KEY_DC },	{ KEY_IC, RBMON_KEY_IC },
		{ KEY_BACKSPACE, RBMON_KEY_BACKSPACE },
		{ KEY_ENTER, RBMON_KEY_ENTER },	{ KEY_BTAB, RBMON_KEY_BTAB },
		{ KEY_RESIZE, RBMON_KEY_RESIZE }, { KEY_MOUSE, RBMON_KEY_MOUSE },
		{ KEY_A1, RBMON_KEY_HOME },	{ KEY_C1, RBMON_KEY_END },
		{ KEY_A3, RBMON_KEY_PPAGE },	{ KEY_C3, RBMON_KEY_NPAGE },
	};
	wint_t	wc;
	size_t	i;
	int	r;

	timeout(wait_ms);
	r = get_wch(&wc);
	if (r == ERR)
		return -1;
	if (r != KEY_CODE_YES)
		return wc < RBMON_KEY_NAMED ? (int)wc : RBMON_KEY_UNKNOWN;
	if ((int)wc >= KEY_F(1) && (int)wc <= KEY_F(12))
		return RBMON_KEY_F((int)wc - KEY_F0);
	for (i = 0; i < sizeof named / sizeof named[0]; i++)
		if (named[i].code == (int)wc)
			return named[i].key;
	return RBMON_KEY_UNKNOWN;
}
