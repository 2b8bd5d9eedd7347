#!/bin/bash
# SPDX-License-Identifier: MIT
# snapshot-hostile: stray writes into the header's snapshot block (rbtrace(5),
# "SNAPSHOTS" and "HOSTILE FILES AND WRITERS") while tests/apps/snapper runs
# with the snapshot signal and `rbmon snapshot` waits: a torn trigger, a
# trigger of no known reason from no thread, a state that is none, a huge
# interval, the writer's word cleared, counters out of range.  Neither the
# program nor the writer nor the readers crash; the block heals, and a
# real trigger is written after all of it.
. "$(dirname "$0")/lib.sh"

f=$T/s.trace
traced app RBTRACE_FILE="$f" RBTRACE_SNAPSHOT_SIGNAL=USR2 "$APPS/snapper"
pid=$LAUNCHED
wait_ready "ready $pid" "$pid"
mkdir "$T/snaps"
launch writer "$RBMON" snapshot -o "$T/snaps" --interval 0.001 --timeout 300 "$f"
wpid=$LAUNCHED
wait_json "$f" ".snapshots.writer == $wpid" "the writer to attach"

# hostile STEP... - write into the live file.
hostile()
{
	local rc=0
	"$APPS/hostile" "$f" "$pid" "$@" >"$T/hostile.out" 2>"$T/hostile.err" || rc=$?
	[ "$rc" -eq 0 ] || fail "hostile $* exited $rc: $(cat "$T/hostile.err")"
}
# alive WHAT - the program and the writer still run.
alive()
{
	kill -0 "$pid" 2>/dev/null || fail "the program died ($1): $(cat "$T/app.err")"
	kill -0 "$wpid" 2>/dev/null || fail "the writer died ($1): $(cat "$T/writer.err")"
}
written() { dump_json "$f"; jqv '.snapshots.written'; }
more_written() { [ "$(written)" -gt "$1" ]; }

# A trigger whose fields never settle (odd generation): thawed, not written.
hostile hdr snap_gen=7 hdr snap_state=2
wait_json "$f" '.snapshots.frozen == false' "the torn trigger to be thawed"
alive "a torn trigger"

# A settled trigger of no known reason, thread and function: written.
n=$(written)
hostile hdr snap_gen=8 hdr snap_reason=77 hdr snap_tid=-5 hdr snap_fn=-1 \
	hdr snap_arg=-1 hdr snap_ts=-1 hdr snap_pid="$pid" hdr snap_taken=-1 hdr snap_state=2
wait_for "the stray trigger's recording" more_written "$n"
alive "a trigger of no known reason"
for r in "$T"/snaps/*.rbr; do
	rc=0
	"$RBMON" report "$r" >"$T/report" 2>"$T/report.err" || rc=$?
	[ "$rc" -lt 128 ] || fail "rbmon report of $r died ($rc)"
done
grep -q "trigger 77" "$T/report.err" || fail "the reader does not say the unknown reason: $(cat "$T/report.err")"

# A state that is none: the writer heals it.
hostile hdr snap_state=12345
wait_json "$f" '.snapshots.frozen == false' "the writer to heal a state that is none"
alive "a state that is none"

# A nonsense interval is bounded (an hour): the trigger is suppressed.
hostile hdr snap_interval_ns=-1 hdr snap_ns=+0
dump_json "$f"
s=$(jqv '.snapshots.suppressed')
kill -USR2 "$pid"
wait_json "$f" ".snapshots.suppressed > $s" "the trigger within the huge interval to be suppressed"
alive "a huge interval"
hostile hdr snap_interval_ns=0

# The writer's word cleared: it takes it back.
hostile hdr snap_writer=0
wait_json "$f" ".snapshots.writer == $wpid" "the writer to take its word back"

# Garbage counters are shown as they are.
hostile hdr snap_missed=-1 hdr snap_suppressed=-1
dump_json "$f"
"$RBMON" --dump "$f" >"$T/dump" 2>"$T/dump.err" || fail "rbmon --dump exited $?: $(cat "$T/dump.err")"
alive "garbage counters"

# After all of it, a real trigger is written.
n=$(written)
kill -USR2 "$pid"
wait_for "a real trigger's recording" more_written "$n"
grep -q "signal 12 in thread" "$T/writer.out" || fail "no signal snapshot: $(cat "$T/writer.out")"
alive "the end"
stop_and_reap "$wpid"
expect "the writer's exit status (stderr: $(cat "$T/writer.err"))" 0 "$REAPED"
stop_and_reap "$pid"
expect "snapper's exit status" 0 "$REAPED"
grep -q '^rounds [0-9]* bad 0 elapsed_ms [0-9]*$' "$T/app.out" ||
	fail "snapper's results changed: $(cat "$T/app.out")"
exit 0
