# SPDX-License-Identifier: MIT
# tests/dyn.mk: dynamic tracing (rbtrace(5), "DYNAMIC TRACING"), included
# from tests/local.mk.  tests/apps/dyncount.c is built at -O2, as the
# programs people trace are, by gcc and g++ (as C++) and, where it is
# installed, clang and clang++, by the rules below rather than automake's,
# so that the compiler and the flags are exactly these.
DYN_CFLAGS = -g -O2 -finstrument-functions -pthread
DYN_APPS =
if HAVE_STACKS_GCC
DYN_APPS += tests/apps/dyncount-gcc tests/apps/dyncount-gxx
endif
if HAVE_CLANG
DYN_APPS += tests/apps/dyncount-clang tests/apps/dyncount-clangxx
endif
# Exceptions, longjmp, signal handlers and a SIGTRAP handler of its own
# (dyn-signals, dyn-unwind).
if HAVE_STACKS_GCC
DYN_APPS += tests/apps/dynhard-gxx
endif
if HAVE_CLANG
DYN_APPS += tests/apps/dynhard-clangxx
endif
check_DATA += $(DYN_APPS)

tests/apps/dyncount-gcc: $(srcdir)/tests/apps/dyncount.c $(srcdir)/tests/apps/app.h
	$(AM_V_CC)$(MKDIR_P) tests/apps && \
	$(STACKS_GCC) $(DYN_CFLAGS) -o $@ $<
tests/apps/dyncount-gxx: $(srcdir)/tests/apps/dyncount.c $(srcdir)/tests/apps/app.h
	$(AM_V_CXX)$(MKDIR_P) tests/apps && \
	$(STACKS_GXX) -x c++ $(DYN_CFLAGS) -o $@ $<
tests/apps/dyncount-clang: $(srcdir)/tests/apps/dyncount.c $(srcdir)/tests/apps/app.h
	$(AM_V_CC)$(MKDIR_P) tests/apps && \
	$(CLANG) $(DYN_CFLAGS) -o $@ $<
tests/apps/dyncount-clangxx: $(srcdir)/tests/apps/dyncount.c $(srcdir)/tests/apps/app.h
	$(AM_V_CXX)$(MKDIR_P) tests/apps && \
	$(CLANGXX) -x c++ $(DYN_CFLAGS) -o $@ $<
tests/apps/dynhard-gxx: $(srcdir)/tests/apps/dynhard.cc $(srcdir)/tests/apps/app.h
	$(AM_V_CXX)$(MKDIR_P) tests/apps && \
	$(STACKS_GXX) $(DYN_CFLAGS) -o $@ $<
tests/apps/dynhard-clangxx: $(srcdir)/tests/apps/dynhard.cc $(srcdir)/tests/apps/app.h
	$(AM_V_CXX)$(MKDIR_P) tests/apps && \
	$(CLANGXX) $(DYN_CFLAGS) -o $@ $<

# A plugin unloaded and loaded again under load (dyn-dlopen): two builds of
# it whose sites differ, and the program that loads them.
DYN_GCC_APPS = tests/apps/dynload tests/apps/dynplug-a.so tests/apps/dynplug-b.so \
	tests/apps/dynfork
if HAVE_STACKS_GCC
DYN_APPS += $(DYN_GCC_APPS)
endif
tests/apps/dynload: $(srcdir)/tests/apps/dynload.c $(srcdir)/tests/apps/app.h
	$(AM_V_CC)$(MKDIR_P) tests/apps && \
	$(STACKS_GCC) $(DYN_CFLAGS) -o $@ $< -ldl
tests/apps/dynfork: $(srcdir)/tests/apps/dynfork.c $(srcdir)/tests/apps/app.h
	$(AM_V_CC)$(MKDIR_P) tests/apps && \
	$(STACKS_GCC) $(DYN_CFLAGS) -o $@ $<
tests/apps/dynplug-a.so: $(srcdir)/tests/apps/dynplug.c $(srcdir)/tests/apps/app.h
	$(AM_V_CC)$(MKDIR_P) tests/apps && \
	$(STACKS_GCC) $(DYN_CFLAGS) -fPIC -shared -o $@ $<
tests/apps/dynplug-b.so: $(srcdir)/tests/apps/dynplug.c $(srcdir)/tests/apps/app.h
	$(AM_V_CC)$(MKDIR_P) tests/apps && \
	$(STACKS_GCC) $(DYN_CFLAGS) -DDYNPLUG_B -fPIC -shared -o $@ $<

DYN_TESTS = tests/integration/dyn-dormant.sh tests/integration/dyn-exclude.sh \
	tests/integration/dyn-break.sh tests/integration/dyn-auto.sh \
	tests/integration/dyn-dlopen.sh \
	tests/integration/dyn-fork.sh tests/integration/dyn-signals.sh \
	tests/integration/dyn-unwind.sh tests/integration/dyn-monitors.sh
TESTS += $(DYN_TESTS)
EXTRA_DIST += $(DYN_TESTS) tests/apps/dyncount.c tests/apps/dynload.c \
	tests/apps/dynplug.c tests/apps/dynfork.c tests/apps/dynhard.cc \
	tests/integration/dynhard.sh
CLEANFILES += tests/apps/dyncount-gcc tests/apps/dyncount-gxx \
	tests/apps/dyncount-clang tests/apps/dyncount-clangxx $(DYN_GCC_APPS) \
	tests/apps/dynhard-gxx tests/apps/dynhard-clangxx

# Recordings say which functions their processes did not trace.
TESTS += tests/integration/record-dyn.sh
EXTRA_DIST += tests/integration/record-dyn.sh
