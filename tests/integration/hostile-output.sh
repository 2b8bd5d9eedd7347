#!/bin/bash
# SPDX-License-Identifier: MIT
# hostile-output: what a traced program (tests/apps/rawbytes) puts in a
# thread name, a named frame, its trace file's program name and object
# path, and a thread's answers and watch values (ESC ] 2 ; title BEL,
# ESC [ 2 J, CR, LF, DEL, C1 CSI and NEL as UTF-8, a byte that is not UTF-8)
# reaches no terminal raw: --dump, --follow, --list, --send, --watch and
# the notes on stderr, and rbtrace's lines naming a program whose name
# holds such bytes, print only printable ASCII and newlines, with the
# escapes of rbmon(1) in place of the bytes; --json keeps the exact bytes
# behind \u escapes; the screen shows the escapes and its pane title stays.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

# The escaped forms (as rbmon(1) says: \xNN, \uNNNN, \r, \n).
E_THREAD='\x1b]2;T\x07\x1b[2J\u009b'
E_OBJECT='\x1b]2;O\x07\x1b[2J\x9b.bin'
E_PROGRAM='\x1b]2;P\x07\x1b[2J\x7f\u0085prog'
E_FRAME='\x1b]2;F\x07\x1b[31mfn (\x1b[2Jsrc\x9b.c:7)'
E_ANSWER='\x1b]2;A\x07\x1b[2J pong\r\n\u009b'
E_VALUE='\x1b]2;V\x07\x1b[2J\x07'
E_ERROR='\x1b]2;E\x07\x1b[2J error'

# plain NAME FILE - FILE holds printable ASCII and newlines only.
plain()
{
	local bad
	bad=$(tr -d '\n' <"$2" | LC_ALL=C tr -d ' -~' | od -An -tx1 | head -c 200)
	[ -z "$bad" ] || fail "$1: raw bytes reach the terminal ($bad): $(cat -v "$2" | head -c 600)"
}

# has NAME FILE TEXT - FILE contains TEXT literally.
has() { grep -qF -- "$3" "$2" || fail "$1: no '$3' in: $(cat -v "$2" | head -c 800)"; }

mkdir "$T/dir"
f=$T/dir/hostile.trace
traced app RBTRACE_FILE="$f" "$APPS/rawbytes"
pid=$LAUNCHED
wait_ready "rawbytes $pid .*" "$pid"
busy=$(tid_of busy)
mute=$(tid_of mute)

# --dump: names, frames, program; the note on the main object's path.
rc=0
"$RBMON" --dump "$f" >"$T/dump" 2>"$T/dump.err" || rc=$?
expect "rbmon --dump status" 0 "$rc"
plain "--dump" "$T/dump"
plain "--dump's stderr" "$T/dump.err"
has "--dump: the thread named by prctl" "$T/dump" "  thread $busy \"$E_THREAD\" running"
has "--dump: the process's program (its main object)" "$T/dump" "process $pid ($E_OBJECT) alive"
has "--dump: the named frame" "$T/dump" "#1 $E_FRAME"
has "--dump: the object's path in the note" "$T/dump.err" \
	"rbmon: note: /nonexistent/$E_OBJECT: binary deleted since it was loaded"
# still symbolized through the live process
has "--dump: symbols" "$T/dump" "#0 mute_block (rawbytes.c:"

# --json: the exact bytes, escaped as JSON.
"$RBMON" --json "$f" >"$T/json" 2>"$T/json.err" || fail "rbmon --json: $(cat "$T/json.err")"
plain "--json" "$T/json"
expect "JSON: the thread name, byte for byte" "$(printf '\033]2;T\a\033[2J\302\233' | od -An -tx1)" \
	"$(jq -j ".processes[0].threads[] | select(.tid == $busy) | .name" "$T/json" | od -An -tx1)"
expect "JSON: C1 and DEL as \\u escapes" 1 \
	"$(grep -cF '"\u001b]2;T\u0007\u001b[2J\u009b"' "$T/json")"

# --follow: every redraw escaped.
launch follow "$RBMON" --follow --delay 1 "$f"
fpid=$LAUNCHED
redraws() { [ "$(grep -c "^  thread $busy " "$T/follow.out")" -ge 2 ]; }
wait_for "two redraws of --follow" redraws
kill -TERM "$fpid"
wait "$fpid" 2>/dev/null
plain "--follow" "$T/follow.out"
has "--follow: the thread name" "$T/follow.out" "\"$E_THREAD\""

# --list: the header's program name.
RBTRACE_DIR=$T/dir "$RBMON" --list >"$T/list" 2>"$T/list.err" || fail "rbmon --list: $(cat "$T/list.err")"
plain "--list" "$T/list"
has "--list: the program name" "$T/list" "$E_PROGRAM"

# --send: an answer with control bytes, from the thread that never passes
# a hook (the program answers for it as a hostile librbtrace would).
rc=0
"$RBMON" -t "$mute" --send PING "$f" >"$T/send" 2>"$T/send.err" || rc=$?
expect "--send PING status (stderr: $(cat -v "$T/send.err"))" 0 "$rc"
plain "--send" "$T/send"
expect "--send: the answer escaped, one line" "$E_ANSWER" "$(cat "$T/send")"

# --watch: a value, an error, and the expression typed (user input too).
rc=0
"$RBMON" -t "$mute" --watch v "$f" >"$T/watch" 2>"$T/watch.err" || rc=$?
expect "--watch v status" 0 "$rc"
plain "--watch" "$T/watch"
expect "--watch: the value escaped" "$E_VALUE" "$(cat "$T/watch")"
rc=0
"$RBMON" -t "$mute" --watch v --watch $'x\e[2J' "$f" >"$T/watch" 2>"$T/watch.err" || rc=$?
expect "--watch v --watch x status" 1 "$rc"
plain "--watch (two)" "$T/watch"
plain "--watch's stderr" "$T/watch.err"
expect "--watch: EXPR = VALUE" "v = $E_VALUE" "$(cat "$T/watch")"
expect "--watch: the error escaped" "rbmon: thread $mute: x\\x1b[2J: $E_ERROR" "$(cat "$T/watch.err")"
# a real librbtrace answer on the thread with the hostile name
rc=0
"$RBMON" -t "$busy" --watch $'no_such\e[2J' "$f" >"$T/watch" 2>"$T/watch.err" || rc=$?
expect "--watch of a bad expression status" 1 "$rc"
plain "--watch's stderr (librbtrace's answer)" "$T/watch.err"
has "--watch: the expression escaped" "$T/watch.err" "rbmon: thread $busy: no_such\\x1b[2J: "

# rbtrace: a program whose name holds control bytes is named escaped.
mkdir "$T/bin"
hostile=$T/bin/$'x\e]2;L\a\e[2J\x9b'
cp "$APPS/simple" "$hostile"
rc=0
timeout 60 "$RBTRACE" --file "$T/l.trace" -- "$hostile" >/dev/null 2>"$T/launch.err" || rc=$?
plain "rbtrace's stderr (a hostile program name)" "$T/launch.err"
has "rbtrace: the program's name escaped" "$T/launch.err" \
	"rbtrace: tracing $T/bin/x\\x1b]2;L\\x07\\x1b[2J\\x9b (pid "

# The screen: escapes drawn, the pane's title untouched.
tui_start 120 30 "$RBMON" "$f"
tui_wait '\\x1b\]2;T\\x07' "the thread name, escaped"
tui_keys Down
tui_wait 'Stack of thread' "a stack"
# (ESC ] 2 ; T BEL would have made it "T"; tmux starts with the host name.)
expect "the pane title after rbmon drew" "$(tui_pane '#{host}')" "$(tui_pane '#{pane_title}')"
tui_quit "hostile names"
exit 0
