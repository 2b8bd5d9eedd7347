#!/bin/bash
# SPDX-License-Identifier: MIT
# snapshot-rate: the rate limit of trigger snapshots (rbtrace(5),
# "SNAPSHOTS").  tests/apps/snapper sends itself the snapshot signal 10,000
# times a second while `rbmon snapshot --interval 0.2 --count 3` waits:
# at most one freeze per interval, three recordings and no more, every
# other trigger counted suppressed (then missed, the writer gone); the
# program's results do not change.  How long the storm costs the program
# is bench/snapshot.sh's, not a test's.
. "$(dirname "$0")/lib.sh"

f=$T/s.trace
traced app RBTRACE_FILE="$f" RBTRACE_SNAPSHOT_SIGNAL=USR2 "$APPS/snapper" -f -k 10000
pid=$LAUNCHED
wait_ready "ready $pid" "$pid"

mkdir "$T/snaps"
launch writer "$RBMON" snapshot -o "$T/snaps" --count 3 --interval 0.2 --timeout 120 "$f"
wpid=$LAUNCHED
wait_json "$f" ".snapshots.writer == $wpid" "the writer to attach"
t0=$(date +%s%N)
kill -USR1 "$pid"	# the storm begins
rc=0
wait "$wpid" || rc=$?
t1=$(date +%s%N)
[ "$rc" -eq 0 ] || fail "rbmon snapshot exited $rc: $(cat "$T/writer.err")"
expect "recordings written" 3 "$(ls "$T/snaps" | wc -l)"
expect "lines of the writer" 3 "$(grep -c ': snapshot [0-9]* of process .*: signal 12 in thread' "$T/writer.out")"
dump_json "$f"
expect_jq "three taken and written, no more" '.snapshots.taken == 3 and .snapshots.written == 3'
# Spaced by the interval: three freezes need two intervals at least.
[ $(( (t1 - t0) / 1000000 )) -ge 400 ] ||
	fail "three snapshots in $(( (t1 - t0) / 1000000 )) ms: not spaced by 200 ms"
expect_jq "the storm's other triggers counted suppressed" '.snapshots.suppressed > 0'
# The writer gone, the triggers are missed and nothing freezes.
wait_json "$f" '.snapshots.missed > 0 and .snapshots.taken == 3 and .snapshots.frozen == false' \
	"triggers after the writer left to be counted missed"
kill -0 "$pid" || fail "the program died under the storm"
stop_and_reap "$pid"
expect "snapper's exit status" 0 "$REAPED"
grep -q '^rounds [0-9]* bad 0 elapsed_ms [0-9]*$' "$T/app.out" ||
	fail "snapper's results changed: $(cat "$T/app.out")"
exit 0
