/* check_lib_main.c - runs the library's unit tests; each test in its own process. */
#include "config.h"

#include <check.h>
#include <stdlib.h>

#include "check_lib.h"

int main(void)
{
	SRunner *sr = srunner_create(suite_lib());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
