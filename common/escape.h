/* SPDX-License-Identifier: MIT */
/*
 * escape.h - paths and names in the launcher's messages: every byte
 * outside printable ASCII escaped (rbmon's own rule, which keeps UTF-8, is
 * monitor/util/escape.c).
 */
#ifndef RB_COMMON_ESCAPE_H
#define RB_COMMON_ESCAPE_H

#include <stddef.h>

#include "common/defs.h"

RB_HIDDEN void rb_escape(const char *s, char *out, size_t size);

#endif /* RB_COMMON_ESCAPE_H */
