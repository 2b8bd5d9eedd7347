/* SPDX-License-Identifier: MIT */
/*
 * rbmon keys: what the terminal typed, as one int, without curses: a
 * Unicode character (control characters included: RBMON_CTRL('a') is ^A,
 * 0x1b Esc, '\t' Tab, '\r' Enter), or one of the named keys below, above
 * Unicode's range.  tty.c translates curses's KEY_* codes (rbmon_tty_key),
 * so that the line editor, the key table and the modes are tested without
 * a terminal.
 */
#ifndef RBMON_KEYS_H
#define RBMON_KEYS_H

#define RBMON_CTRL(c)	((c) & 0x1f)
#define RBMON_KEY_ESC	0x1b
#define RBMON_KEY_DEL	0x7f		/* what most terminals send for Backspace */

enum rbmon_key_named {
	RBMON_KEY_NAMED = 0x110000,	/* the first: above every character */
	RBMON_KEY_UP = RBMON_KEY_NAMED,
	RBMON_KEY_DOWN,
	RBMON_KEY_LEFT,
	RBMON_KEY_RIGHT,
	RBMON_KEY_HOME,
	RBMON_KEY_END,
	RBMON_KEY_PPAGE,
	RBMON_KEY_NPAGE,
	RBMON_KEY_DC,			/* Delete */
	RBMON_KEY_IC,			/* Insert */
	RBMON_KEY_BACKSPACE,		/* the terminal's own Backspace code */
	RBMON_KEY_ENTER,		/* the keypad's Enter */
	RBMON_KEY_BTAB,			/* Shift-Tab */
	RBMON_KEY_RESIZE,		/* the terminal changed size */
	RBMON_KEY_MOUSE,		/* a mouse event is waiting */
	RBMON_KEY_F0,			/* RBMON_KEY_F(1) ... RBMON_KEY_F(12) */
	RBMON_KEY_LAST = RBMON_KEY_F0 + 12,
	RBMON_KEY_UNKNOWN		/* a curses code rbmon has no name for */
};

#define RBMON_KEY_F(n)	(RBMON_KEY_F0 + (n))

/* A printable character: typed text, not a command. */
static inline int
rbmon_key_printable(int key)
{
	return key >= 0x20 && key < RBMON_KEY_NAMED && key != 0x7f &&
	    !(key >= 0x80 && key < 0xa0);
}

#endif /* RBMON_KEYS_H */
