#!/bin/bash
# SPDX-License-Identifier: MIT
# badenv: every bad RBTRACE_* value (not a number, out of range, negative,
# empty, trailing garbage) gives exactly one line on stderr naming the
# variable, and the program runs normally, traced with the default.
. "$(dirname "$0")/lib.sh"

n=0
# check VAR VALUE HEADER-FIELD DEFAULT [RANGE-TEXT]
check()
{
	local var=$1 val=$2 field=$3 def=$4 range=${5:-} f pid err
	n=$((n + 1))
	f=$T/simple.$n.trace
	: >"$RBT_READY"
	traced "run$n" RBTRACE_FILE="$f" "$var=$val" "$APPS/simple" -p
	pid=$LAUNCHED
	wait_ready "parked $pid" "$pid"
	err=$T/run$n.err
	if [ -n "$range" ]; then
		expect "stderr for $var='$val'" \
			"rbtrace: $var=$val: not a number from $range; using $def" "$(cat "$err")"
	else
		expect "stderr lines for $var='$val'" 1 "$(wc -l <"$err")"
		grep -q "^rbtrace: $var=$val: .*" "$err" ||
			fail "stderr for $var='$val' does not start with 'rbtrace: $var=$val: ': $(cat "$err")"
	fi
	expect "header $field for $var='$val'" "$def" "$(header_get "$f" "$field")"
	dump_json "$f"
	expect "rings.total for $var='$val'" 64 "$(jqv .rings.total)"
	expect "stack for $var='$val'" "simple_leaf simple_work main" \
		"$(jqv '.processes[0].threads[0].frames | map(.function) | join(" ")')"
	stop_and_reap "$pid"
	expect "exit status for $var='$val'" 0 "$REAPED"
}

for v in abc 0 65537 -1 "" 12x 99999999999999999999; do
	check RBTRACE_RINGS "$v" rings 64 "1 to 65536"
done
for v in 1 65537 x; do
	check RBTRACE_SLOTS "$v" slots 64 "2 to 65536"
done
for v in 7 4097 -200; do
	check RBTRACE_SLOTSZ "$v" slot_sz 200 "8 to 4096"
done
for v in 63 65537 256k; do
	check RBTRACE_MSGSZ "$v" msg_sz 256 "64 to 65536"
done
for v in 1023 16777217; do
	check RBTRACE_GLOBALSZ "$v" global_sz 16384 "1024 to 16777216"
done
for v in 2 yes; do
	check RBTRACE_SOC "$v" stop_on_create 0
done
for v in -1 on; do
	check RBTRACE_TOC "$v" trace_on_create 1
done
check RBTRACE_CLOCK bogus rings 64

# A good value is taken silently.
f=$T/good.trace
: >"$RBT_READY"
traced good RBTRACE_FILE="$f" RBTRACE_RINGS=8 RBTRACE_SLOTS=2 "$APPS/simple" -p
pid=$LAUNCHED
wait_ready "parked $pid" "$pid"
expect "stderr for good values" "" "$(cat "$T/good.err")"
expect "header rings for RBTRACE_RINGS=8" 8 "$(header_get "$f" rings)"
expect "header slots for RBTRACE_SLOTS=2" 2 "$(header_get "$f" slots)"
dump_json "$f"
expect "rings.total for RBTRACE_RINGS=8" 8 "$(jqv .rings.total)"
expect "wrapped with 2 slots" "3 1" "$(jqv '.processes[0].threads[0] | "\(.depth) \(.wrapped)"')"
stop_and_reap "$pid"
exit 0
