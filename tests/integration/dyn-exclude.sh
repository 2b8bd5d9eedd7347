#!/bin/bash
# SPDX-License-Identifier: MIT
# dyn-exclude: functions switched off by name, at start and while the
# threads run, recorded losslessly (rbtrace record --blocking): the
# functions never switched are counted exactly, those switched are absent
# while off and never more than their calls; every result the program
# computes stays right (tests/apps/dyncount checks each), with leaf calls,
# plain calls and a tail call (dc_tail's exit hook is a jmp at -O2)
# switched.  For gcc, g++, clang and clang++ builds at -O2.
. "$(dirname "$0")/lib.sh"
need_attach

ROUNDS=3000
THREADS=3

# count FUNCTION - its calls in $T/report (0 if absent); a C++ name has its
# parameters.
count()
{
	jq -r --arg f "$1" '[.functions[] | select(.function == $f or
		(.function | startswith($f + "(")))] | map(.calls) | add // 0' "$T/report"
}

report()
{
	"$RBMON" report --json "$1" >"$T/report" 2>"$T/report.err" ||
		fail "rbmon report $1 exited $?: $(cat "$T/report.err")"
}

# ---- at start: dc_hot off; the rest exact ------------------------------------
start()
{
	local v=$1 app=$APPS/dyncount-$1 n=$((THREADS * ROUNDS))
	[ -x "$app" ] || { note "no $app: skipped"; return 0; }
	: >"$RBT_READY"
	"$RBTRACE" record --blocking -o "$T/$v-start.rbr" --file "$T/$v-start.trace" \
		--exclude 'dc_hot' -- "$app" -t "$THREADS" -n "$ROUNDS" \
		>"$T/$v-start.out" 2>"$T/$v-start.err" ||
		fail "$v: rbtrace record --exclude exited $?: $(cat "$T/$v-start.err")"
	grep -q ', 0 lost$' "$T/$v-start.err" || fail "$v: events lost: $(cat "$T/$v-start.err")"
	report "$T/$v-start.rbr"
	expect "$v: dc_hot, excluded" 0 "$(count dc_hot)"
	expect "$v: dc_round" "$n" "$(count dc_round)"
	expect "$v: dc_mid" "$n" "$(count dc_mid)"
	expect "$v: dc_tail" "$n" "$(count dc_tail)"
	expect "$v: dc_leaf" "$((n * 17))" "$(count dc_leaf)"
	ready "bad .*" && fail "$v: a result changed: $(grep bad "$RBT_READY")"
	# Globs, and everything but one: only dc_mid's calls are recorded.
	"$RBTRACE" record --blocking -o "$T/$v-only.rbr" --file "$T/$v-only.trace" \
		--exclude '*' --include 'dc_m?d' -- "$app" -t "$THREADS" -n 100 \
		>"$T/$v-only.out" 2>"$T/$v-only.err" ||
		fail "$v: rbtrace record --exclude '*' exited $?: $(cat "$T/$v-only.err")"
	report "$T/$v-only.rbr"
	expect "$v: only dc_mid recorded" "dc_mid:$((THREADS * 100))" \
		"$(jq -r '[.functions[] | "\(.function | sub("\\(.*"; "")):\(.calls)"] | join(" ")' "$T/report")"
	return 0
}

# ---- live: switched off and on while 3 threads run -----------------------------
live()
{
	local v=$1 app=$APPS/dyncount-$1 n pid rb i out lost
	[ -x "$app" ] || return 0
	: >"$RBT_READY"
	launch "$v-live" "$RBTRACE" record --blocking -o "$T/$v-live.rbr" \
		--file "$T/$v-live.trace" -- "$app" -w -l -t "$THREADS" -n 200
	rb=$LAUNCHED
	wait_ready "armed [0-9]+" "$rb"
	pid=$(ready_field armed 2)
	wait_for "$v: the recorder" pgrep -P "$rb" -x rbmon
	kill -USR1 "$pid"
	for i in $(seq 1 10); do
		wait_ready "round $i" "$pid"
		out=$("$RBTRACE" -p "$pid" --exclude 'dc_leaf,dc_tail' 2>&1 >/dev/null) ||
			fail "$v: exclude $i: $out"
		case $out in
		*"2 functions off"*) ;;
		*) fail "$v: exclude $i said: $out" ;;
		esac
		out=$("$RBTRACE" -p "$pid" --include 'dc_leaf,dc_tail' 2>&1 >/dev/null) ||
			fail "$v: include $i: $out"
	done
	kill -TERM "$pid"
	wait_ready "done $pid"
	wait "$rb"
	expect "$v: rbtrace record's status" 0 "$?"
	ready "bad .*" && fail "$v: a result changed: $(grep bad "$RBT_READY")"
	grep -q ', 0 lost$' "$T/$v-live.err" || fail "$v: events lost: $(cat "$T/$v-live.err")"
	n=$(ready_field rounds 2)
	report "$T/$v-live.rbr"
	expect "$v: dc_hot, never switched" "$((n * 64))" "$(count dc_hot)"
	expect "$v: dc_round, never switched" "$n" "$(count dc_round)"
	expect "$v: dc_mid, never switched" "$n" "$(count dc_mid)"
	[ "$(count dc_leaf)" -le $((n * 17)) ] || fail "$v: more dc_leaf calls than made"
	[ "$(count dc_tail)" -le "$n" ] || fail "$v: more dc_tail calls than made"
	[ "$(count dc_leaf)" -lt $((n * 17)) ] || fail "$v: dc_leaf was never off"
	# An entry whose exit was switched off is the only loss: one per
	# thread and switch at most.
	lost=$(jq -r '.losses.exits_lost + .losses.entries_lost' "$T/report")
	[ "$lost" -le $((i * THREADS * 2)) ] ||
		fail "$v: $lost calls without an entry or exit, for $i switches"
	return 0
}

for v in gcc gxx clang clangxx; do
	start "$v"
	live "$v"
done
exit 0
