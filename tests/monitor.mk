# SPDX-License-Identifier: MIT
# tests/check_monitor: Check unit tests of rbmon's model, symbols, dump,
# breakpoints, the kernel's view of threads, the view under the
# interactive screen, its key table, its line editor, its reading of
# recordings, the calls engine that rebuilds calls from records, and what
# its commands read alike (durations, thread lists).
if HAVE_CHECK
check_PROGRAMS += tests/check_monitor
TESTS += tests/check_monitor
endif
tests_check_monitor_SOURCES = tests/check_monitor_main.c tests/check_model.c \
	tests/check_keytab.c tests/check_taskstat.c tests/tasks.h tests/check_edit.c \
	tests/check_view.c tests/check_breakpoint.c tests/check_escape.c \
	tests/check_recfile.c tests/check_util.c tests/check_calls.c \
	tests/check_cxxname.c tests/check_latency.c
tests_check_monitor_CPPFLAGS = $(AM_CPPFLAGS)
tests_check_monitor_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(LIBDW_CFLAGS) \
	$(LIBELF_CFLAGS) $(LIBBSD_CFLAGS) $(PTHREAD_CFLAGS)
tests_check_monitor_LDADD = monitor/libmonitor.la $(CHECK_LIBS) \
	$(LIBDW_LIBS) $(LIBELF_LIBS) $(LIBBSD_LIBS) $(DEMANGLE_LIBS) \
	$(PTHREAD_LIBS)

# Recordings of given shapes, crafted (tests/mkrec.c), and what every
# reader of recordings makes of large ones: bounded output, linear time.
check_PROGRAMS += tests/mkrec
tests_mkrec_SOURCES = tests/mkrec.c
tests_mkrec_CPPFLAGS = $(AM_CPPFLAGS)
tests_mkrec_CFLAGS = $(AM_CFLAGS) $(LIBDW_CFLAGS) $(LIBELF_CFLAGS) \
	$(LIBBSD_CFLAGS)
tests_mkrec_LDADD = monitor/libmonitor.la $(LIBDW_LIBS) $(LIBELF_LIBS) \
	$(LIBBSD_LIBS) $(DEMANGLE_LIBS)
TESTS += tests/integration/rec-bounds.sh tests/integration/rec-losses.sh
EXTRA_DIST += tests/integration/rec-bounds.sh tests/integration/rec-losses.sh
