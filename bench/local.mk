# SPDX-License-Identifier: MIT
# bench: benchmarks, run by `make bench` (never by `make` or `make check`).
#
# Each benchmark is a bash script in BENCHMARKS, run in order with
# top_builddir and top_srcdir set (as the integration tests are); the
# programs they drive are in BENCH_APPS, built only for `make bench`.
# A script exits 0 when it measured (a missed target is reported, not
# failed), 77 when it cannot run here (skipped), anything else when the
# harness broke; `make bench` runs them all and fails if any broke.
# Knobs (environment or make command line): BENCH_SECONDS, BENCH_RUNS,
# see each script's header.
#
# To add a benchmark: a script that sets NAME and sources bench/lib.sh
# (note, broke, skip, median, ...), appended to BENCHMARKS, and its
# programs appended to BENCH_APPS (plus their _SOURCES / _CFLAGS below).

BENCHMARKS = \
	bench/rbmon.sh \
	bench/rbmon-cpu.sh \
	bench/overhead.sh \
	bench/record.sh \
	bench/recorder.sh \
	bench/attach.sh \
	bench/churn.sh \
	bench/exports.sh \
	bench/hotshare.sh \
	bench/sites.sh \
	bench/dyn.sh \
	bench/snapshot.sh
	bench/capture.sh
	bench/history.sh

BENCH_APPS = \
	bench/apps/many \
	bench/apps/fib \
	bench/apps/work \
	bench/apps/sleepers \
	bench/apps/pace \
	bench/apps/clockcost \
	bench/apps/gapmeter \
	bench/apps/holdprobe \
	bench/apps/nopsites

# Reference hooks, preloaded in place of librbtrace.so (bench/ref/refhooks.c):
# a store-only live stack, and a store-only event logger.
BENCH_REFS = bench/ref/librefstack.la bench/ref/librefevents.la
EXTRA_LTLIBRARIES = $(BENCH_REFS)
BENCH_REF_CFLAGS = $(WARN_CFLAGS) -O2 -fno-instrument-functions \
	-fvisibility=hidden
BENCH_REF_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
bench_ref_librefstack_la_SOURCES = bench/ref/refhooks.c
bench_ref_librefstack_la_CFLAGS = $(BENCH_REF_CFLAGS)
bench_ref_librefstack_la_LDFLAGS = $(BENCH_REF_LDFLAGS)
bench_ref_librefevents_la_SOURCES = bench/ref/refhooks.c
bench_ref_librefevents_la_CFLAGS = $(BENCH_REF_CFLAGS) -DREF_EVENTS
bench_ref_librefevents_la_LDFLAGS = $(BENCH_REF_LDFLAGS)

# Built on demand only: EXTRA_PROGRAMS are not part of all or check.
EXTRA_PROGRAMS = $(BENCH_APPS)
# Run by hand against an older build of the library (see its header).
EXTRA_DIST += $(BENCHMARKS) bench/lib.sh bench/rbmon-lib.sh bench/setup bench/ab-events.sh \
	bench/lua/lua.mk bench/lua/work.lua
CLEANFILES += $(BENCH_APPS:=$(EXEEXT)) $(BENCH_REFS)

# Like the integration apps, but optimised as real programs are.
BENCH_APP_CFLAGS = $(WARN_CFLAGS) -O2 -g -finstrument-functions $(PTHREAD_CFLAGS) \
	$(SAN_AUT_CFLAGS)
BENCH_APP_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/apps

bench_apps_many_SOURCES = bench/apps/many.c
bench_apps_many_CPPFLAGS = $(BENCH_APP_CPPFLAGS)
bench_apps_many_CFLAGS = $(BENCH_APP_CFLAGS)
bench_apps_many_LDFLAGS = $(PTHREAD_LIBS) $(SAN_AUT_LDFLAGS)

bench_apps_fib_SOURCES = bench/apps/fib.c
bench_apps_fib_CPPFLAGS = $(BENCH_APP_CPPFLAGS)
bench_apps_fib_CFLAGS = $(BENCH_APP_CFLAGS)
bench_apps_fib_LDFLAGS = $(PTHREAD_LIBS) $(SAN_AUT_LDFLAGS)

bench_apps_work_SOURCES = bench/apps/work.c
bench_apps_work_CPPFLAGS = $(BENCH_APP_CPPFLAGS)
bench_apps_work_CFLAGS = $(BENCH_APP_CFLAGS)
bench_apps_work_LDFLAGS = $(PTHREAD_LIBS) $(SAN_AUT_LDFLAGS)

bench_apps_sleepers_SOURCES = bench/apps/sleepers.c
bench_apps_sleepers_CPPFLAGS = $(BENCH_APP_CPPFLAGS)
bench_apps_sleepers_CFLAGS = $(BENCH_APP_CFLAGS)
bench_apps_sleepers_LDFLAGS = $(PTHREAD_LIBS) $(SAN_AUT_LDFLAGS)

bench_apps_gapmeter_SOURCES = bench/apps/gapmeter.c
bench_apps_gapmeter_CPPFLAGS = $(BENCH_APP_CPPFLAGS)
bench_apps_gapmeter_CFLAGS = $(BENCH_APP_CFLAGS)
bench_apps_gapmeter_LDFLAGS = $(PTHREAD_LIBS) $(SAN_AUT_LDFLAGS)

bench_apps_holdprobe_SOURCES = bench/apps/holdprobe.c
bench_apps_holdprobe_CPPFLAGS = $(BENCH_APP_CPPFLAGS)
bench_apps_holdprobe_CFLAGS = $(BENCH_APP_CFLAGS)
bench_apps_holdprobe_LDFLAGS = $(PTHREAD_LIBS) $(SAN_AUT_LDFLAGS)

bench_apps_pace_SOURCES = bench/apps/pace.c
bench_apps_pace_CPPFLAGS = $(BENCH_APP_CPPFLAGS)
bench_apps_pace_CFLAGS = $(BENCH_APP_CFLAGS)
bench_apps_pace_LDFLAGS = $(PTHREAD_LIBS) $(SAN_AUT_LDFLAGS)

# The clocks' own cost per read: not instrumented.
bench_apps_clockcost_SOURCES = bench/apps/clockcost.c common/clock.h
bench_apps_clockcost_CFLAGS = $(WARN_CFLAGS) -O2 -fno-instrument-functions

# Overwrites the hook calls of a copy of a program with no-ops, from the
# site table (bench/dyn.sh): not instrumented.
bench_apps_nopsites_SOURCES = bench/apps/nopsites.c
bench_apps_nopsites_CFLAGS = $(WARN_CFLAGS) -O2 -fno-instrument-functions

BENCH_ENVIRONMENT = \
	top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)'; \
	export top_builddir top_srcdir;

bench: $(BENCH_APPS:=$(EXEEXT)) $(BENCH_REFS) rbmon$(EXEEXT) rbtrace$(EXEEXT) lib/librbtrace.la \
	tests/apps/churn$(EXEEXT) tests/sites/sitesdump$(EXEEXT)
	@$(BENCH_ENVIRONMENT) \
	ran=0; skipped=0; broke=; \
	for s in $(BENCHMARKS); do \
	  echo "=== bench: $$s"; \
	  rc=0; $(BASH) '$(srcdir)'/$$s || rc=$$?; \
	  case $$rc in \
	  0) ran=$$((ran + 1));; \
	  77) skipped=$$((skipped + 1)); echo "=== bench: $$s: SKIPPED";; \
	  *) broke="$$broke $$s"; echo "=== bench: $$s: HARNESS FAILURE (exit $$rc)";; \
	  esac; \
	done; \
	echo "=== bench: $$ran ran, $$skipped skipped$${broke:+, broken:$$broke}"; \
	test -z "$$broke"

.PHONY: bench

# librbtrace and its unit tests cross-built for aarch64 and run under
# qemu-user (bench/cross-aarch64.sh, its header says what it needs); by
# hand, not part of bench or check.
EXTRA_DIST += bench/cross-aarch64.sh
cross-aarch64:
	@top_srcdir='$(abs_top_srcdir)' $(BASH) '$(srcdir)'/bench/cross-aarch64.sh

.PHONY: cross-aarch64
