# SPDX-License-Identifier: MIT
# tests/integration.mk: integration tests, included from tests/local.mk.
#
# Small purpose-built programs (tests/apps/) compiled with
# -finstrument-functions run under LD_PRELOAD of the freshly built
# librbtrace.so; one bash + jq script per behaviour (tests/integration/)
# checks what rbmon --json and the rbtrace launcher report.  Merge
# INTEGRATION_TESTS_ENVIRONMENT into AM_TESTS_ENVIRONMENT.

INTEGRATION_APPS = \
	tests/apps/ctl \
	tests/apps/parked \
	tests/apps/tuilife \
	tests/apps/tuithreads \
	tests/apps/recurse \
	tests/apps/threads \
	tests/apps/forker \
	tests/apps/execer \
	tests/apps/execd \
	tests/apps/simple \
	tests/apps/watch \
	tests/apps/watch-nodebug \
	tests/apps/cdexec \
	tests/apps/forktree \
	tests/apps/watchsyms \
	tests/apps/watchsyms-nodebug \
	tests/apps/brk \
	tests/apps/brk-nolocals \
	tests/apps/sigmalloc \
	tests/apps/sigblock \
	tests/apps/wfork \
	tests/apps/kstate \
	tests/apps/forkchain \
	tests/apps/daemon \
	tests/apps/retitle \
	tests/apps/attachee \
	tests/apps/churn \
	tests/apps/snapper

check_PROGRAMS += $(INTEGRATION_APPS) tests/apps/offsets

# Note: automake puts the user's CFLAGS after these; the apps are written so
# that -O2 there changes neither names nor the checked lines.
INTEGRATION_APP_CFLAGS = $(WARN_CFLAGS) -g -O0 -finstrument-functions \
	-fno-inline $(PTHREAD_CFLAGS) $(SAN_AUT_CFLAGS)
INTEGRATION_APP_LINKFLAGS = $(PTHREAD_LIBS) $(SAN_AUT_LDFLAGS)

tests_apps_ctl_SOURCES = tests/apps/ctl.c tests/apps/app.h
tests_apps_ctl_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_ctl_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
tests_apps_parked_SOURCES = tests/apps/parked.c
tests_apps_parked_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_parked_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
tests_apps_tuilife_SOURCES = tests/apps/tuilife.c
tests_apps_tuilife_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_tuilife_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
tests_apps_recurse_SOURCES = tests/apps/recurse.c
tests_apps_recurse_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_recurse_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
tests_apps_attachee_SOURCES = tests/apps/attachee.c tests/apps/app.h
tests_apps_attachee_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_attachee_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
tests_apps_churn_SOURCES = tests/apps/churn.c tests/apps/app.h
tests_apps_churn_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_churn_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
tests_apps_snapper_SOURCES = tests/apps/snapper.c tests/apps/app.h
tests_apps_snapper_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_snapper_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
tests_apps_threads_SOURCES = tests/apps/threads.c
tests_apps_threads_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_threads_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
tests_apps_forker_SOURCES = tests/apps/forker.c
tests_apps_forker_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_forker_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
tests_apps_execer_SOURCES = tests/apps/execer.c
tests_apps_execer_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_execer_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
tests_apps_execd_SOURCES = tests/apps/execd.c
tests_apps_execd_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_execd_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
tests_apps_simple_SOURCES = tests/apps/simple.c
tests_apps_simple_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_simple_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
tests_apps_tuithreads_SOURCES = tests/apps/tuithreads.c
tests_apps_tuithreads_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_tuithreads_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
tests_apps_watch_SOURCES = tests/apps/watch.c tests/apps/app.h
tests_apps_watch_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_watch_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
# The same program without DWARF (symbols only).  The user's CFLAGS (-g)
# come after these, so the debug sections are stripped at link instead.
tests_apps_watch_nodebug_SOURCES = tests/apps/watch.c tests/apps/app.h
tests_apps_watch_nodebug_CFLAGS = $(WARN_CFLAGS) -O0 -finstrument-functions \
	-fno-inline $(PTHREAD_CFLAGS) $(SAN_AUT_CFLAGS)
tests_apps_watch_nodebug_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS) \
	-Wl,--strip-debug
tests_apps_cdexec_SOURCES = tests/apps/cdexec.c tests/apps/app.h
tests_apps_cdexec_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_cdexec_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
tests_apps_forktree_SOURCES = tests/apps/forktree.c tests/apps/app.h
tests_apps_forktree_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_forktree_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
# One name in several files (two with one base name), function pointers.
WATCHSYMS_SOURCES = tests/apps/watchsyms-src/main.c tests/apps/watchsyms-src/a/util.c \
	tests/apps/watchsyms-src/b/util.c tests/apps/watchsyms-src/display.c \
	tests/apps/watchsyms-src/watchsyms.h tests/apps/app.h
tests_apps_watchsyms_SOURCES = $(WATCHSYMS_SOURCES)
tests_apps_watchsyms_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_watchsyms_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
tests_apps_watchsyms_nodebug_SOURCES = $(WATCHSYMS_SOURCES)
tests_apps_watchsyms_nodebug_CFLAGS = $(tests_apps_watch_nodebug_CFLAGS)
tests_apps_watchsyms_nodebug_LDFLAGS = $(tests_apps_watch_nodebug_LDFLAGS)
# Breakpoints on real C++ code: optimised as real programs are, so that GCC
# splits .cold parts off (the tests check with nm that it did).
tests_apps_brk_SOURCES = tests/apps/brk.cc tests/apps/app.h
tests_apps_brk_CXXFLAGS = -O2 -g -finstrument-functions $(PTHREAD_CFLAGS) \
	$(SAN_AUT_CFLAGS)
tests_apps_brk_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
# The same without local symbols: static functions are known from DWARF only.
tests_apps_brk_nolocals_SOURCES = tests/apps/brk.cc tests/apps/app.h
tests_apps_brk_nolocals_CXXFLAGS = $(tests_apps_brk_CXXFLAGS)
tests_apps_brk_nolocals_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS) -Wl,--discard-all
# Hooks only in a signal handler that interrupts malloc() (watch-signal).
tests_apps_sigmalloc_SOURCES = tests/apps/sigmalloc.c tests/apps/app.h
tests_apps_sigmalloc_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_sigmalloc_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
# Handled signals blocked all along, no handler running (watch-lazy-blocked).
tests_apps_sigblock_SOURCES = tests/apps/sigblock.c tests/apps/app.h
tests_apps_sigblock_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_sigblock_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
# Watches before and after fork() (watch-fork).
tests_apps_wfork_SOURCES = tests/apps/wfork.c tests/apps/app.h
tests_apps_wfork_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_wfork_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
# Threads on a CPU, in read(), in a futex (kstate).
tests_apps_kstate_SOURCES = tests/apps/kstate.c tests/apps/app.h
tests_apps_kstate_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_kstate_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
# Forks at once, 16 deep, each child starting a thread (fork-early).
tests_apps_forkchain_SOURCES = tests/apps/forkchain.c tests/apps/app.h
tests_apps_forkchain_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_forkchain_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
# Forks a daemon and exits at once, before the child's first hook (daemon).
tests_apps_daemon_SOURCES = tests/apps/daemon.c tests/apps/app.h
tests_apps_daemon_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_daemon_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
# Rewrites its argv in place, as setproctitle() does (progname).
tests_apps_retitle_SOURCES = tests/apps/retitle.c tests/apps/app.h
tests_apps_retitle_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_retitle_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
# Preloaded before librbtrace: counts what a hook must not do (watch-hook).
check_LTLIBRARIES += tests/apps/libhookshim.la
tests_apps_libhookshim_la_SOURCES = tests/apps/hookshim.c
tests_apps_libhookshim_la_CFLAGS = $(WARN_CFLAGS) -g -O1 $(PTHREAD_CFLAGS)
tests_apps_libhookshim_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
tests_apps_libhookshim_la_LIBADD = -ldl
# Writes watch entries and header fields of a live file (watch-hostile).
check_PROGRAMS += tests/apps/wpoke
tests_apps_wpoke_SOURCES = tests/apps/wpoke.c
# Writes entries of the dynamic tracing table of a live file (dyn-monitor).
check_PROGRAMS += tests/apps/dynpoke
tests_apps_dynpoke_SOURCES = tests/apps/dynpoke.c
# Prints rb_header field offsets for the tests that patch headers.
tests_apps_offsets_SOURCES = tests/apps/offsets.c
# Built without -finstrument-functions: rbtrace warns (untraced*.sh); only
# plain-dl imports dlopen(), plain-exec execv().  No sanitizer: its runtime would import that.
# Calls the API through weak references only (attach-api.sh).
check_PROGRAMS += tests/apps/weakapi
tests_apps_weakapi_SOURCES = tests/apps/weakapi.c tests/apps/app.h
tests_apps_weakapi_CFLAGS = $(WARN_CFLAGS) -g -O0 -fno-instrument-functions
tests_apps_weakapi_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
check_PROGRAMS += tests/apps/plain tests/apps/plain-dl tests/apps/plain-exec
tests_apps_plain_SOURCES = tests/apps/plain.c tests/apps/app.h
tests_apps_plain_CFLAGS = $(WARN_CFLAGS) -g -O0 -fno-instrument-functions
tests_apps_plain_LDFLAGS =
tests_apps_plain_dl_SOURCES = tests/apps/plain.c tests/apps/app.h
tests_apps_plain_dl_CFLAGS = $(tests_apps_plain_CFLAGS) -DPLAIN_DLOPEN
tests_apps_plain_dl_LDFLAGS =
tests_apps_plain_dl_LDADD = -ldl
tests_apps_plain_exec_SOURCES = tests/apps/plain.c tests/apps/app.h
tests_apps_plain_exec_CFLAGS = $(tests_apps_plain_CFLAGS) -DPLAIN_EXEC
tests_apps_plain_exec_LDFLAGS =
# Calls setuid() once it runs (untraced-setuid.sh).
check_PROGRAMS += tests/apps/dropuid
tests_apps_dropuid_SOURCES = tests/apps/dropuid.c tests/apps/app.h
tests_apps_dropuid_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_dropuid_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
# Writes into a live file as a stray writer would (the hostile-*.sh tests).
check_PROGRAMS += tests/apps/hostile
tests_apps_hostile_SOURCES = tests/apps/hostile.c

INTEGRATION_TESTS = \
	tests/integration/attach.sh \
	tests/integration/attach-churn.sh \
	tests/integration/attach-own.sh \
	tests/integration/tui-gone.sh \
	tests/integration/tui-quit.sh \
	tests/integration/tui-launcher.sh \
	tests/integration/tui-picker.sh \
	tests/integration/parked.sh \
	tests/integration/tui-threads.sh \
	tests/integration/tui-search.sh \
	tests/integration/tui-resize.sh \
	tests/integration/tui-display.sh \
	tests/integration/tui-keys.sh \
	tests/integration/tui-modes.sh \
	tests/integration/tui-sort.sh \
	tests/integration/tui-recurse.sh \
	tests/integration/tui-source.sh \
	tests/integration/tui-history.sh \
	tests/integration/tui-top.sh \
	tests/integration/tui-cpu.sh \
	tests/integration/tui-edit.sh \
	tests/integration/tui-value.sh \
	tests/integration/wrap.sh \
	tests/integration/deleted.sh \
	tests/integration/threads50.sh \
	tests/integration/fork.sh \
	tests/integration/exec.sh \
	tests/integration/killed.sh \
	tests/integration/exhaust.sh \
	tests/integration/badenv.sh \
	tests/integration/clock.sh \
	tests/integration/tui-clock.sh \
	tests/integration/corrupt.sh \
	tests/integration/launcher.sh \
	tests/integration/list.sh \
	tests/integration/aliases.sh \
	tests/integration/demo.sh \
	tests/integration/tui-control.sh \
	tests/integration/tui-watch.sh \
	tests/integration/tui-inline.sh \
	tests/integration/control-break.sh \
	tests/integration/control-step.sh \
	tests/integration/control-create.sh \
	tests/integration/control-blocked.sh \
	tests/integration/control-errors.sh \
	tests/integration/snapshot.sh \
	tests/integration/snapshot-hostile.sh \
	tests/integration/snapshot-heal.sh \
	tests/integration/snapshot-rate.sh \
	tests/integration/snapshot-watch.sh \
	tests/integration/watch-values.sh \
	tests/integration/watch-multi.sh \
	tests/integration/relpath.sh \
	tests/integration/pidmaps.sh \
	tests/integration/tui-tree.sh \
	tests/integration/watch-symbols.sh \
	tests/integration/watch-debugfile.sh \
	tests/integration/attach-api.sh \
	tests/integration/break-cxx.sh \
	tests/integration/break-blocked.sh \
	tests/integration/send-pid-file.sh \
	tests/integration/break-debuglink.sh \
	tests/integration/hostile-geometry.sh \
	tests/integration/hostile-heartbeat.sh \
	tests/integration/orphan-lapse.sh \
	tests/integration/wedged.sh \
	tests/integration/watch-hook.sh \
	tests/integration/watch-signal.sh \
	tests/integration/watch-hostile.sh \
	tests/integration/watch-fork.sh \
	tests/integration/watch-lazy.sh \
	tests/integration/watch-lazy-signal.sh \
	tests/integration/watch-lazy-blocked.sh \
	tests/integration/watch-exit.sh \
	tests/integration/hostile-output.sh \
	tests/integration/dyn-monitor.sh \
	tests/integration/hostile-objects.sh \
	tests/integration/hostile-discover.sh \
	tests/integration/hostile-writable.sh \
	tests/integration/kstate.sh \
	tests/integration/profile.sh \
	tests/integration/prune.sh \
	tests/integration/build-nocheck.sh \
	tests/integration/install.sh \
	tests/integration/fork-early.sh \
	tests/integration/daemon.sh \
	tests/integration/progname.sh \
	tests/integration/progname-attach.sh \
	tests/integration/untraced.sh \
	tests/integration/untraced-exec.sh \
	tests/integration/untraced-elf.sh \
	tests/integration/untraced-static.sh \
	tests/integration/untraced-setuid.sh \
	tests/integration/rings-full.sh

# rbmon on hostile files and writers: control bytes everywhere a program
# can put them, an object path naming a FIFO.
check_PROGRAMS += tests/apps/rawbytes
tests_apps_rawbytes_SOURCES = tests/apps/rawbytes.c tests/apps/app.h
tests_apps_rawbytes_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_rawbytes_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)
tests_apps_rawbytes_LDADD = -ldl

TESTS += $(INTEGRATION_TESTS)
EXTRA_DIST += $(INTEGRATION_TESTS) tests/integration/lib.sh \
	tests/integration/tui.sh \
	tests/integration/control.sh \
	tests/integration/brk.sh tests/apps/slowattach.c

INTEGRATION_TESTS_ENVIRONMENT = \
	top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)'; \
	export top_builddir top_srcdir;
