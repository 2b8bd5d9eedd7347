#!/bin/bash
# SPDX-License-Identifier: MIT
# progname: a program that rewrites its argv in place, as setproctitle()
# does, before its first hook (tests/apps/retitle) is still named after its
# executable: the default trace file ${TMPDIR}/retitle.PID.trace, the
# program in rbmon --list and in the dump.  Run through rbtrace under
# another name (a symbolic link), the launcher names the same file.
. "$(dirname "$0")/lib.sh"

[ -x "$RBTRACE" ] || fail "rbtrace not built: $RBTRACE"
mkdir "$T/tmp"
export TMPDIR=$T/tmp
title="retitled: master process /etc/conf-on.conf"

# named_after PID FILE WHAT - FILE is the trace file, retitle the program in
# it (rbmon --list, the dump), and the process did rewrite its argv.
named_after()
{
	local line
	[ -f "$2" ] || fail "$3: no trace file $2 (has: $(ls "$TMPDIR"))"
	expect "$3: the program's argv, rewritten" "$title" \
		"$(tr '\0' '\n' <"/proc/$1/cmdline" | head -n 1)"
	"$RBMON" --list >"$T/list" 2>"$T/list.err" || fail "$3: rbmon --list exited $?"
	line=$(grep -F "$2 " "$T/list") || fail "$3: rbmon --list lacks $2: $(cat "$T/list")"
	expect "$3: the program in rbmon --list" retitle "$(awk '{ print $3 }' <<<"$line")"
	dump_json "$2"
	expect "$3: the program in the dump" retitle "$(jqv .program)"
}

# ---- under LD_PRELOAD -------------------------------------------------------
traced app "$APPS/retitle" "$title"
pid=$LAUNCHED
wait_ready "parked $pid" "$pid"
named_after "$pid" "$TMPDIR/retitle.$pid.trace" preloaded
kill -KILL "$pid"
wait "$pid" 2>/dev/null

# ---- through rbtrace, under another name -----------------------------------
ln -s "$APPS/retitle" "$T/alias" || fail "ln -s"
: >"$RBT_READY"
launch rb "$RBTRACE" -- "$T/alias" "$title"
wait_ready "parked [0-9]+" "$LAUNCHED"
pid=$(ready_field parked 2)
wait_for "the tracing line" grep -q '^rbtrace: tracing ' "$T/rb.err"
expect "rbtrace's tracing line" \
	"rbtrace: tracing $T/alias (pid $pid) into $TMPDIR/retitle.$pid.trace" \
	"$(head -n 1 "$T/rb.err")"
named_after "$pid" "$TMPDIR/retitle.$pid.trace" "through rbtrace"
exit 0
