/* SPDX-License-Identifier: MIT */
/*
 * rbmon edit: the one line editor of the screen, for search, filter and
 * every prompt, without curses.  Keys come as monitor/screen/keys.h ints; the text
 * is UTF-8 and only ever holds characters safe to draw; the caller draws it
 * through rbmon_edit_window(), which scrolls it sideways so the cursor is
 * always in view, as readline does.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "monitor/screen/edit.h"
#include "monitor/util/escape.h"
#include "monitor/screen/linehist.h"
#include "monitor/screen/keys.h"
#include "monitor/screen/keytab.h"

#define EDIT_NOTE_WORD	60	/* bytes of the word a note repeats */

/**
 * rbmon_edit_safe - how much of @s the line may hold
 * @s: NUL-terminated bytes
 * @max: look at no more than this many bytes
 *
 * Return: the length of the longest start of @s, at most @max bytes, made
 * of whole valid UTF-8 characters that are neither controls nor the
 * Unicode controls rbmon escapes (rbmon_esc_unsafe()).
 */
size_t
rbmon_edit_safe(const char *s, size_t max)
{
	uint32_t	cp;
	size_t		i = 0, k;

	while (i < max && s[i] != '\0') {
		k = rbmon_utf8_decode(s + i, &cp);
		if (k == 0 || k > max - i || rbmon_esc_unsafe(cp))
			break;
		i += k;
	}
	return i;
}

/* The start of the character before byte @pos (the text is valid). */
static size_t
edit_prev(const struct rbmon_edit *e, size_t pos)
{
	if (pos == 0)
		return 0;
	pos--;
	while (pos > 0 && ((unsigned char)e->text[pos] & 0xc0) == 0x80)
		pos--;
	return pos;
}

/* The start of the character after the one at @pos. */
static size_t
edit_next(const struct rbmon_edit *e, size_t pos)
{
	uint32_t	cp;
	size_t		k;

	if (pos >= e->len)
		return e->len;
	k = rbmon_utf8_decode(e->text + pos, &cp);
	return pos + (k == 0 ? 1 : k);
}

/* Columns of the character at @s; 1 for what wcwidth() does not know. */
static int
edit_width(const char *s, size_t *bytes)
{
	uint32_t	cp;
	size_t		k;
	int		w;

	k = rbmon_utf8_decode(s, &cp);
	if (k == 0) {
		*bytes = 1;
		return 1;
	}
	*bytes = k;
	w = wcwidth((wchar_t)cp);
	return w < 0 ? 1 : w;
}

/* Columns of the bytes [@a, @b) of the text. */
static int
edit_cols(const struct rbmon_edit *e, size_t a, size_t b)
{
	size_t	k;
	int	cols = 0;

	while (a < b) {
		cols += edit_width(e->text + a, &k);
		a += k;
	}
	return cols;
}

static void
edit_delete(struct rbmon_edit *e, size_t a, size_t b)
{
	memmove(e->text + a, e->text + b, e->len - b + 1);
	e->len -= b - a;
	e->cur = a;
}

/* The text becomes @s (as much of it as is safe), the cursor at its end. */
static enum rbmon_edit_res
edit_set(struct rbmon_edit *e, const char *s)
{
	size_t	n = rbmon_edit_safe(s, RBMON_EDIT_MAX), oldcur = e->cur;

	if (n == e->len && memcmp(e->text, s, n) == 0) {
		e->cur = e->len;
		return e->cur == oldcur ? RBMON_EDIT_IGNORED : RBMON_EDIT_MOVED;
	}
	memmove(e->text, s, n);
	e->text[n] = '\0';
	e->len = e->cur = n;
	return RBMON_EDIT_CHANGED;
}

/**
 * rbmon_edit_start - begin editing a line
 * @e: the editor
 * @initial: the text to start with, the cursor at its end; NULL for none.
 *	Only its start made of safe characters is taken (rbmon_edit_safe()),
 *	at most RBMON_EDIT_MAX bytes.
 * @hist: the lines Up and Down browse, NULL for none; not owned
 */
void
rbmon_edit_start(struct rbmon_edit *e, const char *initial,
    struct rbmon_hist *hist)
{
	memset(e, 0, sizeof *e);
	edit_set(e, initial != NULL ? initial : "");
	e->hist = hist;
	e->hpos = hist != NULL ? hist->n : 0;
}

static enum rbmon_edit_res
edit_insert(struct rbmon_edit *e, int key)
{
	uint32_t	c = (uint32_t)key;
	char		u[4];
	size_t		k;

	if (c < 0x80) {
		u[0] = (char)c;
		k = 1;
	} else if (c < 0x800) {
		u[0] = (char)(0xc0 | (c >> 6));
		u[1] = (char)(0x80 | (c & 0x3f));
		k = 2;
	} else if (c < 0x10000) {
		u[0] = (char)(0xe0 | (c >> 12));
		u[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		u[2] = (char)(0x80 | (c & 0x3f));
		k = 3;
	} else {
		u[0] = (char)(0xf0 | (c >> 18));
		u[1] = (char)(0x80 | ((c >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((c >> 6) & 0x3f));
		u[3] = (char)(0x80 | (c & 0x3f));
		k = 4;
	}
	if (e->len + k > RBMON_EDIT_MAX)
		return RBMON_EDIT_IGNORED;
	memmove(e->text + e->cur + k, e->text + e->cur, e->len - e->cur + 1);
	memcpy(e->text + e->cur, u, k);
	e->len += k;
	e->cur += k;
	return RBMON_EDIT_CHANGED;
}

/* Up (@older) and Down: the draft is kept while history lines are shown. */
static enum rbmon_edit_res
edit_browse(struct rbmon_edit *e, int older)
{
	struct rbmon_hist	*h = e->hist;

	if (h == NULL)
		return RBMON_EDIT_IGNORED;
	if (e->hpos > h->n)
		e->hpos = h->n;
	if (older) {
		if (e->hpos == 0)
			return RBMON_EDIT_IGNORED;
		if (e->hpos == h->n)
			memcpy(e->draft, e->text, e->len + 1);
		e->hpos--;
		return edit_set(e, h->line[e->hpos]);
	}
	if (e->hpos == h->n)
		return RBMON_EDIT_IGNORED;
	e->hpos++;
	return edit_set(e, e->hpos == h->n ? e->draft : h->line[e->hpos]);
}

/* Bytes [@a, @b) go, the cursor at @a: CHANGED, or IGNORED if none. */
static enum rbmon_edit_res
edit_cut(struct rbmon_edit *e, size_t a, size_t b)
{
	if (a == b)
		return RBMON_EDIT_IGNORED;
	edit_delete(e, a, b);
	return RBMON_EDIT_CHANGED;
}

static enum rbmon_edit_res
edit_move(struct rbmon_edit *e, size_t to)
{
	if (to == e->cur)
		return RBMON_EDIT_IGNORED;
	e->cur = to;
	return RBMON_EDIT_MOVED;
}

/* A key that is a character the line may hold. */
static int
edit_insertable(int key)
{
	return rbmon_key_printable(key) && !(key >= 0xd800 && key <= 0xdfff) &&
	    !rbmon_esc_unsafe((uint32_t)key);
}

/**
 * rbmon_edit_handles - is @key one the editor acts on?
 * @key: a monitor/screen/keys.h key
 *
 * So that a caller passes on only the keys that are not the editor's
 * (e.g. F3 in a search), even where the editor would ignore them (Left at
 * the start of the line).
 * Return: 1 or 0.
 */
int
rbmon_edit_handles(int key)
{
	return rbmon_keytab_action(RBMON_KM_EDIT, key) != RBMON_ACT_NONE ||
	    edit_insertable(key);
}

/**
 * rbmon_edit_key - act on one key
 * @e: the editor
 * @key: a monitor/screen/keys.h key
 *
 * The keys are the key table's (keytab.c, RBMON_KM_EDIT); printable
 * characters not bound there are inserted at the cursor (refused when the
 * line is full or they are not safe to draw); Left/Right, ^B/^F: a character;
 * Home/End, ^A/^E: the ends; Backspace, DEL, ^H: the character before;
 * Delete, ^D: the character under the cursor; ^W the word before
 * (whitespace-delimited, as readline's unix-word-rubout); ^U from the
 * start to the cursor; ^K from the cursor to the end; Up/Down, ^P/^N: the
 * history, older and newer, the line being typed coming back below the
 * newest; Enter (\r, \n, keypad) ENTER; Esc, ^G CANCEL; Tab TAB.
 *
 * Return: what happened; RBMON_EDIT_IGNORED when the text and the cursor
 * are as they were (any other key, or nothing to do).
 */
enum rbmon_edit_res
rbmon_edit_key(struct rbmon_edit *e, int key)
{
	size_t	p;

	switch (rbmon_keytab_action(RBMON_KM_EDIT, key)) {
	case RBMON_ACT_ED_LEFT:
		return edit_move(e, edit_prev(e, e->cur));
	case RBMON_ACT_ED_RIGHT:
		return edit_move(e, edit_next(e, e->cur));
	case RBMON_ACT_ED_HOME:
		return edit_move(e, 0);
	case RBMON_ACT_ED_END:
		return edit_move(e, e->len);
	case RBMON_ACT_ED_BACK:
		return edit_cut(e, edit_prev(e, e->cur), e->cur);
	case RBMON_ACT_ED_DELETE:
		return edit_cut(e, e->cur, edit_next(e, e->cur));
	case RBMON_ACT_ED_WORD:
		/* ' ' is never part of a longer character: bytes will do. */
		for (p = e->cur; p > 0 && e->text[p - 1] == ' '; p--)
			;
		for (; p > 0 && e->text[p - 1] != ' '; p--)
			;
		return edit_cut(e, p, e->cur);
	case RBMON_ACT_ED_KILL_START:
		return edit_cut(e, 0, e->cur);
	case RBMON_ACT_ED_KILL_END:
		return edit_cut(e, e->cur, e->len);
	case RBMON_ACT_ED_OLDER:
		return edit_browse(e, 1);
	case RBMON_ACT_ED_NEWER:
		return edit_browse(e, 0);
	case RBMON_ACT_ED_ENTER:
		return RBMON_EDIT_ENTER;
	case RBMON_ACT_ED_CANCEL:
		return RBMON_EDIT_CANCEL;
	case RBMON_ACT_ED_TAB:
		return RBMON_EDIT_TAB;
	default:
		break;
	}
	if (!edit_insertable(key))
		return RBMON_EDIT_IGNORED;
	return edit_insert(e, key);
}

/**
 * rbmon_edit_window - what of the line to draw in @width columns
 * @e: the editor; remembers where this window began, so that the text
 *	scrolls only when the cursor would leave it
 * @width: columns for the text (and the cursor past its end)
 * @first: set to the byte the visible part starts at
 * @bytes: set to how many bytes from @first fit in @width columns (whole
 *	characters: a wide one that would be cut is left out)
 * @cursor_col: set to the cursor's column, from 0
 *
 * Widths are wcwidth()'s (a wide CJK character takes 2 columns, one it
 * does not know 1).  The whole line is shown when it fits; otherwise a
 * cursor leaving the window brings it back to the middle, as readline's
 * horizontal scrolling does, and the window never ends short of the
 * line's end while it could show more of it.  The cursor and the
 * character under it are always inside the window (when @width holds it).
 */
void
rbmon_edit_window(struct rbmon_edit *e, int width, size_t *first,
    size_t *bytes, int *cursor_col)
{
	size_t	f, k, p;
	int	need, target, cols, w;

	if (width <= 0) {
		e->first = *first = e->cur;
		*bytes = 0;
		*cursor_col = 0;
		return;
	}
	need = e->cur < e->len ? edit_width(e->text + e->cur, &k) : 1;
	if (need < 1)
		need = 1;
	if (need > width)
		need = width;
	if (edit_cols(e, 0, e->len) + 1 <= width)
		f = 0;
	else {
		f = e->first < e->len ? e->first : e->len;
		while (f > 0 && ((unsigned char)e->text[f] & 0xc0) == 0x80)
			f--;
		if (f > e->cur || edit_cols(e, f, e->cur) + need > width) {
			/* Recentre: the cursor near the middle. */
			target = width / 2;
			if (target > width - need)
				target = width - need;
			f = e->cur;
			cols = 0;
			while (f > 0) {
				p = edit_prev(e, f);
				w = edit_width(e->text + p, &k);
				if (cols + w > target)
					break;
				cols += w;
				f = p;
			}
		}
		/* Fill the window up to the line's end. */
		cols = edit_cols(e, f, e->len) + 1;
		while (f > 0) {
			p = edit_prev(e, f);
			w = edit_width(e->text + p, &k);
			if (cols + w > width)
				break;
			cols += w;
			f = p;
		}
	}
	e->first = *first = f;
	*cursor_col = edit_cols(e, f, e->cur);
	cols = 0;
	for (p = f; p < e->len; p += k) {
		w = edit_width(e->text + p, &k);
		if (cols + w > width)
			break;
		cols += w;
	}
	*bytes = p - f;
}

/* Bytes of @s as rbmon_esc_next() shows it, NUL excluded. */
static size_t
edit_esc_len(const char *s)
{
	char	out[RBMON_ESC_MAX];
	size_t	n, len = 0;

	while ((n = rbmon_esc_next(s, 0, out)) != 0) {
		len += strlen(out);
		s += n;
	}
	return len;
}

/* Append @s escaped to @note, whole characters as far as they fit. */
static void
edit_note_cat(char *note, size_t sz, const char *s)
{
	char	out[RBMON_ESC_MAX];
	size_t	n, w = strlen(note), k;

	while ((n = rbmon_esc_next(s, 0, out)) != 0) {
		k = strlen(out);
		if (w + k >= sz)
			break;
		memcpy(note + w, out, k + 1);
		w += k;
		s += n;
	}
}

/**
 * rbmon_edit_complete - complete the word before the cursor from @names
 * @e: the editor
 * @start: the byte the word starts at (the caller knows what a word is);
 *	the word runs to the cursor
 * @names: sorted (strcmp()), @n of them; from symbol tables, so anything
 * @n: how many
 * @kind: what the names are, for "no KIND starts with ..."
 * @note: set to what to show on the message line: "" when one name
 *	matched, "N matches: a b ..." when several, "no KIND starts with
 *	\"x\"" when none; names escaped (rbmon_esc_next()), cut with "..."
 *	when they do not all fit
 * @notesz: its size
 *
 * The word becomes the longest common prefix of the names it starts, as
 * far as the line holds it and as long as it is safe text (a name with
 * control bytes is completed up to them); the cursor goes after it, the
 * rest of the line stays.
 * Return: how many names matched.
 */
size_t
rbmon_edit_complete(struct rbmon_edit *e, size_t start, char *const *names,
    size_t n, const char *kind, char *note, size_t notesz)
{
	const char	*word;
	size_t		 wlen, lo, hi, a, b, mid, i, c, k, w;
	char		 head[64];

	if (start > e->cur)
		start = e->cur;
	while (start < e->cur &&
	    ((unsigned char)e->text[start] & 0xc0) == 0x80)
		start++;
	word = e->text + start;
	wlen = e->cur - start;
	if (notesz > 0)
		note[0] = '\0';

	/* The range of names starting with the word (the list is sorted). */
	for (a = 0, b = n; a < b;) {
		mid = a + (b - a) / 2;
		if (strncmp(names[mid], word, wlen) < 0)
			a = mid + 1;
		else
			b = mid;
	}
	lo = a;
	for (b = n; a < b;) {
		mid = a + (b - a) / 2;
		if (strncmp(names[mid], word, wlen) <= 0)
			a = mid + 1;
		else
			b = mid;
	}
	hi = a;
	if (lo == hi) {
		char	w0[EDIT_NOTE_WORD + 1];

		k = rbmon_edit_safe(word, wlen < EDIT_NOTE_WORD ? wlen :
		    EDIT_NOTE_WORD);
		memcpy(w0, word, k);
		w0[k] = '\0';
		if (notesz > 0) {
			snprintf(note, notesz, "no %s starts with \"", kind);
			edit_note_cat(note, notesz, w0);
			edit_note_cat(note, notesz, k < wlen ? "...\"" : "\"");
		}
		return 0;
	}

	/* Longest common prefix of the range, as far as the line holds. */
	c = strlen(names[lo]);
	for (i = lo + 1; i < hi; i++) {
		k = 0;
		while (k < c && names[i][k] == names[lo][k])
			k++;
		c = k;
	}
	if (c > wlen + (RBMON_EDIT_MAX - e->len))
		c = wlen + (RBMON_EDIT_MAX - e->len);
	/* The word is safe and starts the name: c stays >= wlen. */
	c = rbmon_edit_safe(names[lo], c);
	memmove(e->text + start + c, e->text + e->cur, e->len - e->cur + 1);
	memcpy(e->text + start, names[lo], c);
	e->len = e->len - wlen + c;
	e->cur = start + c;
	if (hi - lo == 1 || notesz == 0)
		return hi - lo;

	snprintf(head, sizeof head, "%zu matches:", hi - lo);
	edit_note_cat(note, notesz, head);
	for (i = lo; i < hi; i++) {
		w = strlen(note);
		/* Room for " name", and for " ..." unless it is the last. */
		if (w + 1 + edit_esc_len(names[i]) + (i + 1 < hi ? 4 : 0) >=
		    notesz) {
			edit_note_cat(note, notesz, " ...");
			break;
		}
		edit_note_cat(note, notesz, " ");
		edit_note_cat(note, notesz, names[i]);
	}
	return hi - lo;
}
