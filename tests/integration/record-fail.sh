#!/bin/bash
# SPDX-License-Identifier: MIT
# record-fail: a recording that cannot be finished says so, and counts only
# what reached the file.  The recorder of `rbtrace record` killed (SIGKILL):
# rbtrace says so at once, in one line, and exits 125; the readers say the
# recording has no END and exit 3.  The recording's file limited by
# `ulimit -f` (EFBIG, no root needed): the recorder says where it stopped,
# the file ends at its last whole chunk, and the summary's events and
# losses are what rbmon report, hot and replay read from it.  A disk that
# fills (a small tmpfs, when this runs as root and may mount one): the
# same through `rbtrace record`, ENOSPC.
. "$(dirname "$0")/lib.sh"

# ---- the recorder killed -----------------------------------------------------
launch killed "$RBTRACE" record -o "$T/killed.rbr" --file "$T/killed.trace" -- \
	"$APPS/evcount" -w -t 2 -n 1000
rb=$LAUNCHED
wait_ready "armed [0-9]+" "$rb"
pid=$(ready_field armed 2)
wait_for "the recorder" pgrep -P "$rb" -x rbmon
rec=$(pgrep -P "$rb" -x rbmon)
wait_for "the recorder's first chunks" test -s "$T/killed.rbr"
kill -KILL "$rec"
# Said at once, while the program runs on.
msg="rbtrace: the recorder (pid $rec) was killed by signal 9 (Killed): $T/killed.rbr holds what it wrote until then, without its END chunk; $APPS/evcount runs on unrecorded"
wait_for "rbtrace to say the recorder was killed" grep -qxF "$msg" "$T/killed.err"
kill -USR1 "$pid"
wait "$rb"
rc=$?
expect "rbtrace record's status with its recorder killed" 125 "$rc"
expect "rbtrace's lines about it" 1 "$(grep -c 'recorder' "$T/killed.err")"
"$RBMON" replay "$T/killed.rbr" >"$T/killed.replay" 2>"$T/killed.replay.err"
rc=$?
expect "replay's status on a recording without END" 3 "$rc"
grep -q "^rbmon replay: $T/killed.rbr: incomplete: no END chunk" "$T/killed.replay.err" ||
	fail "replay does not say the recording has no END: $(cat "$T/killed.replay.err")"
grep -qx '# The recording is incomplete (no END chunk): the counts above are lower bounds.' \
	"$T/killed.replay" || fail "the replay's text does not say it is incomplete"
"$RBMON" report --json "$T/killed.rbr" >"$T/killed.json" 2>/dev/null
expect "report's status on a recording without END" 3 "$?"
jq -e '.complete == false and .lower_bounds == true' "$T/killed.json" >/dev/null ||
	fail "report --json does not say the recording is incomplete: $(cat "$T/killed.json")"
"$RBMON" export --chrome "$T/killed.rbr" >"$T/killed.chrome" 2>/dev/null
expect "export's status on a recording without END" 3 "$?"
jq -e '.otherData.complete == false' "$T/killed.chrome" >/dev/null ||
	fail "the Chrome export does not say the recording is incomplete"

# grouped N - 1234567 as 1,234,567, as rbmon writes counts.
grouped() { sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<<"$1"; }

# what_read NAME - READ="EVENTS LOST": what report, hot and replay read
# from $T/NAME.rbr (evcount's records are entries and exits only), all
# three the same.
what_read()
{
	local n=$1 r h p
	"$RBMON" report --json "$T/$n.rbr" >"$T/$n.report" 2>/dev/null
	r=$(jq -r '"\(.records) \(.lost)"' "$T/$n.report")
	"$RBMON" hot --json "$T/$n.rbr" >"$T/$n.hot" 2>/dev/null
	h=$(jq -r '"\(.records) \(.lost)"' "$T/$n.hot")
	"$RBMON" replay "$T/$n.rbr" >"$T/$n.replay" 2>/dev/null
	p=$(sed -n 's/^.\{10\} \[ *[0-9]*\] | *//p' "$T/$n.replay" | awk '
		/^\[LOST [0-9]+ EVENTS\]$/ { l += $2; next }
		/\(\) \{$/ { k++; next }
		/\(\);$/ { k += 2; next }
		/^\} \/\* [A-Za-z_0-9]+ \*\/$/ { k++; next }
		END { print k + 0, l + 0 }')
	expect "$n: what hot read, as report" "$r" "$h"
	expect "$n: what replay read, as report" "$r" "$p"
	READ=$r
}

# summary NAME - "EVENTS LOST" of the recorder's summary in $T/NAME.err.
summary()
{
	sed -n 's/^rbmon: recorded \([0-9,]*\) events of .* into .*, \([0-9,]*\) lost before it stopped$/\1 \2/p' \
		"$T/$1.err" | tr -d ,
}

# ---- a file size limit (EFBIG) ----------------------------------------------------
: >"$RBT_READY"
traced prog RBTRACE_FILE="$T/limited.trace" RBTRACE_POLICY=drain RBTRACE_EVENTS=4096 \
	"$APPS/evcount" -w -t 3 -n 2000000
pid=$LAUNCHED
wait_ready "armed $pid" "$pid"
# 64 KiB: the recorder alone is limited (the program's file is made).
launch limited bash -c 'ulimit -f 64 && exec "$0" --record -o "$1" "$2"' \
	"$RBMON" "$T/limited.rbr" "$T/limited.trace"
rec=$LAUNCHED
wait_for "the recorder's first chunks" test -s "$T/limited.rbr"
kill -USR1 "$pid"
wait "$rec"
rc=$?
expect "the recorder's status at its file size limit" 1 "$rc"
size=$(stat -c %s "$T/limited.rbr")
[ "$size" -le 65536 ] || fail "the recording is $size bytes, over its limit"
expect "the recorder's line about it" \
	"rbmon: $T/limited.rbr: the file size limit was reached at $(grouped "$size") bytes (File too large): the recording stops there, without its END chunk" \
	"$(grep 'size limit was reached' "$T/limited.err")"
read -r events lost <<<"$(summary limited)"
[ -n "$events" ] || fail "no summary of what was recorded: $(cat "$T/limited.err")"
[ "$events" -gt 0 ] || fail "nothing recorded before the limit"
what_read limited
expect "the summary's events and losses, as the readers read the file" "$events $lost" "$READ"
kill -TERM "$pid" 2>/dev/null
wait "$pid"

# ---- a full disk (ENOSPC), through rbtrace record -----------------------------------
[ "$(id -u)" -eq 0 ] || { note "a full disk not tried: it needs root to mount a small tmpfs"; exit 0; }
mkdir "$T/small"
if ! mount -t tmpfs -o size=128k tmpfs "$T/small" 2>"$T/mount.err"; then
	note "a full disk not tried: cannot mount a tmpfs: $(cat "$T/mount.err")"
	exit 0
fi
trap 'umount "$T/small" 2>/dev/null; lib_cleanup' EXIT
: >"$RBT_READY"
launch full "$RBTRACE" record -o "$T/small/full.rbr" --file "$T/full.trace" --events 4096 -- \
	"$APPS/evcount" -w -t 3 -n 2000000
rb=$LAUNCHED
wait_ready "armed [0-9]+" "$rb"
pid=$(ready_field armed 2)
kill -USR1 "$pid"
wait "$rb"
rc=$?
expect "rbtrace record's status on a full disk" 125 "$rc"
cp "$T/small/full.rbr" "$T/full.rbr"
size=$(stat -c %s "$T/full.rbr")
grep -qxF "rbmon: $T/small/full.rbr: the disk filled at $(grouped "$size") bytes (No space left on device): the recording stops there, without its END chunk" \
	"$T/full.err" || fail "no line about the full disk at $size bytes: $(cat "$T/full.err")"
read -r events lost <<<"$(summary full)"
[ -n "$events" ] || fail "no summary of what was recorded: $(cat "$T/full.err")"
what_read full
expect "the summary's events and losses, as the readers read the file" "$events $lost" "$READ"
exit 0
