#!/bin/bash
# SPDX-License-Identifier: MIT
# attach-churn: rbtrace -p and --detach, again and again, on tests/apps/churn,
# whose 8 threads spend most of their time inside the hooks (2 cores: they
# are often preempted there, or between a call to a hook and its first
# instruction).  Every cycle:
#  - 6 quick rounds: attach and detach at once, while threads are still
#    claiming their rings: both succeed and the program lives;
#  - attached: every thread claims a ring ("running" in the dump);
#  - detached: the reply counts exactly those rings given back, none kept,
#    and the dump shows no ring of the program left running (a thread that
#    was inside a hook at the detach, or entered one through an entry just
#    put back, neither keeps nor claims one);
#  - the program is alive, and no sum came out wrong.
# Then a thread stopped by a monitor at a detach keeps its ring (the reply
# says so, the other 7 are given back), runs on it once continued, and the
# next detach gives it back.  Then it ends normally.  RBT_CHURN_CYCLES (default 20) sets the cycles;
# bench/churn.sh runs 1,000 without the dumps.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip "jq is not installed"
need_attach

CYCLES=${RBT_CHURN_CYCLES:-20}
# No monitor stays while a thread is stopped below: it must not resume by
# itself meanwhile (rbtrace -p passes this on to the library).
export RBTRACE_ORPHAN_TIMEOUT=600
THREADS=8
# Main, asleep in pthread_join() since before each attach, gets a ring
# made at the attach too (rbtrace(1)): one more than the workers.
RINGS=$((THREADS + 1))
launch app "$APPS/churn" "$THREADS"
pid=$LAUNCHED
wait_ready "ready $pid" "$pid"
f=$T/churn.trace
P=".processes[] | select(.pid == $pid) | .threads[]"

alive() { kill -0 "$pid" 2>/dev/null || fail "churn died in cycle $1: $(cat "$T/app.err")"; }

# rbtrace_p NAME CYCLE ARGS... - rbtrace ARGS, which must succeed, into $T/NAME.out/.err.
rbtrace_p()
{
	local name=$1 i=$2 rc=0
	shift 2
	timeout 60 "$RBTRACE" "$@" >"$T/$name.out" 2>"$T/$name.err" || rc=$?
	alive "$i"
	expect "cycle $i: rbtrace $* ($(cat "$T/$name.err"))" 0 "$rc"
}

for i in $(seq "$CYCLES"); do
	for _ in 1 2 3 4 5 6; do
		rbtrace_p qa "$i" -p "$pid" -q --file "$f"
		rbtrace_p qd "$i" -p "$pid" --detach
	done
	rc=0
	# Not quiet: should a thread miss its ring, what the seeding said.
	timeout 60 "$RBTRACE" -p "$pid" --file "$f" >"$T/a.out" 2>"$T/a.err" || rc=$?
	alive "$i"
	expect "attach $i ($(cat "$T/a.err"))" 0 "$rc"
	wait_json "$f" "[$P | select(.state == \"running\")] | length == $RINGS" \
		"cycle $i: all $RINGS threads with a ring (rbtrace said: $(tr '\n' ' ' < "$T/a.err"))"
	rc=0
	timeout 60 "$RBTRACE" -p "$pid" --detach >"$T/d.out" 2>"$T/d.err" || rc=$?
	alive "$i"
	expect "detach $i ($(cat "$T/d.err"))" 0 "$rc"
	grep -Eq "^rbtrace: detached from $pid: 2 entries restored, $RINGS rings given back; its thread" "$T/d.err" ||
		fail "cycle $i: the detach did not give exactly $RINGS rings back: $(cat "$T/d.err")"
	dump_json "$f"
	expect_jq "cycle $i: no ring of the program left running after the detach" \
		"[$P | select(.state == \"running\")] | length == 0"
	grep -q ERROR "$T/app.out" && fail "cycle $i: $(grep ERROR "$T/app.out" | head -n 1)"
done

# A thread stopped by a monitor at the detach keeps its ring, and goes on
# with it when continued; the next detach gives it back.
rbtrace_p sa stop -p "$pid" -q --file "$f"
wait_json "$f" "[$P | select(.state == \"running\")] | length == $RINGS" \
	"all $RINGS threads with a ring, before the stop"
stid=$(jq -r "[$P | select(.state == \"running\" and .tid != $pid)][0].tid" "$T/json")
"$RBMON" --thread "$stid" --send STOP --timeout 30 "$f" >"$T/stop.out" 2>"$T/stop.err" ||
	fail "STOP to $stid: $(cat "$T/stop.err")"
wait_json "$f" "$P | select(.tid == $stid) | .state == \"stopped\"" "thread $stid stopped"
rbtrace_p sd stop -p "$pid" --detach
grep -Eq "^rbtrace: detached from $pid: 2 entries restored, $((RINGS - 1)) rings given back; threads stopped keep theirs until they go on; its thread" "$T/sd.err" ||
	fail "the detach with a thread stopped: $(cat "$T/sd.err")"
dump_json "$f"
expect_jq "only the stopped thread keeps its ring" \
	"[$P | select(.state != \"exited\")] | map(.tid) == [$stid]"
"$RBMON" --thread "$stid" --send CONT --timeout 30 "$f" >"$T/cont.out" 2>"$T/cont.err" ||
	fail "CONT to $stid: $(cat "$T/cont.err")"
wait_json "$f" "$P | select(.tid == $stid) | .state == \"running\"" "thread $stid running on its ring"
alive stop
rbtrace_p sa2 stop -p "$pid" -q --file "$f"
wait_json "$f" "[$P | select(.state == \"running\")] | length == $RINGS" \
	"all $RINGS threads with a ring again"
rbtrace_p sd2 stop -p "$pid" --detach
grep -Eq "^rbtrace: detached from $pid: 2 entries restored, $RINGS rings given back; its thread" "$T/sd2.err" ||
	fail "the detach after the thread went on: $(cat "$T/sd2.err")"

kill -USR1 "$pid"
wait_for "the rounds line" grep -q '^rounds [1-9]' "$T/app.out"
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
expect "churn's exit status after $CYCLES cycles" 0 "$rc"
grep -q '^done$' "$T/app.out" || fail "churn did not end normally: $(tail -n 3 "$T/app.out")"
grep -q ERROR "$T/app.out" && fail "$(grep ERROR "$T/app.out" | head -n 1)"
note "$CYCLES cycles ($((CYCLES * 7)) attaches and detaches) with $THREADS threads in the hooks: no crash, every ring given back"
exit 0
