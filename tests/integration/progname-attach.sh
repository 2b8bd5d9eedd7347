#!/bin/bash
# SPDX-License-Identifier: MIT
# progname-attach: rbtrace -p on a program that rewrote its argv in place,
# as setproctitle() does (tests/apps/retitle, started without the library),
# names the trace file after the executable, ${TMPDIR}/retitle.PID.trace,
# and so do rbmon --list and the dump.
. "$(dirname "$0")/lib.sh"

[ -x "$RBTRACE" ] || fail "rbtrace not built: $RBTRACE"
need_attach
mkdir "$T/tmp"
export TMPDIR=$T/tmp
title="retitled: worker process"

launch app "$APPS/retitle" "$title"
pid=$LAUNCHED
wait_ready "parked $pid" "$pid"
expect "the program's argv, rewritten" "$title" \
	"$(tr '\0' '\n' <"/proc/$pid/cmdline" | head -n 1)"
f=$TMPDIR/retitle.$pid.trace

rc=0
timeout 60 "$RBTRACE" -p "$pid" >"$T/att.out" 2>"$T/att.err" || rc=$?
expect "rbtrace -p exit status ($(cat "$T/att.err"))" 0 "$rc"
expect "rbtrace -p prints the trace file" "$f" "$(cat "$T/att.out")"
[ -f "$f" ] || fail "no trace file $f (has: $(ls "$TMPDIR"))"
"$RBMON" --list >"$T/list" 2>"$T/list.err" || fail "rbmon --list exited $?"
line=$(grep -F "$f " "$T/list") || fail "rbmon --list lacks $f: $(cat "$T/list")"
expect "the program in rbmon --list" retitle "$(awk '{ print $3 }' <<<"$line")"
wait_json "$f" "[.processes[] | select(.pid == $pid) | .threads[] |
	select(.frames[0].function == \"retitle_nap\")] | length == 1" \
	"the program's thread in retitle_nap"
expect "the program in the dump" retitle "$(jqv .program)"
exit 0
