#!/bin/bash
# SPDX-License-Identifier: MIT
# prune: rbmon --prune removes the caller's trace files of programs that
# are gone, in the directories it is given, and nothing else: not the file
# of a program still running, not a file of another user, not a file that
# is not a trace file, not a file younger than --older-than; --dry-run
# removes nothing and says the same; each file removed is named with its
# program, pid, age and size, and the summary counts what was kept.
. "$(dirname "$0")/lib.sh"

d=$T/d
mkdir "$d"

# A program that has ended: its default file, in TMPDIR.
(cd "$T" && env TMPDIR="$d" LD_PRELOAD="$RB_PRELOAD" "$APPS/evseq" -e -n 1 >/dev/null 2>&1) ||
	fail "evseq -e exited $?"
gone=$(ls "$d"/*.trace 2>/dev/null)
[ "$(printf '%s\n' "$gone" | wc -l)" -eq 1 ] && [ -f "$gone" ] || fail "no one trace file of the ended program: '$gone'"
gpid=$(basename "$gone" .trace)
gpid=${gpid##*.}

# A program still running, a file that is not a trace file, and (as root)
# a gone program's file that belongs to another user.
traced live RBTRACE_FILE="$d/live.trace" "$APPS/parked"
lpid=$LAUNCHED
wait_for "the running program's file" test -s "$d/live.trace"
wait_for "the running program in its file" sh -c "'$RBMON' --dump '$d/live.trace' | grep -q 'alive'"
printf 'not a trace file, but named like one\n' >"$d/junk.trace"
others=
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
	cp "$gone" "$d/theirs.trace"
	chown nobody "$d/theirs.trace"
	others="; left 1 of other users"
fi

"$RBMON" --prune --dry-run "$d" >"$T/dry" 2>"$T/dry.err" || fail "--prune --dry-run exited $?: $(cat "$T/dry.err")"
[ -s "$T/dry.err" ] && fail "--prune --dry-run said: $(cat "$T/dry.err")"
grep -Eq "^would remove $gone \(evseq, pid $gpid, [0-9.hms]+ old, [0-9.]+ MiB\)\$" "$T/dry" ||
	fail "the dry run does not name the ended program's file: $(cat "$T/dry")"
expect "the dry run's summary" \
	"$(tail -n 1 "$T/dry" | sed 's/([0-9.]* MiB on disk)/(N)/')" \
	"rbmon: would remove 1 trace file (N); kept 1 of programs still running$others; left 1 that is not a trace file"
[ -f "$gone" ] || fail "the dry run removed $gone"

"$RBMON" --prune --older-than 1h "$d" >"$T/young" 2>&1 || fail "--prune --older-than 1h exited $?"
expect "--older-than 1h keeps the young file" \
	"rbmon: removed 0 trace files (0.0 MiB on disk); kept 1 of programs still running; kept 1 younger than --older-than$others; left 1 that is not a trace file" \
	"$(cat "$T/young")"
[ -f "$gone" ] || fail "--older-than 1h removed $gone"

"$RBMON" --prune --older-than 0s "$d" >"$T/prune" 2>"$T/prune.err" || fail "--prune exited $?: $(cat "$T/prune.err")"
grep -Eq "^removed $gone \(evseq, pid $gpid, [0-9.hms]+ old, [0-9.]+ MiB\)\$" "$T/prune" ||
	fail "--prune does not name what it removed: $(cat "$T/prune")"
[ -e "$gone" ] && fail "--prune left $gone"
[ -f "$d/live.trace" ] || fail "--prune removed the running program's file"
[ -f "$d/junk.trace" ] || fail "--prune removed a file that is not a trace file"
[ -z "$others" ] || [ -f "$d/theirs.trace" ] || fail "--prune removed another user's file"
"$RBMON" --dump "$d/live.trace" >/dev/null || fail "the running program's file no longer reads"

# Once the program ends, its file goes too.
kill -TERM "$lpid"
dead() { ! kill -0 "$lpid" 2>/dev/null; }
wait_for "the parked program to end" dead
"$RBMON" --prune "$d" >"$T/prune2" 2>&1 || fail "the second --prune exited $?"
grep -q "^removed $d/live.trace (parked, pid $lpid, " "$T/prune2" || fail "the ended program's file stays: $(cat "$T/prune2")"

# ---- bad input ----------------------------------------------------------------------
bad() {
	local want=$1
	shift
	"$RBMON" "$@" >/dev/null 2>"$T/bad.err"
	local rc=$?
	expect "rbmon $* exit" 2 "$rc"
	expect "rbmon $*" "$want" "$(head -n 1 "$T/bad.err")"
}
bad "rbmon: invalid age '1x' for --older-than (for example 90s, 30m, 12h, 7d)" --prune --older-than 1x "$d"
bad "rbmon: --older-than and --dry-run go with --prune" --dry-run
bad "rbmon: --list takes no file and no other mode" --list "$d"
bad "rbmon: --prune takes directories and no other mode" --prune --dump "$d"
bad "rbmon: --prune: $d/junk.trace: not a directory" --prune "$d/junk.trace"
bad "rbmon: --prune: $T/nope: No such file or directory" --prune "$T/nope"
exit 0
