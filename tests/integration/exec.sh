#!/bin/bash
# SPDX-License-Identifier: MIT
# exec: a traced program that forks and execs another instrumented program
# finds it in the same file (joined through RBTRACE_FILE in the
# environment) with its own frames and name; an exec without fork (same pid)
# shows the new image's stack and releases the rings of the old one.
. "$(dirname "$0")/lib.sh"

src=$APPS_SRC/execd.c
execd_lines="$(line_of "$src" execd_park_def) $(line_of "$src" call_execd_park) $(line_of "$src" call_execd_work)"

# 1. fork + exec, default file name under $TMPDIR.
mkdir "$T/a"
traced forkexec TMPDIR="$T/a" "$APPS/execer" fork "$APPS/execd"
pid=$LAUNCHED
wait_ready "parent $pid [0-9]+" "$pid"
child=$(ready_field parent 3)
wait_ready "execd $child" "$pid"
f=$T/a/execer.$pid.trace
[ -f "$f" ] || fail "no trace file $f (has: $(ls "$T/a"))"
expect "trace files in TMPDIR" 1 "$(ls "$T/a" | wc -l)"
dump_json "$f"
expect "program (the creator)" execer "$(jqv .program)"
expect "processes, creator first" "$pid $child" "$(jqv '[.processes[].pid] | map(tostring) | join(" ")')"
expect "rings.used" 2 "$(jqv .rings.used)"
C=".processes[] | select(.pid == $child) | .threads[] | select(.state == \"running\")"
expect "exec'd running threads" 1 "$(jqv "[$C] | length")"
expect "exec'd tid" "$child" "$(jqv "$C | .tid")"
expect "exec'd thread name" execd "$(jqv "$C | .name")"
expect "exec'd functions" "execd_park execd_work main" "$(jqv "$C | .frames | map(.function) | join(\" \")")"
expect "exec'd files" "execd.c execd.c execd.c" "$(jqv "$C | .frames | map(.file) | join(\" \")")"
expect "exec'd lines" "$execd_lines" "$(jqv "$C | .frames | map(.line) | join(\" \")")"
P=".processes[] | select(.pid == $pid) | .threads[] | select(.state == \"running\")"
expect "parent functions" "parent_park spawn_target main" "$(jqv "$P | .frames | map(.function) | join(\" \")")"
expect "parent file" execer.c "$(jqv "$P | .frames[0].file")"
stop_and_reap "$pid"
expect "exit status (fork+exec)" 0 "$REAPED"

# 2. exec in place: same pid, two threads before, one after.
mkdir "$T/b"
: >"$RBT_READY"
traced replace TMPDIR="$T/b" "$APPS/execer" replace "$APPS/execd"
pid=$LAUNCHED
wait_ready "pre-exec $pid" "$pid"
f=$T/b/execer.$pid.trace
[ -f "$f" ] || fail "no trace file $f (has: $(ls "$T/b"))"
dump_json "$f"
expect "rings.used before exec" 2 "$(jqv .rings.used)"
expect "threads before exec" "before_exec main|sidekick_park sidekick_main" \
	"$(jqv '[.processes[].threads[] | select(.state == "running") | .frames | map(.function) | join(" ")] | sort | join("|")')"

kill -USR1 "$pid"
wait_ready "execd $pid" "$pid"
wait_json "$f" '.rings.used == 1' "rings.used == 1 after exec"
expect "processes after exec" "$pid" "$(jqv '[.processes[].pid] | map(tostring) | join(" ")')"
expect "alive after exec" true "$(jqv '.processes[0].alive')"
R='.processes[0].threads[] | select(.state == "running")'
expect "running threads after exec" 1 "$(jqv "[$R] | length")"
expect "tid after exec" "$pid" "$(jqv "$R | .tid")"
expect "name after exec" execd "$(jqv "$R | .name")"
expect "functions after exec" "execd_park execd_work main" "$(jqv "$R | .frames | map(.function) | join(\" \")")"
expect "lines after exec" "$execd_lines" "$(jqv "$R | .frames | map(.line) | join(\" \")")"
expect "pre-exec rings released (exited)" 2 \
	"$(jqv '[.processes[0].threads[] | select(.state == "exited")] | length')"
expect "no other state" 3 "$(jqv '.processes[0].threads | length')"
stop_and_reap "$pid"
expect "exit status (exec in place)" 0 "$REAPED"
exit 0
