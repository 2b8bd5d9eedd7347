# SPDX-License-Identifier: MIT
# tests/fuzz.mk: fuzz targets (tests/fuzz/), included from tests/local.mk.
#
# Each target TARGET.c implements LLVMFuzzerTestOneInput():
#   reader   rbmon's reading of a trace file: open, snapshot, the screen's
#            view, stacks resolved with symbols, the text and JSON dumps
#   control  the library's command handling, as a thread runs a command a
#            monitor posted in its ring (lib/control.c)
#   expr     the expression module: compile, then evaluate (lib/expr/)
#   recording  the readers of a recording: its index and walk, checked,
#            then replay, report, hot and every export (monitor/cmd/)
#   names    pattern lists and names (common/namematch.c), and an ELF
#            file's symbol table as dynamic tracing reads it (lib/dyn/)
#
# `make check` builds each with driver.c's main() and the configured
# compiler and replays the committed corpus, tests/fuzz/corpus/TARGET/
# (tests/fuzz/replay-TARGET, one test each).  `make fuzz` builds each with
# clang's libFuzzer, ASan and UBSan (tests/fuzz/fuzz-TARGET) and runs it
# for FUZZ_SECONDS, new inputs going to tests/fuzz/work/TARGET/.  Knobs:
# FUZZ_SECONDS (60), FUZZ_TARGETS (all), FUZZ_JOBS (1), FUZZ_FLAGS (more
# libFuzzer options).  tests/fuzz/mkcorpus.sh remakes the reader's corpus
# from the files of real programs, and the recording target's from real
# recordings and tests/mkrec's crafted ones.

FUZZ_TARGETS = reader control expr recording names
FUZZ_SECONDS = 60
FUZZ_JOBS = 1
FUZZ_FLAGS =

FUZZ_REPLAYS = tests/fuzz/replay-reader tests/fuzz/replay-control \
	tests/fuzz/replay-expr tests/fuzz/replay-recording tests/fuzz/replay-names
check_PROGRAMS += $(FUZZ_REPLAYS)
TESTS += $(FUZZ_REPLAYS)
FUZZ_HDRS = tests/fuzz/fuzz.h

# The monitor's reader.
FUZZ_READER_CPPFLAGS = $(AM_CPPFLAGS)
FUZZ_READER_CFLAGS = $(LIBDW_CFLAGS) $(LIBELF_CFLAGS) $(LIBBSD_CFLAGS)
FUZZ_READER_LIBS = $(LIBDW_LIBS) $(LIBELF_LIBS) $(LIBBSD_LIBS) \
	$(DEMANGLE_LIBS)
tests_fuzz_replay_reader_SOURCES = tests/fuzz/reader.c tests/fuzz/driver.c \
	$(FUZZ_HDRS)
tests_fuzz_replay_reader_CPPFLAGS = $(FUZZ_READER_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/reader"' \
	-DFUZZ_MIN_INPUTS=8
tests_fuzz_replay_reader_CFLAGS = $(AM_CFLAGS) $(FUZZ_READER_CFLAGS)
tests_fuzz_replay_reader_LDADD = monitor/libmonitor.la $(FUZZ_READER_LIBS)

# The readers of recordings: the same code as the reader's.
tests_fuzz_replay_recording_SOURCES = tests/fuzz/recording.c \
	tests/fuzz/driver.c $(FUZZ_HDRS)
tests_fuzz_replay_recording_CPPFLAGS = $(FUZZ_READER_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/recording"' \
	-DFUZZ_MIN_INPUTS=8
tests_fuzz_replay_recording_CFLAGS = $(AM_CFLAGS) $(FUZZ_READER_CFLAGS)
tests_fuzz_replay_recording_LDADD = monitor/libmonitor.la $(FUZZ_READER_LIBS)

# The library's command handling: control.c is included by the target,
# which reaches its static functions; the rest of the library is linked.
FUZZ_CONTROL_CFLAGS = $(PTHREAD_CFLAGS)
FUZZ_CONTROL_LIBS = $(PTHREAD_LIBS) -ldl
tests_fuzz_replay_control_SOURCES = tests/fuzz/control.c tests/fuzz/driver.c \
	$(FUZZ_HDRS) $(RB_LIB_BASE)
tests_fuzz_replay_control_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/control"' \
	-DFUZZ_MIN_INPUTS=8
tests_fuzz_replay_control_CFLAGS = $(AM_CFLAGS) -fno-instrument-functions \
	$(FUZZ_CONTROL_CFLAGS)
tests_fuzz_replay_control_LDADD = $(FUZZ_CONTROL_LIBS)

# The expression module, linked in; the target holds the variables (-g).
FUZZ_EXPR_CFLAGS = -g $(LIBDW_CFLAGS) $(LIBELF_CFLAGS) $(PTHREAD_CFLAGS)
FUZZ_EXPR_LIBS = $(LIBDW_LIBS) $(LIBELF_LIBS) $(PTHREAD_LIBS)
tests_fuzz_replay_expr_SOURCES = tests/fuzz/expr.c tests/fuzz/driver.c \
	$(FUZZ_HDRS) $(RB_EXPR_SOURCES)
tests_fuzz_replay_expr_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/expr"' \
	-DFUZZ_MIN_INPUTS=8
tests_fuzz_replay_expr_CFLAGS = $(AM_CFLAGS) -fno-instrument-functions \
	$(FUZZ_EXPR_CFLAGS)
tests_fuzz_replay_expr_LDADD = $(FUZZ_EXPR_LIBS)

# Names and symbol tables: the library's files, compiled in.
FUZZ_NAMES_SRCS = tests/fuzz/names.c lib/dyn/names.c common/namematch.c
tests_fuzz_replay_names_SOURCES = $(FUZZ_NAMES_SRCS) tests/fuzz/driver.c \
	$(FUZZ_HDRS) lib/dyn/names.h common/namematch.h
tests_fuzz_replay_names_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/names"' \
	-DFUZZ_MIN_INPUTS=8
tests_fuzz_replay_names_CFLAGS = $(AM_CFLAGS) -fno-instrument-functions
tests_fuzz_replay_names_LDADD = -ldl

EXTRA_DIST += tests/fuzz/mkcorpus.sh tests/fuzz/run.sh \
	tests/fuzz/control.dict tests/fuzz/expr.dict tests/fuzz/recording.dict \
	tests/fuzz/names.dict \
	tests/fuzz/corpus

# make fuzz: the same targets with libFuzzer.
FUZZ_CC = $(CLANG)
FUZZ_SANFLAGS = -fsanitize=fuzzer,address,undefined,float-cast-overflow \
	-fno-sanitize-recover=undefined,float-cast-overflow
FUZZ_COMMON = $(FUZZ_SANFLAGS) -DFUZZ_LIBFUZZER -g -O1 -std=gnu11 $(DEFS) -I$(top_srcdir)/tests/fuzz
FUZZ_BINS = $(FUZZ_TARGETS:%=tests/fuzz/fuzz-%)
CLEANFILES += $(FUZZ_BINS)

FUZZ_READER_SRCS = tests/fuzz/reader.c $(filter %.c,$(monitor_libmonitor_la_SOURCES))
tests/fuzz/fuzz-reader: $(FUZZ_READER_SRCS:%=$(srcdir)/%) $(FUZZ_HDRS) config.h
	$(AM_V_CC)$(MKDIR_P) tests/fuzz && $(FUZZ_CC) $(FUZZ_COMMON) \
	$(FUZZ_READER_CPPFLAGS) $(FUZZ_READER_CFLAGS) -o $@ \
	$(FUZZ_READER_SRCS:%=$(srcdir)/%) $(FUZZ_READER_LIBS)

FUZZ_RECORDING_SRCS = tests/fuzz/recording.c \
	$(filter %.c,$(monitor_libmonitor_la_SOURCES))
tests/fuzz/fuzz-recording: $(FUZZ_RECORDING_SRCS:%=$(srcdir)/%) $(FUZZ_HDRS) \
		config.h
	$(AM_V_CC)$(MKDIR_P) tests/fuzz && $(FUZZ_CC) $(FUZZ_COMMON) \
	$(FUZZ_READER_CPPFLAGS) $(FUZZ_READER_CFLAGS) -o $@ \
	$(FUZZ_RECORDING_SRCS:%=$(srcdir)/%) $(FUZZ_READER_LIBS)

FUZZ_CONTROL_SRCS = tests/fuzz/control.c $(filter %.c,$(RB_LIB_BASE))
tests/fuzz/fuzz-control: $(FUZZ_CONTROL_SRCS:%=$(srcdir)/%) $(srcdir)/lib/control.c \
		$(FUZZ_HDRS) config.h
	$(AM_V_CC)$(MKDIR_P) tests/fuzz && $(FUZZ_CC) $(FUZZ_COMMON) \
	$(AM_CPPFLAGS) $(FUZZ_CONTROL_CFLAGS) -o $@ \
	$(FUZZ_CONTROL_SRCS:%=$(srcdir)/%) $(FUZZ_CONTROL_LIBS)

FUZZ_EXPR_SRCS = tests/fuzz/expr.c lib/expr/compile.c lib/expr/eval.c \
	common/debugfile.c
tests/fuzz/fuzz-expr: $(FUZZ_EXPR_SRCS:%=$(srcdir)/%) $(FUZZ_HDRS) config.h \
		$(srcdir)/lib/expr/expr.h
	$(AM_V_CC)$(MKDIR_P) tests/fuzz && $(FUZZ_CC) $(FUZZ_COMMON) \
	$(AM_CPPFLAGS) $(FUZZ_EXPR_CFLAGS) -o $@ \
	$(FUZZ_EXPR_SRCS:%=$(srcdir)/%) $(FUZZ_EXPR_LIBS)

tests/fuzz/fuzz-names: $(FUZZ_NAMES_SRCS:%=$(srcdir)/%) $(FUZZ_HDRS) config.h \
		$(srcdir)/lib/dyn/names.h $(srcdir)/common/namematch.h
	$(AM_V_CC)$(MKDIR_P) tests/fuzz && $(FUZZ_CC) $(FUZZ_COMMON) \
	$(AM_CPPFLAGS) -o $@ $(FUZZ_NAMES_SRCS:%=$(srcdir)/%) -ldl

if HAVE_LIBFUZZER
fuzz: $(FUZZ_TARGETS:%=tests/fuzz/fuzz-%)
	@FUZZ_SECONDS='$(FUZZ_SECONDS)' FUZZ_JOBS='$(FUZZ_JOBS)' \
	FUZZ_FLAGS='$(FUZZ_FLAGS)' $(BASH) $(srcdir)/tests/fuzz/run.sh \
	'$(srcdir)/tests/fuzz' tests/fuzz $(FUZZ_TARGETS)
else
fuzz:
	@echo "make fuzz: needs clang with libFuzzer (apt-get install clang), then ./configure again" >&2; \
	exit 1
endif

.PHONY: fuzz
