/* SPDX-License-Identifier: MIT */
/* check_monitor: runs rbmon's unit test suites. */
#include "config.h"

#include <stdlib.h>

#include <check.h>

Suite	*suite_model(void);
Suite	*suite_view(void);
Suite	*suite_breakpoint(void);
Suite	*suite_escape(void);
Suite	*suite_keytab(void);
Suite	*suite_taskstat(void);
Suite	*suite_edit(void);
Suite	*suite_recfile(void);
Suite	*suite_util(void);
Suite	*suite_calls(void);
Suite	*suite_cxxname(void);
Suite	*suite_latency(void);

int
main(void)
{
	SRunner	*sr;
	int	 failed;

	sr = srunner_create(suite_model());
	srunner_add_suite(sr, suite_view());
	srunner_add_suite(sr, suite_breakpoint());
	srunner_add_suite(sr, suite_escape());
	srunner_add_suite(sr, suite_keytab());
	srunner_add_suite(sr, suite_taskstat());
	srunner_add_suite(sr, suite_edit());
	srunner_add_suite(sr, suite_recfile());
	srunner_add_suite(sr, suite_util());
	srunner_add_suite(sr, suite_calls());
	srunner_add_suite(sr, suite_cxxname());
	srunner_add_suite(sr, suite_latency());
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
