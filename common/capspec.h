/* SPDX-License-Identifier: MIT */
/*
 * capspec.h - "FUNC>DURATION" and "FUNC>max", the condition of a capture
 * of slow calls (rbtrace(5), "CAPTURES"), as rbtrace --capture, the
 * library's RBTRACE_CAPTURE and rbmon's CAPT command take it.
 */
#ifndef RB_COMMON_CAPSPEC_H
#define RB_COMMON_CAPSPEC_H

#include <stddef.h>
#include <stdint.h>

#include "common/defs.h"

RB_HIDDEN int	rb_capspec_parse(const char *spec, char *name, size_t size,
		    uint64_t *ns, uint32_t *flags);

#endif /* RB_COMMON_CAPSPEC_H */
