# SPDX-License-Identifier: MIT
# common: code that the library (lib/) and the monitor (monitor/) both
# need, written once and compiled into each with that side's flags (in the
# library: hidden, never instrumented, the traced program's sanitizers).
# Sources include their headers as "common/NAME.h".
RB_COMMON_SOURCES = \
	common/atomic.h \
	common/bootid.c common/bootid.h \
	common/capspec.c common/capspec.h \
	common/clock.h \
	common/defs.h \
	common/evlog.c common/evlog.h \
	common/futex.c common/futex.h \
	common/mindur.c common/mindur.h \
	common/namematch.c common/namematch.h \
	common/procstat.c common/procstat.h \
	common/snap.c common/snap.h \
	common/tracepath.c common/tracepath.h

# What rbmon and the launcher share, and the library has no use for.
RB_COMMON_TOOL_SOURCES = \
	common/outfile.c common/outfile.h

# An object's separate debug file (libdw): rbmon's stacks and the
# library's watches (lib/expr/compile.c) find and check it alike.
RB_COMMON_DEBUG_SOURCES = \
	common/debugfile.c common/debugfile.h
