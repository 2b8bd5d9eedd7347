#!/bin/bash
# SPDX-License-Identifier: MIT
# record-blocking: the lossless recording (rbtrace record --blocking).
# tests/apps/evcount's threads make a number of entries and exits known
# exactly; with logs of 64 records, far too small for the recorder to keep
# up without them, every one is recorded: the summary says 0 lost and as
# many events as the threads made, and that they waited.  A recorder that
# dies while the threads wait for it (held up with SIGSTOP until they do,
# then killed, with a wait of an hour asked for) lets them run on at once:
# the program ends, well within the test's bounds.
. "$(dirname "$0")/lib.sh"

CALLS=20000

# ---- lossless: every event of 2 threads and main, logs of 64 -----------------
(cd "$T" && "$RBTRACE" record --blocking -o "$T/all.rbr" --file "$T/all.trace" \
	--events 64 -- "$APPS/evcount" -t 2 -n "$CALLS" >"$T/all.out" 2>"$T/all.err")
rc=$?
[ "$rc" -eq 0 ] || fail "rbtrace record --blocking exited $rc: $(cat "$T/all.err")"
expect "threads that said what they made" 3 "$(grep -c '^hooks ' "$RBT_READY")"
made=$(awk '$1 == "hooks" { n += $4 } END { print n }' "$RBT_READY")
summary=$(grep '^rbmon: recorded ' "$T/all.err")
kept=$(echo "$summary" | sed -n 's/^rbmon: recorded \([0-9,]*\) events .*/\1/p' | tr -d ,)
expect "events kept, as the threads made them" "$made" "$kept"
echo "$summary" | grep -q ', 0 lost$' || fail "events lost: $(cat "$T/all.err")"
grep -Eq '^rbmon:   blocking \(up to 1000 ms a wait\): threads waited for room [1-9][0-9,]* times$' \
	"$T/all.err" || fail "no waits in the summary: $(cat "$T/all.err")"
"$RBMON" report --json "$T/all.rbr" >"$T/all.report" 2>"$T/all.report.err" ||
	fail "rbmon report exited $?: $(cat "$T/all.report.err")"
expect "records in the recording" "$made" "$(jq -r .records "$T/all.report")"

# ---- a recorder killed while the threads wait for it ---------------------------
: >"$RBT_READY"
launch killed "$RBTRACE" record --blocking=1h -o "$T/killed.rbr" \
	--file "$T/killed.trace" --events 64 -- "$APPS/evcount" -w -t 2 -n "$CALLS"
rb=$LAUNCHED
wait_ready "armed [0-9]+" "$rb"
pid=$(ready_field armed 2)
wait_for "the recorder" pgrep -P "$rb" -x rbmon
rec=$(pgrep -P "$rb" -x rbmon)
kill -STOP "$rec"
kill -USR1 "$pid"
# A worker whose log is full sleeps, waiting for the recorder.
waiting()
{
	local t
	for t in /proc/"$pid"/task/*; do
		case $(cat "$t/comm" 2>/dev/null) in
		count-*) ;;
		*) continue ;;
		esac
		[ "$(awk '{ print $3 }' "$t/stat" 2>/dev/null)" = S ] && return 0
	done
	return 1
}
wait_for "a thread waiting for the held-up recorder" waiting
ready "done $pid" && fail "the program ended while its recorder was held up"
kill -KILL "$rec"
# Bounded by WAIT_TIMEOUT, far below the hour a wait could take.
wait_ready "done $pid"
wait "$rb"
rc=$?
expect "rbtrace record's status (its recorder killed)" 125 "$rc"
grep -q "the recorder (pid $rec) was killed by" "$T/killed.err" ||
	fail "the recorder's death is not said: $(cat "$T/killed.err")"
expect "threads that said what they made" 3 "$(grep -c '^hooks ' "$RBT_READY")"
exit 0
