/* SPDX-License-Identifier: MIT */
/*
 * namematch.c - what a user's function name or glob names: the rule of
 * rbmon's breakpoints (rbmon(1), BRKP) and of rbtrace's --exclude and
 * --include (rbtrace(1)), and the split of a user's comma-separated list.
 *
 * Everything here works in the caller's buffers or on the stack: the
 * library runs it in its worker thread, never in a hook, but it must not
 * need the allocator either.
 */
#include "config.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "common/namematch.h"

#define NM_SPACES	8	/* top-level spaces of a name considered */
#define NM_DEPTH	64	/* brackets nested in one pattern, at most */

static int
nm_ident(int c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* @a (@n bytes) and @b (@m bytes) equal, whitespace aside? */
static int
nm_eq(const char *a, size_t n, const char *b, size_t m)
{
	size_t	i = 0, j = 0;

	for (;;) {
		while (i < n && isspace((unsigned char)a[i]))
			i++;
		while (j < m && isspace((unsigned char)b[j]))
			j++;
		if (i == n || j == m)
			return i == n && j == m;
		if (a[i++] != b[j++])
			return 0;
	}
}

/*
 * Where @d's parameter list starts (its length if it has none), and the
 * spaces outside brackets before it, which end a return type.  Operator
 * names ("operator()", "operator<", "operator new") and "(anonymous
 * namespace)" are read as the names they are.
 */
struct nm_shape {
	size_t	params;
	size_t	spaces[NM_SPACES];
	size_t	nspaces;
};

static void
nm_shape(const char *d, struct nm_shape *sh)
{
	static const char	 anon[] = "(anonymous namespace)";
	size_t			 n = strlen(d), i = 0;
	int			 depth = 0;

	sh->params = n;
	sh->nspaces = 0;
	while (i < n) {
		if (strncmp(d + i, anon, sizeof anon - 1) == 0) {
			i += sizeof anon - 1;
			continue;
		}
		if (strncmp(d + i, "operator", 8) == 0 &&
		    (i == 0 || !nm_ident(d[i - 1])) && !nm_ident(d[i + 8])) {
			i += 8;
			if (d[i] == '(' && d[i + 1] == ')')
				i += 2;
			else
				while (d[i] != '\0' &&
				    strchr("+-*/%^&|~!=<>,[]", d[i]) != NULL)
					i++;
			if (d[i] == ' ')
				i++;	/* "operator new": no return type */
			continue;
		}
		switch (d[i]) {
		case '(':
			if (depth == 0) {
				sh->params = i;
				return;
			}
			/* FALLTHROUGH */
		case '<':
		case '[':
		case '{':
			depth++;
			break;
		case ')':
		case '>':
		case ']':
		case '}':
			if (depth > 0)
				depth--;
			break;
		case ' ':
			if (depth == 0 && sh->nspaces < NM_SPACES)
				sh->spaces[sh->nspaces++] = i;
			break;
		}
		i++;
	}
}

/**
 * rb_name_equal - does a user's name @q name the demangled @d?
 *
 * With or without the parameter list (and what follows it: const,
 * ref-qualifiers), with or without the return type (templates: "descend<0>"
 * names "int descend<0>(int)"); whitespace does not count.  No globs.
 * Return: 1 or 0.
 */
int
rb_name_equal(const char *q, const char *d)
{
	struct nm_shape	 sh;
	size_t		 ql = strlen(q), ends[2], e, k, i;

	if (ql == 0)
		return 0;
	nm_shape(d, &sh);
	ends[0] = strlen(d);
	ends[1] = sh.params;
	for (i = 0; i < 2; i++) {
		e = ends[i];
		if (nm_eq(q, ql, d, e))
			return 1;
		for (k = 0; k < sh.nspaces; k++)
			if (sh.spaces[k] < e &&
			    nm_eq(q, ql, d + sh.spaces[k] + 1,
			    e - sh.spaces[k] - 1))
				return 1;
	}
	return 0;
}

/* Does @p hold a glob's special characters (fnmatch(3): * ? [)? */
int
rb_name_is_glob(const char *p)
{
	return strpbrk(p, "*?[") != NULL;
}

/*
 * @s (@n bytes) with its whitespace folded into @out: a run of spaces
 * between two characters of identifiers ("unsigned long", "operator
 * new") becomes one space, any other run goes ("f(int, char)" is
 * "f(int,char)").  A glob's specials are no identifier characters, so
 * "int *" is "int*".  Return: 0, or -1 if it does not fit.
 */
static int
nm_fold(const char *s, size_t n, char *out, size_t size)
{
	size_t	i = 0, o = 0;
	int	space;

	while (i < n) {
		space = 0;
		while (i < n && isspace((unsigned char)s[i])) {
			space = 1;
			i++;
		}
		if (i == n)
			break;
		if (space && o > 0 && nm_ident(out[o - 1]) && nm_ident(s[i])) {
			if (o + 1 >= size)
				return -1;
			out[o++] = ' ';
		}
		if (o + 1 >= size)
			return -1;
		out[o++] = s[i++];
	}
	if (size == 0)
		return -1;
	out[o] = '\0';
	return 0;
}

/* Does the folded glob @g match @d's @n bytes at @s, folded? */
static int
nm_glob_form(const char *g, const char *s, size_t n)
{
	char	form[RB_NAME_GLOB_MAX];

	if (nm_fold(s, n, form, sizeof form) != 0 || form[0] == '\0')
		return 0;
	return fnmatch(g, form, 0) == 0;
}

/**
 * rb_name_match - does a user's pattern name the demangled @d?
 *
 * The rule of rb_name_equal(), and for a glob (a pattern with any of
 * "*?[") also fnmatch(3) without flags against each form of @d that rule
 * accepts: the whole name, the name without its parameter list, and each
 * of these without its return type (an empty form matches nothing).  For the glob, whitespace is folded
 * in the pattern and the form alike (nm_fold(): kept as one space only
 * between two identifier characters); a pattern or form longer than
 * RB_NAME_GLOB_MAX folded matches as a glob nothing.  A name with glob
 * characters of its own ("operator[]", "operator*") still names its
 * function by the exact rule.
 * Return: 1 or 0.
 */
int
rb_name_match(const char *q, const char *d)
{
	char		 g[RB_NAME_GLOB_MAX];
	struct nm_shape	 sh;
	size_t		 ends[2], e, k, i;

	if (rb_name_equal(q, d))
		return 1;
	if (!rb_name_is_glob(q) || nm_fold(q, strlen(q), g, sizeof g) != 0 ||
	    g[0] == '\0')
		return 0;
	nm_shape(d, &sh);
	ends[0] = strlen(d);
	ends[1] = sh.params;
	for (i = 0; i < 2; i++) {
		e = ends[i];
		if (i == 1 && e == ends[0])
			break;
		if (nm_glob_form(g, d, e))
			return 1;
		for (k = 0; k < sh.nspaces; k++)
			if (sh.spaces[k] < e &&
			    nm_glob_form(g, d + sh.spaces[k] + 1,
			    e - sh.spaces[k] - 1))
				return 1;
	}
	return 0;
}

/**
 * rb_symbol_kind - what a symbol's suffixes make it
 * @name: a symbol name ("f", "f.cold", "_Z1fi.constprop.0", ...)
 * @base: set to the length of the name before its first suffix
 *
 * GCC names the parts it splits off a function "NAME.cold" and
 * "NAME.part.N" (no hooks of their own: the hooks stay with NAME) and its
 * specialised copies "NAME.constprop.N", "NAME.isra.N" (their hooks pass
 * NAME's address); other suffixes (.lto_priv.N, .localalias) name the
 * function itself.
 * Return: RB_SYM_*.
 */
int
rb_symbol_kind(const char *name, size_t *base)
{
	const char	*p = strchr(name, '.'), *q;
	int		 kind = RB_SYM_FUNC;
	size_t		 n;

	*base = p == NULL ? strlen(name) : (size_t)(p - name);
	while (p != NULL) {
		q = strchr(p + 1, '.');
		n = q == NULL ? strlen(p + 1) : (size_t)(q - p - 1);
		if ((n == 4 && strncmp(p + 1, "cold", 4) == 0) ||
		    (n == 4 && strncmp(p + 1, "part", 4) == 0))
			return RB_SYM_FRAGMENT;
		if ((n == 9 && strncmp(p + 1, "constprop", 9) == 0) ||
		    (n == 4 && strncmp(p + 1, "isra", 4) == 0) ||
		    (n == 11 && strncmp(p + 1, "specialized", 11) == 0))
			kind = RB_SYM_CLONE;
		p = q;
	}
	return kind;
}

/*
 * The operator token after "operator" at @s, longest first: its brackets
 * and commas are the operator's, not the list's ("operator<,f" is
 * "operator<" and "f").  Return: its length, 0 if none.
 */
static size_t
nm_operator(const char *s)
{
	static const char *const ops[] = {
		"->*", "<<=", ">>=", "<=>", "()", "[]", "->", "<<", ">>",
		"<=", ">=", "==", "!=", "&&", "||", "++", "--", "+=", "-=",
		"*=", "/=", "%=", "^=", "&=", "|=", "+", "-", "*", "/", "%",
		"^", "&", "|", "~", "!", "=", "<", ">", ","
	};
	size_t	i, n;

	while (*s == ' ' || *s == '\t')
		s++;
	for (i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		n = strlen(ops[i]);
		if (strncmp(s, ops[i], n) == 0)
			return n;
	}
	return 0;
}

/* Append @c to @out if it fits; count it anyway. */
static void
nm_put(char *out, size_t size, size_t *o, char c)
{
	if (*o + 1 < size)
		out[*o] = c;
	(*o)++;
}

static size_t
nm_split_bad(char *out, size_t size, unsigned nth, const char *why)
{
	if (size > 0)
		snprintf(out, size, "pattern %u %s", nth, why);
	return RB_PATTERNS_BAD;
}

/**
 * rb_patterns_split - a user's comma-separated list of patterns, one a line
 * @list: "lua*, luaH_getshortstr" ("f(int, int)" and
 *	"std::map<int, int>::at" are one pattern each: only commas outside
 *	(), <> and [] split, and an operator's own, "operator<" or
 *	"operator,", is none)
 * @out: receives each pattern, trimmed, newline-terminated; whitespace
 *	inside one is written as spaces
 * @size: of @out; as snprintf(3), what fits is written, NUL-terminated
 *
 * A list with an empty pattern ("a,,b", "a,", " "), unbalanced brackets
 * or a control character is refused: @out then says which pattern (by
 * number, from 1) and why, "pattern 2 is empty", never quoting it.
 * Return: the bytes the patterns need, without the NUL, or
 * RB_PATTERNS_BAD.
 */
size_t
rb_patterns_split(const char *list, char *out, size_t size)
{
	char		 stack[NM_DEPTH];
	const char	*p = list, *start, *end;
	size_t		 o = 0, depth, k;
	unsigned	 nth = 0;
	char		 c;

	for (;;) {
		nth++;
		while (*p != '\0' && isspace((unsigned char)*p))
			p++;
		start = p;
		depth = 0;
		for (; *p != '\0' && (depth > 0 || *p != ','); p++) {
			c = *p;
			if (iscntrl((unsigned char)c) &&
			    !isspace((unsigned char)c))
				return nm_split_bad(out, size, nth,
				    "has a control character");
			if (strncmp(p, "operator", 8) == 0 &&
			    (p == list || !nm_ident(p[-1])) &&
			    !nm_ident(p[8])) {
				k = nm_operator(p + 8);
				if (k > 0) {
					while (p[8] == ' ' || p[8] == '\t')
						p++;
					p += 8 + k - 1;
					continue;
				}
			}
			switch (c) {
			case '(':
			case '<':
			case '[':
				if (depth == NM_DEPTH)
					return nm_split_bad(out, size, nth,
					    "nests brackets too deep");
				stack[depth++] = c == '(' ? ')' :
				    c == '<' ? '>' : ']';
				break;
			case ')':
			case '>':
			case ']':
				if (depth == 0 || stack[depth - 1] != c)
					return nm_split_bad(out, size, nth,
					    "has unbalanced brackets");
				depth--;
				break;
			}
		}
		if (depth > 0)
			return nm_split_bad(out, size, nth,
			    "has unbalanced brackets");
		end = p;
		while (end > start && isspace((unsigned char)end[-1]))
			end--;
		if (end == start)
			return nm_split_bad(out, size, nth, "is empty");
		for (; start < end; start++)
			nm_put(out, size, &o, isspace((unsigned char)*start) ?
			    ' ' : *start);
		nm_put(out, size, &o, '\n');
		if (*p == '\0')
			break;
		p++;	/* the comma */
	}
	if (size > 0)
		out[o < size ? o : size - 1] = '\0';
	return o;
}
