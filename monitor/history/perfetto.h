/* SPDX-License-Identifier: MIT */
/*
 * rbmon perfetto: a recording as Perfetto's own trace format, a protobuf
 * Trace of TrackEvent packets (rbmon export --perfetto).
 */
#ifndef RBMON_PERFETTO_H
#define RBMON_PERFETTO_H

#include <stddef.h>
#include <stdio.h>

#include "monitor/history/walk.h"

void	rbmon_perfetto_write(struct rbwalk_ctx *, FILE *, const long *, size_t);

#endif /* RBMON_PERFETTO_H */
