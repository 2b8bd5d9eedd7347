#!/bin/bash
# SPDX-License-Identifier: MIT
# untraced-exec: a program built without -finstrument-functions that
# imports execv() (tests/apps/plain-exec) is run without a word before it
# starts, since what it execs may be instrumented; the launcher watches for
# its trace file instead:
#  - it ends at once and made none: one line at its end says that nothing
#    it ran was instrumented, after the tracing line; its status is kept;
#  - it runs on without one: one line after 5 s says so, once, while it
#    runs on (not stopped); it still ends with the first line;
#  - it execs an instrumented program in its place (the same pid, the
#    same file): no such line, and the file is made;
#  - -q silences both, as it does the tracing line;
#  - an instrumented program is not watched: the tracing line alone;
#  - rbmon -p says why a live process has no trace file: the library is
#    loaded in it but it maps none, or the library is not loaded.
. "$(dirname "$0")/lib.sh"

[ -x "$RBTRACE" ] || fail "rbtrace not built: $RBTRACE"
[ -x "$APPS/plain-exec" ] || fail "plain-exec not built"
mkdir "$T/tmp"
export TMPDIR=$T/tmp
P=$APPS/plain-exec

ended() { echo "rbtrace: $1 ran no instrumented code: no trace file was made (build it with -finstrument-functions)"; }
waited() { echo "rbtrace: $1 has not appeared after 5 s: nothing $2 ran so far was instrumented; it runs on (build it with -finstrument-functions to trace it)"; }

# run_rbtrace NAME ARGS... - rbtrace in the foreground; sets RC.
run_rbtrace()
{
	local name=$1
	shift
	RC=0
	"$RBTRACE" "$@" >"$T/$name.out" 2>"$T/$name.err" </dev/null || RC=$?
}

# 1. It ends at once: the line at its end.
run_rbtrace quick -- "$P" -e 3
expect "status of plain-exec" 3 "$RC"
l=$(head -n 1 "$T/quick.err")
[[ $l =~ ^rbtrace:\ tracing\ $P\ \(pid\ ([0-9]+)\)\ into\ $TMPDIR/plain-exec.([0-9]+).trace$ ]] ||
	fail "first line of rbtrace -- plain-exec: '$l'"
expect "stderr of rbtrace -- plain-exec" "$l
$(ended "$P")" "$(cat "$T/quick.err")"
expect "stdout of plain-exec" "plain: hello" "$(cat "$T/quick.out")"
expect "files in \$TMPDIR" "" "$(ls "$TMPDIR")"

# -q: nothing at all.
run_rbtrace quiet -q -- "$P" -e 4
expect "status with -q" 4 "$RC"
expect "stderr with -q" "" "$(cat "$T/quiet.err")"

# 2. It runs on without a file: one line after 5 s, and it runs on.
: >"$RBT_READY"
launch park "$RBTRACE" -- "$P" -p
rb=$LAUNCHED
wait_ready "plain [0-9]+" "$rb"
child=$(ready_field plain 2)
f=$TMPDIR/plain-exec.$child.trace
wait_for "the line after 5 s" grep -Fxq "$(waited "$f" "$P")" "$T/park.err"
kill -0 "$child" 2>/dev/null || fail "plain-exec stopped after the line"
expect "the launcher's children after 5 s" "$child" "$(pgrep -P "$rb" | tr '\n' ' ' | sed 's/ $//')"
RC=0
"$RBMON" -p "$child" --dump >"$T/p.out" 2>"$T/p.err" || RC=$?
expect "rbmon -p status, library loaded" 1 "$RC"
grep -Fq "rbmon: no trace file for pid $child (librbtrace is loaded in it but it maps no trace file: nothing it ran was instrumented yet, build it with -finstrument-functions; none in " "$T/p.err" ||
	fail "rbmon -p, library loaded: $(cat "$T/p.err")"
kill -TERM "$child"
RC=0
wait "$rb" || RC=$?
expect "status of rbtrace when plain-exec is stopped" 0 "$RC"
expect "stderr of rbtrace -- plain-exec -p" "rbtrace: tracing $P (pid $child) into $f
$(waited "$f" "$P")
$(ended "$P")" "$(cat "$T/park.err")"

# rbmon -p of a process without the library.
sleep 60 &
sl=$!
STARTED+=("$sl")
exe=$(readlink -f "$(command -v sleep)")
wait_for "sleep to run" eval '[ "$(readlink "/proc/$sl/exe")" = "$exe" ]'
RC=0
"$RBMON" -p "$sl" --dump >"$T/q.out" 2>"$T/q.err" || RC=$?
expect "rbmon -p status, no library" 1 "$RC"
grep -Fq "rbmon: no trace file for pid $sl (librbtrace is not loaded in it: run it under rbtrace, or attach with rbtrace -p; none in " "$T/q.err" ||
	fail "rbmon -p, no library: $(cat "$T/q.err")"
kill -TERM "$sl"

# 3. It execs an instrumented program in its place: the file, no line.
run_rbtrace execd -- "$P" -x "$APPS/simple" -e 5
expect "status of the exec'd program" 5 "$RC"
l=$(cat "$T/execd.err")
[[ $l =~ ^rbtrace:\ tracing\ $P\ \(pid\ ([0-9]+)\)\ into\ $TMPDIR/plain-exec.([0-9]+).trace$ ]] ||
	fail "stderr of rbtrace -- plain-exec -x simple: '$l'"
[ -f "$TMPDIR/plain-exec.${BASH_REMATCH[1]}.trace" ] ||
	fail "the exec'd program made no trace file (has: $(ls "$TMPDIR"))"

# 4. An instrumented program: the tracing line alone.
run_rbtrace inst -- "$APPS/simple" -e 0
expect "stderr lines of rbtrace -- simple" 1 "$(wc -l <"$T/inst.err")"
exit 0
