/* SPDX-License-Identifier: MIT */
/*
 * check_namematch: what a user's function name or glob names
 * (common/namematch.c), the split of a pattern list, and the functions
 * patterns name in a live process (lib/dyn/names.c): this program's own
 * C functions, GCC's clones and fragments, a dlopen()ed C++ object's
 * namespaces, templates and operators, each address checked against the
 * symbol's, and object files corrupted under a loaded object.
 */
#include "config.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "common/namematch.h"
#include "lib/dyn/names.h"

/* ---- the exact rule ---------------------------------------------------- */

static const struct {
	const char	*q, *d;
	int		 want;
} exact[] = {
	{ "descend<0>", "int descend<0>(int)", 1 },
	{ "int descend<0>", "int descend<0>(int)", 1 },
	{ "descend<0>(int)", "int descend<0>(int)", 1 },
	{ "int descend<0>(int)", "int descend<0>(int)", 1 },
	{ "descend<1>", "int descend<0>(int)", 0 },
	{ "descend", "int descend<0>(int)", 0 },
	{ "escend<0>", "int descend<0>(int)", 0 },
	{ "Json::Value::operator[]", "Json::Value::operator[](int)", 1 },
	{ "Json::Value::operator[]",
	  "Json::Value::operator[](char const*) const", 1 },
	{ "Json::Value::operator[](int) const",
	  "Json::Value::operator[](int) const", 1 },
	{ "Json::Value::operator[](int)const",
	  "Json::Value::operator[](int) const", 1 },
	{ "operator[]", "Json::Value::operator[](int)", 0 },
	{ "Value::operator[]", "Json::Value::operator[](int)", 0 },
	{ "ns::f(int,char)", "ns::f(int, char)", 1 },
	{ "ns::f", "ns::f(int, char)", 1 },
	{ "f", "ns::f(int, char)", 0 },
	{ "Foo::operator()", "Foo::operator()(int) const", 1 },
	{ "Foo::operator<", "Foo::operator<(Foo const&) const", 1 },
	{ "Foo::operator->", "Foo::operator->()", 1 },
	{ "Foo::operator new", "Foo::operator new(unsigned long)", 1 },
	{ "new", "Foo::operator new(unsigned long)", 0 },
	{ "(anonymous namespace)::g", "(anonymous namespace)::g(int)", 1 },
	{ "std::pair<int, int> make<3>", "std::pair<int, int> make<3>()", 1 },
	{ "make<3>", "std::pair<int, int> make<3>()", 1 },
	{ "main", "main", 1 },
	{ "", "main", 0 },
};

START_TEST(test_exact)
{
	size_t	i;

	for (i = 0; i < sizeof exact / sizeof exact[0]; i++) {
		ck_assert_msg(rb_name_equal(exact[i].q, exact[i].d) ==
		    exact[i].want, "equal '%s' '%s': expected %d", exact[i].q,
		    exact[i].d, exact[i].want);
		/* A glob's characters in a name change nothing it names. */
		ck_assert_msg(rb_name_match(exact[i].q, exact[i].d) ==
		    exact[i].want, "match '%s' '%s': expected %d", exact[i].q,
		    exact[i].d, exact[i].want);
	}
}
END_TEST

START_TEST(test_symbol_kind)
{
	size_t	b;

	ck_assert_int_eq(rb_symbol_kind("alpha", &b), RB_SYM_FUNC);
	ck_assert_uint_eq(b, 5);
	ck_assert_int_eq(rb_symbol_kind("_ZN4Json5ValueixEi.cold", &b),
	    RB_SYM_FRAGMENT);
	ck_assert_uint_eq(b, 18);
	ck_assert_int_eq(rb_symbol_kind("main.cold.3", &b), RB_SYM_FRAGMENT);
	ck_assert_int_eq(rb_symbol_kind("f.part.0", &b), RB_SYM_FRAGMENT);
	ck_assert_int_eq(rb_symbol_kind("f.constprop.0.cold", &b),
	    RB_SYM_FRAGMENT);
	ck_assert_int_eq(rb_symbol_kind("scale.constprop.0", &b), RB_SYM_CLONE);
	ck_assert_uint_eq(b, 5);
	ck_assert_int_eq(rb_symbol_kind("g.isra.0", &b), RB_SYM_CLONE);
	ck_assert_int_eq(rb_symbol_kind("g.lto_priv.0", &b), RB_SYM_FUNC);
	ck_assert_int_eq(rb_symbol_kind("g.localalias", &b), RB_SYM_FUNC);
	ck_assert_int_eq(rb_symbol_kind("coldfn.particle", &b), RB_SYM_FUNC);
	ck_assert_int_eq(rb_symbol_kind("", &b), RB_SYM_FUNC);
	ck_assert_uint_eq(b, 0);
	ck_assert_int_eq(rb_symbol_kind("...", &b), RB_SYM_FUNC);
}
END_TEST

/* ---- globs --------------------------------------------------------------- */

START_TEST(test_glob)
{
	static const struct {
		const char	*q, *d;
		int		 want;
	} t[] = {
		{ "lua*", "luaH_getshortstr", 1 },
		{ "lua*", "int luaH_get(int)", 1 },
		{ "lua*", "xlua", 0 },
		{ "*lua", "xlua", 1 },
		{ "f?", "f1(int)", 1 },
		{ "f?", "f12", 0 },
		{ "[ab]x", "ax", 1 },
		{ "[ab]x", "cx", 0 },
		{ "[!ab]x", "cx", 1 },
		{ "*", "anything(int) const", 1 },
		{ "*::at", "std::map<int, int>::at(int const&)", 1 },
		{ "std::map<int, int>::*",
		  "std::map<int, int>::at(int const&)", 1 },
		{ "std::map<int,int>::*",
		  "std::map<int, int>::at(int const&)", 1 },
		{ "std::map < int , int > :: *",
		  "std::map<int, int>::at(int const&)", 1 },
		{ "std::vector<*>::*", "std::map<int, int>::at(int const&)", 0 },
		{ "ns::f(int,*)", "ns::f(int, char)", 1 },
		{ "ns::f( int , * )", "ns::f(int, char)", 1 },
		{ "ns::f(char,*)", "ns::f(int, char)", 0 },
		{ "ns::*", "ns::f(int, char)", 1 },
		{ "ns::?", "ns::f(int, char)", 1 },
		{ "ns::?(int,char)", "ns::f(int, char)", 1 },
		{ "int *", "int descend<0>(int)", 1 },
		{ "descend<?>", "int descend<0>(int)", 1 },
		{ "descend<*>(int)", "int descend<0>(int)", 1 },
		{ "long descend<*>", "int descend<0>(int)", 0 },
		{ "make<?>", "std::pair<int, int> make<3>()", 1 },
		{ "std::pair<int, int> make<*>",
		  "std::pair<int, int> make<3>()", 1 },
		{ "Foo::operator*", "Foo::operator()(int) const", 1 },
		{ "*operator new*", "Foo::operator new(unsigned long)", 1 },
		{ "*operatornew*", "Foo::operator new(unsigned long)", 0 },
		{ "*(unsigned long)", "Foo::operator new(unsigned long)", 1 },
		{ "*(unsignedlong)", "Foo::operator new(unsigned long)", 0 },
		{ "(anonymous namespace)::*", "(anonymous namespace)::g(int)", 1 },
		{ "Foo::*", "(anonymous namespace)::g(int)", 0 },
		{ "*::operator<", "Foo::operator<(Foo const&) const", 1 },
		{ "*::operator[]", "Json::Value::operator[](int)", 1 },
		{ "f\\*", "f*", 1 },
		{ "f\\*", "fx", 0 },
		{ "*", "", 0 },
		{ " * ", "f", 1 },
		{ "   ", "f", 0 },
	};
	size_t	i;

	for (i = 0; i < sizeof t / sizeof t[0]; i++)
		ck_assert_msg(rb_name_match(t[i].q, t[i].d) == t[i].want,
		    "'%s' names '%s': expected %d", t[i].q, t[i].d, t[i].want);
	ck_assert(rb_name_is_glob("a*"));
	ck_assert(rb_name_is_glob("a?"));
	ck_assert(rb_name_is_glob("a[b]"));
	ck_assert(!rb_name_is_glob("ns::f(int)"));
}
END_TEST

/* Long, unbalanced and odd names and globs: answers, never a crash. */
START_TEST(test_glob_hostile)
{
	size_t	 n = 3 * RB_NAME_GLOB_MAX;
	char	*big = malloc(n + 1), *pat = malloc(n + 1);

	ck_assert_ptr_nonnull(big);
	ck_assert_ptr_nonnull(pat);
	memset(big, 'a', n);
	big[n] = '\0';
	/* A name too long to fold matches no glob, and only itself exactly. */
	ck_assert_int_eq(rb_name_match("a*", big), 0);
	ck_assert_int_eq(rb_name_match(big, big), 1);
	memset(pat, '*', n);
	pat[n] = '\0';
	ck_assert_int_eq(rb_name_match(pat, "f"), 0);
	/* Just under the limit still folds. */
	big[RB_NAME_GLOB_MAX - 1] = '\0';
	ck_assert_int_eq(rb_name_match("a*", big), 1);
	memset(big, '(', n);
	big[n] = '\0';
	ck_assert_int_eq(rb_name_match("*", big), 0);
	big[100] = '\0';
	ck_assert_int_eq(rb_name_match("*", big), 1);
	ck_assert_int_eq(rb_name_match("(*", "((((((("), 1);
	ck_assert_int_eq(rb_name_match("[", "["), 1);
	ck_assert_int_eq(rb_name_match("[", "x"), 0);
	ck_assert_int_eq(rb_name_match("[!", "[!"), 1);
	ck_assert_int_eq(rb_name_match("[]", "f"), 0);
	ck_assert_int_eq(rb_name_match("*", "operator"), 1);
	ck_assert_int_eq(rb_name_match("*", "f operator"), 1);
	ck_assert_int_eq(rb_name_match("x::operator*", "x::operator"), 1);
	ck_assert_int_eq(rb_name_match("*", ")))> <("), 1);
	free(big);
	free(pat);
}
END_TEST

/* ---- lists -------------------------------------------------------------- */

static void
split_ok(const char *list, const char *want)
{
	char	out[256];
	size_t	n;

	n = rb_patterns_split(list, out, sizeof out);
	ck_assert_msg(n != RB_PATTERNS_BAD, "'%s' refused: %s", list, out);
	ck_assert_str_eq(out, want);
	ck_assert_uint_eq(n, strlen(want));
}

static void
split_bad(const char *list, const char *why)
{
	char	out[256];

	ck_assert_msg(rb_patterns_split(list, out, sizeof out) ==
	    RB_PATTERNS_BAD, "'%s' accepted: %s", list, out);
	ck_assert_str_eq(out, why);
}

START_TEST(test_split)
{
	split_ok("lua*,luaH_getshortstr", "lua*\nluaH_getshortstr\n");
	split_ok("  main  ", "main\n");
	split_ok(" f(int, int) , std::map<int, int>::at ",
	    "f(int, int)\nstd::map<int, int>::at\n");
	split_ok("f<std::vector<int>>,g", "f<std::vector<int>>\ng\n");
	split_ok("a[1,2],b", "a[1,2]\nb\n");
	split_ok("(anonymous namespace)::g,h", "(anonymous namespace)::g\nh\n");
	split_ok("Foo::operator<,bar", "Foo::operator<\nbar\n");
	split_ok("Foo::operator<<,bar", "Foo::operator<<\nbar\n");
	split_ok("Foo::operator>,bar", "Foo::operator>\nbar\n");
	split_ok("Foo::operator->,bar", "Foo::operator->\nbar\n");
	split_ok("Foo::operator,(Foo),x", "Foo::operator,(Foo)\nx\n");
	split_ok("Foo::operator()(int, int),b", "Foo::operator()(int, int)\nb\n");
	split_ok("Foo::operator < (Foo const&),b",
	    "Foo::operator < (Foo const&)\nb\n");
	split_ok("Foo::operator[],b", "Foo::operator[]\nb\n");
	split_ok("Foo::operator new,b", "Foo::operator new\nb\n");
	split_ok("cooperator<int>,b", "cooperator<int>\nb\n");
	split_ok("unsigned\tlong f,g", "unsigned long f\ng\n");
	split_ok("a\n,b", "a\nb\n");
	split_bad("", "pattern 1 is empty");
	split_bad("   ", "pattern 1 is empty");
	split_bad("a,,b", "pattern 2 is empty");
	split_bad("a, ,b", "pattern 2 is empty");
	split_bad("a,", "pattern 2 is empty");
	split_bad(",a", "pattern 1 is empty");
	split_bad("f(int", "pattern 1 has unbalanced brackets");
	split_bad("g,f(int, int", "pattern 2 has unbalanced brackets");
	split_bad("f)", "pattern 1 has unbalanced brackets");
	split_bad("f(]", "pattern 1 has unbalanced brackets");
	split_bad("a<b,c", "pattern 1 has unbalanced brackets");
	split_bad("a\001b", "pattern 1 has a control character");
	split_bad("a,b\033[2J", "pattern 2 has a control character");
}
END_TEST

START_TEST(test_split_sizes)
{
	char	out[8], *big, *o;
	size_t	n, i, k = 20000;

	/* Like snprintf(): what fits, NUL-terminated, and the size needed. */
	ck_assert_uint_eq(rb_patterns_split("abcdef,gh", out, 5), 10);
	ck_assert_str_eq(out, "abcd");
	ck_assert_uint_eq(rb_patterns_split("abcdef,gh", NULL, 0), 10);
	ck_assert_uint_eq(rb_patterns_split("a,", NULL, 0), RB_PATTERNS_BAD);
	ck_assert_uint_eq(rb_patterns_split("a,", out, 1), RB_PATTERNS_BAD);
	ck_assert_str_eq(out, "");
	/* Long lists; nesting as deep as allowed and deeper. */
	big = malloc(2 * k + 2);
	o = malloc(2 * k + 2);
	ck_assert_ptr_nonnull(big);
	ck_assert_ptr_nonnull(o);
	for (i = 0; i < k; i++) {
		big[2 * i] = 'a';
		big[2 * i + 1] = ',';
	}
	big[2 * k - 1] = '\0';
	n = rb_patterns_split(big, o, 2 * k + 2);
	ck_assert_uint_eq(n, 2 * k);
	ck_assert_uint_eq(strlen(o), 2 * k);
	ck_assert_int_eq(o[2 * k - 1], '\n');
	for (i = 0; i < 64; i++) {
		big[i] = '(';
		big[64 + i] = ')';
	}
	big[128] = '\0';
	ck_assert_uint_eq(rb_patterns_split(big, o, 2 * k + 2), 129);
	memmove(big + 1, big, 129);
	big[0] = '(';
	big[129] = ')';
	big[130] = '\0';
	ck_assert_uint_eq(rb_patterns_split(big, o, 2 * k + 2),
	    RB_PATTERNS_BAD);
	ck_assert_str_eq(o, "pattern 1 nests brackets too deep");
	memset(big, '(', 2 * k);
	big[2 * k] = '\0';
	ck_assert_uint_eq(rb_patterns_split(big, o, 2 * k + 2),
	    RB_PATTERNS_BAD);
	memset(big, ')', 2 * k);
	ck_assert_uint_eq(rb_patterns_split(big, o, 2 * k + 2),
	    RB_PATTERNS_BAD);
	free(big);
	free(o);
}
END_TEST

/* ---- a live process -------------------------------------------------------- */

/* This program's functions, and GCC's clones and fragments of them. */
int	nmtest_alpha(int);
int	nmtest_beta(int);
int	nmtest_orig(int);
void	nmtest_orig_clone(void) __asm__("nmtest_orig.constprop.0");
void	nmtest_orig_cold(void) __asm__("nmtest_orig.cold");
void	nmtest_lonely_clone(void) __asm__("nmtest_lonely.isra.0");
void	nmtest_mangled(void) __asm__("_Z14nmtest_mangledi");

__attribute__((noinline)) int
nmtest_alpha(int x)
{
	return x + 1;
}

__attribute__((noinline)) int
nmtest_beta(int x)
{
	return x * 3;
}

__attribute__((noinline)) int
nmtest_orig(int x)
{
	return x - 7;
}

__asm__(
	".text\n"
	".type nmtest_orig.constprop.0, @function\n"
	"nmtest_orig.constprop.0:\n"
	"	ret\n"
	".size nmtest_orig.constprop.0, . - nmtest_orig.constprop.0\n"
	".type nmtest_orig.cold, @function\n"
	"nmtest_orig.cold:\n"
	"	ret\n"
	".size nmtest_orig.cold, . - nmtest_orig.cold\n"
	".type nmtest_lonely.isra.0, @function\n"
	"nmtest_lonely.isra.0:\n"
	"	ret\n"
	".size nmtest_lonely.isra.0, . - nmtest_lonely.isra.0\n"
	".type _Z14nmtest_mangledi, @function\n"
	"_Z14nmtest_mangledi:\n"
	"	ret\n"
	".size _Z14nmtest_mangledi, . - _Z14nmtest_mangledi\n");

#define NM_FOUND_MAX	32

struct found {
	uint64_t	addr[NM_FOUND_MAX];
	char		name[NM_FOUND_MAX][128];
	size_t		n;
};

static int
found_cb(uint64_t addr, const char *name, void *arg)
{
	struct found	*f = arg;

	ck_assert_uint_lt(f->n, NM_FOUND_MAX);
	f->addr[f->n] = addr;
	snprintf(f->name[f->n], sizeof f->name[f->n], "%s", name);
	f->n++;
	return 0;
}

/* @patterns name one function: at @addr, called @name. */
static void
names_one(const char *patterns, const void *addr, const char *name)
{
	struct found	f;
	char		err[128] = "";
	int		n;

	memset(&f, 0, sizeof f);
	n = rb_names_match(patterns, found_cb, &f, err, sizeof err);
	ck_assert_msg(n == 1, "'%s': %d functions (%s)", patterns, n, err);
	ck_assert_uint_eq(f.n, 1);
	ck_assert_msg(f.addr[0] == (uint64_t)(uintptr_t)addr,
	    "'%s': 0x%llx, not %p", patterns, (unsigned long long)f.addr[0],
	    addr);
	ck_assert_str_eq(f.name[0], name);
}

static int
names_count(const char *patterns)
{
	struct found	f;
	char		err[128] = "";

	memset(&f, 0, sizeof f);
	return rb_names_match(patterns, found_cb, &f, err, sizeof err);
}

static int
has_demangler(void)
{
	void	*h;
	int	 yes;

	if (dlsym(RTLD_DEFAULT, "__cxa_demangle") != NULL)
		return 1;
	h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD);
	yes = h != NULL && dlsym(h, "__cxa_demangle") != NULL;
	if (h != NULL)
		dlclose(h);
	return yes;
}

START_TEST(test_names_c)
{
	struct found	f;
	uint8_t		hit[6];
	char		err[128] = "", out[64];
	int		n;

	names_one("nmtest_alpha", nmtest_alpha, "nmtest_alpha");
	names_one("nmtest_al*", nmtest_alpha, "nmtest_alpha");
	names_one(" nmtest_alpha \n", nmtest_alpha, "nmtest_alpha");
	/* A clone is its original; a fragment is nothing. */
	names_one("nmtest_orig", nmtest_orig, "nmtest_orig");
	names_one("nmtest_or*", nmtest_orig, "nmtest_orig");
	names_one("nmtest_orig.constprop.0", nmtest_orig, "nmtest_orig");
	ck_assert_int_eq(names_count("nmtest_orig.cold"), 0);
	/* A clone without its original is itself. */
	names_one("nmtest_lonely", nmtest_lonely_clone, "nmtest_lonely");
	/* Once per address, in order of addresses. */
	memset(&f, 0, sizeof f);
	n = rb_names_match("nmtest_alpha\nnmtest_beta\nnmtest_*\nnmtest_alpha",
	    found_cb, &f, err, sizeof err);
	ck_assert_int_ge(n, 4);
	ck_assert_uint_eq(f.n, (size_t)n);
	for (size_t i = 1; i < f.n; i++)
		ck_assert_uint_gt(f.addr[i], f.addr[i - 1]);
	/* Which lines named something. */
	memset(&f, 0, sizeof f);
	memset(hit, 7, sizeof hit);
	n = rb_names_match_hits("nmtest_alpha\nno_such_function_here\n\n"
	    "nmtest_b*\nnmtest_orig.cold", found_cb, &f, hit, 5, err,
	    sizeof err);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(hit[0], 1);
	ck_assert_int_eq(hit[1], 0);
	ck_assert_int_eq(hit[2], 0);
	ck_assert_int_eq(hit[3], 1);
	ck_assert_int_eq(hit[4], 0);
	ck_assert_int_eq(hit[5], 7);
	/* The library itself is never named. */
	ck_assert_int_eq(names_count("rb_names_match"), 0);
	/* No pattern at all. */
	ck_assert_int_eq(rb_names_match("", found_cb, &f, err, sizeof err), -1);
	ck_assert_str_eq(err, "no pattern");
	ck_assert_int_eq(rb_names_match("\n \n", found_cb, &f, err,
	    sizeof err), -1);
	/* Mangled names are demangled only where the process can. */
	if (has_demangler()) {
		names_one("nmtest_mangled", nmtest_mangled,
		    "nmtest_mangled(int)");
	} else {
		ck_assert_int_eq(names_count("nmtest_mangled"), 0);
		names_one("_Z14nmtest_mangledi", nmtest_mangled,
		    "_Z14nmtest_mangledi");
	}
	/* Names of addresses. */
	ck_assert_int_eq(rb_names_of((uintptr_t)nmtest_alpha, out, sizeof out),
	    0);
	ck_assert_str_eq(out, "nmtest_alpha");
	ck_assert_int_eq(rb_names_of((uintptr_t)nmtest_lonely_clone, out,
	    sizeof out), 0);
	ck_assert_str_eq(out, "nmtest_lonely");
	ck_assert_int_eq(rb_names_of((uintptr_t)nmtest_alpha + 1, out,
	    sizeof out), -1);
	ck_assert_int_eq(rb_names_of(1, out, sizeof out), -1);
	ck_assert_str_eq(out, "0x1");
	ck_assert_int_eq(rb_names_of((uintptr_t)nmtest_alpha, out, 4), 0);
	ck_assert_str_eq(out, "nmt");
}
END_TEST

/*
 * dlopen(), counted: librbtrace interposes on it, so the names must be
 * found without calling it (a caller may hold what its wrapper takes).
 */
static int	dlopen_calls;

void *
dlopen(const char *file, int mode)
{
	static void	*(*real)(const char *, int);

	if (real == NULL)
		real = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
	dlopen_calls++;
	return real(file, mode);
}

static void *
cxx_open(void)
{
	void	*h = dlopen(RB_TEST_NAMES_CXX, RTLD_NOW | RTLD_LOCAL);

	ck_assert_msg(h != NULL, "%s", dlerror());
	return h;
}

static void *
cxx_sym(void *h, const char *sym)
{
	void	*p = dlsym(h, sym);

	ck_assert_msg(p != NULL, "%s: %s", sym, dlerror());
	return p;
}

START_TEST(test_names_cxx)
{
	void		*h = cxx_open(), *(*hidden)(void);
	struct found	 f;
	char		 err[128] = "", out[128];
	int		 n, calls = dlopen_calls;

	/* Its C++ runtime is loaded, though not in the global scope. */
	names_one("names::plain", cxx_sym(h, "_ZN5names5plainEii"),
	    "names::plain(int, int)");
	names_one("names::plain(int,int)", cxx_sym(h, "_ZN5names5plainEii"),
	    "names::plain(int, int)");
	names_one("_ZN5names5plainEii", cxx_sym(h, "_ZN5names5plainEii"),
	    "names::plain(int, int)");
	names_one("names::Box::operator()", cxx_sym(h, "_ZNK5names3BoxclEi"),
	    "names::Box::operator()(int) const");
	names_one("names::Box::operator<", cxx_sym(h, "_ZNK5names3BoxltERKS0_"),
	    "names::Box::operator<(names::Box const&) const");
	names_one("names::twice<2>", cxx_sym(h, "_ZN5names5twiceILi2EEEii"),
	    "int names::twice<2>(int)");
	names_one("int names::twice<3>(int)",
	    cxx_sym(h, "_ZN5names5twiceILi3EEEii"), "int names::twice<3>(int)");
	hidden = (void *(*)(void))cxx_sym(h, "names_cxx_hidden");
	names_one("(anonymous namespace)::hidden", hidden(),
	    "(anonymous namespace)::hidden(int)");
	names_one("names_cxx_c", cxx_sym(h, "names_cxx_c"), "names_cxx_c");
	ck_assert_int_eq(names_count("names::twice<*>"), 2);
	ck_assert_int_eq(names_count("names::Box::*"), 2);
	ck_assert_int_eq(names_count("names::*"), 5);
	ck_assert_int_eq(names_count("names::*(int)"), 2);
	ck_assert_int_eq(names_count("plain"), 0);
	memset(&f, 0, sizeof f);
	n = rb_names_match("names::plain\nnames::plain(int, int)",
	    found_cb, &f, err, sizeof err);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(rb_names_of((uintptr_t)cxx_sym(h,
	    "_ZNK5names3BoxclEi"), out, sizeof out), 0);
	ck_assert_str_eq(out, "names::Box::operator()(int) const");
	ck_assert_int_eq(dlopen_calls, calls);
	dlclose(h);
}
END_TEST

/* ---- hostile files --------------------------------------------------------- */

static unsigned char *
slurp(const char *path, size_t *size)
{
	struct stat	 sb;
	unsigned char	*b;
	int		 fd = open(path, O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &sb), 0);
	*size = (size_t)sb.st_size;
	b = malloc(*size);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(read(fd, b, *size), (ssize_t)*size);
	close(fd);
	return b;
}

/* Every symbol name rb_names_symtab() lets through, read to its end. */
static size_t
symtab_walk(const void *img, size_t size)
{
	struct rb_names_symtab	 st;
	const char		*nm;
	size_t			 i, sum = 0;

	if (rb_names_symtab(img, size, &st) != 0)
		return 0;
	for (i = 0; i < st.nsym; i++)
		if ((nm = rb_names_symname(&st, &st.sym[i])) != NULL)
			sum += strlen(nm);
	return sum;
}

START_TEST(test_symtab_hostile)
{
	unsigned char	*b, *c;
	size_t		 size, len, i, off;
	Elf64_Ehdr	*eh;
	Elf64_Shdr	*sh;

	b = slurp(RB_TEST_NAMES_CXX, &size);
	ck_assert_uint_gt(symtab_walk(b, size), 0);
	/* Every truncation, each in a buffer of its own size. */
	for (len = 0; len < size; len += len < 128 ? 1 : 61) {
		c = malloc(len ? len : 1);
		ck_assert_ptr_nonnull(c);
		memcpy(c, b, len);
		symtab_walk(c, len);
		free(c);
	}
	/* Header fields out of range, one at a time. */
	c = malloc(size);
	ck_assert_ptr_nonnull(c);
	eh = (Elf64_Ehdr *)c;
	for (i = 0; i < 6; i++) {
		memcpy(c, b, size);
		switch (i) {
		case 0: eh->e_shoff = UINT64_MAX - 8; break;
		case 1: eh->e_shnum = 0xffff; break;
		case 2: eh->e_shoff = size - 8; break;
		case 3: eh->e_shoff += 1; break;
		case 4: eh->e_shentsize = 1; break;
		case 5: c[EI_CLASS] = ELFCLASS32; break;
		}
		ck_assert_uint_eq(symtab_walk(c, size), 0);
	}
	/* Each section header's fields out of range, and garbage names. */
	for (i = 0; i < ((Elf64_Ehdr *)b)->e_shnum; i++) {
		for (off = 0; off < 5; off++) {
			memcpy(c, b, size);
			sh = (Elf64_Shdr *)(c + eh->e_shoff) + i;
			switch (off) {
			case 0: sh->sh_offset = UINT64_MAX - 1; break;
			case 1: sh->sh_size = UINT64_MAX - 1; break;
			case 2: sh->sh_size = size; break;
			case 3: sh->sh_link = 0xffffffff; break;
			case 4: sh->sh_entsize = 0; break;
			}
			symtab_walk(c, size);
		}
	}
	memcpy(c, b, size);
	for (i = eh->e_shoff; i < size; i++)
		c[i] ^= (unsigned char)(i * 131);
	symtab_walk(c, size);
	/* Every string table byte not a NUL: no name runs off its end. */
	memcpy(c, b, size);
	sh = (Elf64_Shdr *)(c + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_STRTAB)
			memset(c + sh[i].sh_offset, 'x', sh[i].sh_size);
	ck_assert_uint_eq(symtab_walk(c, size), 0);
	free(c);
	free(b);
}
END_TEST

/* A loaded object's file replaced by a corrupt copy: names, no crash. */
START_TEST(test_names_replaced)
{
	char		 dir[] = "/tmp/check-names-XXXXXX", path[128], tmp[128];
	unsigned char	*b;
	size_t		 size, i, k;
	Elf64_Ehdr	*eh;
	void		*h;
	int		 fd, n;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/libnames.so", dir);
	snprintf(tmp, sizeof tmp, "%s/new.so", dir);
	b = slurp(RB_TEST_NAMES_CXX, &size);
	eh = (Elf64_Ehdr *)b;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, b, size), (ssize_t)size);
	close(fd);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	ck_assert_msg(h != NULL, "%s", dlerror());
	ck_assert_int_eq(names_count("names::*"), 5);
	for (k = 0; k < 8; k++) {
		unsigned char	*c = malloc(size);
		size_t		 len = size;

		ck_assert_ptr_nonnull(c);
		memcpy(c, b, size);
		switch (k) {
		case 0:	/* the section headers garbled */
			for (i = eh->e_shoff; i < size; i++)
				c[i] = (unsigned char)(i * 7919 >> 3);
			break;
		case 1:	/* truncated in its sections */
			len = eh->e_shoff / 2;
			break;
		case 2:	/* truncated in its headers */
			len = 40;
			break;
		case 3:	/* empty */
			len = 0;
			break;
		case 4:	/* another layout */
			for (i = 0; i < eh->e_phnum; i++) {
				Elf64_Phdr	*ph = (Elf64_Phdr *)(c +
				    eh->e_phoff) + i;

				if (ph->p_type == PT_LOAD) {
					ph->p_memsz += 4096;
					break;
				}
			}
			break;
		case 5:	/* the symbols' names off the string table */
			for (i = eh->e_shoff; i + sizeof(Elf64_Shdr) <= size;
			    i += sizeof(Elf64_Shdr)) {
				Elf64_Shdr	*sh = (Elf64_Shdr *)(c + i);

				if (sh->sh_type == SHT_STRTAB)
					sh->sh_size = 1;
			}
			break;
		case 6:	/* not ELF */
			memset(c, 'x', size);
			break;
		case 7:	/* intact again */
			break;
		}
		fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0755);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(write(fd, c, len), (ssize_t)len);
		close(fd);
		ck_assert_int_eq(rename(tmp, path), 0);
		n = names_count("names::*\nnames_cxx_c");
		ck_assert_msg(n >= 0 && n <= 6, "variant %zu: %d", k, n);
		if (k == 7)
			ck_assert_int_eq(n, 6);
		else
			ck_assert_msg(n == 0, "variant %zu: %d", k, n);
		free(c);
	}
	dlclose(h);
	unlink(path);
	rmdir(dir);
	free(b);
}
END_TEST

static Suite *
suite_namematch(void)
{
	Suite	*s = suite_create("namematch");
	TCase	*tc = tcase_create("names");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_exact);
	tcase_add_test(tc, test_symbol_kind);
	tcase_add_test(tc, test_glob);
	tcase_add_test(tc, test_glob_hostile);
	tcase_add_test(tc, test_split);
	tcase_add_test(tc, test_split_sizes);
	tcase_add_test(tc, test_names_c);
	tcase_add_test(tc, test_names_cxx);
	tcase_add_test(tc, test_symtab_hostile);
	tcase_add_test(tc, test_names_replaced);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr = srunner_create(suite_namematch());
	int	 failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
