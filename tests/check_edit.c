/* SPDX-License-Identifier: MIT */
/* check_edit: the line editor, its completion, and the history files. */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <locale.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "monitor/screen/edit.h"
#include "monitor/screen/linehist.h"
#include "monitor/screen/keys.h"

Suite	*suite_edit(void);

#define E_HAN	0x6f22		/* 漢: two columns */
#define E_ACUTE	0xe9		/* é */

/* Type @s (UTF-8) key by key; every key must be taken. */
static void
type(struct rbmon_edit *e, const char *s)
{
	const unsigned char	*u = (const unsigned char *)s;
	int			 c;

	while (*u != '\0') {
		if (*u < 0x80)
			c = *u++;
		else if (*u < 0xe0) {
			c = ((u[0] & 0x1f) << 6) | (u[1] & 0x3f);
			u += 2;
		} else if (*u < 0xf0) {
			c = ((u[0] & 0x0f) << 12) | ((u[1] & 0x3f) << 6) |
			    (u[2] & 0x3f);
			u += 3;
		} else {
			c = ((u[0] & 0x07) << 18) | ((u[1] & 0x3f) << 12) |
			    ((u[2] & 0x3f) << 6) | (u[3] & 0x3f);
			u += 4;
		}
		ck_assert_int_eq(rbmon_edit_key(e, c), RBMON_EDIT_CHANGED);
	}
}

/* Press @key @n times, each with result @want. */
static void
press(struct rbmon_edit *e, int key, int n, enum rbmon_edit_res want)
{
	while (n-- > 0)
		ck_assert_int_eq(rbmon_edit_key(e, key), want);
}

static void
check_line(const struct rbmon_edit *e, const char *text, size_t cur)
{
	ck_assert_str_eq(e->text, text);
	ck_assert_uint_eq(e->len, strlen(text));
	ck_assert_uint_eq(e->cur, cur);
}

/* A line "abcdef" with the cursor after "abc". */
static void
start_mid(struct rbmon_edit *e)
{
	rbmon_edit_start(e, "abcdef", NULL);
	check_line(e, "abcdef", 6);
	press(e, RBMON_KEY_LEFT, 3, RBMON_EDIT_MOVED);
	check_line(e, "abcdef", 3);
}

START_TEST(test_edit_middle)
{
	struct rbmon_edit	e;
	static const int	bs[] = { RBMON_KEY_BACKSPACE, RBMON_KEY_DEL,
					 RBMON_CTRL('h') };
	static const int	del[] = { RBMON_KEY_DC, RBMON_CTRL('d') };
	size_t			i;

	rbmon_edit_start(&e, NULL, NULL);
	check_line(&e, "", 0);
	type(&e, "hello world");
	press(&e, RBMON_KEY_LEFT, 6, RBMON_EDIT_MOVED);
	type(&e, ",");
	check_line(&e, "hello, world", 6);
	press(&e, RBMON_CTRL('b'), 1, RBMON_EDIT_MOVED);
	press(&e, RBMON_CTRL('f'), 2, RBMON_EDIT_MOVED);
	check_line(&e, "hello, world", 7);

	for (i = 0; i < sizeof bs / sizeof bs[0]; i++) {
		start_mid(&e);
		press(&e, bs[i], 1, RBMON_EDIT_CHANGED);
		check_line(&e, "abdef", 2);
		press(&e, RBMON_KEY_HOME, 1, RBMON_EDIT_MOVED);
		press(&e, bs[i], 1, RBMON_EDIT_IGNORED);
		check_line(&e, "abdef", 0);
	}
	for (i = 0; i < sizeof del / sizeof del[0]; i++) {
		start_mid(&e);
		press(&e, del[i], 1, RBMON_EDIT_CHANGED);
		check_line(&e, "abcef", 3);
		press(&e, RBMON_KEY_END, 1, RBMON_EDIT_MOVED);
		press(&e, del[i], 1, RBMON_EDIT_IGNORED);
		check_line(&e, "abcef", 5);
	}

	start_mid(&e);
	press(&e, RBMON_CTRL('u'), 1, RBMON_EDIT_CHANGED);
	check_line(&e, "def", 0);
	press(&e, RBMON_CTRL('u'), 1, RBMON_EDIT_IGNORED);
	start_mid(&e);
	press(&e, RBMON_CTRL('k'), 1, RBMON_EDIT_CHANGED);
	check_line(&e, "abc", 3);
	press(&e, RBMON_CTRL('k'), 1, RBMON_EDIT_IGNORED);
	press(&e, RBMON_CTRL('a'), 1, RBMON_EDIT_MOVED);
	press(&e, RBMON_CTRL('k'), 1, RBMON_EDIT_CHANGED);
	check_line(&e, "", 0);

	/* ^W: the spaces before the cursor, then the word before them. */
	rbmon_edit_start(&e, "foo bar baz", NULL);
	press(&e, RBMON_KEY_LEFT, 4, RBMON_EDIT_MOVED);
	press(&e, RBMON_CTRL('w'), 1, RBMON_EDIT_CHANGED);
	check_line(&e, "foo  baz", 4);
	press(&e, RBMON_CTRL('w'), 1, RBMON_EDIT_CHANGED);
	check_line(&e, " baz", 0);
	press(&e, RBMON_CTRL('w'), 1, RBMON_EDIT_IGNORED);
	rbmon_edit_start(&e, "p->next  ", NULL);
	press(&e, RBMON_CTRL('w'), 1, RBMON_EDIT_CHANGED);
	check_line(&e, "", 0);
	rbmon_edit_start(&e, "a b(x,y)", NULL);
	press(&e, RBMON_KEY_LEFT, 1, RBMON_EDIT_MOVED);
	press(&e, RBMON_CTRL('w'), 1, RBMON_EDIT_CHANGED);
	check_line(&e, "a )", 2);

	/* Ends and edges. */
	rbmon_edit_start(&e, "xyz", NULL);
	press(&e, RBMON_KEY_RIGHT, 1, RBMON_EDIT_IGNORED);
	press(&e, RBMON_KEY_END, 1, RBMON_EDIT_IGNORED);
	press(&e, RBMON_KEY_HOME, 1, RBMON_EDIT_MOVED);
	check_line(&e, "xyz", 0);
	press(&e, RBMON_KEY_LEFT, 1, RBMON_EDIT_IGNORED);
	press(&e, RBMON_CTRL('e'), 1, RBMON_EDIT_MOVED);
	check_line(&e, "xyz", 3);
	type(&e, "!");
	press(&e, RBMON_CTRL('a'), 1, RBMON_EDIT_MOVED);
	type(&e, "<");
	check_line(&e, "<xyz!", 1);
}
END_TEST

START_TEST(test_edit_keys)
{
	struct rbmon_edit	e;
	static const int	other[] = { RBMON_KEY_F(3), RBMON_KEY_PPAGE,
		RBMON_KEY_NPAGE, RBMON_KEY_BTAB, RBMON_KEY_RESIZE,
		RBMON_KEY_UNKNOWN, RBMON_KEY_IC, RBMON_CTRL('c'),
		RBMON_CTRL('l'), RBMON_CTRL('r'), 0x1c, 0x85, 0x9b, 0x202e,
		0x2028, 0xd800, 0xdfff, -1 };
	size_t			i;

	rbmon_edit_start(&e, "keep", NULL);
	press(&e, '\r', 1, RBMON_EDIT_ENTER);
	press(&e, '\n', 1, RBMON_EDIT_ENTER);
	press(&e, RBMON_KEY_ENTER, 1, RBMON_EDIT_ENTER);
	press(&e, RBMON_KEY_ESC, 1, RBMON_EDIT_CANCEL);
	press(&e, RBMON_CTRL('g'), 1, RBMON_EDIT_CANCEL);
	press(&e, '\t', 1, RBMON_EDIT_TAB);
	for (i = 0; i < sizeof other / sizeof other[0]; i++) {
		ck_assert_msg(rbmon_edit_key(&e, other[i]) ==
		    RBMON_EDIT_IGNORED, "key %#x", other[i]);
	}
	check_line(&e, "keep", 4);
	for (i = 0; i < sizeof other / sizeof other[0]; i++)
		ck_assert_msg(rbmon_edit_handles(other[i]) == 0, "key %#x",
		    other[i]);
	ck_assert_int_eq(rbmon_edit_handles(RBMON_KEY_LEFT), 1);
	ck_assert_int_eq(rbmon_edit_handles(RBMON_CTRL('w')), 1);
	ck_assert_int_eq(rbmon_edit_handles('\t'), 1);
	ck_assert_int_eq(rbmon_edit_handles(E_HAN), 1);
	/* Up with no history: the editor's key, doing nothing. */
	ck_assert_int_eq(rbmon_edit_handles(RBMON_KEY_UP), 1);
	press(&e, RBMON_KEY_UP, 1, RBMON_EDIT_IGNORED);
}
END_TEST

START_TEST(test_edit_utf8)
{
	struct rbmon_edit	e;

	rbmon_edit_start(&e, "", NULL);
	press(&e, 'a', 1, RBMON_EDIT_CHANGED);
	press(&e, E_ACUTE, 1, RBMON_EDIT_CHANGED);
	press(&e, E_HAN, 1, RBMON_EDIT_CHANGED);
	press(&e, 'b', 1, RBMON_EDIT_CHANGED);
	check_line(&e, "a\xc3\xa9\xe6\xbc\xa2" "b", 7);
	press(&e, RBMON_KEY_LEFT, 1, RBMON_EDIT_MOVED);
	ck_assert_uint_eq(e.cur, 6);
	press(&e, RBMON_KEY_LEFT, 1, RBMON_EDIT_MOVED);
	ck_assert_uint_eq(e.cur, 3);
	press(&e, RBMON_KEY_LEFT, 1, RBMON_EDIT_MOVED);
	ck_assert_uint_eq(e.cur, 1);
	press(&e, RBMON_KEY_RIGHT, 1, RBMON_EDIT_MOVED);
	ck_assert_uint_eq(e.cur, 3);
	press(&e, RBMON_KEY_BACKSPACE, 1, RBMON_EDIT_CHANGED);
	check_line(&e, "a\xe6\xbc\xa2" "b", 1);
	press(&e, RBMON_KEY_DC, 1, RBMON_EDIT_CHANGED);
	check_line(&e, "ab", 1);
	press(&e, 0x1f600, 1, RBMON_EDIT_CHANGED);	/* four bytes */
	check_line(&e, "a\xf0\x9f\x98\x80" "b", 5);
	press(&e, RBMON_KEY_LEFT, 1, RBMON_EDIT_MOVED);
	check_line(&e, "a\xf0\x9f\x98\x80" "b", 1);
	press(&e, RBMON_KEY_DC, 1, RBMON_EDIT_CHANGED);
	check_line(&e, "ab", 1);
	/* ^W over UTF-8 words. */
	rbmon_edit_start(&e, "x caf\xc3\xa9 \xe6\xbc\xa2\xe5\xad\x97", NULL);
	press(&e, RBMON_CTRL('w'), 1, RBMON_EDIT_CHANGED);
	check_line(&e, "x caf\xc3\xa9 ", 8);
	press(&e, RBMON_CTRL('w'), 1, RBMON_EDIT_CHANGED);
	check_line(&e, "x ", 2);

	/* The start text: only whole safe characters. */
	rbmon_edit_start(&e, "ab\033[2Jcd", NULL);
	check_line(&e, "ab", 2);
	rbmon_edit_start(&e, "ok\xff", NULL);
	check_line(&e, "ok", 2);
	rbmon_edit_start(&e, "caf\xc3", NULL);
	check_line(&e, "caf", 3);
}
END_TEST

START_TEST(test_edit_full)
{
	struct rbmon_edit	e;
	char			buf[RBMON_EDIT_MAX + 64];
	size_t			i;

	rbmon_edit_start(&e, "", NULL);
	for (i = 0; i < RBMON_EDIT_MAX; i++)
		press(&e, 'x', 1, RBMON_EDIT_CHANGED);
	ck_assert_uint_eq(e.len, RBMON_EDIT_MAX);
	press(&e, 'y', 1, RBMON_EDIT_IGNORED);
	press(&e, RBMON_KEY_HOME, 1, RBMON_EDIT_MOVED);
	press(&e, 'y', 1, RBMON_EDIT_IGNORED);
	ck_assert_uint_eq(e.len, RBMON_EDIT_MAX);
	ck_assert_uint_eq(strspn(e.text, "x"), RBMON_EDIT_MAX);
	ck_assert_int_eq(e.text[RBMON_EDIT_MAX], '\0');

	/* One byte left: 'y' fits, é (two) does not. */
	press(&e, RBMON_KEY_DC, 1, RBMON_EDIT_CHANGED);
	press(&e, E_ACUTE, 1, RBMON_EDIT_IGNORED);
	press(&e, E_HAN, 1, RBMON_EDIT_IGNORED);
	press(&e, 'y', 1, RBMON_EDIT_CHANGED);
	ck_assert_uint_eq(e.len, RBMON_EDIT_MAX);
	ck_assert_int_eq(e.text[0], 'y');

	/* A start text too long keeps whole characters only. */
	memset(buf, 'x', RBMON_EDIT_MAX - 1);
	strcpy(buf + RBMON_EDIT_MAX - 1, "\xc3\xa9tail");
	rbmon_edit_start(&e, buf, NULL);
	ck_assert_uint_eq(e.len, RBMON_EDIT_MAX - 1);
	ck_assert_uint_eq(e.cur, RBMON_EDIT_MAX - 1);
	memset(buf, 'z', sizeof buf - 1);
	buf[sizeof buf - 1] = '\0';
	rbmon_edit_start(&e, buf, NULL);
	ck_assert_uint_eq(e.len, RBMON_EDIT_MAX);
}
END_TEST

START_TEST(test_edit_history)
{
	struct rbmon_hist	h;
	struct rbmon_edit	e;
	char			*cause, big[RBMON_EDIT_MAX + 2];

	memset(&h, 0, sizeof h);	/* in memory only */
	ck_assert_int_eq(rbmon_hist_add(&h, "one", &cause), 0);
	ck_assert_ptr_null(cause);
	rbmon_hist_add(&h, "two", &cause);
	rbmon_hist_add(&h, "two", &cause);		/* repeated */
	rbmon_hist_add(&h, "", &cause);			/* empty */
	rbmon_hist_add(&h, "bad\033]0;x\a", &cause);	/* controls */
	rbmon_hist_add(&h, "bad\xff", &cause);		/* not UTF-8 */
	memset(big, 'b', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	rbmon_hist_add(&h, big, &cause);		/* too long */
	rbmon_hist_add(&h, "three", &cause);
	rbmon_hist_add(&h, "one", &cause);		/* not consecutive */
	ck_assert_uint_eq(h.n, 4);
	ck_assert_str_eq(h.line[0], "one");
	ck_assert_str_eq(h.line[1], "two");
	ck_assert_str_eq(h.line[2], "three");
	ck_assert_str_eq(h.line[3], "one");

	rbmon_edit_start(&e, "dr", &h);
	press(&e, RBMON_KEY_LEFT, 1, RBMON_EDIT_MOVED);
	press(&e, RBMON_KEY_UP, 1, RBMON_EDIT_CHANGED);
	check_line(&e, "one", 3);
	press(&e, RBMON_CTRL('p'), 1, RBMON_EDIT_CHANGED);
	check_line(&e, "three", 5);
	press(&e, RBMON_KEY_UP, 2, RBMON_EDIT_CHANGED);
	check_line(&e, "one", 3);
	press(&e, RBMON_KEY_UP, 1, RBMON_EDIT_IGNORED);
	check_line(&e, "one", 3);
	press(&e, RBMON_KEY_DOWN, 1, RBMON_EDIT_CHANGED);
	check_line(&e, "two", 3);
	/* An edited history line is the line; the draft stays. */
	type(&e, "!");
	press(&e, RBMON_CTRL('n'), 1, RBMON_EDIT_CHANGED);
	check_line(&e, "three", 5);
	press(&e, RBMON_KEY_DOWN, 1, RBMON_EDIT_CHANGED);
	check_line(&e, "one", 3);
	press(&e, RBMON_KEY_DOWN, 1, RBMON_EDIT_CHANGED);
	check_line(&e, "dr", 2);
	press(&e, RBMON_KEY_DOWN, 1, RBMON_EDIT_IGNORED);
	check_line(&e, "dr", 2);
	/* Up again saves the draft as it is now. */
	press(&e, RBMON_KEY_BACKSPACE, 1, RBMON_EDIT_CHANGED);
	press(&e, RBMON_KEY_UP, 1, RBMON_EDIT_CHANGED);
	press(&e, RBMON_KEY_DOWN, 1, RBMON_EDIT_CHANGED);
	check_line(&e, "d", 1);

	/* The oldest goes past RBMON_HIST_MAX. */
	for (int i = 0; i < RBMON_HIST_MAX + 5; i++) {
		snprintf(big, sizeof big, "line %d", i);
		rbmon_hist_add(&h, big, &cause);
		ck_assert_ptr_null(cause);
	}
	ck_assert_uint_eq(h.n, RBMON_HIST_MAX);
	ck_assert_str_eq(h.line[0], "line 5");
	ck_assert_str_eq(h.line[RBMON_HIST_MAX - 1], "line 104");
	rbmon_hist_free(&h);
	ck_assert_uint_eq(h.n, 0);
}
END_TEST

/* Columns of [a, b) where every non-ASCII character is 漢 (two). */
static int
cols_han(const char *s, size_t a, size_t b)
{
	int	c = 0;

	for (; a < b; a++) {
		if ((unsigned char)s[a] < 0x80)
			c++;
		else if (((unsigned char)s[a] & 0xc0) == 0xc0)
			c += 2;
	}
	return c;
}

/* The window's promises, for the line of ASCII and 漢 in @e. */
static void
check_window(struct rbmon_edit *e, int width)
{
	size_t	first, bytes;
	int	col, need;

	rbmon_edit_window(e, width, &first, &bytes, &col);
	need = e->cur < e->len && (unsigned char)e->text[e->cur] >= 0x80 ?
	    2 : 1;
	ck_assert_msg(first <= e->cur, "width %d cur %zu first %zu", width,
	    e->cur, first);
	ck_assert((e->text[first] & 0xc0) != 0x80);
	ck_assert_int_eq(col, cols_han(e->text, first, e->cur));
	ck_assert_int_le(cols_han(e->text, first, first + bytes), width);
	ck_assert_uint_le(first + bytes, e->len);
	if (need <= width) {
		ck_assert_msg(col + need <= width, "width %d cur %zu col %d",
		    width, e->cur, col);
		if (e->cur < e->len)		/* its character is drawn */
			ck_assert_uint_ge(first + bytes,
			    e->cur + (need == 2 ? 3 : 1));
	}
	/* The window shows as much of the line's end as it can. */
	if (first > 0)
		ck_assert_int_ge(cols_han(e->text, first, e->len) + 1,
		    width - 1);
}

START_TEST(test_edit_window)
{
	struct rbmon_edit	e;
	static const char	*lines[] = {
		"\xe6\xbc\xa2\xe5\xad\x97\xe6\xbc\xa2\xe5\xad\x97"
		"\xe6\xbc\xa2\xe5\xad\x97\xe6\xbc\xa2\xe5\xad\x97",
		"a\xe6\xbc\xa2" "bc\xe5\xad\x97\xe5\xad\x97" "defgh\xe6\xbc\xa2"
		"ijklmnop\xe5\xad\x97",
		"abcdefghijklmnopqrstuvwxyz0123456789",
	};
	size_t			first, bytes, i;
	int			col, w;

	ck_assert_ptr_nonnull(setlocale(LC_CTYPE, "C.UTF-8"));

	rbmon_edit_start(&e, "abc", NULL);
	rbmon_edit_window(&e, 10, &first, &bytes, &col);
	ck_assert_uint_eq(first, 0);
	ck_assert_uint_eq(bytes, 3);
	ck_assert_int_eq(col, 3);
	/* Just fits with the cursor after it; one column less scrolls. */
	rbmon_edit_window(&e, 4, &first, &bytes, &col);
	ck_assert_uint_eq(first, 0);
	rbmon_edit_window(&e, 3, &first, &bytes, &col);
	ck_assert_uint_eq(first, 1);
	ck_assert_uint_eq(bytes, 2);
	ck_assert_int_eq(col, 2);

	/* Eight 漢 (16 columns) in 5: the cursor at the end, centred. */
	rbmon_edit_start(&e, lines[0], NULL);
	rbmon_edit_window(&e, 5, &first, &bytes, &col);
	ck_assert_uint_eq(first, 18);
	ck_assert_uint_eq(bytes, 6);
	ck_assert_int_eq(col, 4);
	/* Home: from the start, as many whole characters as fit. */
	press(&e, RBMON_KEY_HOME, 1, RBMON_EDIT_MOVED);
	rbmon_edit_window(&e, 5, &first, &bytes, &col);
	ck_assert_uint_eq(first, 0);
	ck_assert_uint_eq(bytes, 6);
	ck_assert_int_eq(col, 0);
	/* Width 1: a wide character cannot be drawn, the cursor is. */
	rbmon_edit_window(&e, 1, &first, &bytes, &col);
	ck_assert_uint_eq(first, 0);
	ck_assert_uint_eq(bytes, 0);
	ck_assert_int_eq(col, 0);

	/* Every width, the cursor walked both ways over every line. */
	for (i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		for (w = 1; w <= 40; w++) {
			rbmon_edit_start(&e, lines[i], NULL);
			check_window(&e, w);
			while (rbmon_edit_key(&e, RBMON_KEY_LEFT) !=
			    RBMON_EDIT_IGNORED)
				check_window(&e, w);
			while (rbmon_edit_key(&e, RBMON_KEY_RIGHT) !=
			    RBMON_EDIT_IGNORED)
				check_window(&e, w);
			rbmon_edit_key(&e, RBMON_KEY_HOME);
			check_window(&e, w);
			rbmon_edit_key(&e, RBMON_KEY_END);
			check_window(&e, w);
		}
	}

	/* Scrolling only when the cursor would leave the window. */
	rbmon_edit_start(&e, lines[2], NULL);
	rbmon_edit_key(&e, RBMON_KEY_HOME);
	for (i = 0; i < 9; i++) {
		rbmon_edit_key(&e, RBMON_KEY_RIGHT);
		rbmon_edit_window(&e, 10, &first, &bytes, &col);
		ck_assert_uint_eq(first, 0);
		ck_assert_int_eq(col, (int)i + 1);
	}
	rbmon_edit_key(&e, RBMON_KEY_RIGHT);		/* column 10: out */
	rbmon_edit_window(&e, 10, &first, &bytes, &col);
	ck_assert_uint_eq(first, 5);
	ck_assert_int_eq(col, 5);
	ck_assert_uint_eq(bytes, 10);
	rbmon_edit_key(&e, RBMON_KEY_RIGHT);
	rbmon_edit_key(&e, RBMON_KEY_LEFT);
	rbmon_edit_key(&e, RBMON_KEY_LEFT);
	rbmon_edit_window(&e, 10, &first, &bytes, &col);
	ck_assert_uint_eq(first, 5);
	ck_assert_int_eq(col, 4);
	/* ^K at the end of a scrolled line: the rest comes back in view. */
	rbmon_edit_key(&e, RBMON_KEY_END);
	rbmon_edit_window(&e, 10, &first, &bytes, &col);
	ck_assert_uint_eq(first, 27);		/* filled up to the end */
	ck_assert_int_eq(col, 9);
	press(&e, RBMON_KEY_LEFT, 28, RBMON_EDIT_MOVED);
	rbmon_edit_window(&e, 10, &first, &bytes, &col);
	ck_assert_uint_eq(first, 3);
	rbmon_edit_key(&e, RBMON_CTRL('k'));
	rbmon_edit_window(&e, 10, &first, &bytes, &col);
	ck_assert_str_eq(e.text, "abcdefgh");
	ck_assert_uint_eq(first, 0);
	ck_assert_int_eq(col, 8);
}
END_TEST

static char *const c_names[] = { "alpha", "beta", "betamax", "betty",
				 "gamma" };

static size_t
complete(struct rbmon_edit *e, const char *line, size_t start, char *note,
    size_t notesz)
{
	rbmon_edit_start(e, line, NULL);
	return rbmon_edit_complete(e, start, c_names,
	    sizeof c_names / sizeof c_names[0], "function", note, notesz);
}

START_TEST(test_edit_complete)
{
	struct rbmon_edit	e;
	char			note[512], line[RBMON_EDIT_MAX + 1];
	static char *const	evil[] = { "evil\033[2Jname",
					   "evilx\xc2\x9b" "1m" };
	static char *const	lone[] = { "evil\033[2Jname" };
	static char *const	cafe[] = { "caf\xc3\xa8", "caf\xc3\xa9" };
	static char *const	bad[] = { "ok\xff" "rest" };

	strcpy(note, "stale");
	ck_assert_uint_eq(complete(&e, "al", 0, note, sizeof note), 1);
	check_line(&e, "alpha", 5);
	ck_assert_str_eq(note, "");

	ck_assert_uint_eq(complete(&e, "bet", 0, note, sizeof note), 3);
	check_line(&e, "bet", 3);
	ck_assert_str_eq(note, "3 matches: beta betamax betty");
	ck_assert_uint_eq(complete(&e, "b", 0, note, sizeof note), 3);
	check_line(&e, "bet", 3);
	ck_assert_uint_eq(complete(&e, "beta", 0, note, sizeof note), 2);
	check_line(&e, "beta", 4);
	ck_assert_str_eq(note, "2 matches: beta betamax");

	ck_assert_uint_eq(complete(&e, "x = zeta", 4, note, sizeof note), 0);
	check_line(&e, "x = zeta", 8);
	ck_assert_str_eq(note, "no function starts with \"zeta\"");

	/* In the middle of the line: the rest stays after the cursor. */
	rbmon_edit_start(&e, "print(ga) + 1", NULL);
	press(&e, RBMON_KEY_LEFT, 5, RBMON_EDIT_MOVED);
	ck_assert_uint_eq(rbmon_edit_complete(&e, 6, c_names, 5, "function",
	    note, sizeof note), 1);
	check_line(&e, "print(gamma) + 1", 11);
	/* A start past the cursor: the empty word, all names. */
	rbmon_edit_start(&e, "zz", NULL);
	press(&e, RBMON_KEY_HOME, 1, RBMON_EDIT_MOVED);
	ck_assert_uint_eq(rbmon_edit_complete(&e, 2, c_names, 5, "function",
	    note, sizeof note), 5);
	check_line(&e, "zz", 0);
	ck_assert_str_eq(note, "5 matches: alpha beta betamax betty gamma");
	ck_assert_uint_eq(rbmon_edit_complete(&e, 0, c_names, 0, "variable",
	    note, sizeof note), 0);
	ck_assert_str_eq(note, "no variable starts with \"\"");

	/* Names from other people's programs: escaped, never inserted raw. */
	rbmon_edit_start(&e, "ev", NULL);
	ck_assert_uint_eq(rbmon_edit_complete(&e, 0, evil, 2, "variable",
	    note, sizeof note), 2);
	check_line(&e, "evil", 4);
	ck_assert_str_eq(note, "2 matches: evil\\x1b[2Jname evilx\\u009b1m");
	ck_assert_ptr_null(strchr(note, '\033'));
	rbmon_edit_start(&e, "ev", NULL);
	ck_assert_uint_eq(rbmon_edit_complete(&e, 0, lone, 1, "variable",
	    note, sizeof note), 1);
	check_line(&e, "evil", 4);
	rbmon_edit_start(&e, "o", NULL);
	rbmon_edit_complete(&e, 0, bad, 1, "variable", note, sizeof note);
	check_line(&e, "ok", 2);
	/* A common prefix ending inside a character stops before it. */
	rbmon_edit_start(&e, "c", NULL);
	ck_assert_uint_eq(rbmon_edit_complete(&e, 0, cafe, 2, "function",
	    note, sizeof note), 2);
	check_line(&e, "caf", 3);
	ck_assert_str_eq(note, "2 matches: caf\xc3\xa8 caf\xc3\xa9");

	/* A note too small: whole names, then "...". */
	complete(&e, "", 0, note, 24);
	ck_assert_str_eq(note, "5 matches: alpha ...");
	complete(&e, "", 0, note, 30);
	ck_assert_str_eq(note, "5 matches: alpha beta ...");
	/* The word in a note is cut. */
	memset(line, 'q', 100);
	line[100] = '\0';
	complete(&e, line, 0, note, sizeof note);
	ck_assert_uint_eq(strlen(note), strlen("no function starts with "
	    "\"\"...") + 60);

	/* As far as the line holds. */
	memset(line, 'x', RBMON_EDIT_MAX - 4);
	strcpy(line + RBMON_EDIT_MAX - 4, " al");
	ck_assert_uint_eq(complete(&e, line, RBMON_EDIT_MAX - 3, note,
	    sizeof note), 1);
	ck_assert_uint_eq(e.len, RBMON_EDIT_MAX);
	ck_assert_str_eq(e.text + RBMON_EDIT_MAX - 4, " alp");
	ck_assert_uint_eq(e.cur, RBMON_EDIT_MAX);
}
END_TEST

/* ------------------------------------------------------------------
 * History files, in a directory of the test's own.
 */

static char	hdir[64];

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static void
hist_setup(void)
{
	char	state[128];

	strcpy(hdir, "/tmp/check_edit.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(hdir));
	snprintf(state, sizeof state, "%s/state", hdir);
	setenv("XDG_STATE_HOME", state, 1);
}

static void
hist_teardown(void)
{
	if (hdir[0] != '\0')
		nftw(hdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	hdir[0] = '\0';
}

static char *
path_of(const char *rel)
{
	char	*p;

	ck_assert_int_gt(asprintf(&p, "%s/%s", hdir, rel), 0);
	return p;
}

/* The whole of file @rel, or NULL. */
static char *
slurp(const char *rel)
{
	char	*p = path_of(rel), *buf;
	FILE	*f = fopen(p, "r");
	size_t	 n;

	free(p);
	if (f == NULL)
		return NULL;
	buf = calloc(1, 1 << 16);
	n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void
spit(const char *rel, const char *data, size_t len)
{
	char	*p = path_of(rel);
	FILE	*f = fopen(p, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
	free(p);
}

static void
mkdirs_state(void)
{
	char	*p = path_of("state");

	ck_assert_int_eq(mkdir(p, 0700), 0);
	free(p);
	p = path_of("state/rbtrace");
	ck_assert_int_eq(mkdir(p, 0700), 0);
	free(p);
}

static void
load_ok(struct rbmon_hist *h, const char *kind)
{
	char	*cause = NULL;

	ck_assert_msg(rbmon_hist_load(h, kind, &cause) == 0, "%s", cause);
	ck_assert_ptr_null(cause);
}

/* Load must fail with a message holding @why. */
static void
load_fails(struct rbmon_hist *h, const char *why)
{
	char	*cause = NULL;

	ck_assert_int_eq(rbmon_hist_load(h, "search", &cause), -1);
	ck_assert_ptr_nonnull(cause);
	ck_assert_msg(strstr(cause, why) != NULL, "%s", cause);
	ck_assert_ptr_nonnull(strstr(cause, "search history"));
	free(cause);
	ck_assert_uint_eq(h->n, 0);
}

START_TEST(test_hist_roundtrip)
{
	struct rbmon_hist	h;
	struct stat		st;
	char			*cause, *p, *data;

	load_ok(&h, "search");
	p = path_of("state/rbtrace/history-search");
	ck_assert_str_eq(h.path, p);
	ck_assert_uint_eq(h.n, 0);
	ck_assert_int_eq(rbmon_hist_add(&h, "foo", &cause), 0);
	ck_assert_int_eq(rbmon_hist_add(&h, "bar caf\xc3\xa9", &cause), 0);
	ck_assert_int_eq(rbmon_hist_add(&h, "bar caf\xc3\xa9", &cause), 0);
	ck_assert_int_eq(rbmon_hist_add(&h, "", &cause), 0);
	rbmon_hist_free(&h);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0600);
	free(p);
	p = path_of("state/rbtrace");
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0700);
	free(p);
	p = path_of("state");
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0700);
	free(p);
	data = slurp("state/rbtrace/history-search");
	ck_assert_str_eq(data, "foo\nbar caf\xc3\xa9\n");
	free(data);

	load_ok(&h, "search");
	ck_assert_uint_eq(h.n, 2);
	ck_assert_str_eq(h.line[0], "foo");
	ck_assert_str_eq(h.line[1], "bar caf\xc3\xa9");
	ck_assert_int_eq(rbmon_hist_add(&h, "baz", &cause), 0);
	rbmon_hist_free(&h);
	load_ok(&h, "search");
	ck_assert_uint_eq(h.n, 3);
	ck_assert_str_eq(h.line[2], "baz");
	rbmon_hist_free(&h);

	/* Each kind its own file; no temporary file left behind. */
	load_ok(&h, "filter");
	ck_assert_uint_eq(h.n, 0);
	rbmon_hist_add(&h, "worker", &cause);
	rbmon_hist_free(&h);
	data = slurp("state/rbtrace/history-filter");
	ck_assert_str_eq(data, "worker\n");
	free(data);
	data = slurp("state/rbtrace/history-search");
	ck_assert_str_eq(data, "foo\nbar caf\xc3\xa9\nbaz\n");
	free(data);
	p = path_of("state/rbtrace");
	{
		char	cmd[256];
		FILE	*ls;
		int	n = 0;

		snprintf(cmd, sizeof cmd, "ls -A %s", p);
		ls = popen(cmd, "r");
		while (fgets(cmd, sizeof cmd, ls) != NULL)
			n++;
		pclose(ls);
		ck_assert_int_eq(n, 2);
	}
	free(p);

	/* Not a kind: nothing read or written, kept in memory. */
	ck_assert_int_eq(rbmon_hist_load(&h, "../x", &cause), -1);
	ck_assert_ptr_nonnull(cause);
	free(cause);
	ck_assert_ptr_null(h.path);
	ck_assert_int_eq(rbmon_hist_add(&h, "mem", &cause), 0);
	ck_assert_uint_eq(h.n, 1);
	rbmon_hist_free(&h);
}
END_TEST

START_TEST(test_hist_cap)
{
	struct rbmon_hist	h;
	char			*cause, line[32], *data, *p;
	int			i, n = 0;

	load_ok(&h, "watch");
	for (i = 0; i < RBMON_HIST_MAX + 5; i++) {
		snprintf(line, sizeof line, "x + %d", i);
		ck_assert_int_eq(rbmon_hist_add(&h, line, &cause), 0);
	}
	rbmon_hist_free(&h);
	data = slurp("state/rbtrace/history-watch");
	for (p = data; *p != '\0'; p++)
		n += *p == '\n';
	ck_assert_int_eq(n, RBMON_HIST_MAX);
	ck_assert_int_eq(strncmp(data, "x + 5\n", 6), 0);
	free(data);
	load_ok(&h, "watch");
	ck_assert_uint_eq(h.n, RBMON_HIST_MAX);
	ck_assert_str_eq(h.line[0], "x + 5");
	ck_assert_str_eq(h.line[RBMON_HIST_MAX - 1], "x + 104");
	rbmon_hist_free(&h);
}
END_TEST

START_TEST(test_hist_garbage)
{
	struct rbmon_hist	h;
	char			data[1024], *cause;
	size_t			n;

	mkdirs_state();
	n = (size_t)snprintf(data, sizeof data, "good1\n\nbad\033[31m\n"
	    "bad\xff" "utf8\ncr\r\nbidi\xe2\x80\xae" "x\nc1\xc2\x9b\n");
	memcpy(data + n, "nul\0byte\n", 9);
	n += 9;
	memset(data + n, 'L', RBMON_EDIT_MAX + 1);	/* too long */
	n += RBMON_EDIT_MAX + 1;
	data[n++] = '\n';
	memset(data + n, 'M', RBMON_EDIT_MAX);		/* just fits */
	n += RBMON_EDIT_MAX;
	n += (size_t)snprintf(data + n, sizeof data - n,
	    "\ngood2\ngood2\n\xe6\xbc\xa2\ngood3");	/* no last newline */
	spit("state/rbtrace/history-search", data, n);
	load_ok(&h, "search");
	ck_assert_uint_eq(h.n, 5);
	ck_assert_str_eq(h.line[0], "good1");
	ck_assert_uint_eq(strlen(h.line[1]), RBMON_EDIT_MAX);
	ck_assert_uint_eq(strspn(h.line[1], "M"), RBMON_EDIT_MAX);
	ck_assert_str_eq(h.line[2], "good2");
	ck_assert_str_eq(h.line[3], "\xe6\xbc\xa2");
	ck_assert_str_eq(h.line[4], "good3");
	/* Saving writes the good lines back, clean. */
	ck_assert_int_eq(rbmon_hist_add(&h, "good4", &cause), 0);
	rbmon_hist_free(&h);
	load_ok(&h, "search");
	ck_assert_uint_eq(h.n, 6);
	rbmon_hist_free(&h);
}
END_TEST

START_TEST(test_hist_huge)
{
	struct rbmon_hist	h;
	char			*data, *p;
	size_t			n, size = 1 << 20;
	int			i;

	mkdirs_state();
	/* Valid lines, 1 MiB of them: the newest RBMON_HIST_MAX kept. */
	data = malloc(size + 64);
	for (n = 0, i = 0; n < size; i++)
		n += (size_t)sprintf(data + n, "entry %07d\n", i);
	spit("state/rbtrace/history-search", data, n);
	load_ok(&h, "search");
	ck_assert_uint_eq(h.n, RBMON_HIST_MAX);
	sprintf(data, "entry %07d", i - 1);
	ck_assert_str_eq(h.line[RBMON_HIST_MAX - 1], data);
	sprintf(data, "entry %07d", i - RBMON_HIST_MAX);
	ck_assert_str_eq(h.line[0], data);
	rbmon_hist_free(&h);

	/*
	 * Only the last 64 KiB are read, from a line's start: "head" before
	 * them and the line cut by their start are not kept.  Layout:
	 * "head\n" x 200, "abcdefghij\n" (they start 6 bytes in),
	 * one 65525-byte line of controls, "last\n".
	 */
	p = data;
	for (i = 0; i < 200; i++)
		p += sprintf(p, "head\n");
	p += sprintf(p, "abcdefghij\n");
	memset(p, '\001', 65525);
	p += 65525;
	*p++ = '\n';
	p += sprintf(p, "last\n");
	n = (size_t)(p - data);
	ck_assert_uint_eq(n - RBMON_HIST_READ_MAX - 1, 1000 + 5);
	spit("state/rbtrace/history-search", data, n);
	load_ok(&h, "search");
	ck_assert_uint_eq(h.n, 1);
	ck_assert_str_eq(h.line[0], "last");
	rbmon_hist_free(&h);
	/* With "abcd\n" there, the read starts at a line's start: kept. */
	p = data;
	for (i = 0; i < 200; i++)
		p += sprintf(p, "head\n");
	p += sprintf(p, "abcd\n");
	memset(p, '\001', 65525);
	p += 65525;
	*p++ = '\n';
	p += sprintf(p, "last\n");
	n = (size_t)(p - data);
	ck_assert_uint_eq(n - RBMON_HIST_READ_MAX - 1, 1000 - 1);
	spit("state/rbtrace/history-search", data, n);
	load_ok(&h, "search");
	ck_assert_uint_eq(h.n, 2);
	ck_assert_str_eq(h.line[0], "abcd");
	ck_assert_str_eq(h.line[1], "last");
	rbmon_hist_free(&h);

	/* One line of 1 MiB, no newline: nothing. */
	memset(data, 'a', size);
	spit("state/rbtrace/history-search", data, size);
	load_ok(&h, "search");
	ck_assert_uint_eq(h.n, 0);
	rbmon_hist_free(&h);
	free(data);
}
END_TEST

START_TEST(test_hist_not_regular)
{
	struct rbmon_hist	h;
	char			*p, *t, *cause, *data;
	struct stat		st;

	mkdirs_state();
	p = path_of("state/rbtrace/history-search");

	/* A symbolic link is not followed, and saving replaces it. */
	spit("secret", "secret\n", 7);
	t = path_of("secret");
	ck_assert_int_eq(symlink(t, p), 0);
	load_fails(&h, "a symbolic link");
	ck_assert_str_eq(h.path, p);
	ck_assert_int_eq(rbmon_hist_add(&h, "new", &cause), 0);
	rbmon_hist_free(&h);
	ck_assert_int_eq(lstat(p, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	data = slurp("secret");
	ck_assert_str_eq(data, "secret\n");
	free(data);
	data = slurp("state/rbtrace/history-search");
	ck_assert_str_eq(data, "new\n");
	free(data);
	free(t);

	/* A FIFO with no writer: opening it must not wait. */
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(mkfifo(p, 0600), 0);
	alarm(20);		/* a wait would kill the test */
	load_fails(&h, "not a regular file");
	alarm(0);
	rbmon_hist_free(&h);

	/* A directory. */
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	load_fails(&h, "not a regular file");
	rbmon_hist_free(&h);
	ck_assert_int_eq(rmdir(p), 0);

	/* Someone else's file (only root can make one). */
	if (geteuid() == 0) {
		spit("state/rbtrace/history-search", "theirs\n", 7);
		ck_assert_int_eq(chown(p, 65534, 65534), 0);
		load_fails(&h, "not owned by you");
		rbmon_hist_free(&h);
	}
	free(p);
}
END_TEST

START_TEST(test_hist_save_fails)
{
	struct rbmon_hist	h;
	char			*cause, *data, *p;

	/* A file where the directory should be: said once. */
	spit("state", "", 0);
	cause = NULL;
	ck_assert_int_eq(rbmon_hist_load(&h, "break", &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "Not a directory"));
	free(cause);
	ck_assert_int_eq(rbmon_hist_add(&h, "a", &cause), -1);
	ck_assert_ptr_nonnull(cause);
	ck_assert_msg(strstr(cause, "break history is not saved") != NULL,
	    "%s", cause);
	free(cause);
	ck_assert_int_eq(rbmon_hist_add(&h, "b", &cause), -1);
	ck_assert_ptr_null(cause);
	/* Fixed: saved again, all of it; a later failure is told again. */
	p = path_of("state");
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(rbmon_hist_add(&h, "c", &cause), 0);
	ck_assert_ptr_null(cause);
	data = slurp("state/rbtrace/history-break");
	ck_assert_str_eq(data, "a\nb\nc\n");
	free(data);
	{
		char	*rb = path_of("state/rbtrace");
		char	*hb = path_of("state/rbtrace/history-break");

		ck_assert_int_eq(unlink(hb), 0);
		ck_assert_int_eq(rmdir(rb), 0);
		ck_assert_int_eq(rmdir(p), 0);
		free(rb);
		free(hb);
	}
	spit("state", "", 0);
	ck_assert_int_eq(rbmon_hist_add(&h, "d", &cause), -1);
	ck_assert_ptr_nonnull(cause);
	free(cause);
	free(p);
	rbmon_hist_free(&h);
}
END_TEST

START_TEST(test_hist_env)
{
	struct rbmon_hist	h;
	struct passwd		*pw;
	char			*home, *want, *cause, *p, *data, *longv;
	struct stat		st;

	home = path_of("home");
	ck_assert_int_eq(mkdir(home, 0700), 0);
	ck_assert_int_eq(chdir(hdir), 0);
	setenv("HOME", home, 1);
	ck_assert_int_gt(asprintf(&want, "%s/.local/state/rbtrace/"
	    "history-filter", home), 0);

	/* Relative: ignored, nothing made under the working directory. */
	setenv("XDG_STATE_HOME", "relstate", 1);
	load_ok(&h, "filter");
	ck_assert_str_eq(h.path, want);
	ck_assert_int_eq(rbmon_hist_add(&h, "x", &cause), 0);
	rbmon_hist_free(&h);
	data = slurp("home/.local/state/rbtrace/history-filter");
	ck_assert_str_eq(data, "x\n");
	free(data);
	ck_assert_int_eq(stat("relstate", &st), -1);	/* in hdir */
	p = path_of("home/.local");
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0700);
	free(p);

	/* Empty, or absurdly long: ignored too. */
	setenv("XDG_STATE_HOME", "", 1);
	load_ok(&h, "filter");
	ck_assert_str_eq(h.path, want);
	ck_assert_uint_eq(h.n, 1);
	rbmon_hist_free(&h);
	longv = malloc(5000);
	memset(longv, 'a', 4999);
	longv[0] = '/';
	longv[4999] = '\0';
	setenv("XDG_STATE_HOME", longv, 1);
	load_ok(&h, "filter");
	ck_assert_str_eq(h.path, want);
	rbmon_hist_free(&h);
	free(longv);

	/* No usable $HOME: the password database's (only looked at). */
	unsetenv("XDG_STATE_HOME");
	setenv("HOME", "not/absolute", 1);
	pw = getpwuid(getuid());
	if (pw != NULL && pw->pw_dir[0] == '/') {
		free(want);
		ck_assert_int_gt(asprintf(&want, "%s/.local/state/rbtrace/"
		    "history-filter", pw->pw_dir), 0);
		cause = NULL;
		rbmon_hist_load(&h, "filter", &cause);
		free(cause);
		ck_assert_str_eq(h.path, want);
		rbmon_hist_free(&h);
	}
	free(want);
	free(home);
}
END_TEST

Suite *
suite_edit(void)
{
	Suite	*s = suite_create("edit");
	TCase	*tc = tcase_create("edit");
	TCase	*th = tcase_create("history");

	tcase_add_test(tc, test_edit_middle);
	tcase_add_test(tc, test_edit_keys);
	tcase_add_test(tc, test_edit_utf8);
	tcase_add_test(tc, test_edit_full);
	tcase_add_test(tc, test_edit_history);
	tcase_add_test(tc, test_edit_window);
	tcase_add_test(tc, test_edit_complete);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(th, hist_setup, hist_teardown);
	tcase_set_timeout(th, 60);
	tcase_add_test(th, test_hist_roundtrip);
	tcase_add_test(th, test_hist_cap);
	tcase_add_test(th, test_hist_garbage);
	tcase_add_test(th, test_hist_huge);
	tcase_add_test(th, test_hist_not_regular);
	tcase_add_test(th, test_hist_save_fails);
	tcase_add_test(th, test_hist_env);
	suite_add_tcase(s, th);
	return s;
}
