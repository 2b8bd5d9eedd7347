#!/bin/bash
# SPDX-License-Identifier: MIT
# parked: a thread parked in worker_main -> func_a -> func_b -> func_c shows
# exactly those frames, newest first, with the right file:line; so does the
# main thread parked in main -> main_wait.
. "$(dirname "$0")/lib.sh"

src=$APPS_SRC/parked.c
f=$T/parked.trace
traced app RBTRACE_FILE="$f" "$APPS/parked"
pid=$LAUNCHED
wait_ready worker "$pid"
wait_ready "main $pid" "$pid"
dump_json "$f"

expect "file" "$f" "$(jqv .file)"
expect "program" parked "$(jqv .program)"
expect "rings.total" 64 "$(jqv .rings.total)"
expect "rings.used" 2 "$(jqv .rings.used)"
expect "rings.untraced_threads" 0 "$(jqv .rings.untraced_threads)"
expect "process pids" "$pid" "$(jqv '[.processes[].pid] | join(" ")')"
expect "alive" true "$(jqv '.processes[0].alive')"
expect "thread count" 2 "$(jqv '.processes[0].threads | length')"

W='.processes[0].threads[] | select(.name == "worker")'
expect "worker threads" 1 "$(jqv "[$W] | length")"
expect "worker state" running "$(jqv "$W | .state")"
expect "worker depth" 4 "$(jqv "$W | .depth")"
expect "worker wrapped" 0 "$(jqv "$W | .wrapped")"
expect "worker tid is another task of $pid" yes \
	"$(t=$(jqv "$W | .tid"); [ "$t" != "$pid" ] && [ -d "/proc/$pid/task/$t" ] && echo yes)"
expect "worker functions" "func_c func_b func_a worker_main" \
	"$(jqv "$W | .frames | map(.function) | join(\" \")")"
expect "worker files" "parked.c parked.c parked.c parked.c" \
	"$(jqv "$W | .frames | map(.file) | join(\" \")")"
expect "worker lines" \
	"$(line_of "$src" func_c_def) $(line_of "$src" call_c) $(line_of "$src" call_b) $(line_of "$src" call_a)" \
	"$(jqv "$W | .frames | map(.line) | join(\" \")")"
expect_jq "frames carry a hex address and a non-negative age_ns" \
	"[$W | .frames[] | (.address | test(\"^0x[0-9a-f]+\$\")) and (.age_ns >= 0)] | all"

M=".processes[0].threads[] | select(.tid == $pid)"
expect "main thread name" parked "$(jqv "$M | .name")"
expect "main state" running "$(jqv "$M | .state")"
expect "main depth" 2 "$(jqv "$M | .depth")"
expect "main functions" "main_wait main" "$(jqv "$M | .frames | map(.function) | join(\" \")")"
expect "main lines" "$(line_of "$src" main_wait_def) $(line_of "$src" call_main_wait)" \
	"$(jqv "$M | .frames | map(.line) | join(\" \")")"

# The program ends normally; the file then says nobody is alive.
stop_and_reap "$pid"
expect "exit status" 0 "$REAPED"
if [ -e "$f" ]; then
	wait_json "$f" '.processes | length > 0 and all(.alive == false)' "alive=false after exit"
	expect_jq "all threads exited after exit" '[.processes[].threads[].state == "exited"] | all'
	expect "rings.used after exit" 0 "$(jqv .rings.used)"
fi
exit 0
