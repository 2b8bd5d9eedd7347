#!/bin/bash
# SPDX-License-Identifier: MIT
# hostile-discover: root's rbmon -p PID takes a scanned file ($RBTRACE_DIR)
# for a live process only if the process's owner owns it and the process,
# pid and start time, created it; for a pid that is gone, only root's own
# files.  Files planted by other users are refused with a message naming
# them, and the right file wins when both are there.  root's --list marks
# whose each file is.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (rbmon -p as root is what is tested)"
command -v setpriv >/dev/null || skip "setpriv is not installed"
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)

mkdir -m 755 "$T/dir" "$T/tmp"
export RBTRACE_DIR=$T/dir TMPDIR=$T/tmp

# A trace file to copy: a traced program killed.
good=$T/template.trace
traced app RBTRACE_FILE="$good" "$APPS/simple" -p
dead=$LAUNCHED
wait_ready "parked $dead" "$dead"
kill -KILL "$dead"
{ wait "$dead"; } 2>/dev/null

# start_of PID - its start time, field 22 of /proc/PID/stat.
start_of() { sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f20; }

# claim NAME PID START CREATED OWNER - $T/dir/NAME.trace, a copy of the
# template whose creator is PID started at START, created at CREATED
# (CLOCK_REALTIME ns), owned by OWNER.
claim()
{
	local x=$T/dir/$1.trace
	cp "$good" "$x"
	header_put "$x" creator_pid "$2"
	header_put "$x" creator_start "$3"
	header_put "$x" created_realtime_ns "$4"
	chown "$5" "$x"
}

# by_pid PID - rbmon --json -p PID; sets RC, $T/json, $T/bypid.err.
by_pid()
{
	RC=0
	"$RBMON" --json -p "$1" >"$T/json" 2>"$T/bypid.err" || RC=$?
}

now=$(date +%s%N)

# --- A process of nobody's; a file of another user claims it.
launch victim "${nobody[@]}" sleep 600
vn=$LAUNCHED
uid_is() { [ "$(awk '/^Uid:/ { print $3 }' "/proc/$1/status")" == "$2" ]; }
wait_for "the victim to run as nobody" uid_is "$vn" 65534
claim planted "$vn" "$(start_of "$vn")" "$now" 12345:12345
by_pid "$vn"
expect "rbmon -p of nobody's process, the file of uid 12345 (stdout: $(head -c 200 "$T/json"))" 1 "$RC"
expect "the message" "rbmon: no trace file for pid $vn: 1 file names it but does not count for it ($T/dir/planted.trace: it belongs to uid 12345, process $vn to uid 65534)" \
	"$(tail -n 1 "$T/bypid.err")"
grep -qF "rbmon: note: $T/dir/planted.trace names pid $vn but does not count for it" "$T/bypid.err" ||
	fail "no note on the planted file: $(cat "$T/bypid.err")"
# the owner's own file is taken
claim nobodys "$vn" "$(start_of "$vn")" "$((now - 1000000000))" 65534:65534
by_pid "$vn"
expect "rbmon -p of nobody's process, with nobody's file too (stderr: $(cat "$T/bypid.err"))" 0 "$RC"
expect "the file of the process's owner" "$T/dir/nobodys.trace" "$(jqv .file)"
rm "$T/dir/planted.trace" "$T/dir/nobodys.trace"

# --- root's process: nobody's planted file is newer than the right one.
launch mine sleep 600
vr=$LAUNCHED
wait_for "root's process to run sleep" grep -q '^sleep$' "/proc/$vr/comm"
claim right "$vr" "$(start_of "$vr")" "$now" 0:0
claim planted "$vr" "$(start_of "$vr")" "$((now + 1000000000))" 65534:65534
by_pid "$vr"
expect "rbmon -p with a planted file (stderr: $(cat "$T/bypid.err"))" 0 "$RC"
expect "root's file, not nobody's newer one" "$T/dir/right.trace" "$(jqv .file)"
expect "the note on the planted file" "rbmon: note: $T/dir/planted.trace names pid $vr but does not count for it: it belongs to uid 65534, process $vr to uid 0" \
	"$(grep '^rbmon: ' "$T/bypid.err")"

# A file of root's naming the pid of an earlier process: another start time.
rm "$T/dir/right.trace"
claim earlier "$vr" "$(($(start_of "$vr") - 1))" "$now" 0:0
by_pid "$vr"
expect "rbmon -p: only files with the wrong owner or start time" 1 "$RC"
grep -qF "$T/dir/earlier.trace: process $vr is not in it (its start time differs" "$T/bypid.err" ||
	fail "message on a start time that differs: $(cat "$T/bypid.err")"
rm "$T/dir/earlier.trace" "$T/dir/planted.trace"

# --- A pid that is gone: only root's own files count.
claim gone-nobody "$dead" 1 "$((now + 1000000000))" 65534:65534
by_pid "$dead"
expect "rbmon -p of a gone pid, nobody's file only" 1 "$RC"
grep -qF "$T/dir/gone-nobody.trace: it belongs to uid 65534 and process $dead is gone" "$T/bypid.err" ||
	fail "message on another user's file for a gone pid: $(cat "$T/bypid.err")"
claim gone-root "$dead" 1 "$now" 0:0
by_pid "$dead"
expect "rbmon -p of a gone pid, with root's file too" 0 "$RC"
expect "root's own file for a gone pid" "$T/dir/gone-root.trace" "$(jqv .file)"

# --- --list: whose each file is.
"$RBMON" --list >"$T/list" 2>"$T/list.err" || fail "rbmon --list: $(cat "$T/list.err")"
head -n 1 "$T/list" | grep -q ' OWNER$' || fail "--list has no OWNER column: $(cat "$T/list")"
grep -Eq "^$T/dir/gone-nobody\.trace .* nobody\$" "$T/list" ||
	fail "--list does not say nobody owns gone-nobody.trace: $(cat "$T/list")"
grep -Eq "^$T/dir/gone-root\.trace .* root\$" "$T/list" ||
	fail "--list does not say root owns gone-root.trace: $(cat "$T/list")"
exit 0
