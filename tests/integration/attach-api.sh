#!/bin/bash
# SPDX-License-Identifier: MIT
# attach-api: a program whose only call of the hooks is the API of
# <rbtrace/rbtrace.h>, through weak references (tests/apps/weakapi, not
# built with -finstrument-functions, not linked with librbtrace), is
# traced alike by both ways in (tools/elfsym.c, rb_elf_calls_hooks()):
#  - started by rbtrace: no line says it runs untraced, and its frame
#    "weak_frame" (weak.py:7) shows;
#  - started alone, then rbtrace -p: attached (its API calls rebound to
#    librbtrace, "2 entries": rbtrace_push and rbtrace_line), the same
#    frame shows; --detach leaves them bound (the API does nothing while
#    detached: a weak reference put back to 0 could be called by a thread
#    that tested it an instant before), no thread stays traced, and the
#    program runs on; attached again, the frame shows again.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip "jq is not installed"
need_attach

WEAK=$APPS/weakapi
[ -x "$WEAK" ] || fail "not built: $WEAK"
frame='[.frames[] | select(.function == "weak_frame" and .file == "weak.py" and .line == 7)] | length == 1'

# ---- started by rbtrace --------------------------------------------------
f=$T/launched.trace
launch launched "$RBTRACE" --file "$f" -- "$WEAK"
pid=$LAUNCHED
wait_ready "main [0-9]+" "$pid"
wpid=$(ready_field main 2)
wait_json "$f" "[.processes[] | select(.pid == $wpid) | .threads[] | select($frame)] | length == 1" \
	"weak_frame under rbtrace"
grep -q "untraced" "$T/launched.err" && fail "rbtrace said: $(cat "$T/launched.err")"
stop_and_reap "$pid"
: >"$RBT_READY"

# ---- started alone, attached ----------------------------------------------
# rbtrace_p NAME ARGS... - rbtrace ARGS into $T/NAME.out/.err; sets rc.
rbtrace_p()
{
	local name=$1
	shift
	rc=0
	timeout 60 "$RBTRACE" "$@" >"$T/$name.out" 2>"$T/$name.err" || rc=$?
}

launch app "$WEAK"
pid=$LAUNCHED
wait_ready "main $pid" "$pid"
f=$T/att.trace
rbtrace_p a1 -p "$pid" --file "$f"
expect "rbtrace -p exit status ($(cat "$T/a1.err"))" 0 "$rc"
# The program's two API entries are bound; how many objects are counted
# depends on the build (one here, three in a build with AddressSanitizer).
grep -Eq "^rbtrace: attached to $pid: (1 object calls|[0-9]+ objects call) the hooks \(2 entries\); its thread [0-9]+ stopped for [0-9.]+ ms$" "$T/a1.err" ||
	fail "rbtrace -p said: $(cat "$T/a1.err")"
P=".processes[] | select(.pid == $pid) | .threads[]"
wait_json "$f" "[$P | select($frame)] | length == 1" "weak_frame after the attach"

# detach NAME - rbtrace -p --detach: the API's entries stay bound (to a
# library that does nothing while detached), none is restored.
detach()
{
	rbtrace_p "$1" -p "$pid" --detach
	expect "--detach exit status ($(cat "$T/$1.err"))" 0 "$rc"
	grep -Eq "^rbtrace: detached from $pid: 0 entries restored, 1 ring given back; its thread [0-9]+ stopped for [0-9.]+ ms$" "$T/$1.err" ||
		fail "--detach said: $(cat "$T/$1.err")"
	wait_json "$f" "[$P | select(.state != \"exited\")] | length == 0" \
		"no thread of $pid traced after the detach"
	kill -0 "$pid" 2>/dev/null || fail "the program died: $(cat "$T/app.err")"
}
detach d1
# Attached again: its calls still reach the library.
rbtrace_p a2 -p "$pid" --file "$f"
expect "second rbtrace -p exit status ($(cat "$T/a2.err"))" 0 "$rc"
wait_json "$f" "[$P | select(.state != \"exited\") | select($frame)] | length == 1" \
	"weak_frame after the second attach"
detach d2
stop_and_reap "$pid"
expect "exit status of weakapi" 0 "$REAPED"
exit 0
