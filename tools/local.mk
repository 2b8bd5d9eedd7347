# rbtrace: the launcher.
bin_PROGRAMS += rbtrace
rbtrace_SOURCES = tools/rbtrace.c common/tracepath.c common/tracepath.h \
	common/defs.h
