/* SPDX-License-Identifier: MIT */
/* check_util: what rbmon's commands read alike: durations, thread lists. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>

#include "monitor/util/util.h"

Suite	*suite_util(void);

START_TEST(test_duration_units)
{
	static const struct {
		const char	*in;
		uint64_t	 ns;
	} ok[] = {
		{ "0", 0 }, { "000", 0 }, { "0.0", 0 }, { "0s", 0 },
		{ "1ns", 1 }, { "500ns", 500 }, { "10us", 10000 },
		{ "1ms", 1000000 }, { "1.5ms", 1500000 },
		{ "2s", 2000000000ull }, { "0.25s", 250000000 },
		{ "1m", 60000000000ull }, { "1.5m", 90000000000ull },
		{ "12h", 12 * 3600000000000ull },
		{ "7d", 7 * 86400000000000ull },
		{ "1.0000000001s", 1000000000ull },	/* below 1 ns: dropped */
		{ "0.5ns", 0 },
		{ "18446744073709551615ns", UINT64_MAX },
		{ "213503d", 213503 * 86400000000000ull },
	};
	uint64_t	ns;
	size_t		i;

	for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		ns = 12345;
		ck_assert_msg(rbmon_duration_parse(ok[i].in, &ns) ==
		    RBMON_DUR_OK, "%s", ok[i].in);
		ck_assert_msg(ns == ok[i].ns, "%s: %llu, not %llu", ok[i].in,
		    (unsigned long long)ns, (unsigned long long)ok[i].ns);
	}
}
END_TEST

START_TEST(test_duration_refused)
{
	static const struct {
		const char	*in;
		int		 why;
	} bad[] = {
		/* a number without its unit: seconds? nanoseconds? */
		{ "5", RBMON_DUR_BARE }, { "3600", RBMON_DUR_BARE },
		{ "1.5", RBMON_DUR_BARE }, { "0.001", RBMON_DUR_BARE },
		{ "99999999999999999999999", RBMON_DUR_BARE },
		/* past 2^64 - 1 ns */
		{ "18446744073709551616ns", RBMON_DUR_RANGE },
		{ "213504d", RBMON_DUR_RANGE },
		{ "99999999999999999999999s", RBMON_DUR_RANGE },
		{ "18446744073709551615.5ns", RBMON_DUR_OK },
		{ "18446744073.709551616s", RBMON_DUR_RANGE },
		/* not a duration */
		{ "", RBMON_DUR_BAD }, { "s", RBMON_DUR_BAD },
		{ "ms", RBMON_DUR_BAD }, { "-1s", RBMON_DUR_BAD },
		{ "+1s", RBMON_DUR_BAD }, { " 1s", RBMON_DUR_BAD },
		{ "1s ", RBMON_DUR_BAD }, { "1 s", RBMON_DUR_BAD },
		{ "1x", RBMON_DUR_BAD }, { "1y", RBMON_DUR_BAD },
		{ "1S", RBMON_DUR_BAD }, { "1sec", RBMON_DUR_BAD },
		{ "1ss", RBMON_DUR_BAD }, { "1.s", RBMON_DUR_BAD },
		{ ".5s", RBMON_DUR_BAD }, { "1.2.3s", RBMON_DUR_BAD },
		{ "1e3ms", RBMON_DUR_BAD }, { "0x10s", RBMON_DUR_BAD },
		{ "inf", RBMON_DUR_BAD }, { "nan", RBMON_DUR_BAD },
		{ "infs", RBMON_DUR_BAD }, { "1ms5", RBMON_DUR_BAD },
		{ "1\xc2\xb5s", RBMON_DUR_BAD },
	};
	uint64_t	ns;
	size_t		i;
	int		r;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ns = 12345;
		r = rbmon_duration_parse(bad[i].in, &ns);
		ck_assert_msg(r == bad[i].why, "'%s': %d, not %d", bad[i].in, r,
		    bad[i].why);
		if (r != RBMON_DUR_OK)
			ck_assert_msg(ns == 12345, "'%s' set its result",
			    bad[i].in);
	}
}
END_TEST

/* What a child that calls @f with @arg writes to stderr, and its status. */
static char *
util_child(void (*f)(const char *), const char *arg, int *status)
{
	static char	buf[512];
	ssize_t		n;
	size_t		len = 0;
	pid_t		pid;
	int		p[2];

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(p[1], STDERR_FILENO);
		close(p[0]);
		f(arg);
		_exit(99);
	}
	close(p[1]);
	while ((n = read(p[0], buf + len, sizeof buf - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	close(p[0]);
	ck_assert_int_eq(waitpid(pid, status, 0), pid);
	return buf;
}

static void
util_bare_min(const char *arg)
{
	rbmon_duration_bare(NULL, "--min", arg, "ms");
}

static void
util_bare_cmd(const char *arg)
{
	rbmon_duration_bare("replay", "--min", arg, "us");
}

START_TEST(test_duration_bare_message)
{
	char	*err;
	int	 status;

	err = util_child(util_bare_min, "5", &status);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 2);
	ck_assert_str_eq(err, "rbmon: --min 5: a duration needs a unit (ns, us, "
	    "ms, s, m, h, d), as in 5ms\nTry 'rbmon --help'.\n");
	err = util_child(util_bare_cmd, "1.5", &status);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 2);
	ck_assert_str_eq(err, "rbmon replay: --min 1.5: a duration needs a unit "
	    "(ns, us, ms, s, m, h, d), as in 1.5us\n"
	    "Try 'rbmon replay --help'.\n");
}
END_TEST

static void
util_tids_bad(const char *arg)
{
	struct rbmon_tids	t = { NULL, 0 };

	rbmon_cmd_parse_tids("hot", arg, &t);
}

START_TEST(test_tids)
{
	struct rbmon_tids	 t = { NULL, 0 };
	char			*err;
	int			 status;

	rbmon_cmd_parse_tids("replay", "12,7,,9", &t);
	ck_assert_uint_eq(t.n, 3);
	ck_assert(t.v[0] == 12 && t.v[1] == 7 && t.v[2] == 9);
	ck_assert(rbmon_cmd_tid_wanted(&t, 7));
	ck_assert(!rbmon_cmd_tid_wanted(&t, 8));
	free(t.v);
	t.v = NULL;
	t.n = 0;
	ck_assert(rbmon_cmd_tid_wanted(&t, 8));	/* none: every thread */
	err = util_child(util_tids_bad, "3,x", &status);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 2);
	ck_assert_str_eq(err, "rbmon hot: invalid thread id 'x'\n"
	    "Try 'rbmon hot --help'.\n");
	err = util_child(util_tids_bad, ",", &status);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 2);
	ck_assert_str_eq(err, "rbmon hot: no thread id in ','\n"
	    "Try 'rbmon hot --help'.\n");
}
END_TEST

Suite *
suite_util(void)
{
	Suite	*s = suite_create("util");
	TCase	*tc = tcase_create("util");

	tcase_add_test(tc, test_duration_units);
	tcase_add_test(tc, test_duration_refused);
	tcase_add_test(tc, test_duration_bare_message);
	tcase_add_test(tc, test_tids);
	suite_add_tcase(s, tc);
	return s;
}
