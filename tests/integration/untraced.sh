#!/bin/bash
# SPDX-License-Identifier: MIT
# untraced: rbtrace looks at a program before it runs it and says in one
# line on stderr when it will not be traced, and runs it all the same:
#  - tests/apps/plain (no -finstrument-functions, no dlopen, runs nothing):
#    "nothing PROG links calls the hooks ...: it runs untraced", by the
#    name as given also when found through PATH, with -q too; no tracing
#    line, no trace file, the program's status; --monitor does not start
#    rbmon (nor hide the program's output), rbtrace record has nothing to
#    record;
#  - tests/apps/plain-dl (imports dlopen): "...; code it loads later with
#    dlopen may" (not with -q), the tracing line, and the file once it
#    loads the instrumented plugin; --monitor waits for it beyond 10 s
#    (saying so once) and starts rbmon on it then, not before;
#  - no warning for a shell script, for env (it runs programs), and for an
#    instrumented program: what they run is traced.
. "$(dirname "$0")/lib.sh"

[ -x "$RBTRACE" ] || fail "rbtrace not built: $RBTRACE"
mkdir "$T/tmp"
export TMPDIR=$T/tmp
PLUGIN=$APPS/.libs/libplugin.so
[ -f "$PLUGIN" ] || fail "plugin not built: $PLUGIN"

never() { echo "rbtrace: nothing $1 links calls the hooks of -finstrument-functions: it runs untraced; build it with -finstrument-functions"; }
later() { echo "rbtrace: nothing $1 links calls the hooks of -finstrument-functions; code it loads later with dlopen may; build it with -finstrument-functions to trace it"; }

# run_rbtrace NAME ARGS... - rbtrace in the foreground; sets RC.
run_rbtrace()
{
	local name=$1
	shift
	RC=0
	"$RBTRACE" "$@" >"$T/$name.out" 2>"$T/$name.err" </dev/null || RC=$?
}

no_trace_files() { expect "files in \$TMPDIR after $1" "" "$(ls "$TMPDIR")"; }

# ---- plain: it runs, untraced, and rbtrace says so --------------------------
run_rbtrace plain -- "$APPS/plain" -e 3
expect "status of plain" 3 "$RC"
expect "stderr of rbtrace -- plain" "$(never "$APPS/plain")" "$(cat "$T/plain.err")"
expect "stdout of plain" "plain: hello" "$(cat "$T/plain.out")"
no_trace_files "plain"

# Found through PATH as execvp would; the line names it as given.
PATH=$APPS:$PATH run_rbtrace path -- plain -e 4
expect "status of plain through PATH" 4 "$RC"
expect "stderr of rbtrace -- plain (PATH)" "$(never plain)" "$(cat "$T/path.err")"

# -q silences the tracing line, never the warning.
run_rbtrace quiet -q -- "$APPS/plain"
expect "status with -q" 0 "$RC"
expect "stderr with -q" "$(never "$APPS/plain")" "$(cat "$T/quiet.err")"

# rbtrace record: nothing to record, and the program's status.
run_rbtrace rec record -o "$T/plain.rbr" -- "$APPS/plain" -e 5
expect "status of record" 5 "$RC"
expect "stderr of rbtrace record -- plain" "$(never "$APPS/plain")
rbtrace: nothing to record" "$(cat "$T/rec.err")"
[ -e "$T/plain.rbr" ] && fail "rbtrace record made a recording of nothing"
no_trace_files "record"

# --monitor, while the program runs: no rbmon, and its output stays where
# it was (no .out file); the launcher waits for it and gives its status.
launch mon "$RBTRACE" --monitor -- "$APPS/plain" -p
rb=$LAUNCHED
wait_ready "plain [0-9]+" "$rb"
child=$(ready_field plain 2)
wait_for "the launcher's lines" grep -q "not starting rbmon" "$T/mon.err"
expect "stderr of rbtrace --monitor -- plain" "$(never "$APPS/plain")
rbtrace: nothing to watch; not starting rbmon" "$(cat "$T/mon.err")"
expect "the launcher's children" "$child" "$(pgrep -P "$rb" | tr '\n' ' ' | sed 's/ $//')"
expect "the program's stdout" "plain: hello" "$(cat "$T/mon.out")"
kill -KILL "$child"
RC=0
wait "$rb" || RC=$?
expect "status of rbtrace --monitor when plain is killed" 137 "$RC"
expect "last line (no trace to keep)" "rbtrace: $APPS/plain killed by signal 9 (Killed)" \
	"$(tail -n 1 "$T/mon.err")"
no_trace_files "--monitor"

# ---- plain-dl: it may load instrumented code later --------------------------
: >"$RBT_READY"
f=$T/dl.trace
launch dl "$RBTRACE" --file "$f" -- "$APPS/plain-dl" -p -l "$PLUGIN"
rb=$LAUNCHED
wait_ready "plain [0-9]+" "$rb"
child=$(ready_field plain 2)
expect "stderr of rbtrace -- plain-dl" "$(later "$APPS/plain-dl")
rbtrace: tracing $APPS/plain-dl (pid $child) into $f" "$(cat "$T/dl.err")"
[ -e "$f" ] && fail "a trace file before anything was loaded"
kill -USR1 "$child"
wait_ready plugin "$rb"
wait_json "$f" ".processes[0].threads[0].frames | map(.function) == [\"plugin_wait\", \"plugin_run\"]" \
	"the plugin's frames"
kill -TERM "$child"
RC=0
wait "$rb" || RC=$?
expect "status of rbtrace -- plain-dl (killed in the plugin)" 143 "$RC"

run_rbtrace dlq -q -- "$APPS/plain-dl" -e 2
expect "status of plain-dl -q" 2 "$RC"
expect "stderr of rbtrace -q -- plain-dl" "" "$(cat "$T/dlq.err")"

# --monitor: no file after 10 s is said once, and rbmon waits for it.
: >"$RBT_READY"
f=$T/dlmon.trace
launch dlmon "$RBTRACE" --monitor --file "$f" -- "$APPS/plain-dl" -p -l "$PLUGIN"
rb=$LAUNCHED
wait_ready "plain [0-9]+" "$rb"
child=$(ready_field plain 2)
note="rbtrace: $f has not appeared after 10 s; rbmon starts when it does, at the first instrumented call (Ctrl-C ends $APPS/plain-dl)"
wait_for "the launcher's word after 10 s" grep -Fxq "$note" "$T/dlmon.err"
expect "the launcher's children after 10 s" "$child" "$(pgrep -P "$rb" | tr '\n' ' ' | sed 's/ $//')"
expect "stdout before the file (the program's alone)" "plain: hello" "$(cat "$T/dlmon.out")"
kill -USR1 "$child"
# rbmon, its output not a terminal, prints the stacks once and ends.
wait_for "rbmon's stacks" grep -q "#0 plugin_wait" "$T/dlmon.out"
wait_for "the launcher's line after rbmon" grep -q "rbmon ended" "$T/dlmon.err"
expect "stderr of rbtrace --monitor -- plain-dl" "$(later "$APPS/plain-dl")
rbtrace: tracing $APPS/plain-dl (pid $child) into $f
$note
rbtrace: rbmon ended; $APPS/plain-dl (pid $child) still runs (Ctrl-C ends it)" "$(cat "$T/dlmon.err")"
kill -TERM "$child"
wait "$rb"

# ---- no warning: a script, an instrumented program -------------------------
printf '#!/bin/sh\nexec "%s" -e 6\n' "$APPS/simple" >"$T/run.sh"
chmod +x "$T/run.sh"
run_rbtrace script -- "$T/run.sh"
expect "status of the script" 6 "$RC"
l=$(cat "$T/script.err")
[[ $l =~ ^rbtrace:\ tracing\ $T/run.sh\ \(pid\ ([0-9]+)\)\ into\ $TMPDIR/run.sh.([0-9]+).trace$ ]] ||
	fail "stderr of rbtrace -- script: '$l'"
[ -f "$TMPDIR/run.sh.${BASH_REMATCH[1]}.trace" ] || fail "the script's program made no trace file"
run_rbtrace env -- env RBT_X=1 "$APPS/simple" -e 7
expect "status through env" 7 "$RC"
l=$(cat "$T/env.err")
[[ $l =~ ^rbtrace:\ tracing\ env\ \(pid\ ([0-9]+)\)\ into\ $TMPDIR/env.([0-9]+).trace$ ]] ||
	fail "stderr of rbtrace -- env: '$l'"
[ -f "$TMPDIR/env.${BASH_REMATCH[1]}.trace" ] || fail "env's program made no trace file"
run_rbtrace inst -- "$APPS/simple" -e 0
expect "stderr lines of rbtrace -- simple" 1 "$(wc -l <"$T/inst.err")"
grep -q '^rbtrace: tracing ' "$T/inst.err" || fail "stderr of rbtrace -- simple: $(cat "$T/inst.err")"
exit 0
