#!/bin/bash
# SPDX-License-Identifier: MIT
# capture: captures of slow calls (rbtrace(5), "CAPTURES") on a program with
# a known rare slow path (tests/apps/slowcall.c: 4 threads, 10000 calls of
# work -> step -> leaf each, one leaf in 10000 sleeps 5 ms), built with gcc
# and with clang (and as C++ with g++ and clang++): rbtrace --capture 'step>2ms' keeps exactly those calls,
# each with its chain (step { leaf { nap } tally }), durations (step >= leaf
# >= 5 ms) and the stack below step (work, run_thread); FUNC>max keeps the
# slowest; a call longer than the event log counts the records it lost;
# the captures are read after kill -9; CAPT sent live arms a
# function of a running program, CLST lists it, CCLR disarms it; the
# exports load as Chrome JSON and speedscope profiles.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "python3 is not installed"
CCS=
for cc in "${STACKS_GCC:-}" "${STACKS_CLANG:-}"; do
	[ -n "$cc" ] && CCS="$CCS $cc"
done
[ -n "$CCS" ] || skip "neither gcc nor clang was found by configure"

# caps FILE - rbmon captures --json FILE into $T/json.
caps()
{
	local rc=0
	"$RBMON" captures --json "$1" >"$T/json" 2>"$T/json.err" || rc=$?
	[ "$rc" -eq 0 ] || fail "rbmon captures --json $1 exited $rc: $(cat "$T/json.err")"
	jq -e 'type == "object"' "$T/json" >/dev/null || fail "rbmon captures --json: not a JSON object"
}

# check_slow WHAT N - the captures in $T/json are N calls of step, each
# whole and slow in leaf (C++ names without their parameters).  On a
# loaded machine a call of step preempted for longer than the threshold
# is slow too, and captured: such a capture (no nap in it) is allowed,
# at most 3, and counted in EXTRA; every check below is of the N.
N='def n: sub("\\(.*$"; "");'
NAPS='[.captures[] | select([.calls[].function | n] | index("nap"))]'
check_slow()
{
	local what=$1 n=$2
	EXTRA=$(jqv "$N"'(.captures | length) - ('"$NAPS"' | length)')
	[ "$EXTRA" -ge 0 ] && [ "$EXTRA" -le 3 ] ||
		fail "$what: $EXTRA captures that are not of the slow calls"
	[ "$EXTRA" -eq 0 ] || note "$what: $EXTRA call(s) of step preempted past the threshold, captured too"
	expect "$what: captures of the slow calls" "$n" "$(jqv "$N$NAPS"' | length')"
	expect "$what: every one of step" "$((n + EXTRA))" "$(jqv "$N"'[.captures[] | select(.function | n == "step")] | length')"
	expect "$what: the chain" "step:0 leaf:1 nap:2 tally:1" \
		"$(jqv "$N$NAPS"' | [.[] | [.calls[] | "\(.function | n):\(.depth)"] | join(" ")] | unique | join("|")')"
	expect_jq "$what: step >= leaf >= 5 ms, and the capture's duration is step's" \
		"$N$NAPS"' | all(.[]; .calls[0].duration_ns >= .calls[1].duration_ns and
		    .calls[1].duration_ns >= 5000000 and .duration_ns >= 5000000 and
		    (.duration_ns - .calls[0].duration_ns | fabs) < 100000)'
	expect "$what: the stack below step" "work run_thread" \
		"$(jqv "$N"'[.captures[] | [.below[] | n] | join(" ")] | unique | join("|")')"
	expect "$what: nothing lost" 0 "$(jqv '[.captures[].lost] | add')"
	expect "$what: four threads" "$n" "$(jqv "$N$NAPS"' | [.[].tid] | unique | length')"
}

for cxx in g++ clang++; do
	command -v "$cxx" >/dev/null && CCS="$CCS $cxx"
done

for cc in $CCS; do
	name=$(basename "$cc")
	app=$T/slowcall-$name
	lang=
	case $name in *++) lang="-x c++";; esac
	# shellcheck disable=SC2086
	"$cc" -g -O0 -finstrument-functions -fno-inline -pthread $lang \
		-o "$app" "$APPS_SRC/slowcall.c" 2>"$T/cc.err" ||
		fail "$cc: $(cat "$T/cc.err")"

	# ---- at start: every slow call, nothing else -----------------------
	f=$T/$name.trace
	"$RBTRACE" -q -o "$f" --capture 'step>2ms' "$app" >"$T/out" 2>"$T/err" ||
		fail "$name: rbtrace exited $?: $(cat "$T/err")"
	expect "$name: slow calls made" "slow 4" "$(head -1 "$T/out")"
	caps "$f"
	check_slow "$name" 4
	k=$((4 + EXTRA))
	expect "$name: armed entry counts" "true $k $k 0" \
		"$(jqv '[.armed[] | select(.stored > 0)][0] | "\(.max == false) \(.fired) \(.stored) \(.dropped)"')"
	"$RBMON" captures --show all "$f" >"$T/show" || fail "$name: --show all exited $?"
	expect "$name: --show all, a graph each" "$k" "$(grep -Ec '^capture [0-9]+: step(\(int\))? took' "$T/show")"
	grep -Eq 'leaf(\(int\))?\(\) \{' "$T/show" || fail "$name: --show has no leaf() {: $(cat "$T/show")"
	"$RBMON" captures "$f" >"$T/list" || fail "$name: the list exited $?"
	expect "$name: the list" "$k" "$(grep -Ec '^ +[0-9]+  step(\(int\))? ' "$T/list")"

	# ---- FUNC>max: each call slower than every one before ---------------
	f=$T/$name-max.trace
	RBTRACE_CAPTURE_KEEP=8 "$RBTRACE" -q -o "$f" --capture 'leaf>max' \
		"$app" -t 1 -n 7000 -e 1000 -r >"$T/out" 2>"$T/err" ||
		fail "$name: rbtrace (max) exited $?: $(cat "$T/err")"
	caps "$f"
	expect_jq "$name: max: the slowest capture is the slowest call (5.6 ms or more)" \
		'([.captures[].duration_ns] | max) as $m | $m >= 5600000 and
		 $m == .armed[0].slowest_ns and .armed[0].max == true'
	expect_jq "$name: max: each capture slower than the one before" \
		'[.captures[].duration_ns] as $d | all(range(1; $d | length); $d[.] > $d[. - 1])'
done

app=$T/slowcall-$(set -- $CCS; basename "$1")

# ---- a call longer than the event log: what was lost is counted -----------
# run_thread makes 2 + 100 * 8 records, and 2 more for each of the two
# slow calls' naps: 806; a 64-record log keeps the last 64, the capture
# puts a record of run_thread's entry first.
f=$T/lost.trace
RBTRACE_EVENTS=64 "$RBTRACE" -q -o "$f" --capture 'run_thread>max' "$app" \
	-t 1 -n 100 -e 50 -s 0 >"$T/out" 2>"$T/err" || fail "rbtrace (lost) exited $?: $(cat "$T/err")"
caps "$f"
expect "lost: one capture" 1 "$(jqv '.captures | length')"
expect "lost: kept + lost = the call's records" "64 806" \
	"$(jqv '.captures[0] | "\(.records - 1) \(.records - 1 + .lost)"')"
expect "lost: the entry stands first" "run_thread" \
	"$(jqv "$N"'.captures[0].calls[0].function | n')"

# ---- post-mortem: read after kill -9 --------------------------------------
f=$T/killed.trace
launch killed "$RBTRACE" -q -o "$f" --capture 'step>2ms' "$app" -p
wait_for "the program's last line" grep -q '^done' "$T/killed.out"
pid=$(awk '$1 == "done" { print $2 }' "$T/killed.out")
kill -KILL "$pid"
wait_for "process $pid to go" bash -c "! kill -0 $pid 2>/dev/null"
caps "$f"
check_slow "after kill -9" 4
expect "--dump: captures held by the process" $((4 + EXTRA)) \
	"$("$RBMON" --dump --json "$f" | jq -r ".processes[] | select(.pid == $pid) | .captures")"

# ---- live: CAPT on a running program -------------------------------------
f=$T/live.trace
launch live env RBTRACE_FILE="$f" LD_PRELOAD="$RB_PRELOAD" "$app" -g -p
wait_for "the program to wait for SIGUSR1" grep -q '^ready' "$T/live.out"
pid=$(awk '$1 == "ready" { print $2 }' "$T/live.out")
caps "$f"
expect "live: nothing before" 0 "$(jqv '.captures | length')"
"$RBMON" -p "$pid" --send 'CAPT step>2ms' "$f" >"$T/capt" 2>&1 || fail "CAPT exited $?: $(cat "$T/capt")"
grep -q 'capturing step when slower than 2.00 ms' "$T/capt" || fail "CAPT said: $(cat "$T/capt")"
"$RBMON" -p "$pid" --send CLST "$f" >"$T/clst" 2>&1 || fail "CLST exited $?"
grep -q '^step>2.00 ms at 0x' "$T/clst" || fail "CLST said: $(cat "$T/clst")"
kill -USR1 "$pid"
wait_for "the program's last line" grep -q '^done' "$T/live.out"
caps "$f"
check_slow "live" 4
"$RBMON" -p "$pid" --send 'CCLR step' "$f" >"$T/cclr" 2>&1 || fail "CCLR exited $?: $(cat "$T/cclr")"
"$RBMON" -p "$pid" --send CLST "$f" >"$T/clst" 2>&1
expect "live: disarmed" "no function armed for captures" "$(cat "$T/clst")"
"$RBMON" -p "$pid" --send 'CAPT nosuchfunction>1ms' "$f" >"$T/capt" 2>&1 &&
	fail "CAPT of a missing function succeeded"
grep -q "no function 'nosuchfunction'" "$T/capt" || fail "CAPT of a missing function said: $(cat "$T/capt")"
"$RBMON" -p "$pid" --send 'CAPT step>2 parsecs' "$f" >"$T/capt" 2>&1 &&
	fail "CAPT with a bad duration succeeded"

# ---- exports ----------------------------------------------------------------
"$RBMON" captures --export chrome -o "$T/c.json" "$f" || fail "--export chrome exited $?"
"$RBMON" captures --export speedscope -o "$T/s.json" "$f" || fail "--export speedscope exited $?"
python3 - "$T/c.json" "$T/s.json" <<'PY' || fail "the exports do not load"
import json, sys
c = json.load(open(sys.argv[1]))
ev = [e for e in c["traceEvents"] if e.get("ph") == "X"]
# the slow calls' steps (one preempted past the threshold may be there too)
steps = [e for e in ev if e["name"].startswith("step") and e["dur"] >= 5000]
assert len(steps) == 4, steps
assert len({e["tid"] for e in steps}) == 4
s = json.load(open(sys.argv[2]))
assert s["$schema"].startswith("https://www.speedscope.app/")
names = [f["name"] for f in s["shared"]["frames"]]
assert any(n.startswith("step") for n in names), names
assert len(s["profiles"]) >= 4
for p in s["profiles"]:
    st, last = [], 0
    for e in p["events"]:
        assert e["at"] >= last
        last = e["at"]
        if e["type"] == "O":
            st.append(e["frame"])
        else:
            assert st and st.pop() == e["frame"]
    assert not st
PY
exit 0
