#!/bin/bash
# SPDX-License-Identifier: MIT
# relpath: a relative RBTRACE_FILE or rbtrace --file names a file in the
# directory the program started in, for every process it starts: a traced
# program that chdir()s, forks and execs finds its exec'd child in the same
# file, an untraced shell that changes directory before its exec (make -C)
# passes the path on the same way, the exec'd programs get the absolute
# path in their environment, and no file appears in the other directory.
. "$(dirname "$0")/lib.sh"

mkdir "$T/work" "$T/elsewhere"
cd "$T/work" || fail "cannot cd to $T/work"

# env_of PID - RBTRACE_FILE in the environment PID was exec'd with.
env_of() { tr '\0' '\n' <"/proc/$1/environ" | sed -n 's/^RBTRACE_FILE=//p'; }

# execd_shown FILE PID - the dump of FILE shows PID parked in execd.
execd_shown()
{
	dump_json "$1"
	expect "execd ($2) in $1" "execd_park execd_work main" \
		"$(jqv ".processes[] | select(.pid == $2) | .threads[] | select(.state == \"running\") | .frames | map(.function) | join(\" \")")"
}

nothing_elsewhere() { expect "files in $T/elsewhere" "" "$(ls -A "$T/elsewhere")"; }

# 1. An instrumented program with RBTRACE_FILE=rel.trace: chdir, fork, exec.
traced cd RBTRACE_FILE=rel.trace "$APPS/cdexec" "$T/elsewhere" "$APPS/execd"
pid=$LAUNCHED
wait_ready "parent $pid [0-9]+" "$pid"
child=$(ready_field parent 3)
wait_ready "execd $child" "$pid"
f=$T/work/rel.trace
[ -f "$f" ] || fail "no trace file $f (has: $(ls "$T/work"))"
nothing_elsewhere
expect "RBTRACE_FILE given to the program" rel.trace "$(env_of "$pid")"
expect "RBTRACE_FILE of the exec'd child" "$f" "$(env_of "$child")"
execd_shown "$f" "$child"
expect "processes in $f" "$pid $child" "$(jqv '[.processes[].pid] | map(tostring) | join(" ")')"
expect "the parent's stack" "parent_park move_and_spawn main" \
	"$(jqv ".processes[] | select(.pid == $pid) | .threads[0].frames | map(.function) | join(\" \")")"
stop_and_reap "$pid"
expect "exit status (cdexec)" 0 "$REAPED"
nothing_elsewhere

# 2. An untraced shell given ./rel2.trace changes directory, then execs.
: >"$RBT_READY"
traced sh RBTRACE_FILE=./rel2.trace sh -c 'cd "$1" && exec "$2"' sh \
	"$T/elsewhere" "$APPS/execd"
pid=$LAUNCHED
wait_ready "execd $pid" "$pid"
f=$T/work/rel2.trace
[ -f "$f" ] || fail "no trace file $f (has: $(ls "$T/work"))"
nothing_elsewhere
expect "RBTRACE_FILE of the program the shell exec'd" "$f" "$(env_of "$pid")"
execd_shown "$f" "$pid"
stop_and_reap "$pid"
expect "exit status (sh)" 0 "$REAPED"

# 3. rbtrace --file rel3.trace exports the absolute path.
: >"$RBT_READY"
launch rbtrace "$RBTRACE" --file rel3.trace -- sh -c 'cd "$1" && exec "$2"' sh \
	"$T/elsewhere" "$APPS/execd"
rb=$LAUNCHED
wait_ready "execd [0-9]+" "$rb"
pid=$(ready_field execd 2)
f=$T/work/rel3.trace
wait_for "the tracing line" grep -q '^rbtrace: tracing' "$T/rbtrace.err"
expect "rbtrace's tracing line" "rbtrace: tracing sh (pid $pid) into $f" \
	"$(head -n 1 "$T/rbtrace.err")"
[ -f "$f" ] || fail "no trace file $f (has: $(ls "$T/work"))"
nothing_elsewhere
expect "RBTRACE_FILE of the program the shell exec'd" "$f" "$(env_of "$pid")"
execd_shown "$f" "$pid"
kill -TERM "$pid"
RC=0
wait "$rb" || RC=$?
expect "rbtrace's exit status" 0 "$RC"
nothing_elsewhere
expect "trace files made" "rel.trace rel2.trace rel3.trace" "$(ls "$T/work" | tr '\n' ' ' | sed 's/ $//')"
exit 0
