#!/bin/bash
# SPDX-License-Identifier: MIT
# threads50: 50 threads created and joined leave no ring behind: rings.used
# is back to the live thread count, the finished ones are listed as exited;
# with RBTRACE_RINGS=8 (fewer rings than threads) exited rings are reused,
# so no thread goes untraced.
. "$(dirname "$0")/lib.sh"

churn=50
park=3

run()	# run RINGS: churn 50 threads 5 at a time, then park 3
{
	local rings=$1 f=$T/threads.$1.trace pid live exited
	: >"$RBT_READY"
	traced "app$rings" RBTRACE_FILE="$f" RBTRACE_RINGS="$rings" \
		"$APPS/threads" $churn $park 5
	pid=$LAUNCHED
	wait_ready "ready $pid" "$pid"
	live=$((park + 1))
	# Releasing a ring at thread exit may trail pthread_join by a moment.
	wait_json "$f" "[.processes[].threads[] | select(.state == \"exited\")] | length == $2" \
		"$2 exited rings (RBTRACE_RINGS=$rings)"
	expect "rings.total ($rings)" "$rings" "$(jqv .rings.total)"
	expect "rings.used ($rings)" "$live" "$(jqv .rings.used)"
	expect "rings.untraced_threads ($rings)" 0 "$(jqv .rings.untraced_threads)"
	expect "processes ($rings)" "$pid" "$(jqv '[.processes[].pid] | join(" ")')"
	expect "running threads ($rings)" "$live" \
		"$(jqv '[.processes[].threads[] | select(.state == "running")] | length')"
	expect "running parked threads ($rings)" "$park" \
		"$(jqv '[.processes[].threads[] | select(.state == "running" and .name == "parked")] | length')"
	expect_jq "every exited ring was a churn thread ($rings)" \
		'[.processes[].threads[] | select(.state == "exited") | .name == "churn"] | all'
	expect_jq "parked threads show park_here <- parked_main ($rings)" \
		'[.processes[].threads[] | select(.name == "parked") |
		  (.frames | map(.function)) == ["park_here", "parked_main"]] | all'
	expect_jq "exactly one thread per tid among running ones ($rings)" \
		'[.processes[].threads[] | select(.state == "running") | .tid] | (length == (unique | length))'
	stop_and_reap "$pid"
	expect "exit status ($rings)" 0 "$REAPED"
}

# 64 rings: 50 churned + 4 live fit, every churned ring stays readable.
run 64 $churn
# 8 rings: 4 live, the other 4 hold the last exited threads (reused ones).
run 8 4
exit 0
