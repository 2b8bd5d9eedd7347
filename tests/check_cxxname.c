/* SPDX-License-Identifier: MIT */
/* check_cxxname: demangled C++ names shortened to fit a width. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "monitor/util/cxxname.h"

Suite	*suite_cxxname(void);

#define ELL	RBMON_CXX_ELL_ASCII

static const char *const cxx_pe =
    "leveldb::(anonymous namespace)::PosixEnv::BackgroundThreadEntryPoint("
    "leveldb::(anonymous namespace)::PosixEnv*)";
static const char *const cxx_pm =
    "leveldb::(anonymous namespace)::PosixEnv::BackgroundThreadMain()";
static const char *const cxx_create =
    "std::__cxx11::basic_string<char, std::char_traits<char>, "
    "std::allocator<char> >::_M_create(unsigned long&, unsigned long)";

static const struct {
	const char	*in, *marks;
	size_t		 width;
	const char	*want;
} cxx_cases[] = {
	/* What fits stays whole. */
	{ "main", NULL, 80, "main" },
	{ "compute(int)", NULL, 12, "compute(int)" },
	/* The leveldb names at the stack pane's 39 columns of 80. */
	{ "", NULL, 0, "" },
	/* The whole last component stays; the mark is never cut. */
	{ NULL, " [inlined]", 39, "le...::BackgroundThreadMain() [inlined]" },
	{ NULL, NULL, 39, "lev...::BackgroundThreadEntryPoint(...)" },
	/* std::string's methods: inner templates, all, params, middle. */
	{ NULL, NULL, 121, "std::__cxx11::basic_string<char, "
	    "std::char_traits<char>, std::allocator<char> >::_M_create"
	    "(unsigned long&, unsigned long)" },
	{ NULL, NULL, 120, "std::__cxx11::basic_string<char, "
	    "std::char_traits<...>, std::allocator<...> >::_M_create"
	    "(unsigned long&, unsigned long)" },
	{ NULL, NULL, 75, "std::__cxx11::basic_string<...>::_M_create"
	    "(unsigned long&, unsigned long)" },
	{ NULL, NULL, 60, "std::__cxx11::basic_string<...>::_M_create(...)" },
	{ NULL, NULL, 40, "std::__cxx11...::_M_create(...)" },
	/* Return types go first. */
	{ "void std::deque<int, std::allocator<int> >::emplace_back<int>"
	    "(int&&)", NULL, 63, "std::deque<int, std::allocator<int> >::"
	    "emplace_back<int>(int&&)" },
	{ "void std::deque<int, std::allocator<int> >::emplace_back<int>"
	    "(int&&)", NULL, 50, "std::deque<...>::emplace_back<int>(int&&)" },
	{ "std::deque<int, std::allocator<int> >::push_back(int const&)",
	    NULL, 31, "std::deque<...>::push_back(...)" },
	{ "std::deque<int, std::allocator<int> >::push_back(int const&)",
	    NULL, 30, "std...::push_back(...)" },
	{ "unsigned long foo::bar<1>(int)", NULL, 20, "foo::bar<1>(int)" },
	/* Operators with brackets in their names. */
	{ "std::ostream& operator<< <char, std::char_traits<char> >"
	    "(std::basic_ostream<char, std::char_traits<char> >&, char const*)",
	    NULL, 40, "operator<< <...>(...)" },
	{ "bool operator< <int>(Foo<int> const&, Foo<int> const&)", NULL, 49,
	    "operator< <int>(Foo<int> const&, Foo<int> const&)" },
	{ "Foo::operator<=>(Foo const&) const", NULL, 30,
	    "Foo::operator<=>(...) const" },
	{ "Foo::operator->() const", NULL, 10, "operato..." },
	{ "operator new[](unsigned long)", NULL, 20, "operator new[](...)" },
	{ "main::{lambda(int)#1}::operator()(int, char const*) const", NULL, 44,
	    "main::{lambda(int)#1}::operator()(...) const" },
	{ "main::{lambda(int)#1}::operator()(int) const", NULL, 30,
	    "main...::operator()(...) const" },
	/* Function pointers, decltype, ABI tags. */
	{ "void qsort_r(void*, unsigned long, unsigned long, int (*)(void "
	    "const*, void const*, void*), void*)", NULL, 30, "qsort_r(...)" },
	{ "decltype ({parm#1}.size()) size<std::vector<int, std::allocator"
	    "<int> > >(std::vector<int, std::allocator<int> > const&)", NULL,
	    40, "size<...>(std::vector<...> const&)" },
	{ "foo[abi:cxx11](int)", NULL, 19, "foo[abi:cxx11](int)" },
	{ "ns::foo[abi:cxx11](int)", NULL, 19, "foo[abi:cxx11](...)" },
	/* Integer literals as gdb prints them. */
	{ "bar<0ul, 1ul>()", NULL, 50, "bar<0, 1>()" },
	{ "std::tuple_element<0ul, std::tuple<int, long> >::type& std::get"
	    "<0ul, int, long>(std::tuple<int, long>&)", NULL, 80,
	    "std::get<0, int, long>(std::tuple<int, long>&)" },
	{ "f<-1l, 2u, 3ull, 4LL>(int32_t, x1ul)", NULL, 80,
	    "f<-1, 2, 3, 4>(int32_t, x1ul)" },
	/* Names that do not pair up are cut, never read past. */
	{ "((((((", NULL, 4, "(..." },
	{ "a>b<c", NULL, 3, "..." },
	{ "x)(y", NULL, 3, "..." },
	{ "", " [seeded]", 3, " [s" },
	{ "verylongname", NULL, 2, ".." },
};

START_TEST(test_cxx_fit)
{
	const char	*in = cxx_cases[_i].in;
	char		 buf[512];
	size_t		 c;

	if (in == NULL)
		in = _i < 5 ? (_i == 3 ? cxx_pm : cxx_pe) : cxx_create;
	c = rbmon_cxxname_fit(buf, sizeof buf, in, cxx_cases[_i].marks,
	    cxx_cases[_i].width, ELL);
	ck_assert_str_eq(buf, cxx_cases[_i].want);
	ck_assert_uint_eq(c, strlen(cxx_cases[_i].want));
	ck_assert_uint_le(c, cxx_cases[_i].width);
}
END_TEST

START_TEST(test_cxx_distinct)
{
	char	a[128], b[128];
	size_t	w;

	/* The two methods read apart at every width that holds a name. */
	for (w = 41; w < 120; w++) {
		rbmon_cxxname_fit(a, sizeof a, cxx_pm, " [inlined]", w, ELL);
		rbmon_cxxname_fit(b, sizeof b, cxx_pe, " [inlined]", w, ELL);
		ck_assert_str_ne(a, b);
		ck_assert_ptr_nonnull(strstr(a, "BackgroundThreadMain"));
		ck_assert_ptr_nonnull(strstr(b, "BackgroundThreadEntryPoint"));
		ck_assert_ptr_nonnull(strstr(a, " [inlined]"));
	}
}
END_TEST

START_TEST(test_cxx_utf8)
{
	char	buf[64];
	size_t	c;

	/* "…" is one column; a small buffer never gets half a character. */
	c = rbmon_cxxname_fit(buf, sizeof buf, "std::deque<int, std::allocator"
	    "<int> >::push_back(int const&)", NULL, 27, RBMON_CXX_ELL_UTF8);
	ck_assert_str_eq(buf, "std::deque<\xe2\x80\xa6>::push_back("
	    "\xe2\x80\xa6)");
	ck_assert_uint_eq(c, 27);
	c = rbmon_cxxname_fit(buf, 6, "std::deque<int>::push_back(int)", NULL,
	    3, RBMON_CXX_ELL_UTF8);
	ck_assert_uint_le(strlen(buf), 5);
	ck_assert_uint_eq(rbmon_cxxname_cols("caf\xc3\xa9"), 4);
	(void)c;
}
END_TEST

START_TEST(test_cxx_gdb)
{
	char	*s = rbmon_cxxname_gdb("std::array<int, 4ul>::at(unsigned long)");

	ck_assert_str_eq(s, "std::array<int, 4>::at(unsigned long)");
	free(s);
	s = rbmon_cxxname_gdb("foo<123456789012ull, 0x1>(a2l)");
	ck_assert_str_eq(s, "foo<123456789012, 0x1>(a2l)");
	free(s);
}
END_TEST

START_TEST(test_cxx_hostile)
{
	static const char *const words[] = { "operator", "::", "<", ">",
	    "(anonymous namespace)", "operator()", "{lambda(int)#1}", "0ul",
	    "(", ")", "[", "]", "{", "}", " ", ",", "a", "\xe2", "\x80",
	    "\xe2\x80\xa6" };
	char		 in[256], out[40];
	unsigned int	 seed = 1;
	size_t		 c, w, k;
	int		 i, n;

	/* Brackets that never pair, stray bytes: within the width, no overrun. */
	for (i = 0; i < 20000; i++) {
		in[0] = '\0';
		n = (int)(rand_r(&seed) % 40);
		while (n-- > 0) {
			k = rand_r(&seed) % (sizeof words / sizeof words[0]);
			if (strlen(in) + strlen(words[k]) < sizeof in)
				strcat(in, words[k]);
		}
		w = rand_r(&seed) % 50;
		c = rbmon_cxxname_fit(out, sizeof out, in, i % 2 ?
		    " [inlined]" : NULL, w, i % 3 ? RBMON_CXX_ELL_ASCII :
		    RBMON_CXX_ELL_UTF8);
		ck_assert_uint_le(c, w);
		ck_assert_uint_eq(c, rbmon_cxxname_cols(out));
		ck_assert_uint_lt(strlen(out), sizeof out);
	}
}
END_TEST

START_TEST(test_cxx_huge)
{
	size_t	 n = 1 << 20, i;
	char	*in = malloc(n + 1), out[128];

	/* A megabyte of brackets is looked at in its first bytes only. */
	ck_assert_ptr_nonnull(in);
	for (i = 0; i < n; i++)
		in[i] = "a<b(c"[i % 5];
	in[n] = '\0';
	ck_assert_uint_le(rbmon_cxxname_fit(out, sizeof out, in, " [inlined]",
	    60, RBMON_CXX_ELL_ASCII), 60);
	ck_assert_ptr_nonnull(strstr(out, " [inlined]"));
	free(in);
}
END_TEST

Suite *
suite_cxxname(void)
{
	Suite	*s = suite_create("cxxname");
	TCase	*tc = tcase_create("fit");

	tcase_add_loop_test(tc, test_cxx_fit, 0,
	    (int)(sizeof cxx_cases / sizeof cxx_cases[0]));
	tcase_add_test(tc, test_cxx_distinct);
	tcase_add_test(tc, test_cxx_utf8);
	tcase_add_test(tc, test_cxx_gdb);
	tcase_add_test(tc, test_cxx_hostile);
	tcase_add_test(tc, test_cxx_huge);
	suite_add_tcase(s, tc);
	return s;
}
