# SPDX-License-Identifier: MIT
# librbtrace: loaded into the traced program.  Never built with
# -finstrument-functions: it runs inside someone else's process.  The
# sanitizers only when configure was asked for them, those for traced
# programs (tests/integration/lib.sh preloads their runtime first).
# (tests/fuzz.mk builds its command handling fuzzer from RB_LIB_BASE.)
RB_LIB_BASE = lib/internal.h lib/env.c lib/log.c lib/clock.c lib/proc.c \
	lib/file.c lib/ring.c lib/objects.c lib/thread.c lib/hooks.c lib/unwind.c \
	lib/init.c lib/attach.c lib/seed.c lib/breakpoint.c lib/capture.c lib/msgarea.c lib/watch.c lib/watch.h \
	$(RB_COMMON_SOURCES)
RB_LIB_BASE += lib/dyn/x86len.c lib/dyn/x86len.h lib/dyn/sites.c lib/dyn/sites.h \
	lib/dyn/patch.c lib/dyn/patch.h lib/dyn/dyn.c lib/dyn/dyn.h lib/dyn/names.c lib/dyn/names.h
RB_LIB_BASE += lib/snapshot.c
RB_LIB_SOURCES = $(RB_LIB_BASE) lib/control.c

lib_LTLIBRARIES += lib/librbtrace.la
lib_librbtrace_la_SOURCES = $(RB_LIB_SOURCES)
lib_librbtrace_la_CFLAGS = -std=gnu11 $(WARN_CFLAGS) -fvisibility=hidden \
	-fno-instrument-functions $(PTHREAD_CFLAGS) $(SAN_AUT_CFLAGS)
lib_librbtrace_la_LDFLAGS = -version-info $(RBTRACE_LT_VERSION) -no-undefined \
	-Wl,--version-script=$(srcdir)/lib/librbtrace.map $(SAN_AUT_LDFLAGS)
EXTRA_lib_librbtrace_la_DEPENDENCIES = lib/librbtrace.map
EXTRA_DIST += lib/librbtrace.map
lib_librbtrace_la_LIBADD = $(PTHREAD_LIBS) -ldl

# The same code for unit tests, with every sanitizer (ThreadSanitizer too).
check_LTLIBRARIES += lib/librbtrace-test.la
lib_librbtrace_test_la_SOURCES = $(RB_LIB_SOURCES)
lib_librbtrace_test_la_CFLAGS = $(AM_CFLAGS) -fno-instrument-functions $(PTHREAD_CFLAGS)
lib_librbtrace_test_la_LIBADD = $(PTHREAD_LIBS) -ldl

# The expression module, dlopen()ed by librbtrace on a process's first
# watch (lib/watch.c): only watched programs load it and libdw.  Its two
# sides: compile.c runs in the watch worker (allocates, locks), eval.c in
# the watched thread at its hooks, which must not: `make check` runs
# tests/hookside.sh on eval.c's object (tests/local.mk).
RB_EXPR_SOURCES = lib/expr/compile.c lib/expr/eval.c lib/expr/expr.h lib/watch.h \
	$(RB_COMMON_DEBUG_SOURCES)
pkglib_LTLIBRARIES += lib/rbtrace-watch.la
lib_rbtrace_watch_la_SOURCES = $(RB_EXPR_SOURCES)
lib_rbtrace_watch_la_CFLAGS = -std=gnu11 $(WARN_CFLAGS) -fvisibility=hidden \
	-fno-instrument-functions $(LIBDW_CFLAGS) $(LIBELF_CFLAGS) $(PTHREAD_CFLAGS) \
	$(SAN_AUT_CFLAGS)
lib_rbtrace_watch_la_LDFLAGS = -module -avoid-version -shared -no-undefined \
	$(SAN_AUT_LDFLAGS)
lib_rbtrace_watch_la_LIBADD = $(LIBDW_LIBS) $(LIBELF_LIBS) $(PTHREAD_LIBS)
