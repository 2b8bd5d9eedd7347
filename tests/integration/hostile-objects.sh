#!/bin/bash
# SPDX-License-Identifier: MIT
# hostile-objects: rbmon reads symbols from regular files only, and as root
# only from where the trace file's owner could read.
#  - an object path in the file naming a FIFO: --dump, --json and the
#    screen go on at once (a note says "not a regular file"), q quits;
#  - a program whose .gnu_debuglink names a FIFO (in its directory and in
#    .debug/): the symbols come from its symbol table, nothing blocks;
#  - root on a file of nobody's whose object lies where nobody cannot go:
#    no symbols from it ("Permission denied"); the same object where
#    nobody can read it, and the same file owned by root, give them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

command -v mkfifo >/dev/null || skip "mkfifo is not installed"

# dump_within NAME MODE FILE - rbmon MODE FILE must end (0) within 20 s.
dump_within()
{
	local rc=0
	timeout 20 "$RBMON" $2 "$3" >"$T/$1" 2>"$T/$1.err" || rc=$?
	[ "$rc" -ne 124 ] || fail "rbmon $2 on $1 hung (killed after 20 s)"
	expect "rbmon $2 status on $1 (stderr: $(cat "$T/$1.err"))" 0 "$rc"
}

# --- An object path naming a FIFO.
mkfifo "$T/fifo"
f=$T/fifo.trace
traced app RBTRACE_FILE="$f" "$APPS/rawbytes" -f "$T/fifo"
pid=$LAUNCHED
wait_ready "rawbytes $pid .*" "$pid"
mute=$(tid_of mute)
dump_within fifo-text --dump "$f"
grep -qF "rbmon: note: $T/fifo: not a regular file" "$T/fifo-text.err" ||
	fail "no note on the FIFO: $(cat "$T/fifo-text.err")"
grep -qF "#0 mute_block (rawbytes.c:" "$T/fifo-text" ||
	fail "the other objects lost their symbols: $(cat "$T/fifo-text")"
dump_within fifo-json --json "$f"
mv "$T/fifo-json" "$T/json"
expect "JSON: the mute thread's innermost frame" mute_block \
	"$(jqv ".processes[0].threads[] | select(.tid == $mute) | .frames[0].function")"
grep -qF "not a regular file" "$T/fifo-json.err" || fail "no note with --json: $(cat "$T/fifo-json.err")"
tui_start 100 24 "$RBMON" "$f"
tui_wait "mute_block" "the stacks drawn"
tui_quit "an object path naming a FIFO"

# --- A debug link naming a FIFO.
command -v objcopy >/dev/null || skip "objcopy is not installed"
mkdir -p "$T/bin/.debug"
prog=$T/bin/simple
cp "$APPS/simple" "$prog"
objcopy --strip-debug "$prog" || fail "objcopy --strip-debug"
: >"$T/bin/simple.debug"
(cd "$T/bin" && objcopy --add-gnu-debuglink=simple.debug simple) ||
	fail "objcopy --add-gnu-debuglink"
rm "$T/bin/simple.debug"
mkfifo "$T/bin/simple.debug" "$T/bin/.debug/simple.debug"
f=$T/link.trace
traced link RBTRACE_FILE="$f" "$prog" -p
pid=$LAUNCHED
wait_ready "parked $pid" "$pid"
dump_within link-json --json "$f"
mv "$T/link-json" "$T/json"
expect "the stack, from the symbol table" "simple_leaf simple_work main" \
	"$(jqv '.processes[0].threads[0].frames | map(.function) | join(" ")')"
dump_within link-text --dump "$f"

# --- Root on nobody's file: the owner's rights.
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then
	note "not root: the owner's rights are not tested"
	exit 0
fi
kill -KILL "$pid"
{ wait "$pid"; } 2>/dev/null
chmod 711 "$T"
mkdir -m 700 "$T/secret"
mkdir -m 755 "$T/open"
cp "$APPS/simple" "$T/secret/simple"
cp "$APPS/simple" "$T/open/simple"
chmod 755 "$T/secret/simple" "$T/open/simple"
setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$T/open/simple" ||
	skip "nobody cannot read $T/open/simple"
setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$T/secret/simple" &&
	fail "nobody can read $T/secret/simple"
# repath FILE NEW - a copy of $f whose objects at $prog are at NEW.
repath()
{
	local off
	cp "$f" "$1"
	for off in $(grep -obaF "$prog" "$1" | cut -d: -f1); do
		head -c 256 /dev/zero | dd of="$1" bs=1 seek="$off" conv=notrunc status=none
		printf '%s' "$2" | dd of="$1" bs=1 seek="$off" conv=notrunc status=none
	done
	grep -qaF "$2" "$1" || fail "no object path to rewrite in $1"
}
repath "$T/secret.trace" "$T/secret/simple"
repath "$T/open.trace" "$T/open/simple"
dump_within root-secret --json "$T/secret.trace"
mv "$T/root-secret" "$T/json"
expect "root's own file: symbols from where only root reads" "simple_leaf simple_work main" \
	"$(jqv '.processes[0].threads[0].frames | map(.function) | join(" ")')"
chown 65534:65534 "$T/secret.trace" "$T/open.trace"
dump_within nobody-secret --json "$T/secret.trace"
mv "$T/nobody-secret" "$T/json"
expect "nobody's file: no symbols from where nobody cannot read" "null null null" \
	"$(jqv '.processes[0].threads[0].frames | map(.function // "null") | join(" ")')"
grep -qF "rbmon: note: $T/secret/simple: Permission denied" "$T/nobody-secret.err" ||
	fail "no note on the object nobody cannot read: $(cat "$T/nobody-secret.err")"
dump_within nobody-open --json "$T/open.trace"
mv "$T/nobody-open" "$T/json"
expect "nobody's file: symbols from where nobody reads" "simple_leaf simple_work main" \
	"$(jqv '.processes[0].threads[0].frames | map(.function) | join(" ")')"
exit 0
