/* SPDX-License-Identifier: MIT */
/* check_escape: the one way rbmon shows bytes from a file or a program. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "monitor/util/escape.h"

Suite	*suite_escape(void);

static char *
esc_write(const char *s, int flags)
{
	char	*buf = NULL;
	size_t	 len = 0;
	FILE	*f = open_memstream(&buf, &len);

	rbmon_esc_write(f, s, flags);
	fclose(f);
	return buf;
}

START_TEST(test_esc_forms)
{
	static const struct {
		const char	*in, *want;
	} t[] = {
		{ "plain text", "plain text" },
		{ "a\\b", "a\\b" },			/* a backslash stays one */
		{ "\n\t\r", "\\n\\t\\r" },
		{ "\033]2;x\a\033[2J", "\\x1b]2;x\\x07\\x1b[2J" },
		{ "\x01\x1f\x7f", "\\x01\\x1f\\x7f" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
		{ "\xc2\x80\xc2\x85\xc2\x9b\xc2\x9f\xc2\xa0",	/* C1, then NBSP */
		    "\\u0080\\u0085\\u009b\\u009f\xc2\xa0" },
		{ "\xe2\x80\xae\xe2\x81\xa6\xe2\x80\xa8",	/* RLO, LRI, LS */
		    "\\u202e\\u2066\\u2028" },
		{ "\x9b", "\\x9b" },				/* 8-bit CSI */
		{ "a\xff" "b", "a\\xffb" },
		{ "\xc0\xaf", "\\xc0\\xaf" },			/* overlong */
		{ "\xed\xa0\x80", "\\xed\\xa0\\x80" },		/* surrogate */
		{ "x\xe2\x82", "x\\xe2\\x82" },			/* cut short */
		{ "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80" },	/* > U+10FFFF */
	};
	char	*got;
	size_t	 i;

	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		got = esc_write(t[i].in, 0);
		ck_assert_msg(strcmp(got, t[i].want) == 0, "%zu: got \"%s\"",
		    i, got);
		free(got);
		got = rbmon_esc_dup(t[i].in);
		ck_assert_str_eq(got, t[i].want);
		free(got);
	}
}
END_TEST

START_TEST(test_esc_flags)
{
	char	buf[RBMON_ESC_MAX], *got;

	got = esc_write("a\nb\033c", RBMON_ESC_NL);
	ck_assert_str_eq(got, "a\nb\\x1bc");
	free(got);
	got = esc_write("caf\xc3\xa9\xc2\x9b", RBMON_ESC_ASCII);
	ck_assert_str_eq(got, "caf?\\u009b");
	free(got);
	ck_assert_uint_eq(rbmon_esc_next("\xf0\x9f\x98\x80z", 0, buf), 4);
	ck_assert_str_eq(buf, "\xf0\x9f\x98\x80");
	ck_assert_uint_eq(rbmon_esc_next("\xf0\x9f\x98\x80z",
	    RBMON_ESC_ASCII, buf), 4);
	ck_assert_str_eq(buf, "?");
	ck_assert_uint_eq(rbmon_esc_next("", 0, buf), 0);
	ck_assert_str_eq(buf, "");
	got = esc_write(NULL, 0);
	ck_assert_str_eq(got, "");
	free(got);
}
END_TEST

START_TEST(test_esc_line)
{
	char	*buf = NULL;
	size_t	 len = 0;
	FILE	*f = open_memstream(&buf, &len);

	rbmon_esc_line(f, "rbmon: %s: %d", "x\ny\033[2J", 7);
	fclose(f);
	ck_assert_str_eq(buf, "rbmon: x\\ny\\x1b[2J: 7\n");	/* one line */
	free(buf);
}
END_TEST

Suite *
suite_escape(void)
{
	Suite	*s = suite_create("escape");
	TCase	*tc = tcase_create("escape");

	tcase_add_test(tc, test_esc_forms);
	tcase_add_test(tc, test_esc_flags);
	tcase_add_test(tc, test_esc_line);
	suite_add_tcase(s, tc);
	return s;
}
