#!/bin/bash
# SPDX-License-Identifier: MIT
# watch-hook: serving a watch does nothing heavy inside a hook.
#
# tests/apps/watch runs with tests/apps/libhookshim.so preloaded before
# librbtrace: it counts the allocations, frees, mutex and rwlock locks,
# dlopen()s and dl_iterate_phdr()s a traced thread makes inside a hook,
# and reports the counts on SIGUSR2.
#  - before any watch the shim has counted the hooks' own start-up (a
#    thread's first hook takes a lock), so it does see hook-path calls;
#  - then watches that compile everything the module compiles (the first
#    one loads the module and reads the program's DWARF, a thread-local
#    on two threads, a struct, a value longer than the ring's result
#    (the GMA), pointers printed with their symbols, doubles, an enum, a
#    string, an error, and the same expressions again, compiled already)
#    each print their right value;
#  - the counts after them equal the counts before: compiling (module
#    load, libdw, malloc, the module's lock) ran in the library's worker
#    thread, never in a hook, and evaluating took no lock and allocated
#    nothing (rbtrace(5), WATCHES);
#  - the program keeps running and the worker ("rbtrace-watch") is one
#    task of it, with no ring of its own.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/control.sh"

SHIM=$APPS/.libs/libhookshim.so
[ -f "$SHIM" ] || fail "no $SHIM"

# watch_ok TID EXPR VALUE - EXPR on thread TID prints exactly VALUE.
watch_ok()
{
	local st=0
	"$RBMON" --thread "$1" --watch "$2" --timeout 30 "$f" \
		>"$T/watch.out" 2>"$T/watch.err" || st=$?
	expect "exit status of --watch '$2' on $1 (stderr: $(cat "$T/watch.err"))" 0 "$st"
	expect "value of '$2' on $1" "$3" "$(cat "$T/watch.out")"
}

# watch_err TID EXPR MESSAGE - EXPR on thread TID fails with MESSAGE.
watch_err()
{
	local st=0
	"$RBMON" --thread "$1" --watch "$2" --timeout 30 "$f" \
		>"$T/watch.out" 2>"$T/watch.err" || st=$?
	expect "exit status of --watch '$2' on $1" 1 "$st"
	expect "stderr of --watch '$2' on $1" "rbmon: thread $1: $2: $3" "$(cat "$T/watch.err")"
}

# report N - send SIGUSR2 and wait for the shim's Nth line; into COUNTS.
report()
{
	local deadline=$((SECONDS + WAIT_TIMEOUT))
	kill -USR2 "$pid"
	until [ "$(grep -c '^hookshim ' "$T/app.err")" -ge "$1" ]; do
		[ "$SECONDS" -lt "$deadline" ] || {
			grep -H . /proc/"$pid"/task/*/comm /proc/"$pid"/task/*/wchan >&2
			grep -H '^Sig' /proc/"$pid"/task/*/status >&2
			fail "timed out after ${WAIT_TIMEOUT}s waiting for the shim's report $1; its stderr: $(cat -v "$T/app.err")"
		}
		sleep 0.1
	done
	COUNTS=$(grep '^hookshim ' "$T/app.err" | sed -n "${1}p")
	[[ $COUNTS =~ ^hookshim\ alloc\ [0-9]+\ lock\ [0-9]+\ dlopen\ [0-9]+\ phdr\ [0-9]+\ first\ 0x[0-9a-f]+$ ]] ||
		fail "bad report line '$COUNTS'"
}

# field NAME - NAME's count in COUNTS.
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' <<<"$COUNTS"; }

f=$T/watch.trace
# A sanitizer's runtime stays first (lib.sh); the shim counts through it.
# The worker from the start: started at the first watch it would be
# started inside a hook (pthread_create() allocates and locks), which is
# what the counts are to show never happens for a compile (watch-lazy.sh
# tests the start at the first watch).
launch app env LD_PRELOAD="${SAN_RUNTIME:+$SAN_RUNTIME }$SHIM $LIBRBTRACE" \
	RBTRACE_FILE="$f" RBTRACE_WATCH_WORKER=start "$APPS/watch"
pid=$LAUNCHED
wait_threads "$pid" ticker w1 w2 parked
K=$(tid_of ticker)
W1=$(tid_of w1)
W2=$(tid_of w2)

report 1
before=$COUNTS
echo "before any watch: $before"
[ "$(field lock)" -ge 5 ] ||
	fail "the shim counted $(field lock) locks in hooks before any watch (a thread's first hook takes one: expected at least 5): '$COUNTS'"

exe=$(readlink "/proc/$pid/exe")
base=$(awk -v p="$exe" '$6 == p && $3 == "00000000" { sub(/-.*/, "", $1); print $1; exit }' \
	"/proc/$pid/maps")
v=$(nm "$exe" | awk '$3 == "n2" { print $1; exit }')
[ -n "$base" ] && [ -n "$v" ] || fail "no address for n2 in $exe (base '$base', nm '$v')"
n2=$(printf '0x%x' $((0x$base + 0x$v)))
big=$(seq -s ', ' 0 199)
for round in 1 2; do
	watch_ok "$K" answer 42
	watch_ok "$W1" tls_value 1001
	watch_ok "$W2" tls_value 1002
	watch_ok "$K" tls_value 1000
	watch_ok "$K" cfg.pos "{x = 3, y = 4}"
	watch_ok "$K" "*list" "{value = 1, next = $n2 <n2>}"
	watch_ok "$K" big "{$big...}"
	watch_ok "$K" ratio 2.5
	watch_ok "$K" "ratio * 1000000" 2500000
	watch_ok "$K" color GREEN
	watch_ok "$K" "*greeting" "104 'h'"
	watch_ok "$K" cfg.name '"demo"'
	watch_err "$K" nosuch_var 'no symbol "nosuch_var"'
	report $((round + 1))
	echo "after round $round: $COUNTS"
	for k in alloc lock dlopen phdr; do
		expect "$k calls inside hooks during watch round $round ($before, then $COUNTS)" \
			"$(COUNTS=$before field "$k")" "$(field "$k")"
	done
done

kill -0 "$pid" || fail "the program died: $(cat "$T/app.err")"
expect "tasks named rbtrace-watch" 1 \
	"$(cat /proc/"$pid"/task/*/comm | grep -c '^rbtrace-watch$')"
worker=$(grep -l '^rbtrace-watch$' /proc/"$pid"/task/*/comm | cut -d/ -f5)
dump_json "$f"
expect "rings of the worker thread $worker" 0 \
	"$(jqv "[.processes[].threads[] | select(.tid == $worker)] | length")"
stop_and_reap "$pid"
expect "exit status" 0 "$REAPED"
exit 0
