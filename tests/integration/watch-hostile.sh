#!/bin/bash
# SPDX-License-Identifier: MIT
# watch-hostile: stray writes into a live file's watch entries and header
# garble an answer, never the program.
#
# tests/apps/wpoke writes the ticker thread's entries of tests/apps/watch
# as a monitor would (expression, length, resready, inuse, then the watch
# bit and a wake), but with values outside the protocol, and reads back
# what the thread answered:
#  - exprlength -5, 100000: the answer is the error "bad expression length
#    N (0..256)"; 256 bytes of text with no NUL: an error about that text;
#    a NUL byte inside the text: "NUL byte in the expression"; the entry
#    then answers 42 for "answer" again;
#  - inuse 7 and resready 5 ask for nothing: those entries stay unanswered
#    while another entry is answered twice; inuse -2 frees each of them;
#  - the header's gma_off moved 1 TiB away and global_sz made 4 GiB: a
#    value longer than 512 bytes (big) is still answered, its first 512
#    bytes in the entry and the rest in the global message area where the
#    file's layout puts it, all of it right;
#  - through all of it the program runs (counter keeps changing, rbmon
#    --watch answers once the header is put back) and ends with status 0.
. "$(dirname "$0")/lib.sh"

WPOKE=$APPS/wpoke

# poke ENTRY FIELD=VALUE... - write the ticker's entry.
poke() { "$WPOKE" "$f" "$K" "$@" || fail "wpoke $*"; }

# got ENTRY - the entry, into GOT.
got() { GOT=$("$WPOKE" "$f" "$K" "$1" get) || fail "wpoke $1 get"; }

# answered ENTRY - the entry's resready is 1 (for wait_for).
answered() { got "$1"; echo "$GOT"; [[ $GOT == *" resready 1 "* ]]; }

# ask ENTRY EXPR-FIELDS... - post a request on ENTRY and wait for its answer.
ask()
{
	local e=$1
	shift
	poke "$e" "$@" resready=0 reslength=0 inuse=1 kick
	wait_for "entry $e to be answered" answered "$e"
}

# err_line MESSAGE EXPRLENGTH - the get line of an error answer.
err_line() { echo "inuse 1 exprlength $2 resready 1 reslength -${#1} result $1"; }

f=$T/watch.trace
traced app RBTRACE_FILE="$f" "$APPS/watch"
pid=$LAUNCHED
wait_threads "$pid" ticker w1 w2 parked
K=$(tid_of ticker)

# Lengths outside 0..256.
ask 0 expr=answer exprlength=-5
expect "exprlength -5" "$(err_line "bad expression length -5 (0..256)" -5)" "$GOT"
ask 0 exprlength=100000
expect "exprlength 100000" "$(err_line "bad expression length 100000 (0..256)" 100000)" "$GOT"
# 256 bytes, no terminator: read by its length alone.
long=$(printf 'A%.0s' $(seq 256))
ask 0 "expr=$long" exprlength=256
[[ $GOT == "inuse 1 exprlength 256 resready 1 reslength -"*" result no symbol \"AAAA"* ]] ||
	fail "256 bytes of text: got '$GOT'"
# A NUL byte inside.
ask 0 'expr=answer\0junk' exprlength=11
expect "a NUL byte in the text" "$(err_line "NUL byte in the expression" 11)" "$GOT"
ask 0 expr=answer exprlength=6
expect "answer after all that" "inuse 1 exprlength 6 resready 1 reslength 2 result 42" "$GOT"

# inuse and resready outside the protocol ask for nothing.
poke 1 expr=answer exprlength=6 resready=0 reslength=0 inuse=7 kick
poke 2 expr=answer exprlength=6 reslength=0 inuse=1 resready=5 kick
ask 0 expr=answer exprlength=6
ask 0 expr=answer exprlength=6
got 1
expect "entry with inuse 7" "inuse 7 exprlength 6 resready 0 reslength 0 result " "$GOT"
got 2
expect "entry with resready 5" "inuse 1 exprlength 6 resready 5 reslength 0 result " "$GOT"
for e in 0 1 2; do
	poke "$e" inuse=-2 kick
	wait_for "entry $e freed" bash -c "\"$WPOKE\" \"$f\" \"$K\" $e get | grep -q '^inuse 0 '"
done

# The GMA where the layout puts it, whatever the header says later.
read -r _ goff _ < <("$APPS/offsets" | grep '^gma_off ')
read -r _ gsoff _ < <("$APPS/offsets" | grep '^global_sz ')
gma_off=$(od -An -t u8 -j "$goff" -N 8 "$f" | tr -d ' ')
global_sz=$(od -An -t u4 -j "$gsoff" -N 4 "$f" | tr -d ' ')
"$WPOKE" "$f" header gma_off=$((1 << 40)) global_sz=4294967295 || fail "wpoke header"
ask 3 expr=big exprlength=3
want='{'
for ((i = 0; i < 200; i++)); do
	want+="$i, "
done
want="${want%, }...}"
[[ $GOT == "inuse 1 exprlength 3 resready 1 reslength ${#want} result ${want:0:512}" ]] ||
	fail "big with the header's GMA moved: got '$GOT'"
gma=$("$WPOKE" "$f" gma $((${#want} - 512)))
[[ $gma == "owner "*" pos 512 len $((${#want} - 512)) text ${want:512}" ]] ||
	fail "the rest of big in the GMA: got '$gma'"
kill -0 "$pid" || fail "the program died: $(cat "$T/app.err")"
"$WPOKE" "$f" header gma_off="$gma_off" global_sz="$global_sz" || fail "wpoke header back"
poke 3 inuse=-2 kick

# Still running, still answering.
c1=$("$RBMON" --thread "$K" --watch counter --timeout 30 "$f") ||
	fail "--watch counter after the stray writes"
wait_for "counter to change" bash -c \
	"[ \"\$(\"$RBMON\" --thread $K --watch counter --timeout 10 \"$f\")\" -gt $c1 ]"
stop_and_reap "$pid"
expect "exit status" 0 "$REAPED"
exit 0
