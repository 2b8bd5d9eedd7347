# tests/objects.mk: objects loaded by dlopen(), and C++ names.
check_LTLIBRARIES += tests/apps/libplugin.la
tests_apps_libplugin_la_SOURCES = tests/apps/plugin.c
tests_apps_libplugin_la_CFLAGS = $(INTEGRATION_APP_CFLAGS)
# -rpath makes libtool build a real shared object, never installed
tests_apps_libplugin_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere

check_PROGRAMS += tests/apps/dlopener tests/apps/cxx
tests_apps_dlopener_SOURCES = tests/apps/dlopener.c
tests_apps_dlopener_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_dlopener_LDADD = -ldl
tests_apps_cxx_SOURCES = tests/apps/cxx.cc
tests_apps_cxx_CXXFLAGS = -g -O0 -finstrument-functions -fno-inline

TESTS += tests/integration/dlopen.sh tests/integration/cxx.sh
EXTRA_DIST += tests/integration/dlopen.sh tests/integration/cxx.sh
