#!/bin/bash
# SPDX-License-Identifier: MIT
# snapshot-heal: a writer killed while the logs are frozen for it never
# leaves them frozen (rbtrace(5), "SNAPSHOTS").  The writer is stopped
# (SIGSTOP) before the trigger, so that the freeze waits for it, then
# killed: with no trigger and no writer after it, the program's own
# threads, whose logs are frozen, see the writer gone and end the freeze;
# their logs record again.
. "$(dirname "$0")/lib.sh"

f=$T/s.trace
traced app RBTRACE_FILE="$f" RBTRACE_SNAPSHOT_SIGNAL=USR2 "$APPS/snapper"
pid=$LAUNCHED
wait_ready "ready $pid" "$pid"

written() { "$RBMON" --events --json "$1" |
	jq -r --argjson t "$2" '.processes[].threads[] | select(.tid == $t) | .written'; }
moved()
{
	local w
	w=$(written "$1" "$2")
	echo "written $w, from $3"
	[ -n "$w" ] && [ "$w" -gt "$3" ]
}

mkdir "$T/snaps"
launch writer "$RBMON" snapshot -o "$T/snaps" --count 1 --timeout 120 "$f"
wpid=$LAUNCHED
wait_json "$f" ".snapshots.writer == $wpid" "the writer to attach"
kill -STOP "$wpid"
kill -USR2 "$pid"
wait_json "$f" '.snapshots.taken == 1 and .snapshots.frozen == true' \
	"the trigger to freeze the logs for the stopped writer"
dump_json "$f"
W1=$(jqv '.processes[0].threads[] | select(.name == "w1") | .tid')
[ -n "$W1" ] || fail "no thread w1 in the dump"
w=$(written "$f" "$W1")
kill -KILL "$wpid"
wait "$wpid" 2>/dev/null
# The program ends the freeze itself: no trigger, no writer comes.
wait_json "$f" '.snapshots.frozen == false' "the program to end the freeze its dead writer left"
wait_for "w1's log to record again" moved "$f" "$W1" "$w"
kill -0 "$pid" || fail "the program died"
expect_jq "nothing written, nothing missed" '.snapshots.written == 0 and .snapshots.missed == 0'
note "a freeze whose writer was killed ended by the program's threads"
