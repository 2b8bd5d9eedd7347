# SPDX-License-Identifier: MIT
# tests/objects.mk: objects loaded by dlopen(), C++ names, thread names,
# and the explicit API in a program linked with -lrbtrace.
check_LTLIBRARIES += tests/apps/libplugin.la
tests_apps_libplugin_la_SOURCES = tests/apps/plugin.c
tests_apps_libplugin_la_CFLAGS = $(INTEGRATION_APP_CFLAGS)
# -rpath makes libtool build a real shared object, never installed
tests_apps_libplugin_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere \
	$(SAN_AUT_LDFLAGS)

check_PROGRAMS += tests/apps/dlopener tests/apps/cxx tests/apps/renamer tests/apps/named \
	tests/apps/cxxnames
# The two linked with -lrbtrace are built -no-install: the programs
# themselves, found where the tests run them, not libtool's wrapper
# scripts, which would run the shell, sed and ls under the environment
# (LD_PRELOAD, the sanitizers' options) a test gives the program.
# Calls known exactly, named frames and line marks too (events*.sh).
check_PROGRAMS += tests/apps/evseq
tests_apps_evseq_SOURCES = tests/apps/evseq.c tests/apps/app.h
tests_apps_evseq_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_evseq_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS) -no-install
tests_apps_evseq_LDADD = lib/librbtrace.la
# Hooks counted exactly per thread, for the recorder's accounting (record-lost.sh).
check_PROGRAMS += tests/apps/evcount
tests_apps_evcount_SOURCES = tests/apps/evcount.c tests/apps/app.h
tests_apps_evcount_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_evcount_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
# Quick calls and slow ones, for the event log's minimum duration (mindur.sh).
check_PROGRAMS += tests/apps/shortcalls
tests_apps_shortcalls_SOURCES = tests/apps/shortcalls.c tests/apps/app.h
tests_apps_shortcalls_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_shortcalls_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
tests_apps_named_SOURCES = tests/apps/named.c
tests_apps_named_LDFLAGS = $(AM_LDFLAGS) -no-install
tests_apps_named_LDADD = lib/librbtrace.la
tests_apps_renamer_SOURCES = tests/apps/renamer.c
tests_apps_renamer_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_renamer_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
tests_apps_dlopener_SOURCES = tests/apps/dlopener.c
tests_apps_dlopener_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_dlopener_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
tests_apps_dlopener_LDADD = -ldl
tests_apps_cxx_SOURCES = tests/apps/cxx.cc
tests_apps_cxx_CXXFLAGS = -g -O0 -finstrument-functions -fno-inline $(SAN_AUT_CFLAGS)
tests_apps_cxx_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
tests_apps_cxxnames_SOURCES = tests/apps/cxxnames.cc
tests_apps_cxxnames_CXXFLAGS = -g -O2 -finstrument-functions $(SAN_AUT_CFLAGS)
tests_apps_cxxnames_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)

TESTS += tests/integration/dlopen.sh tests/integration/cxx.sh tests/integration/names.sh \
	tests/integration/cxxnames.sh \
	tests/integration/api.sh tests/integration/events.sh tests/integration/events-life.sh tests/integration/record.sh \
	tests/integration/record-lost.sh tests/integration/record-fail.sh tests/integration/record-blocking.sh \
	tests/integration/hot.sh tests/integration/viewers.sh tests/integration/filters.sh \
	tests/integration/planted.sh tests/integration/hostile-recording.sh
EXTRA_DIST += tests/apps/app.h tests/integration/dlopen.sh tests/integration/cxx.sh tests/integration/names.sh \
	tests/integration/cxxnames.sh \
	tests/integration/api.sh tests/integration/events.sh tests/integration/events-life.sh tests/integration/record.sh \
	tests/integration/record-lost.sh tests/integration/record-fail.sh tests/integration/record-blocking.sh \
	tests/integration/hot.sh tests/apps/hot-main.c tests/apps/hot-leaf.c tests/integration/viewers.sh tests/integration/filters.sh \
	tests/integration/planted.sh tests/integration/hostile-recording.sh

# The event log's minimum duration: short calls taken back.
TESTS += tests/integration/mindur.sh
EXTRA_DIST += tests/integration/mindur.sh
TESTS += tests/integration/hostile-mindur.sh
EXTRA_DIST += tests/integration/hostile-mindur.sh
