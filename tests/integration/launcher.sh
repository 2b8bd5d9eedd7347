#!/bin/bash
# SPDX-License-Identifier: MIT
# launcher: rbtrace prints "rbtrace: tracing PROGRAM (pid N) into PATH",
# traces the program into ${TMPDIR}/<basename>.<pid>.trace (or --file),
# passes the geometry options on, exits with the program's status (128 +
# signal when it was killed), and rejects bad options with status 2.
. "$(dirname "$0")/lib.sh"

[ -x "$RBTRACE" ] || fail "rbtrace not built: $RBTRACE"
mkdir "$T/tmp"
export TMPDIR=$T/tmp
re='^rbtrace: tracing (.+) \(pid ([0-9]+)\) into (.+)$'

# run_rbtrace NAME ARGS... - run rbtrace in the foreground; sets RC.
run_rbtrace()
{
	local name=$1
	shift
	RC=0
	"$RBTRACE" "$@" >"$T/$name.out" 2>"$T/$name.err" || RC=$?
}

# tracing_line NAME - parse the first stderr line into PROG, PID, PATHNAME.
tracing_line()
{
	local l
	l=$(head -n 1 "$T/$1.err")
	[[ $l =~ $re ]] || fail "$1: first stderr line is not the tracing line: '$l'"
	PROG=${BASH_REMATCH[1]}
	PID=${BASH_REMATCH[2]}
	PATHNAME=${BASH_REMATCH[3]}
}

run_rbtrace ok -- "$APPS/simple" -e 0
expect "status of a program exiting 0" 0 "$RC"
tracing_line ok
expect "PROGRAM in the tracing line" "$APPS/simple" "$PROG"
expect "default trace path" "$TMPDIR/simple.$PID.trace" "$PATHNAME"
expect "stderr lines" 1 "$(wc -l <"$T/ok.err")"

run_rbtrace three -- "$APPS/simple" -e 3
expect "status of a program exiting 3" 3 "$RC"
run_rbtrace killself -- "$APPS/simple" -s 9
expect "status of a program killed by SIGKILL" 137 "$RC"
run_rbtrace termself -- "$APPS/simple" -s 15
expect "status of a program killed by SIGTERM" 143 "$RC"
run_rbtrace quiet -q -- "$APPS/simple" -e 0
expect "status with -q" 0 "$RC"
expect "stderr with -q" "" "$(cat "$T/quiet.err")"

# Geometry options and --file, seen by rbmon; then SIGKILL from outside.
f=$T/launched.trace
launch parked "$RBTRACE" --file "$f" --rings 8 --slots 16 --slot-size 64 \
	--msg-size 128 --global-size 4096 -- "$APPS/simple" -p
rb=$LAUNCHED
wait_ready "parked [0-9]+" "$rb"
child=$(ready_field parked 2)
tracing_line parked
expect "pid in the tracing line" "$child" "$PID"
expect "--file in the tracing line" "$f" "$PATHNAME"
dump_json "$f"
expect "rings.total with --rings 8" 8 "$(jqv .rings.total)"
expect "slots with --slots 16" 16 "$(header_get "$f" slots)"
expect "slot_sz with --slot-size 64" 64 "$(header_get "$f" slot_sz)"
expect "msg_sz with --msg-size 128" 128 "$(header_get "$f" msg_sz)"
expect "global_sz with --global-size 4096" 4096 "$(header_get "$f" global_sz)"
expect "process" "$child" "$(jqv '.processes[0].pid')"
expect "stack" "simple_leaf simple_work main" \
	"$(jqv '.processes[0].threads[0].frames | map(.function) | join(" ")')"
kill -KILL "$child"
RC=0
wait "$rb" || RC=$?
expect "status when the program is SIGKILLed from outside" 137 "$RC"

# --no-trace-on-create: the thread gets a ring but keeps no stack;
# --stop-on-create is in the header and stops the main thread at its first
# hook, untraced or not, until a monitor continues it.
: >"$RBT_READY"
f=$T/untraced.trace
launch untraced "$RBTRACE" --file "$f" --no-trace-on-create --stop-on-create \
	-- "$APPS/simple" -p
rb=$LAUNCHED
wait_json "$f" '.processes[0].threads[0] | .state == "stopped" and .stop.reason == "stop_on_create"' \
	"the main thread stopped on creation"
ready "parked [0-9]+" && fail "the program ran on while stopped on creation"
"$RBMON" --thread "$(jqv '.processes[0].threads[0].tid')" --send CONT "$f" >/dev/null ||
	fail "CONT to the stopped main thread"
wait_ready "parked [0-9]+" "$rb"
child=$(ready_field parked 2)
dump_json "$f"
expect "thread with a ring" "$child" "$(jqv '.processes[0].threads[0].tid')"
expect "no stack kept" "0 0" "$(jqv '.processes[0].threads[0] | "\(.depth) \(.frames | length)"')"
expect "trace_on_create flag" 0 "$(header_get "$f" trace_on_create)"
expect "stop_on_create flag" 1 "$(header_get "$f" stop_on_create)"
kill -TERM "$child"
wait "$rb" || fail "rbtrace --no-trace-on-create exited $?"

# Bad usage: status 2 and a message, the program never runs.
for args in "--bogus -- $APPS/simple" "--rings abc -- $APPS/simple" \
	    "--rings 0 -- $APPS/simple" "--slots 70000 -- $APPS/simple" ""; do
	: >"$RBT_READY"
	# shellcheck disable=SC2086
	run_rbtrace bad $args
	expect "status for 'rbtrace $args'" 2 "$RC"
	[ -s "$T/bad.err" ] || fail "no message for 'rbtrace $args'"
	grep -q '^rbtrace: tracing' "$T/bad.err" && fail "'rbtrace $args' ran the program"
done
exit 0
