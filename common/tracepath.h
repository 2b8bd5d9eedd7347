/* SPDX-License-Identifier: MIT */
/*
 * tracepath.h - trace file paths as the library, the launcher and rbmon
 * spell them (they must agree: the launcher and rbmon look where the
 * library writes).
 */
#ifndef RB_COMMON_TRACEPATH_H
#define RB_COMMON_TRACEPATH_H

#include <stddef.h>
#include <sys/types.h>

#include "common/defs.h"

#define RB_TRACE_DIR_DEFAULT	"/tmp"

RB_HIDDEN void rb_progname(const char *path, char *out, size_t size);
RB_HIDDEN void rb_exe_progname(const char *exe, char *out, size_t size);
RB_HIDDEN int rb_path_absolute(const char *path, char *out, size_t size);
RB_HIDDEN const char *rb_trace_dir(const char *tmpdir);
RB_HIDDEN int rb_trace_path(char *out, size_t size, const char *tmpdir,
			    const char *program, pid_t pid);

#endif /* RB_COMMON_TRACEPATH_H */
