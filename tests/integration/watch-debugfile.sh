#!/bin/bash
# SPDX-License-Identifier: MIT
# watch-debugfile: a watch reads the separate debug file the stacks read,
# and only that one (common/debugfile.c).  A copy of tests/apps/watchsyms
# gives its DWARF to a separate file (objcopy --only-keep-debug, strip
# --strip-debug: its symbol table stays), then:
#
#  - NAME.debug beside it, no .gnu_debuglink, the same build-id: the
#    watch of total reads it ("5"), as the stacks would;
#  - .gnu_debuglink to a file whose build-id is another's: the watch
#    ignores it, total "has no debug info";
#  - no build-ids, .gnu_debuglink to a file whose CRC is not the link's:
#    ignored alike; with the right file, read.
# The symbol tables still give (int)total; the program survives each.
. "$(dirname "$0")/lib.sh"

for tool in objcopy strip readelf; do
	command -v "$tool" >/dev/null || skip "$tool is not installed"
done

# watch FILE TID EXPR - rbmon --watch (10 s); WATCHED, $T/watch.{out,err}.
watch()
{
	WATCHED=0
	"$RBMON" --thread "$2" --watch "$3" --timeout 10 "$1" \
		>"$T/watch.out" 2>"$T/watch.err" || WATCHED=$?
}

# start NAME PROGRAM - run PROGRAM traced; PID, TID (its ticker), TRACE.
start()
{
	TRACE=$T/$1.trace
	: >"$T/$1.ready"
	traced "$1" RBTRACE_FILE="$TRACE" RBT_READY="$T/$1.ready" "$2"
	PID=$LAUNCHED
	RBT_READY=$T/$1.ready wait_threads "$PID" ticker
	TID=$(RBT_READY=$T/$1.ready tid_of ticker)
}

# sees_dwarf NAME - total watched with its type from DWARF.
sees_dwarf()
{
	watch "$TRACE" "$TID" total
	expect "--watch total, $1 (stderr: $(cat "$T/watch.err"))" "0 5" \
		"$WATCHED $(cat "$T/watch.out")"
}

# sees_none NAME - total has no debug info; (int)total from the symbols.
sees_none()
{
	watch "$TRACE" "$TID" total
	expect "--watch total, $1 (stdout: $(cat "$T/watch.out"))" \
		"1 rbmon: thread $TID: total: \"total\" has no debug info; cast it to its type, e.g. (int)total" \
		"$WATCHED $(cat "$T/watch.err")"
	watch "$TRACE" "$TID" "(int)total"
	expect "--watch (int)total, $1 (stderr: $(cat "$T/watch.err"))" "0 5" \
		"$WATCHED $(cat "$T/watch.out")"
}

# split DIR NAME - DIR/NAME, a copy of watchsyms, and DIR/NAME.debug.
split()
{
	mkdir -p "$1"
	cp "$APPS/watchsyms" "$1/$2"
	objcopy --only-keep-debug "$1/$2" "$1/$2.debug" || fail "objcopy --only-keep-debug"
	strip --strip-debug "$1/$2" || fail "strip --strip-debug"
	readelf -S "$1/$2" | grep -q '\.debug_info' && fail "$1/$2 still has .debug_info"
	return 0
}

readelf -n "$APPS/watchsyms" | grep -q 'Build ID' || skip "watchsyms has no build-id"

# --- NAME.debug beside it, found without a link.
split "$T/a" ws
start beside "$T/a/ws"
sees_dwarf "NAME.debug beside the program, no debuglink"
stop_and_reap "$PID"
expect "exit status (beside)" 0 "$REAPED"

# --- A debuglink to another program's debug file (another build-id).
split "$T/b" ws
(cd "$T/b" && objcopy --add-gnu-debuglink=ws.debug ws) || fail "objcopy --add-gnu-debuglink"
# another build-id: the last byte of the note's descriptor, changed
set -- $(readelf -W -S "$T/b/ws.debug" |
	sed -n 's/^.*\] \.note\.gnu\.build-id *[A-Z]* *[0-9a-f]* \([0-9a-f]*\) \([0-9a-f]*\) .*$/\1 \2/p')
[ $# -eq 2 ] || fail "readelf: no .note.gnu.build-id in ws.debug"
last=$((16#$1 + 16#$2 - 1))
byte=$(od -An -tu1 -j "$last" -N 1 "$T/b/ws.debug" | tr -d ' ')
printf "\\$(printf '%03o' $((byte ^ 255)))" |
	dd of="$T/b/ws.debug" bs=1 seek="$last" conv=notrunc status=none ||
	fail "cannot change the build-id of ws.debug"
[ "$(readelf -n "$T/b/ws" 2>/dev/null | grep 'Build ID')" != "$(readelf -n "$T/b/ws.debug" 2>/dev/null | grep 'Build ID')" ] ||
	fail "the debug file's build-id is still the program's"
start badid "$T/b/ws"
sees_none "a debuglink to a file with another build-id"
stop_and_reap "$PID"
expect "exit status (badid)" 0 "$REAPED"

# --- No build-ids: the debuglink's CRC decides.
split "$T/c" ws
objcopy --remove-section .note.gnu.build-id "$T/c/ws" || fail "objcopy --remove-section"
objcopy --remove-section .note.gnu.build-id "$T/c/ws.debug" || fail "objcopy --remove-section"
(cd "$T/c" && objcopy --add-gnu-debuglink=ws.debug ws) || fail "objcopy --add-gnu-debuglink"
readelf -n "$T/c/ws" | grep -q 'Build ID' && fail "$T/c/ws still has a build-id"
cp "$T/c/ws.debug" "$T/c/ws.debug.good"
printf 'x' >>"$T/c/ws.debug"
start badcrc "$T/c/ws"
sees_none "no build-id, a debuglink whose CRC differs"
stop_and_reap "$PID"
expect "exit status (badcrc)" 0 "$REAPED"
mv "$T/c/ws.debug.good" "$T/c/ws.debug"
start goodcrc "$T/c/ws"
sees_dwarf "no build-id, a debuglink whose CRC matches"
stop_and_reap "$PID"
expect "exit status (goodcrc)" 0 "$REAPED"
exit 0
