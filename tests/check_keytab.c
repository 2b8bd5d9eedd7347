/* SPDX-License-Identifier: MIT */
/* check_keytab: the one key table, and the bar and help made from it. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "monitor/screen/keytab.h"

static void
bar_text(struct rbmon_bar_item *it, size_t n, char *buf, size_t size)
{
	size_t	i;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		strncat(buf, it[i].key, size - strlen(buf) - 1);
		strncat(buf, it[i].label, size - strlen(buf) - 1);
		if (i + 1 < n)
			strncat(buf, " ", size - strlen(buf) - 1);
	}
}

static int
on_enter(void *arg, enum rbmon_action act)
{
	(void)arg;
	return act == RBMON_ACT_ENTER || act == RBMON_ACT_FREEZE;
}

/* A key means one thing per mode; every action bound has a help line. */
START_TEST(test_keytab_consistent)
{
	const struct rbmon_binding	*t;
	size_t				 n, i, j;

	t = rbmon_keytab_rows(&n);
	ck_assert_uint_gt(n, 40);
	for (i = 0; i < n; i++) {
		int helped = 0;

		ck_assert_int_ne(t[i].act, RBMON_ACT_NONE);
		for (j = 0; j < n; j++) {
			if (j != i && t[j].mode == t[i].mode)
				ck_assert_msg(t[j].key != t[i].key,
				    "key 0x%x bound twice in mode %d (rows %zu, %zu)",
				    (unsigned)t[i].key, t[i].mode, i, j);
			if (t[j].mode == t[i].mode && t[j].help != NULL &&
			    (t[j].act == t[i].act || t[j].pair_with == t[i].act))
				helped = 1;
		}
		ck_assert_msg(helped, "row %zu (action %d) not on the help screen",
		    i, t[i].act);
		ck_assert_int_eq(rbmon_keytab_action(t[i].mode, t[i].key),
		    t[i].act);
	}
	ck_assert_int_eq(rbmon_keytab_action(RBMON_KM_MAIN, 'Z'),
	    RBMON_ACT_NONE);
	ck_assert_int_eq(rbmon_keytab_action(RBMON_KM_MAIN, 'q'),
	    RBMON_ACT_QUIT);
	ck_assert_int_eq(rbmon_keytab_action(RBMON_KM_HELP, 'q'),
	    RBMON_ACT_NONE);
	ck_assert_int_eq(rbmon_keytab_action(RBMON_KM_BLIST, 'd'),
	    RBMON_ACT_BL_DELETE);
	ck_assert_int_eq(rbmon_keytab_action(RBMON_KM_MAIN, 'd'),
	    RBMON_ACT_WATCH_DEL);
}
END_TEST

START_TEST(test_keytab_names)
{
	char	b[16];

	ck_assert_str_eq(rbmon_key_name(RBMON_KEY_F(3), b, sizeof b), "F3");
	ck_assert_str_eq(rbmon_key_name(RBMON_KEY_F(12), b, sizeof b), "F12");
	ck_assert_str_eq(rbmon_key_name(RBMON_CTRL('l'), b, sizeof b), "^L");
	ck_assert_str_eq(rbmon_key_name(' ', b, sizeof b), "Space");
	ck_assert_str_eq(rbmon_key_name('\t', b, sizeof b), "Tab");
	ck_assert_str_eq(rbmon_key_name('\r', b, sizeof b), "Enter");
	ck_assert_str_eq(rbmon_key_name(RBMON_KEY_ESC, b, sizeof b), "Esc");
	ck_assert_str_eq(rbmon_key_name(RBMON_KEY_BTAB, b, sizeof b),
	    "Shift-Tab");
	ck_assert_str_eq(rbmon_key_name(RBMON_KEY_PPAGE, b, sizeof b), "PgUp");
	ck_assert_str_eq(rbmon_key_name('/', b, sizeof b), "/");
	ck_assert_str_eq(rbmon_key_name(0xe9, b, sizeof b), "U+00E9");
	ck_assert_str_eq(rbmon_key_name(RBMON_KEY_UNKNOWN + 5, b, sizeof b),
	    "U+110021");
}
END_TEST

START_TEST(test_keytab_bar)
{
	struct rbmon_bar_item	it[32];
	char			buf[512];
	size_t			n;

	n = rbmon_keytab_bar(RBMON_KM_MAIN, 80, NULL, NULL, it, 32);
	bar_text(it, n, buf, sizeof buf);
	ck_assert_str_eq(buf, "F1Help /Search TabPane EnterStack hHideExited "
	    "SpaceFreeze bBreak wWatch qQuit");
	n = rbmon_keytab_bar(RBMON_KM_MAIN, 100, NULL, NULL, it, 32);
	bar_text(it, n, buf, sizeof buf);
	ck_assert_str_eq(buf, "F1Help /Search TabPane EnterStack hHideExited "
	    "SpaceFreeze +-Delay bBreak wWatch F4Filter F6SortBy qQuit");
	n = rbmon_keytab_bar(RBMON_KM_MAIN, 130, on_enter, NULL, it, 32);
	bar_text(it, n, buf, sizeof buf);
	ck_assert_str_eq(buf, "F1Help /Search TabPane EnterList hHideExited "
	    "SpaceResume +-Delay bBreak wWatch F4Filter F6SortBy pPause cCont "
	    "sStep qQuit");
	/* Clicks: the columns of "F1Help " type F1, "+-Delay" nothing. */
	ck_assert_int_eq(rbmon_keytab_bar_click(it, n, 0), RBMON_KEY_F(1));
	ck_assert_int_eq(rbmon_keytab_bar_click(it, n, 6), RBMON_KEY_F(1));
	ck_assert_int_eq(rbmon_keytab_bar_click(it, n, 7), '/');
	ck_assert_int_eq(rbmon_keytab_bar_click(it, n, (int)(strstr(buf,
	    "+-Delay") - buf) + 2), 0);
	ck_assert_int_eq(rbmon_keytab_bar_click(it, n, (int)(strstr(buf,
	    "qQuit") - buf) + 1), 'q');
	ck_assert_int_eq(rbmon_keytab_bar_click(it, n, (int)strlen(buf) + 5),
	    0);
	/* A bar never overflows the caller's array. */
	ck_assert_uint_eq(rbmon_keytab_bar(RBMON_KM_MAIN, 200, NULL, NULL, it,
	    3), 3);
	n = rbmon_keytab_bar(RBMON_KM_BLIST, 80, NULL, NULL, it, 32);
	bar_text(it, n, buf, sizeof buf);
	ck_assert_str_eq(buf, "ddelete Ddelete all badd rrefresh Up/Downmove");
}
END_TEST

static int
has_line(char **l, size_t n, const char *want)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (strcmp(l[i], want) == 0)
			return 1;
	return 0;
}

START_TEST(test_keytab_help)
{
	char	**l;
	size_t	 n, i;

	n = rbmon_keytab_help(RBMON_KM_MAIN, RBMON_KS_KEYS, &l);
	ck_assert_uint_gt(n, 10);
	ck_assert(has_line(l, n, "  Up/Down, k/j      move in the focused pane"));
	ck_assert(has_line(l, n, "  PgUp/PgDn, ^B/^F  a page up or down"));
	ck_assert(has_line(l, n, "  Home/End, G       first or last row"));
	ck_assert(has_line(l, n, "  +/-, =/_          refresh less or more often"));
	ck_assert(has_line(l, n, "  F1, ?             this help"));
	ck_assert(has_line(l, n, "  q, Q, F10, ^C     quit (the program keeps "
	    "running; if threads are"));
	/* A continued line goes under the text. */
	ck_assert(has_line(l, n, "                    asks whether to resume "
	    "and clear them first)"));
	/* Enter is one key, however many codes the terminal sends for it. */
	ck_assert(has_line(l, n, "  Enter             the selected thread's "
	    "stack; from the stack or the"));
	for (i = 0; i < n; i++) {
		ck_assert(strncmp(l[i], "  ", 2) == 0);
		free(l[i]);
	}
	free(l);
	n = rbmon_keytab_help(RBMON_KM_MAIN, RBMON_KS_WATCH, &l);
	ck_assert(has_line(l, n, "  d                 remove it"));
	ck_assert(has_line(l, n, "  Delete            remove it, with the "
	    "watch pane focused"));
	for (i = 0; i < n; i++)
		free(l[i]);
	free(l);
	ck_assert_uint_eq(rbmon_keytab_help(RBMON_KM_HELP, RBMON_KS_WATCH, &l),
	    0);
	ck_assert_ptr_null(l);
}
END_TEST

Suite *
suite_keytab(void)
{
	Suite	*s = suite_create("keytab");
	TCase	*tc = tcase_create("keytab");

	tcase_add_test(tc, test_keytab_consistent);
	tcase_add_test(tc, test_keytab_names);
	tcase_add_test(tc, test_keytab_bar);
	tcase_add_test(tc, test_keytab_help);
	suite_add_tcase(s, tc);
	return s;
}
