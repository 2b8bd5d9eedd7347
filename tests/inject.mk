# SPDX-License-Identifier: MIT
# tests/inject.mk: loading a library into a running process and calling it
# (tools/inject.c), included from tests/local.mk.  inject-run drives it;
# libinjectee.so is what gets loaded, victim what it is loaded into; the
# test is tests/integration/inject.sh.
check_PROGRAMS += tests/apps/inject-run tests/apps/victim
tests_apps_inject_run_SOURCES = tests/apps/inject-run.c tools/inject.c tools/inject.h \
	tools/elfsym.c tools/elfsym.h tools/perm.c tools/perm.h \
	tools/proc.c tools/proc.h common/escape.c common/escape.h
tests_apps_inject_run_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_apps_inject_run_LDADD = $(LIBELF_LIBS)
# Neither instrumented nor sanitized: the registers and FP state it checks
# are its own; optimised, so that its sums live in registers.
tests_apps_victim_SOURCES = tests/apps/victim.c tests/apps/app.h
tests_apps_victim_CFLAGS = $(WARN_CFLAGS) -g -O2 $(PTHREAD_CFLAGS)
tests_apps_victim_LDFLAGS = $(PTHREAD_LIBS)
check_LTLIBRARIES += tests/apps/libinjectee.la
tests_apps_libinjectee_la_SOURCES = tests/apps/injectee.c
tests_apps_libinjectee_la_CFLAGS = $(WARN_CFLAGS) -g -O1 -fno-omit-frame-pointer
tests_apps_libinjectee_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere

TESTS += tests/integration/inject.sh
EXTRA_DIST += tests/integration/inject.sh
