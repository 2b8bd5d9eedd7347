/* SPDX-License-Identifier: MIT */
/*
 * common/mindur.h - the minimum duration of a call kept in the event log
 * (rbtrace(5), "EVENT LOG", "Short calls"): as the library's environment,
 * the launcher and rbmon spell it, and in a file's clock units.
 */
#ifndef RB_COMMON_MINDUR_H
#define RB_COMMON_MINDUR_H

#include <stdint.h>

#include "common/defs.h"

/* The longest minimum duration: one second. */
#define RB_MINDUR_MAX_NS	1000000000ull
/* What the messages say a value must be. */
#define RB_MINDUR_WORDS		"0 or a whole number of ns, us, ms or s up to 1s"

RB_HIDDEN int	 rb_mindur_parse(const char *, uint64_t *);
RB_HIDDEN uint64_t rb_mindur_units(uint32_t, uint64_t, uint64_t);

#endif /* RB_COMMON_MINDUR_H */
