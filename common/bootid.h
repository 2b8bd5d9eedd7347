/* SPDX-License-Identifier: MIT */
/* bootid.h - this boot's id, which the file records to tell its clocks apart. */
#ifndef RB_COMMON_BOOTID_H
#define RB_COMMON_BOOTID_H

#include <stddef.h>

#include "common/defs.h"

RB_HIDDEN int rb_boot_id_read(char *out, size_t size);

#endif /* RB_COMMON_BOOTID_H */
