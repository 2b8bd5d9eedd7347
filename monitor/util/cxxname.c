/* SPDX-License-Identifier: MIT */
/*
 * cxxname.c - a demangled C++ name made to fit a number of columns.
 *
 * Shortened only as much as needed, each step on the result of the one
 * before: the whole name; without its return type; template arguments
 * nested in others as <…>; every template argument list as <…>; the
 * parameters as (…); then a cut in the middle that keeps the start of the
 * scope and the whole last component ("leveldb…::BackgroundThreadMain(…)").
 * Marks after the name (" [inlined]") are never cut: the name fits in what
 * they leave.  Integer literals in template arguments print as gdb prints
 * them, without their suffix: <0, 1>, not <0ul, 1ul>.
 *
 * Names from a trace file or a symbol table are anything: nothing here
 * trusts brackets to pair up, and a name it cannot take apart is cut at
 * its end.  The text is taken as it is (escaped by the caller); a column
 * is a UTF-8 character.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "monitor/util/alloc.h"
#include "monitor/util/cxxname.h"

#define CXX_DEPTH	64	/* deeper nesting is not taken apart */
#define CXX_MAX		4096	/* bytes of a name looked at */

/* The parts of a name, as offsets into it. */
struct cxx_parts {
	size_t	 name;		/* start of the name: after the return type */
	size_t	 last;		/* start of its last component */
	size_t	 params;	/* its '(', or the length: none */
	size_t	 pend;		/* just after the matching ')' */
};

static int
cxx_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '$';
}

/* Columns of @s: its UTF-8 characters. */
size_t
rbmon_cxxname_cols(const char *s)
{
	size_t	n = 0;

	for (; *s != '\0'; s++) {
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	}
	return n;
}

/*
 * If @s + @i is the keyword "operator", where its symbol ends ("<<" of
 * "operator<<", "()" of "operator()"), else @i.  A conversion or new and
 * delete ("operator new[]") go on with words, which need no skipping.
 */
static size_t
cxx_operator(const char *s, size_t i, size_t n)
{
	size_t	j = i + 8;

	if (n - i < 8 || memcmp(s + i, "operator", 8) != 0)
		return i;
	if (i > 0 && cxx_ident(s[i - 1]))
		return i;
	if (j < n && cxx_ident(s[j]))
		return i;
	if (j + 1 < n && ((s[j] == '(' && s[j + 1] == ')') ||
	    (s[j] == '[' && s[j + 1] == ']')))
		return j + 2;
	while (j < n && strchr("<>=!+-*/%^&|~,", s[j]) != NULL)
		j++;
	return j;
}

/*
 * Where the bracket at @s + @i closes, or @n if it does not.  A '>' that
 * closes nothing is a comparison in an expression (decltype): skipped.
 */
static size_t
cxx_match(const char *s, size_t i, size_t n)
{
	char	want[CXX_DEPTH], c;
	size_t	d = 0, k, j;

	for (k = i; k < n; k++) {
		c = s[k];
		if (c == 'o' && (j = cxx_operator(s, k, n)) != k) {
			k = j - 1;
			continue;
		}
		switch (c) {
		case '<': case '(': case '[': case '{':
			if (d == CXX_DEPTH)
				return n;
			want[d++] = c == '<' ? '>' : c == '(' ? ')' :
			    c == '[' ? ']' : '}';
			break;
		case '>': case ')': case ']': case '}':
			if (d > 0 && want[d - 1] == c) {
				if (--d == 0)
					return k;
			} else if (c != '>')
				return n;
			break;
		}
	}
	return n;
}

/* The parts of @s (@n bytes); a name not taken apart is one component. */
static void
cxx_parse(const char *s, size_t n, struct cxx_parts *p)
{
	size_t	k, j, space = n, scope = n, m;

	p->name = 0;
	p->last = 0;
	p->params = n;
	p->pend = n;
	/* The parameters: the last "(...)" at the top not followed by "::". */
	for (k = 0; k < n; k++) {
		if (s[k] == 'o' && (j = cxx_operator(s, k, n)) != k) {
			k = j - 1;
			continue;
		}
		if (strchr("<([{", s[k]) == NULL)
			continue;
		if ((m = cxx_match(s, k, n)) == n)
			return;
		if (s[k] == '(' && k > 0 && (m + 2 >= n ||
		    s[m + 1] != ':' || s[m + 2] != ':')) {
			p->params = k;
			p->pend = m + 1;
		}
		k = m;
	}
	/*
	 * Before them, the last "::" at the top starts the last component
	 * (none inside an operator's name: "operator std::string"), and the
	 * last space at the top before that ends the return type.
	 */
	for (k = 0; k < p->params; k++) {
		if (s[k] == 'o' && cxx_operator(s, k, n) != k)
			break;
		if (strchr("<([{", s[k]) != NULL) {
			k = cxx_match(s, k, n);
			continue;
		}
		if (s[k] == ':' && k + 1 < p->params && s[k + 1] == ':') {
			scope = k;
			k++;
		} else if (s[k] == ' ') {
			space = k;
			scope = n;
		}
	}
	if (space != n)
		p->name = space + 1;
	if (scope != n && scope + 2 > p->name)
		p->last = scope + 2;
	else
		p->last = p->name;
}

/*
 * @s with template argument lists whose nesting is @min or more (1: every
 * one) as <@ell>; a new string.
 */
static char *
cxx_templates(const char *s, int min, const char *ell)
{
	size_t	 n = strlen(s), k, j, m, o = 0, close[CXX_DEPTH];
	char	*out = rbmon_xreallocarray(NULL, n + 1, 1);
	int	 level = 0;

	for (k = 0; k < n; k++) {
		if (s[k] == 'o' && (j = cxx_operator(s, k, n)) != k) {
			memcpy(out + o, s + k, j - k);
			o += j - k;
			k = j - 1;
			continue;
		}
		if (level > 0 && k == close[level - 1])
			level--;
		else if (s[k] == '<' && (m = cxx_match(s, k, n)) != n &&
		    m > k + 1) {
			if (level + 1 >= min && m - k - 1 > strlen(ell)) {
				out[o++] = '<';
				memcpy(out + o, ell, strlen(ell));
				o += strlen(ell);
				out[o++] = '>';
				k = m;
				continue;
			}
			if (level < CXX_DEPTH)
				close[level++] = m;
		}
		out[o++] = s[k];
	}
	out[o] = '\0';
	return out;
}

/* @s without what comes before @p->name (its return type); a new string. */
static char *
cxx_unreturn(const char *s, const struct cxx_parts *p)
{
	return rbmon_xstrdup(s + p->name);
}

/* @s with its parameters, when it has some, as (@ell); a new string. */
static char *
cxx_unparam(const char *s, const char *ell)
{
	struct cxx_parts	 p;
	size_t			 n = strlen(s);
	char			*out;

	cxx_parse(s, n, &p);
	if (p.params == n || p.pend <= p.params + 2)
		return rbmon_xstrdup(s);
	rbmon_xasprintf(&out, "%.*s(%s)%s", (int)p.params, s, ell,
	    s + p.pend);
	return out;
}

/* Append at most @cols columns of @s to @dst (@size); returns columns. */
static size_t
cxx_put(char *dst, size_t size, const char *s, size_t cols)
{
	size_t	n = strlen(dst), c = 0, len;

	while (*s != '\0' && c < cols) {
		for (len = 1; ((unsigned char)s[len] & 0xc0) == 0x80; len++)
			continue;
		if (n + len >= size)
			break;
		memcpy(dst + n, s, len);
		n += len;
		/* A stray continuation byte counts no column, as in cols(). */
		if (((unsigned char)*s & 0xc0) != 0x80)
			c++;
		s += len;
	}
	dst[n] = '\0';
	return c;
}

/*
 * How many columns of the scope @s (@n bytes) to keep in @cols: up to its
 * last "::" at the top that leaves room, or any @cols columns if none does.
 */
static size_t
cxx_scope_cut(const char *s, size_t n, size_t cols)
{
	size_t	k, j, best = 0, c = 0;

	for (k = 0; k < n; k++) {
		if (s[k] == 'o' && (j = cxx_operator(s, k, n)) != k)
			k = j - 1;
		else if (strchr("<([{", s[k]) != NULL)
			k = cxx_match(s, k, n);
		else if (s[k] == ':' && k + 1 < n && s[k + 1] == ':') {
			for (c = 0, j = 0; j < k; j++)
				c += ((unsigned char)s[j] & 0xc0) != 0x80;
			if (c > cols)
				break;
			best = c;
			k++;
		}
	}
	if (best == 0) {
		for (c = 0, j = 0; j < n; j++)
			c += ((unsigned char)s[j] & 0xc0) != 0x80;
		if (c <= cols)
			best = c;
	}
	return best != 0 ? best : cols;
}

/* @s cut in the middle to @width columns into @dst, empty first. */
static size_t
cxx_cut(char *dst, size_t size, const char *s, size_t width,
    const char *ell)
{
	struct cxx_parts	p;
	size_t			n = strlen(s), ec = rbmon_cxxname_cols(ell);
	size_t			lc, c, keep;

	dst[0] = '\0';
	cxx_parse(s, n, &p);
	lc = rbmon_cxxname_cols(s + p.last);
	if (p.last >= 2 && lc + ec + 2 <= width) {
		/* "leveldb…::Main(…)": as much of the scope as there is room for. */
		keep = cxx_scope_cut(s, p.last - 2, width - lc - ec - 2);
		c = cxx_put(dst, size, s, keep);
		c += cxx_put(dst, size, ell, ec);
		c += cxx_put(dst, size, "::", 2);
		return c + cxx_put(dst, size, s + p.last, lc);
	}
	/* No room for the scope: the last component, cut at its end. */
	s += p.last;
	if (rbmon_cxxname_cols(s) <= width)
		return cxx_put(dst, size, s, width);
	if (width < ec)
		return cxx_put(dst, size, ell, width);
	c = cxx_put(dst, size, s, width - ec);
	return c + cxx_put(dst, size, ell, ec);
}

/**
 * rbmon_cxxname_gdb - @s with its integer literals as gdb prints them
 * @s: a demangled name
 *
 * "std::get<0ul>" becomes "std::get<0>": a number's suffix (u, l, ul,
 * ll, ull in either case) goes.
 *
 * Return: a new string.
 */
char *
rbmon_cxxname_gdb(const char *s)
{
	size_t	 n = strlen(s), k = 0, o = 0, j;
	char	*out = rbmon_xreallocarray(NULL, n + 1, 1);

	while (k < n) {
		if (s[k] >= '0' && s[k] <= '9' && (k == 0 ||
		    !cxx_ident(s[k - 1]))) {
			while (k < n && s[k] >= '0' && s[k] <= '9')
				out[o++] = s[k++];
			j = k;
			while (j < n && strchr("uUlL", s[j]) != NULL)
				j++;
			if (j > k && j - k <= 3 && (j == n ||
			    !cxx_ident(s[j])))
				k = j;
			continue;
		}
		out[o++] = s[k++];
	}
	out[o] = '\0';
	return out;
}

/**
 * rbmon_cxxname_fit - a name shortened to fit, its marks whole
 * @dst: output
 * @size: its size
 * @name: a demangled name, safe to show (escaped)
 * @marks: what follows it and is never cut (" [inlined]"), or NULL
 * @width: columns at most
 * @ell: what stands for what was left out (RBMON_CXX_ELL_*)
 *
 * Return: the columns used.
 */
size_t
rbmon_cxxname_fit(char *dst, size_t size, const char *name,
    const char *marks, size_t width, const char *ell)
{
	struct cxx_parts	 p;
	char			*step[5];
	size_t			 mc = marks != NULL ?
				    rbmon_cxxname_cols(marks) : 0;
	size_t			 avail = width > mc ? width - mc : 0, c = 0;
	size_t			 i, n;

	if (size == 0)
		return 0;
	dst[0] = '\0';
	step[0] = rbmon_cxxname_gdb(name);
	/* Taking a name apart costs its length times its brackets: bound it. */
	if ((n = strlen(step[0])) > CXX_MAX) {
		n = CXX_MAX;
		while (n > 0 && ((unsigned char)step[0][n] & 0xc0) == 0x80)
			n--;
		step[0][n] = '\0';
	}
	cxx_parse(step[0], n, &p);
	step[1] = cxx_unreturn(step[0], &p);
	step[2] = cxx_templates(step[1], 2, ell);
	step[3] = cxx_templates(step[1], 1, ell);
	step[4] = cxx_unparam(step[3], ell);
	for (i = 0; i < 5; i++) {
		if (rbmon_cxxname_cols(step[i]) <= avail) {
			c = cxx_put(dst, size, step[i], avail);
			break;
		}
	}
	if (i == 5)
		c = cxx_cut(dst, size, step[4], avail, ell);
	for (i = 0; i < 5; i++)
		free(step[i]);
	if (marks != NULL)
		c += cxx_put(dst, size, marks, width - c);
	return c;
}
