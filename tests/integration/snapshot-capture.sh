#!/bin/bash
# SPDX-License-Identifier: MIT
# snapshot-capture: a capture's condition is a snapshot trigger
# (rbtrace(5), "CAPTURES", "SNAPSHOTS").  tests/apps/slowcall's 4 threads
# run work -> step -> leaf, one call of leaf in 1000 sleeping 5 ms (8 in
# all: as many as the captures kept per function), with
# step armed for captures slower than 4 ms and a snapshot writer
# attached: the first slow step is captured, and its condition freezes
# every thread's log into a snapshot that names the capture (the
# function, the thread, the duration) and holds the other threads' calls.
. "$(dirname "$0")/lib.sh"

cc=${STACKS_GCC:-}
[ -n "$cc" ] || skip "gcc was not found by configure"
app=$T/slowcall
"$cc" -g -O0 -finstrument-functions -fno-inline -pthread -o "$app" \
	"$APPS_SRC/slowcall.c" 2>"$T/cc.err" || fail "$cc: $(cat "$T/cc.err")"

f=$T/slow.trace
launch app env RBTRACE_FILE="$f" LD_PRELOAD="$RB_PRELOAD" \
	RBTRACE_CAPTURE='step>4ms' "$app" -g -p -e 1000 -n 2000
wait_for "the program to wait for SIGUSR1" grep -q '^ready' "$T/app.out"
pid=$(awk '$1 == "ready" { print $2 }' "$T/app.out")

mkdir "$T/snaps"
launch writer "$RBMON" snapshot -o "$T/snaps" --count 1 --timeout 120 "$f"
wpid=$LAUNCHED
wait_json "$f" ".snapshots.writer == $wpid" "the writer to attach"
kill -USR1 "$pid"
rc=0
wait "$wpid" || rc=$?
[ "$rc" -eq 0 ] || fail "rbmon snapshot exited $rc: $(cat "$T/writer.err")"
rec=$T/snaps/slowcall.$pid.snap.1.rbr
[ -f "$rec" ] || fail "no $rec: $(ls "$T/snaps"); $(cat "$T/writer.out" "$T/writer.err")"
grep -Eq "^$rec: snapshot 1 of process $pid: capture: step took [0-9.]+ ms in thread [0-9]+$" \
	"$T/writer.out" || fail "the writer does not name the capture: $(cat "$T/writer.out")"
tid=$(sed -n 's/.* in thread \([0-9]*\)$/\1/p' "$T/writer.out")

# The capture is there, of that thread, and the file counts the snapshot.
wait_for "the program to end its calls" grep -q "^done $pid" "$T/app.out"
"$RBMON" captures --json "$f" >"$T/caps.json" || fail "rbmon captures exited $?"
jq -e --argjson t "$tid" '[.captures[] | select(.tid == $t)] | length >= 1' \
	"$T/caps.json" >/dev/null || fail "no capture of thread $tid: $(head -c 600 "$T/caps.json")"
dump_json "$f"
expect_jq "the file counts the snapshot taken and written" \
	'.snapshots.taken >= 1 and .snapshots.written == 1 and .snapshots.frozen == false'

# The snapshot holds the slow step and the other threads' calls.
"$RBMON" report --json "$rec" >"$T/report.json" 2>"$T/report.err" ||
	fail "rbmon report exited $?: $(cat "$T/report.err")"
grep -q "snapshot 1 of process $pid: capture: step took" "$T/report.err" ||
	fail "report does not name the trigger: $(cat "$T/report.err")"
"$RBMON" export --chrome "$rec" >"$T/chrome.json" 2>/dev/null ||
	fail "rbmon export --chrome exited $?"
threads=$(jq -r '[.traceEvents[] | select(.ph == "X" and (.name | test("^step"))) |
	.tid] | unique | length' "$T/chrome.json")
[ "${threads:-0}" -ge 2 ] ||
	fail "the snapshot holds step calls of ${threads:-no} thread(s), not the other threads' too"
kill "$pid"
note "a slow step of thread $tid captured and snapshotted with $threads threads' calls"
