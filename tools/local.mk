# SPDX-License-Identifier: MIT
# rbtrace: the launcher.
bin_PROGRAMS += rbtrace
rbtrace_SOURCES = tools/rbtrace.c tools/progcheck.c tools/progcheck.h \
	tools/attach.c tools/attach.h tools/inject.c tools/inject.h \
	tools/elfsym.c tools/elfsym.h tools/perm.c tools/perm.h \
	tools/proc.c tools/proc.h \
	common/tracepath.c common/tracepath.h \
	common/evlog.c common/evlog.h common/futex.c common/futex.h \
	common/escape.c common/escape.h \
	common/capspec.c common/capspec.h \
	common/mindur.c common/mindur.h \
	$(RB_COMMON_TOOL_SOURCES) \
	common/defs.h
rbtrace_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
rbtrace_LDADD = $(LIBELF_LIBS)
