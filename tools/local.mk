# rbtrace: the launcher.
bin_PROGRAMS += rbtrace
rbtrace_SOURCES = tools/rbtrace.c common/tracepath.c common/tracepath.h \
	common/evlog.c common/evlog.h \
	common/defs.h
