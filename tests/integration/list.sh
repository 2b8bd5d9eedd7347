#!/bin/bash
# SPDX-License-Identifier: MIT
# list: rbmon --list shows a trace file in $TMPDIR with its pid, program and
# liveness, and shows it gone after the program is killed; rbmon --dump -p
# PID finds the file of a process.
. "$(dirname "$0")/lib.sh"

mkdir "$T/tmp"
export TMPDIR=$T/tmp
traced app "$APPS/simple" -p
pid=$LAUNCHED
wait_ready "parked $pid" "$pid"
f=$TMPDIR/simple.$pid.trace
[ -f "$f" ] || fail "no default trace file $f (has: $(ls "$TMPDIR"))"

rc=0
"$RBMON" --list >"$T/list" 2>"$T/list.err" || rc=$?
expect "rbmon --list status" 0 "$rc"
line=$(grep -F "$f" "$T/list") || fail "rbmon --list does not show $f: $(cat "$T/list")"
[[ " $line " =~ [^0-9]$pid[^0-9] ]] || fail "--list line lacks pid $pid: $line"
[[ $line == *simple* ]] || fail "--list line lacks the program name: $line"
[[ $line =~ alive|live|running ]] || fail "--list line does not say it is alive: $line"
note "alive: $line"

rc=0
"$RBMON" --dump -p "$pid" >"$T/bypid" 2>"$T/bypid.err" || rc=$?
expect "rbmon --dump -p status" 0 "$rc"
for fn in simple_leaf simple_work main; do
	grep -q "$fn" "$T/bypid" || fail "rbmon --dump -p $pid lacks $fn: $(cat "$T/bypid")"
done
rc=0
"$RBMON" --dump --json -p "$pid" >"$T/json" 2>"$T/bypid.err" || rc=$?
expect "rbmon --dump --json -p status" 0 "$rc"
expect "file found by pid" "$f" "$(jqv .file)"

kill -KILL "$pid"
wait "$pid" 2>/dev/null
rc=0
"$RBMON" --list >"$T/list" 2>"$T/list.err" || rc=$?
expect "rbmon --list status after kill" 0 "$rc"
line=$(grep -F "$f" "$T/list") || fail "rbmon --list no longer shows $f: $(cat "$T/list")"
[[ $line =~ gone|dead|exited ]] || fail "--list line does not say the program is gone: $line"
[[ $line =~ alive|live|running ]] && [[ ! $line =~ gone|dead|exited ]] &&
	fail "--list still says alive: $line"
note "gone: $line"

rc=0
"$RBMON" --dump -p 2147483646 >"$T/nopid" 2>"$T/nopid.err" || rc=$?
expect "rbmon --dump -p of an unknown pid" 1 "$rc"
grep -q '^rbmon: ' "$T/nopid.err" || fail "no 'rbmon: ' message for an unknown pid: $(cat "$T/nopid.err")"
exit 0
