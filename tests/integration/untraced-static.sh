#!/bin/bash
# SPDX-License-Identifier: MIT
# untraced-static: a statically linked program, built here with the
# configured gcc, instrumented or not, gets one line from rbtrace ("is
# statically linked: LD_PRELOAD cannot load librbtrace into it ..."), runs
# with its status and makes no trace file; --monitor starts no rbmon.
# Skipped without gcc or a static C library (libc.a).
. "$(dirname "$0")/lib.sh"

[ -x "$RBTRACE" ] || fail "rbtrace not built: $RBTRACE"
CC=${STACKS_GCC:-}
[ -n "$CC" ] || skip "gcc was not found by configure"
libc_a=$("$CC" -print-file-name=libc.a)
[ "${libc_a#/}" != "$libc_a" ] && [ -f "$libc_a" ] || skip "no static C library (libc.a)"
mkdir "$T/tmp"
export TMPDIR=$T/tmp

static_line() { echo "rbtrace: $1 is statically linked: LD_PRELOAD cannot load librbtrace into it, it runs untraced; link it without -static"; }

"$CC" -O1 -static -I"$APPS_SRC" -o "$T/plain-static" "$APPS_SRC/plain.c" 2>"$T/cc.err" ||
	fail "$CC -static failed: $(cat "$T/cc.err")"
"$CC" -O1 -static -finstrument-functions -I"$APPS_SRC" -o "$T/simple-static" \
	"$APPS_SRC/simple.c" 2>"$T/cc.err" || fail "$CC -static failed: $(cat "$T/cc.err")"

for prog in plain-static simple-static; do
	RC=0
	"$RBTRACE" -- "$T/$prog" -e 7 >"$T/$prog.out" 2>"$T/$prog.err" </dev/null || RC=$?
	expect "status of $prog" 7 "$RC"
	expect "stderr of rbtrace -- $prog" "$(static_line "$T/$prog")" "$(cat "$T/$prog.err")"
	expect "files in \$TMPDIR after $prog" "" "$(ls "$TMPDIR")"
done
expect "stdout of plain-static" "plain: hello" "$(cat "$T/plain-static.out")"

# What the loader does with it: nothing, so the line is right.
RC=0
LD_PRELOAD=$RB_PRELOAD RBTRACE_FILE=$T/direct.trace "$T/simple-static" -e 0 || RC=$?
expect "status of simple-static under LD_PRELOAD" 0 "$RC"
[ -e "$T/direct.trace" ] && fail "LD_PRELOAD traced a static program after all"

RC=0
"$RBTRACE" --monitor -- "$T/simple-static" -e 2 >"$T/mon.out" 2>"$T/mon.err" </dev/null || RC=$?
expect "status with --monitor" 2 "$RC"
expect "stderr of rbtrace --monitor -- simple-static" "$(static_line "$T/simple-static")
rbtrace: nothing to watch; not starting rbmon" "$(cat "$T/mon.err")"
expect "stdout with --monitor (no rbmon)" "" "$(cat "$T/mon.out")"

# A static PIE too, where the toolchain makes one.
if "$CC" -O1 -static-pie -fPIE -I"$APPS_SRC" -o "$T/plain-spie" "$APPS_SRC/plain.c" 2>/dev/null; then
	RC=0
	"$RBTRACE" -- "$T/plain-spie" -e 1 >/dev/null 2>"$T/spie.err" </dev/null || RC=$?
	expect "status of plain-spie" 1 "$RC"
	expect "stderr of rbtrace -- plain-spie" "$(static_line "$T/plain-spie")" "$(cat "$T/spie.err")"
else
	note "no -static-pie here: that case not tried"
fi
exit 0
