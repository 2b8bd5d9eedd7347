/* SPDX-License-Identifier: MIT */
/* tests/tasks.h - for the unit tests that count this process's threads. */
#ifndef RB_TESTS_TASKS_H
#define RB_TESTS_TASKS_H

#include <dirent.h>

#include <check.h>

/*
 * This process's threads as /proc/self/task lists them: the reference for
 * a count (a sanitizer's runtime may run threads of its own).
 */
static unsigned
task_count(void)
{
	struct dirent	*d;
	DIR		*dir = opendir("/proc/self/task");
	unsigned	 n = 0;

	ck_assert_ptr_nonnull(dir);
	while ((d = readdir(dir)) != NULL)
		n += d->d_name[0] != '.';
	closedir(dir);
	return n;
}

#endif /* RB_TESTS_TASKS_H */
