# SPDX-License-Identifier: MIT
# monitor: rbmon, and libmonitor.la (the model, symbols, dump, discovery and
# the curses-free view)
# that rbmon and the unit tests link.
noinst_LTLIBRARIES += monitor/libmonitor.la
monitor_libmonitor_la_SOURCES = \
	common/strl.h \
	monitor/model.c monitor/model.h \
	monitor/symbols.c monitor/symbols.h \
	monitor/stack.c monitor/stack.h \
	monitor/dump.c monitor/dump.h \
	monitor/events.c monitor/events.h \
	monitor/recfile.c monitor/recfile.h \
	monitor/record.c monitor/record.h \
	monitor/walk.c monitor/walk.h \
	monitor/replay.c monitor/replay.h \
	monitor/profile.c monitor/profile.h \
	monitor/perfetto.c monitor/perfetto.h \
	monitor/escape.c monitor/escape.h \
	monitor/safeio.c monitor/safeio.h \
	monitor/taskstat.c monitor/taskstat.h \
	monitor/discover.c monitor/discover.h \
	monitor/view.c monitor/view.h monitor/keys.h \
	monitor/keytab.c monitor/keytab.h \
	monitor/edit.c monitor/edit.h \
	monitor/history.c monitor/history.h \
	monitor/control.c monitor/control.h \
	monitor/breakpoint.c monitor/breakpoint.h \
	$(RB_COMMON_SOURCES) $(RB_COMMON_TOOL_SOURCES)
monitor_libmonitor_la_CFLAGS = $(AM_CFLAGS) $(LIBDW_CFLAGS) $(LIBELF_CFLAGS) \
	$(LIBBSD_CFLAGS)
monitor_libmonitor_la_LIBADD = $(LIBDW_LIBS) $(LIBELF_LIBS) $(LIBBSD_LIBS) \
	$(DEMANGLE_LIBS)

bin_PROGRAMS += rbmon
rbmon_SOURCES = monitor/rbmon.c \
	monitor/tty.c monitor/tty.h \
	monitor/tui.c monitor/tui.h \
	monitor/tuimain.c monitor/tuimodes.h \
	monitor/tuihelp.c monitor/tuisearch.c monitor/tuiprompt.c \
	monitor/tuiblist.c monitor/tuitext.c monitor/tuihist.c monitor/tuitop.c monitor/tuictl.h monitor/tuiwatch.h \
	monitor/panel.h \
	monitor/tuictl.c \
	monitor/tuiwatch.c \
	monitor/panel.c \
	monitor/pick.c
rbmon_CFLAGS = $(AM_CFLAGS) $(NCURSESW_CFLAGS) $(LIBDW_CFLAGS) \
	$(LIBELF_CFLAGS) $(LIBBSD_CFLAGS)
rbmon_LDADD = monitor/libmonitor.la $(NCURSESW_LIBS) $(LIBDW_LIBS) \
	$(LIBELF_LIBS) $(LIBBSD_LIBS) $(DEMANGLE_LIBS)
