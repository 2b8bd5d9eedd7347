#!/bin/bash
# SPDX-License-Identifier: MIT
# tui-history: L shows the selected thread's history, a live function
# graph of its event log.  A thread that spins through evseq's rounds with
# a 64-record log (tests/apps/evseq.c -s) outruns any reader: the view
# follows it (the written count and the rows move on), shows its calls
# nested with durations, marks what the thread overwrote between two
# reads as [LOST N EVENTS]; r switches its recording off (marked, the
# count stops, the header says OFF) and on again; the main screen's header
# shows the log's policy and size; any other key goes back.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

f=$T/hist.trace
launch spin env RBTRACE_FILE="$f" RBTRACE_EVENTS=64 "$APPS/evseq" -s
pid=$LAUNCHED
wait_ready "spun $pid" "$pid"

tui_start 120 100 "$RBMON" -d 3 "$f"
tui_wait "^└─ +$pid " "the thread row"
tui_wait "events ring 64  (\[|refresh)" "the log's policy and size in the header"
tui_keys L
tui_wait "^ History of thread $pid \"[^\"]*\" \(pid $pid\)  ring, 64 records  written [0-9]+  dropped 0  recording on  \[following\]" "the history's title"
tui_wait '^ +[0-9]+\.[0-9]{3} us \|  +seq_b\(\);$' "a timed leaf call"
tui_wait '^ +[0-9]+\.[0-9]{3} us \|  +seq_a\(\) \{$' "a timed call with callees"
tui_wait '^ +\|  +\[LOST [0-9]+ EVENTS\]$' "a [LOST] gap where records were overwritten between reads"
tui_wait 'older records overwritten before this view opened$' "the note of what came before"

written() { tui_screen | sed -n 's/.*  written \([0-9]*\)  dropped.*/\1/p'; }
w1=$(written)
[ -n "$w1" ] || tui_fail "no written count in the title"
more() { [ "$(written)" -gt "$1" ]; }
wait_for "the view to follow the thread" more "$w1"

# Off: the thread marks it at its next call and writes nothing more.
tui_keys r
tui_wait "recording off for thread $pid" "the message"
tui_wait "  recording OFF  " "OFF in the title"
tui_wait '^ +\|  +/\* recording off \*/$' "the off mark, the last row"
tui_screen >"$T/off.screen"
expect "the last row while off" "/* recording off */" \
	"$(grep -v '^ *$' "$T/off.screen" | tail -3 | head -1 | sed 's/^ *| *//')"
# The mark is on the screen, so written: from here the count holds.
count() { events_json "$f"; jqv ".processes[0].threads[0].written"; }
w3=$(count)
sleep 1	# a negative check: a second with the thread spinning, nothing written
expect "written while off" "$w3" "$(count)"

tui_keys r
tui_wait "recording on for thread $pid" "the message"
tui_wait "  recording on  " "on in the title"
wait_for "records again" more "$w3"

# Up leaves the bottom: no longer following; End follows again.
tui_keys Up
tui_wait_gone '\[following\]' "following, after Up"
tui_keys End
tui_wait '\[following\]' "following, after End"
tui_keys q
tui_wait '^ Stack of thread' "the main screen again"
tui_lacks '^ History of thread' || tui_fail "the history is still shown"
exit 0
