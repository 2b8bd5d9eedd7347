# SPDX-License-Identifier: MIT
# tests: Check unit tests and integration tests, all run by `make check`.
TEST_EXTENSIONS = .sh
SH_LOG_COMPILER = $(BASH)

if HAVE_CHECK
check_PROGRAMS += tests/check_lib
TESTS += tests/check_lib
endif
tests_check_lib_SOURCES = tests/check_lib_main.c tests/check_lib.c tests/check_lib.h
tests_check_lib_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(PTHREAD_CFLAGS)
tests_check_lib_LDADD = lib/librbtrace-test.la $(CHECK_LIBS) $(PTHREAD_LIBS)

# The code lib/, monitor/ and tools/ share (common/), compiled here on its own.
if HAVE_CHECK
check_PROGRAMS += tests/check_common
TESTS += tests/check_common
endif
tests_check_common_SOURCES = tests/check_common.c tests/tasks.h $(RB_COMMON_SOURCES) \
	$(RB_COMMON_TOOL_SOURCES)
tests_check_common_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(PTHREAD_CFLAGS)
tests_check_common_LDADD = $(CHECK_LIBS) $(PTHREAD_LIBS)

# The expression module, dlopen()ed as librbtrace does, on this program's
# own variables (hence -g -O0).
if HAVE_CHECK
check_PROGRAMS += tests/check_watch
TESTS += tests/check_watch
endif
tests_check_watch_SOURCES = tests/check_watch.c lib/watch.h
tests_check_watch_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(PTHREAD_CFLAGS) -g -O0 \
	-DRB_TEST_WATCH_MODULE='"$(abs_top_builddir)/lib/.libs/rbtrace-watch.so"' \
	-DRB_TEST_WTLS='"$(abs_top_builddir)/tests/.libs/libwtls.so"'
tests_check_watch_LDADD = $(CHECK_LIBS) $(PTHREAD_LIBS) -ldl
# A thread-local in a dlopen()ed library (dynamic TLS), for check_watch.
check_LTLIBRARIES += tests/libwtls.la
tests_libwtls_la_SOURCES = tests/wtls.c
tests_libwtls_la_CFLAGS = -g -O0 $(SAN_AUT_CFLAGS)
tests_libwtls_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere \
	$(SAN_AUT_LDFLAGS)

# The expression module's hook side imports nothing that allocates or locks.
TESTS += tests/hookside.sh
EXTRA_DIST += tests/hookside.sh

# What may include what: rbmon's rooms, its commands apart, the include
# cycles only where they are meant to be.
TESTS += tests/deps.sh
EXTRA_DIST += tests/deps.sh

# common/, the code the library, the monitor and the launcher share.
if HAVE_CHECK
check_PROGRAMS += tests/check_shared
TESTS += tests/check_shared
endif
tests_check_shared_SOURCES = tests/check_shared.c $(RB_COMMON_SOURCES)
tests_check_shared_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(PTHREAD_CFLAGS)
tests_check_shared_LDADD = $(CHECK_LIBS) $(PTHREAD_LIBS)

# The event log's ring of records: policies and a concurrent reader.
if HAVE_CHECK
check_PROGRAMS += tests/check_evlog
TESTS += tests/check_evlog
endif
tests_check_evlog_SOURCES = tests/check_evlog.c $(RB_COMMON_SOURCES)
tests_check_evlog_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(PTHREAD_CFLAGS) \
	-DRB_EVLOG_TEST_STEPS
tests_check_evlog_LDADD = $(CHECK_LIBS) $(PTHREAD_LIBS)

include $(srcdir)/tests/monitor.mk
include $(srcdir)/tests/integration.mk
include $(srcdir)/tests/inject.mk
AM_TESTS_ENVIRONMENT = $(INTEGRATION_TESTS_ENVIRONMENT)
include $(srcdir)/tests/objects.mk
include $(srcdir)/tests/stacks.mk
include $(srcdir)/tests/sites.mk
include $(srcdir)/tests/dyn.mk
include $(srcdir)/tests/names.mk
include $(srcdir)/tests/latency.mk
include $(srcdir)/tests/capture.mk
# Without Check the unit tests are not built, and make check says why.
if !HAVE_CHECK
check_DATA += rb-check-missing
endif
rb-check-missing:
	@echo "make check: the unit tests need the Check framework: install it (Debian: apt-get install check) and run ./configure again" >&2; exit 1
.PHONY: rb-check-missing
include $(srcdir)/tests/fuzz.mk
AM_TESTS_ENVIRONMENT += $(STACKS_TESTS_ENVIRONMENT)

# A sanitized build (configure --enable-sanitizers): every finding fails
# the test that met it (the unit tests print it in their log, the scripts
# collect their processes' reports, see tests/integration/lib.sh).  The
# options a developer sets come last and win.
SAN_TESTS_ENVIRONMENT = \
	SANITIZERS='$(SANITIZERS)' SAN_RUNTIME='$(SAN_RUNTIME)'; \
	export SANITIZERS SAN_RUNTIME; \
	ASAN_OPTIONS="detect_leaks=1:check_initialization_order=1:strict_init_order=1:detect_invalid_pointer_pairs=1$${ASAN_OPTIONS:+:$$ASAN_OPTIONS}"; \
	UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1$${UBSAN_OPTIONS:+:$$UBSAN_OPTIONS}"; \
	TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1$${TSAN_OPTIONS:+:$$TSAN_OPTIONS}"; \
	export ASAN_OPTIONS UBSAN_OPTIONS TSAN_OPTIONS;
AM_TESTS_ENVIRONMENT += $(SAN_TESTS_ENVIRONMENT)
