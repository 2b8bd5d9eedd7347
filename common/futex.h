/* SPDX-License-Identifier: MIT */
/*
 * futex.h - the futex calls of both sides.  The words of the trace file are
 * shared between processes (MAP_SHARED): they take the plain operations;
 * a process's own words take the _PRIVATE ones.  Async-signal-safe: one
 * system call each, no allocation.
 */
#ifndef RB_COMMON_FUTEX_H
#define RB_COMMON_FUTEX_H

#include <stdint.h>

#include "common/defs.h"
#include "rbtrace/format.h"

#define RB_FUTEX_FOREVER	UINT64_MAX	/* a wait without a time limit */

RB_HIDDEN void rb_futex_wake(void *addr);
RB_HIDDEN void rb_futex_wait(void *addr, uint32_t val, uint64_t ns);
RB_HIDDEN void rb_futex_wake_private(void *addr, int n);
RB_HIDDEN void rb_futex_wait_private(void *addr, uint32_t val, uint64_t ns);
RB_HIDDEN void rb_ring_wake(struct rb_ring *r);

#endif /* RB_COMMON_FUTEX_H */
