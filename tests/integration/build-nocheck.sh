#!/bin/bash
# SPDX-License-Identifier: MIT
# build-nocheck: the sources configure and build without the Check unit
# test framework (only make check needs it, and says what to install):
# a copy of this tree's files (git's, plus the generated configure) is
# configured with pkg-config seeing everything but check.pc.
. "$(dirname "$0")/lib.sh"

command -v git >/dev/null || skip "git is not installed"
top=$(git -C "$top_srcdir" rev-parse --show-toplevel 2>/dev/null)
[ -n "$top" ] && [ "$(readlink -f "$top")" = "$(readlink -f "$top_srcdir")" ] ||
	skip "$top_srcdir is not a git checkout of its own (a distribution tree?)"
[ -x "$top_srcdir/configure" ] || skip "no configure in $top_srcdir (run autoreconf -i there)"
command -v pkg-config >/dev/null || skip "pkg-config is not installed"
pkg-config --exists check || skip "Check is not installed: nothing to hide"

src=$T/src
mkdir "$src"
(cd "$top_srcdir" && { git ls-files; ls -d configure config.h.in aclocal.m4 build-aux m4 \
	$(git ls-files '*Makefile.am' | sed 's/\.am$/.in/'); } | sort -u |
	tar -cf - -T - 2>/dev/null) | tar -xf - -C "$src" || fail "cannot copy the tree"
[ -x "$src/configure" ] || fail "the copy has no configure"

# Every .pc file pkg-config knows, but check's.
pc=$T/pc
mkdir "$pc"
for d in $(pkg-config --variable pc_path pkg-config | tr ':' ' '); do
	for f in "$d"/*.pc; do
		[ -f "$f" ] && [ "$(basename "$f")" != check.pc ] && ln -sf "$f" "$pc/"
	done
done
PKG_CONFIG_LIBDIR=$pc pkg-config --exists check && fail "check.pc is still seen"

(cd "$src" && PKG_CONFIG_LIBDIR=$pc ./configure -q >"$T/configure.out" 2>&1) ||
	fail "configure without Check failed: $(tail -n 5 "$T/configure.out")"
grep -q 'WARNING: Check not found: everything builds, but make check needs it (apt-get install check, then configure again)' \
	"$T/configure.out" || fail "configure did not say what make check needs: $(cat "$T/configure.out")"
make -C "$src" -j2 rbtrace >"$T/make.out" 2>&1 || fail "make rbtrace without Check failed: $(tail -n 5 "$T/make.out")"
[ -x "$src/rbtrace" ] || fail "no rbtrace built"
make -C "$src" rb-check-missing >"$T/check.out" 2>&1 && fail "make check's guard passed without Check"
grep -q '^make check: the unit tests need the Check framework: install it (Debian: apt-get install check) and run ./configure again$' \
	"$T/check.out" || fail "make check does not say what to install: $(cat "$T/check.out")"
# The unit tests are not among make check's programs.
make -C "$src" -s --eval 'rb-print-progs: ; @echo $(check_PROGRAMS)' rb-print-progs >"$T/progs" 2>&1 ||
	fail "cannot print check_PROGRAMS: $(cat "$T/progs")"
grep -q 'tests/apps/evseq' "$T/progs" || fail "check_PROGRAMS lacks the test programs: $(cat "$T/progs")"
grep -q 'check_' "$T/progs" && fail "the unit tests are still built: $(cat "$T/progs")"
exit 0
