/* SPDX-License-Identifier: MIT */
/* perm.h - may this process be attached to, and if not, why not. */
#ifndef RBTRACE_PERM_H
#define RBTRACE_PERM_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

void	rb_perm_why(pid_t pid, char *err, size_t errlen);
int	rb_perm_check(pid_t pid, pid_t tid, char *err, size_t errlen);
int	rb_perm_check_exe(pid_t pid, char *err, size_t errlen);
int	rb_perm_lib_resolve(pid_t pid, const char *lib, char *abs,
	    struct stat *sb, char *err, size_t errlen);

#endif
