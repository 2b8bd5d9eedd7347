#!/bin/bash
# SPDX-License-Identifier: MIT
# capture-hostile: stray writes into the armed table and the capture area
# (rbtrace(5), "CAPTURES") while a program captures its slow calls: random
# bytes over all of them, again and again.  The program runs to its end,
# and rbmon captures (list, --show all, --json, both exports) and --dump
# read the file without crashing, every answer still JSON where asked.
. "$(dirname "$0")/lib.sh"

HOSTILE=$APPS/hostile
[ -x "$HOSTILE" ] || skip "tests/apps/hostile was not built"
CC=${STACKS_GCC:-${STACKS_CLANG:-}}
[ -n "$CC" ] || skip "neither gcc nor clang was found by configure"
app=$T/slowcall
"$CC" -g -O0 -finstrument-functions -fno-inline -pthread -o "$app" \
	"$APPS_SRC/slowcall.c" 2>"$T/cc.err" || fail "$CC: $(cat "$T/cc.err")"

# readers FILE WHAT - every reader of captures on FILE: no signal, JSON valid.
readers()
{
	local f=$1 what=$2 rc
	for args in "" "--show all" "--json" "--export chrome -o $T/c.json" \
	    "--export speedscope -o $T/s.json"; do
		rc=0
		# shellcheck disable=SC2086
		"$RBMON" captures $args "$f" >"$T/r.out" 2>"$T/r.err" || rc=$?
		[ "$rc" -lt 128 ] || fail "$what: rbmon captures $args died of signal $((rc - 128))"
		[ "$rc" -le 1 ] || fail "$what: rbmon captures $args exited $rc: $(cat "$T/r.err")"
		if [ "$args" = --json ] && [ "$rc" -eq 0 ]; then
			jq -e 'type == "object"' "$T/r.out" >/dev/null ||
				fail "$what: --json is not JSON"
		fi
	done
	rc=0
	"$RBMON" --dump --json "$f" >"$T/r.out" 2>"$T/r.err" || rc=$?
	[ "$rc" -lt 128 ] || fail "$what: rbmon --dump died of signal $((rc - 128))"
	[ "$rc" -ne 0 ] || jq -e 'type == "object"' "$T/r.out" >/dev/null ||
		fail "$what: --dump --json is not JSON"
}

for seed in 1 2 3; do
	f=$T/h$seed.trace
	launch app$seed env RBTRACE_FILE="$f" RBTRACE_CAPTURE='step>2ms;leaf>max' \
		LD_PRELOAD="$RB_PRELOAD" "$app" -g -e 500 -s 5 -n 40000
	wait_for "the program to wait for SIGUSR1" grep -q '^ready' "$T/app$seed.out"
	pid=$(awk '$1 == "ready" { print $2 }' "$T/app$seed.out")
	kill -USR1 "$pid"
	# Scribble while it captures, until it is done.
	n=0 hit=0
	while ! grep -q '^done' "$T/app$seed.out" && kill -0 "$pid" 2>/dev/null; do
		"$HOSTILE" "$f" "$pid" scribble capfn $((seed * 100 + n)) 4 \
			scribble cap $((seed * 1000 + n)) 20 >/dev/null 2>&1 &&
			hit=$((hit + 1))
		readers "$f" "seed $seed round $n"
		n=$((n + 1))
	done
	wait "$pid"
	rc=$?
	[ "$rc" -eq 0 ] || fail "seed $seed: the program exited $rc after $n rounds: $(cat "$T/app$seed.err")"
	grep -q '^done' "$T/app$seed.out" || fail "seed $seed: the program did not finish"
	[ "$hit" -gt 0 ] || fail "seed $seed: no stray write landed while the program ran"
	"$HOSTILE" "$f" "$pid" scribble capfn "$seed" 1 scribble cap "$seed" 1 >/dev/null 2>&1 || true
	readers "$f" "seed $seed, after"
done
exit 0
