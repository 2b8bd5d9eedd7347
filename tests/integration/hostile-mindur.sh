#!/bin/bash
# SPDX-License-Identifier: MIT
# hostile-mindur: a stray writer scribbles on the minimum duration's words
# (rbtrace(5), "EVENT LOG", "Short calls"): the header's threshold (huge,
# tiny), a log's count of rewinds and its peak (huge, wrapping, gone back),
# while the thread takes short calls back.  The program runs every phase
# to its end, and rbmon reads the file throughout, its counts and records
# bounded: no crash, no hang, valid JSON.
. "$(dirname "$0")/lib.sh"

f=$T/short.trace
traced app RBTRACE_FILE="$f" RBTRACE_MIN_DURATION=10us "$APPS/shortcalls" -p -n 20000 -s 2
pid=$LAUNCHED

# hostile STEP... - the stray writer on the main thread.
hostile()
{
	local rc=0
	"$APPS/hostile" "$f" "$pid" "$@" >"$T/hostile.out" 2>"$T/hostile.err" || rc=$?
	expect "hostile $* (stderr: $(cat "$T/hostile.err"))" 0 "$rc"
}

# readers DESC - rbmon reads the file, in every output, and answers.
readers()
{
	dump_json "$f"
	events_json "$f"
	"$RBMON" --events "$f" >"$T/text" 2>"$T/text.err" ||
		fail "$1: rbmon --events exited $?: $(cat "$T/text.err")"
	"$RBMON" --dump "$f" >"$T/dump" 2>"$T/dump.err" ||
		fail "$1: rbmon --dump exited $?: $(cat "$T/dump.err")"
	kill -0 "$pid" 2>/dev/null || fail "$1: the program died ($(cat "$T/app.err"))"
}

wait_ready "phase 1 $pid" "$pid"
readers "untouched"
hostile hdr min_duration=-1 hdr min_duration_ns=-1 log rewinds=-1 log peak=-1
readers "every word at its maximum"
expect_jq "the header's nonsense shown as a number" '.events.min_duration_ns > 1e19'
grep -q '"min_duration_ns": 18446744073709551615' "$T/json" || fail "min_duration_ns not 2^64 - 1 in the JSON"
kill -USR1 "$pid"
wait_ready "phase 2 $pid" "$pid"
readers "after a phase with a threshold of 2^64 - 1 ticks"
hostile hdr min_duration=1 log rewinds=0 log peak=0 log head=3
readers "a tiny threshold, the count gone back"
kill -USR1 "$pid"
wait_ready "phase 3 $pid" "$pid"
readers "after a phase with a threshold of one tick"
kill -USR1 "$pid"
wait_ready "done $pid" "$pid"
readers "at the end"
exit 0
