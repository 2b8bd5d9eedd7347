#!/bin/bash
# SPDX-License-Identifier: MIT
# pidmaps: rbmon -p PID finds the trace file a live process has mapped, in
# a directory no scan looks at (not $TMPDIR, /tmp or $RBTRACE_DIR), and
# prefers it to a copy in $TMPDIR that names the same process; a process
# that maps a trace file it does not write to (an rbmon --follow on it) is
# not taken for its writer; once the program is gone, -p falls back to the
# directory scan.
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/tmp" "$T/odd/deeper"
f=$T/odd/deeper/hidden.trace
traced app RBTRACE_FILE="$f" "$APPS/simple" -p
pid=$LAUNCHED
wait_ready "parked $pid" "$pid"
[ -f "$f" ] || fail "no trace file $f"

# rbmon_p NAME ARGS... - rbmon with only $T/tmp and /tmp to scan; sets RC.
rbmon_p()
{
	local name=$1
	shift
	RC=0
	env -u RBTRACE_DIR TMPDIR="$T/tmp" "$RBMON" "$@" >"$T/$name" \
		2>"$T/$name.err" || RC=$?
}

rbmon_p json -p "$pid" --dump --json
expect "rbmon -p --dump --json status" 0 "$RC"
expect "file found through /proc/$pid/maps" "$f" "$(jqv .file)"
expect "its process" "$pid" "$(jqv '.processes[0].pid')"
expect "its stack" "simple_leaf simple_work main" \
	"$(jqv '.processes[0].threads[0].frames | map(.function) | join(" ")')"

# A copy in $TMPDIR names the same process: the scan alone would take it.
decoy=$T/tmp/simple.$pid.trace
cp "$f" "$decoy"
rbmon_p json -p "$pid" --dump --json
expect "status with a copy in TMPDIR" 0 "$RC"
expect "the mapped file, not the copy" "$f" "$(jqv .file)"
rbmon_p text -p "$pid" --dump
expect "rbmon -p --dump status" 0 "$RC"
expect "text dump's first line" "$f:" "$(head -n 1 "$T/text" | cut -d' ' -f1)"

# rbmon itself maps the file, but it is not in it.
launch follow "$RBMON" --follow -d 50 "$f"
mon=$LAUNCHED
wait_for "rbmon --follow to map $f" grep -qF " $f" "/proc/$mon/maps"
rbmon_p mon -p "$mon" --dump --json
expect "rbmon -p of a process that only reads the file" 1 "$RC"
grep -q "^rbmon: no trace file for pid $mon " "$T/mon.err" ||
	fail "message for a reader's pid: $(cat "$T/mon.err")"
kill -TERM "$mon"
wait "$mon" 2>/dev/null

# Gone: nothing maps the file any more; the scan finds the copy.
kill -KILL "$pid"
{ wait "$pid"; } 2>/dev/null
rbmon_p json -p "$pid" --dump --json
expect "status after the program died" 0 "$RC"
expect "the directory scan's file" "$decoy" "$(jqv .file)"
exit 0
