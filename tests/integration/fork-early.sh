#!/bin/bash
# SPDX-License-Identifier: MIT
# fork-early: a program that forks from its first traced call, and whose
# children fork on at once, 16 deep, while the watch worker each process
# just started may still be starting: every child starts a thread (no
# allocator lock left held by a worker half-started, rbtrace(5): fork()
# waits for it), the chain reaches its end, each process is in the file
# with its parent as ppid, and the chain ends with status 0.
. "$(dirname "$0")/lib.sh"

N=16
f=$T/forkchain.trace
traced app RBTRACE_FILE="$f" "$APPS/forkchain" "$N"
pid=$LAUNCHED
wait_ready "root $pid" "$pid"
deadline=$((SECONDS + WAIT_TIMEOUT))
until ready "link $N [0-9]+ [0-9]+"; do
	if [ "$SECONDS" -ge "$deadline" ]; then
		for p in $(pgrep -s "$pid"); do
			echo "process $p threads: $(cat /proc/"$p"/task/*/comm | tr '\n' ' ')" >&2
		done
		fail "timed out after ${WAIT_TIMEOUT}s waiting for link $N; links: $(grep -c '^link' "$RBT_READY")"
	fi
	kill -0 "$pid" 2>/dev/null || fail "the root $pid died: $(cat "$T/app.err")"
	sleep 0.1
done

prev=$pid
pids=$pid
ppids=$(ps -o ppid= -p "$pid" | tr -d ' ')
for k in $(seq 1 "$N"); do
	line=$(grep "^link $k " "$RBT_READY")
	[[ $line =~ ^link\ $k\ ([0-9]+)\ ([0-9]+)$ ]] || fail "bad or missing link $k: '$line'"
	expect "parent of link $k" "$prev" "${BASH_REMATCH[2]}"
	ppids="$ppids $prev"
	prev=${BASH_REMATCH[1]}
	pids="$pids $prev"
done
leaf=$prev

dump_json "$f"
expect "processes in the file" "$pids" "$(jqv '[.processes[].pid] | map(tostring) | join(" ")')"
expect "their ppids" "$ppids" "$(jqv "[.processes[] | .ppid] | map(tostring) | join(\" \")")"
expect "children with their thread, exited" "$N" \
	"$(jqv "[.processes[] | select(.pid != $pid) | select([.threads[] | select(.state == \"exited\")] | length == 1)] | length")"

kill -TERM "$leaf"
rc=0
wait "$pid" || rc=$?
expect "exit status of the chain" 0 "$rc"
exit 0
