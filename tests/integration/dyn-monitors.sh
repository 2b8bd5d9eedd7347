#!/bin/bash
# SPDX-License-Identifier: MIT
# dyn-monitors: two monitors switch the same function at once while the
# threads run it (tests/apps/dyncount checks every result): one with
# rbtrace -p --exclude / --include, the other with rbmon --send 'DYN
# exclude-addr' / 'DYN include-addr'.  No crash, no request fails, and
# the end state is the last request's: the process's entry and the
# threads' stacks agree with it, whichever monitor made it.
. "$(dirname "$0")/lib.sh"
need_attach

app=$APPS/dyncount-gcc
[ -x "$app" ] || skip "no $app (gcc not found by configure)"
ROUNDS=${DYN_MONITOR_ROUNDS:-12}

f=$T/dc.trace
launch dc "$RBTRACE" --file "$f" -- "$app" -l -t 2 -n 200
wait_ready "running [0-9]+" "$LAUNCHED"
pid=$(ready_field running 2)
wait_json "$f" '[.processes[].threads[] | select(.name == "dc-0") |
	.frames[] | select(.function == "dc_mid")] | length > 0' "dc_mid on dc-0's stack"
D=$(jqv '.processes[].threads[] | select(.name == "dc-0") | .tid')
addr=$(jqv '[.processes[].threads[] | select(.name == "dc-0") | .frames[] |
	select(.function == "dc_mid") | .address][0]')

# entry_is FILTER - the process's "dynamic" object satisfies FILTER.
entry_is() { json_true "$f" ".processes[] | select(.pid == $pid) | .dynamic | $1"; }

# dyn_send REQUEST - rbmon --send 'DYN REQUEST' to dc-0: queued; a request
# refused while the worker has another pending is sent again (at most 100
# times, 0.05 s apart).
dyn_send()
{
	local k
	for k in $(seq 1 100); do
		if "$RBMON" --send "DYN $1" -t "$D" "$f" >"$T/b.reply" 2>"$T/b.err"; then
			grep -q queued "$T/b.reply" && return 0
			echo "DYN $1 said: $(cat "$T/b.reply")"
			return 1
		fi
		grep -q "another request is pending, try again" "$T/b.err" || break
		sleep 0.05
	done
	echo "DYN $1: $(cat "$T/b.err")"
	return 1
}

# Two monitors at once, each switching dc_mid off and on ROUNDS times.
(
	for i in $(seq 1 "$ROUNDS"); do
		"$RBTRACE" -p "$pid" --exclude dc_mid >/dev/null 2>"$T/a.err" ||
			{ echo "rbtrace --exclude $i: $(cat "$T/a.err")"; exit 1; }
		"$RBTRACE" -p "$pid" --include dc_mid >/dev/null 2>"$T/a.err" ||
			{ echo "rbtrace --include $i: $(cat "$T/a.err")"; exit 1; }
	done
) >"$T/a.out" 2>&1 &
a=$!
(
	for i in $(seq 1 "$ROUNDS"); do
		dyn_send "exclude-addr $addr" || exit 1
		dyn_send "include-addr $addr" || exit 1
	done
) >"$T/b.out" 2>&1 &
b=$!
wait "$a" || fail "the rbtrace loop: $(cat "$T/a.out")"
wait "$b" || fail "the DYN loop: $(cat "$T/b.out")"
kill -0 "$pid" 2>/dev/null || fail "the program died: $(cat "$T/dc.err")"
ready "bad .*" && fail "a result changed: $(grep bad "$RBT_READY")"

# Both ended with an include: dc_mid on.
wait_for "dc_mid on after both loops" entry_is '.functions_off == 0 and .off == [] and .sites_off == 0'

# The last request wins, whichever monitor sends it.
"$RBTRACE" -p "$pid" --exclude dc_mid >/dev/null 2>"$T/ex.err" ||
	fail "the last exclude: $(cat "$T/ex.err")"
wait_for "dc_mid off in the entry" entry_is \
	".functions_off == 1 and .off == [{\"function\": \"dc_mid\", \"address\": \"$addr\", \"reason\": \"name\"}] and .sites_off > 0"
# Off in the text too: no stack shows dc_mid any more.
for i in $(seq 1 10); do
	dump_json "$f"
	expect "dc_mid frames while off (sample $i)" 0 \
		"$(jqv '[.processes[].threads[] | .frames[] | select(.function == "dc_mid")] | length')"
done
out=$(dyn_send "include-addr $addr") || fail "the last include: $out"
wait_for "nothing off in the entry" entry_is '.functions_off == 0 and .off == [] and .sites_off == 0'
wait_json "$f" '[.processes[].threads[] | .frames[] | select(.function == "dc_mid")] | length > 0' \
	"dc_mid on a stack again"

kill -TERM "$pid"
wait_ready "done $pid"
wait "$LAUNCHED"
expect "exit status (0: every result right)" 0 "$?"
exit 0
