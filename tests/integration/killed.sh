#!/bin/bash
# SPDX-License-Identifier: MIT
# killed: the file of a SIGKILLed process still dumps post mortem, symbols
# resolved from the recorded objects: function names, alive=false, threads
# exited, the last stacks kept.
. "$(dirname "$0")/lib.sh"

src=$APPS_SRC/parked.c
f=$T/parked.trace
traced app RBTRACE_FILE="$f" "$APPS/parked"
pid=$LAUNCHED
wait_ready "main $pid" "$pid"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
[ -d "/proc/$pid" ] && fail "process $pid still exists after SIGKILL"

dump_json "$f"
expect "program" parked "$(jqv .program)"
expect "processes" "$pid" "$(jqv '[.processes[].pid] | map(tostring) | join(" ")')"
expect "alive" false "$(jqv '.processes[0].alive')"
expect "thread states" "exited exited" "$(jqv '[.processes[0].threads[].state] | join(" ")')"
expect "rings.used (dead but not reclaimed)" 2 "$(jqv .rings.used)"
W='.processes[0].threads[] | select(.name == "worker")'
expect "worker functions" "func_c func_b func_a worker_main" \
	"$(jqv "$W | .frames | map(.function) | join(\" \")")"
expect "worker lines" \
	"$(line_of "$src" func_c_def) $(line_of "$src" call_c) $(line_of "$src" call_b) $(line_of "$src" call_a)" \
	"$(jqv "$W | .frames | map(.line) | join(\" \")")"
M=".processes[0].threads[] | select(.tid == $pid)"
expect "main functions" "main_wait main" "$(jqv "$M | .frames | map(.function) | join(\" \")")"

# The plain text dump works post mortem too and names the functions.
"$RBMON" --dump "$f" >"$T/dump.txt" 2>"$T/dump.err" || fail "rbmon --dump exited $?: $(cat "$T/dump.err")"
for fn in func_c func_b func_a worker_main main_wait; do
	grep -q "$fn" "$T/dump.txt" || fail "text dump lacks $fn"
done
exit 0
