#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/churn.sh - attach and detach, BENCH_CHURN_CYCLES (1,000) times, on a
# program whose threads live in the hooks: does the program survive, and
# does every detach give every ring back?
#
# tests/apps/churn, started without the library, BENCH_CHURN_THREADS (8)
# threads calling tiny instrumented functions without pause (on a 2-core
# machine they are preempted inside the hooks all the time).  Each cycle:
# rbtrace -p, then rbtrace -p --detach at once, without waiting for the
# threads to claim their rings: a detach meets threads that are claiming
# one, inside a hook, or entering one through an entry it just put back.
# Counted: cycles completed, attach or detach failures, rings given back
# and kept (the detach's reply), rings still running after a detach (the
# dump of every 50th cycle), the program's death (the target is none), its
# wrong sums, and how long the detach held its stopped thread (median and
# max, rbtrace's own figure).  At the end the program must end normally.
#
# Run it as part of `make bench`, or alone from the build directory (after
# `make all tests/apps/churn`).
set -u

NAME=churn
. "$(dirname "$0")/lib.sh"
: "${top_builddir:=$PWD}"
CYCLES=${BENCH_CHURN_CYCLES:-1000}
THREADS=${BENCH_CHURN_THREADS:-8}
RBTRACE=$top_builddir/rbtrace
RBMON=$top_builddir/rbmon
APP=$top_builddir/tests/apps/churn
[ "$(uname -m)" = x86_64 ] || skip "x86_64 only"
scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)
[ "$scope" -ge 1 ] && [ "$(id -u)" -ne 0 ] && skip "ptrace_scope $scope, not root"
[ -x "$APP" ] || broke "$APP not built (make tests/apps/churn)"
command -v jq >/dev/null || skip "jq is not installed"
T=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null; rm -rf "$T"' EXIT

"$APP" "$THREADS" >"$T/out" 2>&1 &
pid=$!
for _ in $(seq 3000); do grep -q '^ready' "$T/out" && break; sleep 0.01; done
grep -q '^ready' "$T/out" || broke "churn never got ready"

f=$T/churn.trace
given=0 kept=0 left=0 failed=0 died=0 done=0
start=$SECONDS
for i in $(seq "$CYCLES"); do
	if ! timeout 60 "$RBTRACE" -p "$pid" -q --file "$f" >/dev/null 2>"$T/a.err"; then
		kill -0 "$pid" 2>/dev/null || { died=$i; break; }
		failed=$((failed + 1))
		echo "$NAME: cycle $i: attach: $(head -c 300 "$T/a.err")"
		continue
	fi
	if ! timeout 60 "$RBTRACE" -p "$pid" --detach >/dev/null 2>"$T/d.err"; then
		kill -0 "$pid" 2>/dev/null || { died=$i; break; }
		failed=$((failed + 1))
		echo "$NAME: cycle $i: detach: $(head -c 300 "$T/d.err")"
		continue
	fi
	kill -0 "$pid" 2>/dev/null || { died=$i; break; }
	g=$(sed -n 's/.* \([0-9][0-9]*\) rings given back.*/\1/p' "$T/d.err")
	given=$((given + ${g:-0}))
	grep -q 'keep' "$T/d.err" && kept=$((kept + 1))
	sed -n 's/.*stopped for \([0-9.]*\) ms$/\1/p' "$T/d.err" >>"$T/held"
	if [ $((i % 50)) -eq 0 ]; then
		n=$("$RBMON" --dump --json "$f" 2>/dev/null |
			jq "[.processes[] | select(.pid == $pid) | .threads[] | select(.state == \"running\")] | length")
		left=$((left + ${n:-0}))
	fi
	done=$i
done
secs=$((SECONDS - start))

ended=no
if [ "$died" -eq 0 ]; then
	kill -TERM "$pid"
	wait "$pid" && grep -q '^done$' "$T/out" && ended=yes
fi
wrong=$(grep -c ERROR "$T/out")
held=$(sort -g "$T/held" 2>/dev/null | awk '{ v[NR] = $1 } END {
	if (NR) printf "%.2f / %.2f", v[int((NR + 1) / 2)], v[NR]; else print "-" }')

echo "$NAME: $CYCLES attach/detach cycles, $THREADS threads in the hooks, $(nproc) CPUs, ${secs} s"
printf '  %-44s %s\n' "cycles completed" "$done"
printf '  %-44s %s\n' "program died (target: never)" "$([ "$died" -eq 0 ] && echo no || echo "YES, in cycle $died")"
printf '  %-44s %s\n' "attach or detach failed" "$failed"
printf '  %-44s %s\n' "rings given back (all detaches)" "$given"
printf '  %-44s %s\n' "detaches that kept a ring" "$kept"
printf '  %-44s %s\n' "rings running after a detach (every 50th)" "$left"
printf '  %-44s %s\n' "wrong sums" "$wrong"
printf '  %-44s %s\n' "detach: thread held, ms median / max" "$held"
printf '  %-44s %s\n' "ended normally" "$ended"
[ "$died" -eq 0 ] && [ "$failed" -eq 0 ] && [ "$left" -eq 0 ] && [ "$wrong" -eq 0 ] &&
	[ "$ended" = yes ] || echo "$NAME: TARGET MISSED"
exit 0
