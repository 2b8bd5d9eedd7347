#!/bin/bash
# SPDX-License-Identifier: MIT
# demo: examples/demo under rbtrace shows its named threads (parser,
# recursor wrapped beyond 32 slots, server parked in wait_for_client, job)
# and its forked child process with its own two threads; it ends by itself
# with status 0.
. "$(dirname "$0")/lib.sh"

demo=$top_builddir/examples/demo
[ -x "$demo" ] || fail "demo not built: $demo"
[ -x "$RBTRACE" ] || fail "rbtrace not built: $RBTRACE"
mkdir "$T/tmp"
export TMPDIR=$T/tmp
launch demo "$RBTRACE" -- "$demo" -t 60
rb=$LAUNCHED
wait_for "the tracing line" grep -q '^rbtrace: tracing' "$T/demo.err"
l=$(head -n 1 "$T/demo.err")
[[ $l =~ \(pid\ ([0-9]+)\)\ into\ (.+)$ ]] || fail "bad tracing line: $l"
pid=${BASH_REMATCH[1]}
f=${BASH_REMATCH[2]}
wait_for "the demo's child process" pgrep -P "$pid"
child=$(pgrep -P "$pid")

N='.processes[] | select(.pid == '$pid') | .threads[] | select(.state == "running")'
wait_json "$f" "[$N | .name] | (index(\"parser\") and index(\"recursor\") and index(\"server\"))" \
	"the parser, recursor and server threads"
wait_json "$f" "[$N | .name] | index(\"job\")" "a job thread"
wait_json "$f" "[$N | select(.name == \"recursor\") | .depth > 32 and .wrapped > 0] | any" \
	"the recursor deeper than the ring"
expect_jq "the recursor shows walk_tree frames" \
	"[$N | select(.name == \"recursor\") | .frames[] | .function] | index(\"walk_tree\")"
expect "server stack" "wait_for_client accept_loop server_main" \
	"$(jqv "$N | select(.name == \"server\") | .frames | map(.function) | join(\" \")")"
C='.processes[] | select(.pid == '$child')'
wait_json "$f" "[$C | .threads[] | select(.state == \"running\")] | length == 2" \
	"two running threads in the child $child"
wait_json "$f" "[$C | .threads[] | select(.tid == $child) | .name] == [\"demo-child\"]" \
	"the child's main thread named demo-child"
expect_jq "the child's checksummer thread" "[$C | .threads[].name] | index(\"checksummer\")"
expect_jq "the child's main thread in child_wait" \
	"[$C | .threads[] | select(.tid == $child) | .frames[].function] | index(\"child_wait\")"

# It never spins: well under one core (CPU ticks against wall clock ticks).
read -r utime stime start < <(awk '{ print $14, $15, $22 }' "/proc/$pid/stat")
up=$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%d", $1 * hz }' /proc/uptime)
[ $(((utime + stime) * 2)) -lt $((up - start + 10)) ] ||
	fail "the demo used $((utime + stime)) CPU ticks in $((up - start)) ticks of wall clock"

kill -TERM "$pid"
rc=0
wait "$rb" || rc=$?
expect "demo exit status after SIGTERM" 0 "$rc"
[ -d "/proc/$child" ] && fail "the demo's child $child was left behind"
exit 0
