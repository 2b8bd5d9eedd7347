/* SPDX-License-Identifier: MIT */
/* check_lib_main.c - runs the library's unit tests; each test in its own process. */
#include "config.h"

#include <check.h>
#include <stdlib.h>

#include "check_lib.h"

#if defined(__SANITIZE_THREAD__)
#define CHECK_LIB_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CHECK_LIB_TSAN 1
#endif
#endif

#ifdef CHECK_LIB_TSAN
const char *__tsan_default_options(void);

/*
 * A fork child of a traced process starts its own watch worker thread
 * (rbtrace(5)), which ThreadSanitizer refuses after a multi-threaded fork
 * unless told; TSAN_OPTIONS still wins.
 */
const char *__tsan_default_options(void)
{
	return "die_after_fork=0";
}
#endif

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
