#!/bin/bash
# SPDX-License-Identifier: MIT
# dyn-dormant: a program started asleep (rbtrace --dormant) runs with every
# hook call a no-op and no thread traced; rbtrace -p wakes it (the threads
# show at once, their stacks unwound), rbtrace -p --detach puts it back to
# sleep, N times while its threads run (tests/apps/dyncount checks every
# result it computes against the same sums made without a call).  For
# gcc, g++, clang and clang++ builds at -O2.
. "$(dirname "$0")/lib.sh"
need_attach

CYCLES=${DYN_CYCLES:-100}

# threads_traced FILE N - the dump shows N running dc-* threads, each in
# dc_thread.
threads_traced()
{
	json_true "$1" "[.processes[].threads[] | select(.state == \"running\"
		and (.name | startswith(\"dc-\")))
		| select(any(.frames[]; .function | startswith(\"dc_thread\")))] | length == $2"
}

# no_thread_traced FILE - no ring of a dc-* thread is running.
no_thread_traced()
{
	json_true "$1" '[.processes[]?.threads[]? | select(.state == "running"
		and (.name | startswith("dc-")))] | length == 0'
}

one()
{
	local v=$1 n=$2 app=$APPS/dyncount-$1 pid i out
	[ -x "$app" ] || { note "no $app: skipped"; return 0; }
	: >"$RBT_READY"
	launch "$v" "$RBTRACE" --dormant --file "$T/$v.trace" -- "$app" -l -t 3 -n 200
	wait_ready "running [0-9]+" "$LAUNCHED"
	pid=$(ready_field running 2)
	wait_ready "round 2" "$pid"
	# Asleep: the file is there, no thread has a ring.
	[ -f "$T/$v.trace" ] || fail "$v: no trace file while dormant"
	dump_json "$T/$v.trace"
	expect_jq "$v: dormant, no dc- thread traced" \
		'[.processes[]?.threads[]? | select(.name | startswith("dc-"))] | length == 0'
	for i in $(seq 1 "$n"); do
		out=$("$RBTRACE" -p "$pid" 2>&1 >/dev/null) ||
			fail "$v: wake $i: $out"
		case $out in
		*"woke $pid"*) ;;
		*) fail "$v: wake $i said: $out" ;;
		esac
		if [ "$i" -eq 1 ] || [ "$i" -eq "$n" ]; then
			wait_for "$v: the 3 threads traced after wake $i" \
				threads_traced "$T/$v.trace" 3
		fi
		out=$("$RBTRACE" -p "$pid" --detach 2>&1 >/dev/null) ||
			fail "$v: sleep $i: $out"
		case $out in
		*"put to sleep $pid"*) ;;
		*) fail "$v: sleep $i said: $out" ;;
		esac
		if [ "$i" -eq 1 ] || [ "$i" -eq "$n" ]; then
			wait_for "$v: no thread traced after sleep $i" \
				no_thread_traced "$T/$v.trace"
		fi
		ready "bad .*" && fail "$v: a result changed: $(grep bad "$RBT_READY")"
	done
	kill -TERM "$pid"
	wait_ready "done $pid"
	wait "$LAUNCHED"
	expect "$v: exit status (0: every result right)" 0 "$?"
	ready "bad .*" && fail "$v: a result changed: $(grep bad "$RBT_READY")"
	return 0
}

one gcc "$CYCLES"
one gxx 10
one clang 10
one clangxx 10
exit 0
