#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/ab-events.sh - A/B of librbtrace's hooks against an older build of
# the library (before the event log, or any earlier commit) on fib.
#
# usage: bench/ab-events.sh OLD_LIBRBTRACE_SO
#
# Variants, alternated within each round (the order rotates from one round
# to the next) to cancel machine drift; median of AB_ROUNDS:
#   baseline  bench/apps/fib alone (glibc's no-op hooks);
#   old       LD_PRELOAD of OLD_LIBRBTRACE_SO, its defaults;
#   noev      LD_PRELOAD of this tree's librbtrace.so, RBTRACE_EVENTS=0
#             (the stack only: no event log);
#   new       the same with its defaults (the stack + the event log, ring
#             policy).
# Each run is `fib N 1 2`, which times its own work section and counts its
# call pairs exactly (bench/apps/fib.c).  Reported: ns per call pair, ns
# per call pair over the baseline, and the ratios noev / old, new / old.
# Also callgrind's marginal instructions per call pair in the preloaded
# library's own code (fib at the larger of AB_CG_N minus fib at the
# smaller, divided by the call pairs between them: free of start-up), and
# the hooks' own.  No target: it prints figures; the exit status is 0 when
# it measured, 77 when it cannot run here, 1 when the harness broke.
#
# The older library comes from a worktree of its own, e.g. before the
# event log (commit bab71d1):
#	git worktree add --detach /tmp/ab-old bab71d1
#	cd /tmp/ab-old && autoreconf -i && ./configure && make lib/librbtrace.la
# then, from this build directory (after `make all bench/apps/fib`):
#	top_builddir=$PWD bash bench/ab-events.sh /tmp/ab-old/lib/.libs/librbtrace.so
# Knobs (environment): AB_ROUNDS (15), AB_FIB_N (34), AB_CG_N ("22 24",
# two callgrind sizes; "" to skip callgrind), WAIT_TIMEOUT (60, seconds a
# run may take).

set -u

NAME=ab-events
. "$(dirname "$0")/lib.sh"
: "${top_builddir:=$PWD}"
ROUNDS=${AB_ROUNDS:-15}
FIB_N=${AB_FIB_N:-34}
CG_N=${AB_CG_N-22 24}
WAIT_TIMEOUT=${WAIT_TIMEOUT:-60}
NEW=$top_builddir/lib/.libs/librbtrace.so
FIB=$top_builddir/bench/apps/fib
VARIANTS=(baseline old noev new)

[ $# -eq 1 ] || { echo "usage: $0 OLD_LIBRBTRACE_SO" >&2; exit 1; }
OLD=$(readlink -f -- "$1") || broke "no such library: $1"
[ -f "$OLD" ] || broke "no such library: $1"
[ "$(uname -s)" = Linux ] || skip "Linux only"
[ -f "$NEW" ] || broke "library not built: $NEW"
[ -x "$FIB" ] || broke "benchmark program not built: $FIB (make bench/apps/fib)"
[ "$(readlink -f "$NEW")" != "$OLD" ] || broke "the old library is this tree's own: $OLD"
for v in ROUNDS FIB_N WAIT_TIMEOUT; do
	[[ ${!v} =~ ^[0-9]+$ ]] && [ "${!v}" -gt 0 ] || broke "$v must be a positive integer, not '${!v}'"
done
read -r -a CG_SIZES <<<"$CG_N"
if [ "${#CG_SIZES[@]}" -ne 0 ]; then
	[ "${#CG_SIZES[@]}" -eq 2 ] && [[ ${CG_SIZES[0]} =~ ^[0-9]+$ ]] && [[ ${CG_SIZES[1]} =~ ^[0-9]+$ ]] &&
		[ "${CG_SIZES[0]}" -lt "${CG_SIZES[1]}" ] ||
		broke "AB_CG_N must be two increasing sizes, not '$CG_N'"
fi
unset RBTRACE_EVENTS RBTRACE_POLICY

T=$(mktemp -d "${TMPDIR:-/tmp}/rbt-bench-$NAME.XXXXXX") || broke "mktemp failed"
TRACE=$T/rbtrace.trace
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM HUP

# preload VARIANT - the environment of a variant into pre[] (the caller's).
preload()
{
	case $1 in
	baseline) pre=();;
	old) pre=(LD_PRELOAD="$OLD" RBTRACE_FILE="$TRACE");;
	noev) pre=(LD_PRELOAD="$NEW" RBTRACE_FILE="$TRACE" RBTRACE_EVENTS=0);;
	new) pre=(LD_PRELOAD="$NEW" RBTRACE_FILE="$TRACE");;
	*) broke "unknown variant $1";;
	esac
}

# run_once VARIANT - fib N 1 2 once; sets R_TIMED R_WORK.
run_once()
{
	local v=$1 pre=() rc=0 line
	preload "$v"
	rm -f "$TRACE"
	env "${pre[@]}" timeout "$WAIT_TIMEOUT" "$FIB" "$FIB_N" 1 2 >"$T/run.out" 2>"$T/run.err" || rc=$?
	[ "$rc" -eq 0 ] || broke "$v: fib exited $rc: $(cat "$T/run.err")"
	[ -s "$T/run.err" ] && broke "$v: the library complained: $(cat "$T/run.err")"
	if [ "$v" = baseline ]; then
		[ -f "$TRACE" ] && broke "baseline left a trace file"
	else
		[ -f "$TRACE" ] || broke "$v: no trace file: was the library preloaded?"
	fi
	rm -f "$TRACE"
	line=$(grep -E '^calls [0-9]+ timed_calls [0-9]+ threads 1 work_ns [0-9]+ ' "$T/run.out") ||
		broke "$v: fib printed no result line: $(cat "$T/run.out")"
	read -r _ _ _ R_TIMED _ _ _ R_WORK _ <<<"$line"
}

declare -A W
TIMED=
read -r LOAD0 _ </proc/loadavg
note "$ROUNDS rounds of fib $FIB_N 1 2: ${VARIANTS[*]}"
nv=${#VARIANTS[@]}
for ((r = 0; r < ROUNDS; r++)); do
	for ((k = 0; k < nv; k++)); do
		v=${VARIANTS[$(((k + r) % nv))]}
		run_once "$v"
		[ -z "$TIMED" ] || [ "$TIMED" = "$R_TIMED" ] || broke "$v counted $R_TIMED call pairs, not $TIMED"
		TIMED=$R_TIMED
		W[$v]="${W[$v]:-} $R_WORK"
	done
done
read -r LOAD1 _ </proc/loadavg

# --- callgrind ----------------------------------------------------------------
declare -A CGL CGC CGF
CG_STATE=
# cg_calls FILE FUNCTION - calls to FUNCTION recorded in a callgrind file.
cg_calls()
{
	awk -v want="$2" '
	/^c?fn=/ {
		s = $0; iscall = (substr(s, 1, 1) == "c"); sub(/^c?fn=/, "", s)
		id = s; sub(/ .*/, "", id)
		if (index(s, " ")) { name = s; sub(/^[^ ]* /, "", name); names[id] = name }
		else name = names[id]
		cur = iscall ? name : ""
		next
	}
	/^calls=/ { if (cur == want) { split(substr($0, 7), a, " "); total += a[1] } cur = ""; next }
	END { print total + 0 }' "$1"
}
# cg_run N VARIANT - the library's own Ir (CG_LIB), call pairs (CG_CALLS)
# and its hooks' self Ir (CG_HOOKS: "enter exit").
cg_run()
{
	local out=$T/cg.$1.$2 pre=() rc=0
	preload "$2"
	rm -f "$TRACE"
	env "${pre[@]}" valgrind --tool=callgrind --callgrind-out-file="$out" "$FIB" "$1" 1 2 \
		>"$T/cg.out" 2>"$T/cg.err" || rc=$?
	[ "$rc" -eq 0 ] || broke "callgrind of fib $1 ($2) exited $rc: $(tail -n 5 "$T/cg.err")"
	rm -f "$TRACE"
	read -r _ CG_CALLS _ <"$T/cg.out"
	[[ $CG_CALLS =~ ^[0-9]+$ ]] || broke "callgrind: fib printed no call count"
	callgrind_annotate --auto=no --threshold=100 "$out" >"$out.txt" 2>&1 ||
		broke "callgrind_annotate $out failed"
	grep -q '__cyg_profile_func_enter.*/librbtrace\.so' "$out.txt" ||
		broke "callgrind does not show librbtrace.so's __cyg_profile_func_enter ($2)"
	CG_LIB=$(awk '/\/librbtrace\.so/ { gsub(/,/, "", $1); s += $1 } END { print s + 0 }' "$out.txt")
	CG_HOOKS=$(awk '/\/librbtrace\.so/ && /:__cyg_profile_func_(enter|exit) / {
		c = $1; gsub(/,/, "", c); if (/_enter /) e += c; else x += c }
		END { print e + 0, x + 0 }' "$out.txt")
	# Under valgrind the CPU may not report an invariant TSC: then the hooks read CLOCK_MONOTONIC.
	[ "$(cg_calls "$out" rb_clock_mono_ns)" -gt $((CG_CALLS / 2)) ] &&
		CG_STATE="note: under valgrind the hooks read CLOCK_MONOTONIC, not the TSC"
}
if [ "${#CG_SIZES[@]}" -eq 0 ]; then
	CG_STATE="skipped (AB_CG_N empty)"
elif ! command -v valgrind >/dev/null || ! command -v callgrind_annotate >/dev/null; then
	CG_STATE="not installed (valgrind)"
	CG_SIZES=()
else
	note "callgrind: fib ${CG_SIZES[*]}"
	for n in "${CG_SIZES[@]}"; do
		for v in old noev new; do
			cg_run "$n" "$v"
			CGL[$n:$v]=$CG_LIB CGF[$n:$v]=$CG_HOOKS
			[ -z "${CGC[$n]:-}" ] || [ "${CGC[$n]}" = "$CG_CALLS" ] || broke "callgrind: call counts differ"
			CGC[$n]=$CG_CALLS
		done
	done
fi

# --- report -------------------------------------------------------------------
model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n 1)
declare -A M NS OV
for v in "${VARIANTS[@]}"; do
	# shellcheck disable=SC2086
	M[$v]=$(median ${W[$v]})
	NS[$v]=$(calc "printf \"%.2f\", ${M[$v]} / $TIMED")
	OV[$v]=$(calc "printf \"%.2f\", (${M[$v]} - ${M[baseline]}) / $TIMED")
done
ratio() { if LC_ALL=C awk -v b="$2" 'BEGIN { exit !(b > 0) }'; then calc "printf \"%.3f\", $1 / $2"; else echo -; fi; }

echo
echo "librbtrace A/B on fib ($(date -u '+%Y-%m-%d %H:%M UTC'))"
echo "machine:  ${model:-$(uname -m)}, nproc $(nproc), $(uname -sr), load average before $LOAD0, after $LOAD1"
echo "old:      $OLD"
echo "new:      $(readlink -f "$NEW")"
echo "runs:     fib $FIB_N 1 2, $TIMED call pairs timed; median of $ROUNDS rounds, variants alternated (order rotated each round)"
echo
printf '  %-34s %10s %10s %12s %12s\n' variant "ns/pair" "+ns/pair" "ns / old" "+ns / old"
for v in "${VARIANTS[@]}"; do
	case $v in
	baseline) l=baseline;;
	old) l="old library";;
	noev) l="new, RBTRACE_EVENTS=0 (stack only)";;
	new) l="new, defaults (stack + events)";;
	esac
	if [ "$v" = baseline ]; then
		printf '  %-34s %10s %10s %12s %12s\n' "$l" "${NS[$v]}" - - -
	else
		printf '  %-34s %10s %10s %12s %12s\n' "$l" "${NS[$v]}" "${OV[$v]}" \
			"$(ratio "${M[$v]}" "${M[old]}")" "$(ratio "${OV[$v]}" "${OV[old]}")"
	fi
done
echo "  every run, ns/pair:"
for v in "${VARIANTS[@]}"; do
	# shellcheck disable=SC2086
	printf '    %-9s %s\n' "$v" "$(for w in ${W[$v]}; do calc "printf \"%.2f \", $w / $TIMED"; done)"
done
echo
if [ "${#CG_SIZES[@]}" -eq 2 ]; then
	a=${CG_SIZES[0]} b=${CG_SIZES[1]}
	d=$((CGC[$b] - CGC[$a]))
	echo "callgrind, the library's own Ir per call pair, fib $b minus fib $a ($d call pairs):"
	printf '  %-34s %12s %12s %12s %10s\n' variant "lib Ir/pair" "enter Ir" "exit Ir" "/ old"
	lo=$((${CGL[$b:old]} - ${CGL[$a:old]}))
	for v in old noev new; do
		read -r ea xa <<<"${CGF[$a:$v]}"
		read -r eb xb <<<"${CGF[$b:$v]}"
		lv=$((${CGL[$b:$v]} - ${CGL[$a:$v]}))
		printf '  %-34s %12s %12s %12s %10s\n' "$v" "$(calc "printf \"%.1f\", $lv / $d")" \
			"$(calc "printf \"%.1f\", ($eb - $ea) / $d")" "$(calc "printf \"%.1f\", ($xb - $xa) / $d")" \
			"$(ratio "$lv" "$lo")"
	done
fi
[ -n "$CG_STATE" ] && echo "  callgrind: $CG_STATE"
exit 0
