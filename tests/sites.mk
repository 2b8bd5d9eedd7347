# SPDX-License-Identifier: MIT
# tests/sites.mk: the site table of dynamic tracing (lib/dyn/).
#
# check_sites: the decoder's odd cases, the table of its own instrumented
# code (tests/sites/instr.c, calling the hooks check_sites defines), and a
# corrupt cache ignored.  sitesdump prints a file's table or instruction
# starts; tests/sites.sh compares both with objdump over programs built by
# gcc and clang, PIE or not, with and without -fno-plt, C and C++, and
# over the C library.
RB_SITES_SOURCES = lib/dyn/x86len.c lib/dyn/x86len.h lib/dyn/sites.c lib/dyn/sites.h

check_LTLIBRARIES += tests/sites/libinstr.la
tests_sites_libinstr_la_SOURCES = tests/sites/instr.c
tests_sites_libinstr_la_CFLAGS = -O2 -finstrument-functions
tests_sites_libinstr_la_LDFLAGS = -static

# dlopen()ed by check_sites: its table read from memory as ld.so left it.
check_LTLIBRARIES += tests/sites/libsitesplug.la
tests_sites_libsitesplug_la_SOURCES = tests/sites/plug.c
tests_sites_libsitesplug_la_CFLAGS = -O2 -finstrument-functions
tests_sites_libsitesplug_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere

if HAVE_CHECK
check_PROGRAMS += tests/check_sites
TESTS += tests/check_sites
endif
tests_check_sites_SOURCES = tests/check_sites.c $(RB_SITES_SOURCES)
tests_check_sites_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) -fno-instrument-functions \
	-DRB_TEST_SITES_PLUG='"$(abs_top_builddir)/tests/sites/.libs/libsitesplug.so"'
tests_check_sites_LDFLAGS = -rdynamic
EXTRA_tests_check_sites_DEPENDENCIES = tests/sites/libsitesplug.la
tests_check_sites_LDADD = tests/sites/libinstr.la $(CHECK_LIBS) -ldl

check_PROGRAMS += tests/sites/sitesdump
tests_sites_sitesdump_SOURCES = tests/sites/sitesdump.c $(RB_SITES_SOURCES)
tests_sites_sitesdump_CFLAGS = $(AM_CFLAGS) -O2 -fno-instrument-functions

TESTS += tests/sites.sh
EXTRA_DIST += tests/sites.sh tests/sites/prog.c tests/sites/prog.cc tests/sites/hooks.c \
	tests/sites/objdump-sites.awk
