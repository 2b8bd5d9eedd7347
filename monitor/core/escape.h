/* SPDX-License-Identifier: MIT */
/* rbmon escape: in util (monitor/util/escape.h), shared by every room. */
#ifndef RBMON_ESCAPE_H
#define RBMON_ESCAPE_H

#include "monitor/util/escape.h"

#endif /* RBMON_ESCAPE_H */
