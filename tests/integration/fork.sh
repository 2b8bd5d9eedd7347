#!/bin/bash
# SPDX-License-Identifier: MIT
# fork: the child of main -> parent_work -> fork_here shows the stack it
# inherited under its own pid (plus child_park), only the forking thread;
# the parent still shows its own stack and its second thread; each
# process's ppid is its parent's pid (JSON "ppid", "parent N" in the text).
. "$(dirname "$0")/lib.sh"

src=$APPS_SRC/forker.c
f=$T/forker.trace
traced app RBTRACE_FILE="$f" "$APPS/forker"
pid=$LAUNCHED
wait_ready "parent $pid [0-9]+" "$pid"
child=$(ready_field parent 3)
wait_ready "child $child" "$pid"
dump_json "$f"

expect "processes, creator first" "$pid $child" "$(jqv '[.processes[].pid] | map(tostring) | join(" ")')"
expect "rings.used" 3 "$(jqv .rings.used)"

P=".processes[] | select(.pid == $pid)"
C=".processes[] | select(.pid == $child)"
expect "parent alive" true "$(jqv "$P | .alive")"
expect "child alive" true "$(jqv "$C | .alive")"
expect "child's ppid" "$pid" "$(jqv "$C | .ppid")"
expect "parent's ppid (as ps says)" "$(ps -o ppid= -p "$pid" | tr -d ' ')" "$(jqv "$P | .ppid")"
"$RBMON" --dump "$f" >"$T/text" || fail "rbmon --dump $f exited $?"
grep -qx "process $child (forker) alive, parent $pid" "$T/text" ||
	fail "the child's process line: $(grep '^process' "$T/text")"
expect "child thread tids" "$child" "$(jqv "[$C | .threads[] | select(.state != \"exited\") | .tid] | map(tostring) | join(\" \")")"
expect "parent thread names" "forker sidekick" \
	"$(jqv "[$P | .threads[] | select(.state == \"running\") | .name] | sort | join(\" \")")"

lines_common="$(line_of "$src" call_fork_here) $(line_of "$src" call_parent_work)"
CT="$C | .threads[] | select(.tid == $child)"
expect "child state" running "$(jqv "$CT | .state")"
expect "child depth" 4 "$(jqv "$CT | .depth")"
expect "child functions" "child_park fork_here parent_work main" \
	"$(jqv "$CT | .frames | map(.function) | join(\" \")")"
expect "child lines" "$(line_of "$src" child_park_def) $(line_of "$src" call_child_park) $lines_common" \
	"$(jqv "$CT | .frames | map(.line) | join(\" \")")"

PT="$P | .threads[] | select(.tid == $pid)"
expect "parent depth" 4 "$(jqv "$PT | .depth")"
expect "parent functions" "parent_park fork_here parent_work main" \
	"$(jqv "$PT | .frames | map(.function) | join(\" \")")"
expect "parent lines" "$(line_of "$src" parent_park_def) $(line_of "$src" call_parent_park) $lines_common" \
	"$(jqv "$PT | .frames | map(.line) | join(\" \")")"
expect "sidekick functions" "sidekick_park sidekick_main" \
	"$(jqv "$P | .threads[] | select(.name == \"sidekick\") | .frames | map(.function) | join(\" \")")"

stop_and_reap "$pid"
expect "exit status" 0 "$REAPED"
exit 0
