# SPDX-License-Identifier: MIT
# tests/names.mk: function names and patterns (common/namematch.c), and
# the functions they name in a live process (lib/dyn/names.c).
#
# check_namematch: the exact rule, globs, the split of a list, and
# rb_names_match() on its own functions and on a dlopen()ed C++ object
# (tests/names/cxx.cc, a copy of it replaced by corrupt files under it).
# Each address is checked against dlsym() or the function's own.
check_LTLIBRARIES += tests/names/libnamescxx.la
tests_names_libnamescxx_la_SOURCES = tests/names/cxx.cc
tests_names_libnamescxx_la_CXXFLAGS = -O0 -g $(SAN_AUT_CFLAGS)
tests_names_libnamescxx_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere \
	$(SAN_AUT_LDFLAGS)

# lib/dyn/names.c as a shared object of its own, as in librbtrace: the
# object it is in is never searched, and the program's own functions are.
check_LTLIBRARIES += tests/names/libnamestest.la
tests_names_libnamestest_la_SOURCES = lib/dyn/names.c lib/dyn/names.h \
	common/namematch.c common/namematch.h
tests_names_libnamestest_la_CFLAGS = $(AM_CFLAGS) -fno-instrument-functions
tests_names_libnamestest_la_LDFLAGS = -shared -avoid-version -rpath /nowhere \
	$(SAN_AUT_LDFLAGS)
tests_names_libnamestest_la_LIBADD = -ldl

if HAVE_CHECK
check_PROGRAMS += tests/check_namematch
TESTS += tests/check_namematch
endif
tests_check_namematch_SOURCES = tests/check_namematch.c common/namematch.c \
	common/namematch.h lib/dyn/names.h
tests_check_namematch_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) -fno-instrument-functions \
	-DRB_TEST_NAMES_CXX='"$(abs_top_builddir)/tests/names/.libs/libnamescxx.so"'
EXTRA_tests_check_namematch_DEPENDENCIES = tests/names/libnamescxx.la
tests_check_namematch_LDADD = tests/names/libnamestest.la $(CHECK_LIBS) -ldl
