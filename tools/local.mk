# rbtrace: the launcher.
bin_PROGRAMS += rbtrace
rbtrace_SOURCES = tools/rbtrace.c
