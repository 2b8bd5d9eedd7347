#!/bin/bash
# SPDX-License-Identifier: MIT
# attach-own: an attach gives rings to the program's threads asleep
# through it (rbtrace(1)), never to the library's own: attached, watched
# (the watch worker starts), detached and attached again, the worker is
# among the threads rbtrace holds, and gets no ring.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip "jq is not installed"
need_attach
unset RBTRACE_WATCH_WORKER

launch app "$APPS/attachee" 3
pid=$LAUNCHED
wait_ready "ready $pid" "$pid"

# att ARGS... - rbtrace ARGS, which must succeed.
att()
{
	local rc=0

	timeout 60 "$RBTRACE" "$@" >"$T/r.out" 2>"$T/r.err" || rc=$?
	expect "rbtrace $* ($(cat "$T/r.err"))" 0 "$rc"
}

workers() { cat /proc/"$pid"/task/*/comm 2>/dev/null | grep -c '^rbtrace-watch$'; }

P=".processes[] | select(.pid == $pid) | .threads[]"
f=$T/own.trace
att -p "$pid" --file "$f"
wait_json "$f" "[$P | select(.name == \"worker\" and .state == \"running\")] | length == 3" \
	"the three workers with a ring"
dump_json "$f"
W=$(jq -r "[$P | select(.name == \"worker\" and .state == \"running\") | .tid][0]" "$T/json")
st=0
"$RBMON" --thread "$W" --watch attachee_ticks --timeout 30 "$f" >"$T/w.out" 2>"$T/w.err" || st=$?
expect "exit status of the watch (stderr: $(cat "$T/w.err"))" 0 "$st"
[[ $(cat "$T/w.out") =~ ^[0-9]+$ ]] || fail "the watch printed '$(cat "$T/w.out")'"
expect "watch workers once watched" 1 "$(workers)"
wt=$(grep -l '^rbtrace-watch$' /proc/"$pid"/task/*/comm | cut -d/ -f5)

att -p "$pid" --detach
expect "watch workers after the detach" 1 "$(workers)"
att -p "$pid" --file "$f"
wait_json "$f" "[$P | select(.name == \"worker\" and .state == \"running\")] | length == 3" \
	"the three workers with a ring again"
dump_json "$f"
expect_jq "no ring for the watch worker (tid $wt)" "[$P | select(.tid == $wt)] | length == 0"
expect_jq "no thread named rbtrace-watch" "[$P | select(.name == \"rbtrace-watch\")] | length == 0"
kill -0 "$pid" || fail "attachee died: $(cat "$T/app.err")"
att -p "$pid" --detach
exit 0
