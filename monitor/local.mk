# SPDX-License-Identifier: MIT
# monitor: rbmon, in rooms (HACKING.md has the map), each including only
# those above it in this list (tests/deps.sh checks it):
#   util/     what every room shares: allocation, the escaper, usage
#             errors, numbers, thread lists, durations, the options of the
#             trace-file commands; includes only common/
#   core/     the reader core: a trace file opened without trusting it, its
#             threads, stacks and symbols, the kernel's view, control and
#             breakpoints, the dumps; no curses
#   history/  the history half: recordings (the recorder, the file), the
#             calls engine that rebuilds calls from a recording or a live
#             event log, the event log as a graph, what reading a
#             recording back needs, each export writer in its file, the
#             sampler; no curses
#   screen/   the interactive monitor: curses (tty, tui*) and the pieces
#             of it that need none (key table, line editor, line history)
#   cmd/      the commands, one file each (rbmon_cmd_X in cmd.h), run by
#             rbmon.c's table; a command includes no other command
# libmonitor.la holds everything without curses, for rbmon and the tests;
# the live view's command (cmd/live.c) is rbmon's own.
noinst_LTLIBRARIES += monitor/libmonitor.la
monitor_libmonitor_la_SOURCES = \
	common/strl.h \
	monitor/core/model.c monitor/core/model.h \
	monitor/core/dyn.c monitor/core/dyn.h \
	monitor/core/symbols.c monitor/core/symbols.h \
	monitor/core/stack.c monitor/core/stack.h \
	monitor/core/dump.c monitor/core/dump.h \
	monitor/util/alloc.c monitor/util/alloc.h \
	monitor/util/util.c monitor/util/util.h \
	monitor/util/escape.c monitor/util/escape.h \
	monitor/util/cxxname.c monitor/util/cxxname.h \
	monitor/util/opts.c monitor/util/opts.h \
	monitor/core/safeio.c monitor/core/safeio.h \
	monitor/core/taskstat.c monitor/core/taskstat.h \
	monitor/core/discover.c monitor/core/discover.h \
	monitor/core/view.c monitor/core/view.h \
	monitor/core/control.c monitor/core/control.h \
	monitor/core/breakpoint.c monitor/core/breakpoint.h \
	monitor/core/capture.c monitor/core/capture.h \
	monitor/history/events.c monitor/history/events.h \
	monitor/history/recfile.c monitor/history/recfile.h \
	monitor/history/record.c monitor/history/record.h \
	monitor/history/snap.c monitor/history/snap.h \
	monitor/history/calls.c monitor/history/calls.h \
	monitor/history/losses.c monitor/history/losses.h \
	monitor/history/hookcost.c monitor/history/hookcost.h \
	monitor/history/walk.c monitor/history/walk.h \
	monitor/history/readback.c monitor/history/readback.h \
	monitor/history/export.h \
	monitor/history/chrome.c monitor/history/folded.c \
	monitor/history/speedscope.c monitor/history/estimate.c \
	monitor/history/profile.c monitor/history/profile.h \
	monitor/history/perfetto.c monitor/history/perfetto.h \
	monitor/history/latency.c monitor/history/latency.h \
	monitor/cmd/cmd.h \
	monitor/cmd/replay.c monitor/cmd/report.c monitor/cmd/hot.c \
	monitor/cmd/export.c monitor/cmd/profile.c monitor/cmd/latency.c \
	monitor/cmd/dump.c monitor/cmd/events.c monitor/cmd/send.c \
	monitor/cmd/record.c monitor/cmd/list.c monitor/cmd/prune.c \
	monitor/cmd/snapshot.c \
	monitor/cmd/captures.c \
	monitor/screen/keys.h \
	monitor/screen/keytab.c monitor/screen/keytab.h \
	monitor/screen/edit.c monitor/screen/edit.h \
	monitor/screen/linehist.c monitor/screen/linehist.h \
	$(RB_COMMON_SOURCES) $(RB_COMMON_TOOL_SOURCES) $(RB_COMMON_DEBUG_SOURCES)
monitor_libmonitor_la_CFLAGS = $(AM_CFLAGS) $(LIBDW_CFLAGS) $(LIBELF_CFLAGS) \
	$(LIBBSD_CFLAGS)
monitor_libmonitor_la_LIBADD = $(LIBDW_LIBS) $(LIBELF_LIBS) $(LIBBSD_LIBS) \
	$(DEMANGLE_LIBS)

bin_PROGRAMS += rbmon
rbmon_SOURCES = monitor/rbmon.c \
	monitor/cmd/live.c \
	monitor/screen/tty.c monitor/screen/tty.h \
	monitor/screen/tui.c monitor/screen/tui.h monitor/screen/tuimodes.h \
	monitor/screen/tuimain.c \
	monitor/screen/tuidraw.c monitor/screen/tuidraw.h \
	monitor/screen/tuihelp.c \
	monitor/screen/tuisearch.c \
	monitor/screen/tuiprompt.c \
	monitor/screen/tuiblist.c \
	monitor/screen/tuidlist.c \
	monitor/screen/tuicap.c \
	monitor/screen/tuitext.c \
	monitor/screen/tuihist.c \
	monitor/screen/tuitop.c \
	monitor/screen/tuilat.c \
	monitor/screen/tuictl.c monitor/screen/tuictl.h \
	monitor/screen/tuiwatch.c monitor/screen/tuiwatch.h \
	monitor/screen/pick.c
rbmon_CFLAGS = $(AM_CFLAGS) $(NCURSESW_CFLAGS) $(LIBDW_CFLAGS) \
	$(LIBELF_CFLAGS) $(LIBBSD_CFLAGS)
rbmon_LDADD = monitor/libmonitor.la $(NCURSESW_LIBS) $(LIBDW_LIBS) \
	$(LIBELF_LIBS) $(LIBBSD_LIBS) $(DEMANGLE_LIBS)
