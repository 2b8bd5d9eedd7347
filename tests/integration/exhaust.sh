#!/bin/bash
# SPDX-License-Identifier: MIT
# exhaust: RBTRACE_RINGS=4 with main + 10 parked threads: 4 traced, the other
# 7 counted in rings.untraced_threads, and the program runs on and ends
# normally; the library's watch worker is one more task, with no ring.
. "$(dirname "$0")/lib.sh"

f=$T/threads.trace
# The worker from the start, to count it without a watch.
traced app RBTRACE_FILE="$f" RBTRACE_RINGS=4 RBTRACE_WATCH_WORKER=start \
	"$APPS/threads" 0 10
pid=$LAUNCHED
wait_ready "ready $pid" "$pid"
dump_json "$f"
expect "rings.total" 4 "$(jqv .rings.total)"
expect "rings.used" 4 "$(jqv .rings.used)"
expect "rings.untraced_threads" 7 "$(jqv .rings.untraced_threads)"
expect "traced threads" 4 "$(jqv '[.processes[].threads[] | select(.state == "running")] | length')"
expect_jq "main is traced" ".processes[0].threads | any(.tid == $pid)"
expect "traced parked threads" 3 "$(jqv '[.processes[].threads[] | select(.name == "parked")] | length')"
expect_jq "traced parked threads show park_here <- parked_main" \
	'[.processes[].threads[] | select(.name == "parked") | (.frames | map(.function)) == ["park_here", "parked_main"]] | all'
expect "tasks of the process (the watch worker aside)" 11 \
	"$(cat /proc/"$pid"/task/*/comm | grep -vc '^rbtrace-watch$')"
expect "watch worker tasks" 1 "$(cat /proc/"$pid"/task/*/comm | grep -c '^rbtrace-watch$')"
stop_and_reap "$pid"
expect "exit status" 0 "$REAPED"
grep -q '^done$' "$RBT_READY" || fail "program did not finish its work"
exit 0
