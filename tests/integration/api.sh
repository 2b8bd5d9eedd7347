#!/bin/bash
# SPDX-License-Identifier: MIT
# api: a program linked with -lrbtrace (no LD_PRELOAD, no instrumentation)
# shows the frames it pushes through <rbtrace/rbtrace.h>, and rbtrace_file()
# names its trace file.
. "$(dirname "$0")/lib.sh"

f=$T/api.trace
launch app env RBTRACE_FILE="$f" "$APPS/named"
pid=$LAUNCHED
wait_ready "named .*" "$pid"
expect "rbtrace_file()" "$f" "$(ready_field named 2)"
dump_json "$f"
M='.processes[0].threads[0]'
expect "depth" 2 "$(jqv "$M.depth")"
expect "functions" "handler interp_eval" "$(jqv "$M.frames | map(.function) | join(\" \")")"
expect "files" "lib/util.py script.py" "$(jqv "$M.frames | map(.file) | join(\" \")")"
expect "lines (rbtrace_line moved the innermost)" "5 10" "$(jqv "$M.frames | map(.line) | join(\" \")")"
expect_jq "named frames have no address" "[$M.frames[] | .address == null] | all"
exit 0
