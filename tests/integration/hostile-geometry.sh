#!/bin/bash
# SPDX-License-Identifier: MIT
# hostile-geometry: a stray writer rewrites the layout in a live file's
# header and the thread's own ring fields; the program goes on with the
# layout it validated when it joined, and bounds what it reads.
#
# ctl runs with RBTRACE_RINGS=5 (main and its four threads take every
# ring), RBTRACE_MSGSZ=64 and RBTRACE_GLOBALSZ=1024.  tests/apps/hostile,
# working from the header as it was, sets every size and offset of the
# header to its limit or far past the file (rings = 65536, gma_off = 2^40,
# bps = 2^32 - 1, ...), a global message area owner of ring 60000, and
# alpha's depth, currSlot and stop_ns to nonsense; then:
#  - an unknown command's answer, longer than the 64-byte message area,
#    comes back whole, its tail in the real global message area;
#  - a msglen of 500 (and -1, 2^31 - 1) is refused by the real msg_sz:
#    "bad argument length 500 (0..64)";
#  - PING answers alpha's real depth (1 to 3), not the ring's;
#  - MORE 10 PING answers the rest of the pong; MORE 200 PING, past the
#    end, an error (not the request bytes left in the area);
#  - beta keeps entering beta_even, where a breakpoint is set (the table's
#    place and size are the program's own): its hits grow;
#  - a thread started meanwhile (SIGUSR1) finds no ring among the 5 real
#    ones and runs untraced, instead of taking one past the table;
#  - rbmon refuses the file ("corrupt header") while the program runs on;
#  - the program stays alive and answers; with the header put back, rbmon
#    reads the file again: untraced_threads is 1, every thread answers PING.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/control.sh"

f=$T/ctl.trace
traced app RBTRACE_FILE="$f" RBTRACE_RINGS=5 RBTRACE_MSGSZ=64 \
	RBTRACE_GLOBALSZ=1024 RBTRACE_ORPHAN_TIMEOUT=0 "$APPS/ctl"
pid=$LAUNCHED
wait_threads "$pid" alpha beta seq blocked
A=$(tid_of alpha)
B=$(tid_of beta)
S=$(tid_of seq)

send_ok "$f" "$B" "BRKP beta_even 4000000000" \
	"breakpoint 1 at beta_even, stops from hit 4000000000"

# alive DESC - the program must still run.
alive() { kill -0 "$pid" 2>/dev/null || fail "the program died $1 ($(cat "$T/app.err"))"; }

# hostile STEP... - the stray writer, from the header saved at its first run.
hostile()
{
	local rc=0
	"$APPS/hostile" -s "$T/geo" "$f" "$A" "$@" >"$T/hostile.out" 2>"$T/hostile.err" || rc=$?
	[ "$rc" -eq 0 ] ||
		{ alive "under the stray writes"; fail "hostile $* exited $rc: $(cat "$T/hostile.out" "$T/hostile.err")"; }
}

hostile \
	hdr rings=65536 hdr slots=65536 hdr slot_sz=4096 hdr msg_sz=65536 \
	hdr global_sz=16777216 hdr objects=65536 hdr ring_size=0xffffffff \
	hdr slot_size=0xffffffff hdr slots_off=0xffffffff \
	hdr msgarea_off=0xffffffff hdr gma_off=0x10000000000 \
	hdr owners_off=0x10000000000 hdr objects_off=0x10000000000 \
	hdr rings_off=0x10000000000 hdr bpfilter_off=0x10000000000 \
	hdr bps_off=0x10000000000 hdr bps=0xffffffff hdr bpfilter_bits=0xffffffff \
	hdr total_size=0x10000000000 hdr gma_owner=60000 \
	ring depth=2000000000 ring currSlot=-5 ring stop_ns=0xffffffffffffffff \
	send XYZW '' \
	post PING 500 x \
	post PING -1 x \
	post PING 2147483647 x \
	send PING '' \
	send MORE '10 PING' \
	send MORE '200 PING'
alive "after the stray writes and the commands"
# Monitors validate the header when they open the file: they refuse it now.
rc=0
"$RBMON" --dump --json "$f" >/dev/null 2>"$T/refused.err" || rc=$?
[ "$rc" -ne 0 ] && grep -q "corrupt header" "$T/refused.err" ||
	fail "rbmon on the rewritten header: exit $rc, $(cat "$T/refused.err")"

mapfile -t got <"$T/hostile.out"
expect "lines answered" 7 "${#got[@]}"
expect "answer to XYZW (its tail in the global area)" \
	"ERR unknown command 'XYZW' (known: STOP CONT STEP NEXT FINI TRON TROF PING MORE DYN)" \
	"${got[0]}"
expect "answer to a msglen of 500" "ERR bad argument length 500 (0..64)" "${got[1]}"
expect "answer to a msglen of -1" "ERR bad argument length -1 (0..64)" "${got[2]}"
expect "answer to a msglen of 2^31 - 1" "ERR bad argument length 2147483647 (0..64)" "${got[3]}"
got=("${got[0]}" "${got[1]}" "${got[4]}" "${got[5]}" "${got[6]}")
[[ ${got[2]} =~ ^OK\ pong\ pid\ $pid\ tid\ $A\ depth\ [1-3]\ running\ trace\ on$ ]] ||
	fail "answer to PING: '${got[2]}'"
head="pong pid $pid tid $A depth "
[[ ${got[3]} =~ ^OK\ ${head:10}[1-3]\ running\ trace\ on$ ]] ||
	fail "answer to MORE 10 PING: '${got[3]}' (expected 'OK ${head:10}N running trace on')"
[[ ${got[4]} =~ ^ERR\ MORE\ offset\ 200\ is\ past\ the\ end\ of\ the\ [0-9]+-byte\ answer$ ]] ||
	fail "answer to MORE 200 PING: '${got[4]}'"

# A new thread while the header says 65536 rings: no real ring is free.
kill -USR1 "$pid"
wait_ready "late running" "$pid"
wait_ready "thread late [0-9]+" "$pid"
alive "after a thread started under the stray header"
hostile send PING ''
[[ $(cat "$T/hostile.out") =~ ^OK\ pong\ pid\ $pid\ tid\ $A\ depth\ [1-3]\ running\ trace\ on$ ]] ||
	fail "PING after the new thread: '$(cat "$T/hostile.out")'"

# Put the layout back: rbmon reads the file again.
hostile restore
alive "after the header was restored"
dump_json "$f"
expect "untraced threads (the late one)" 1 "$(jqv .rings.untraced_threads)"
expect "traced threads" 5 "$(jqv '.processes[0].threads | length')"
for t in "$A" "$B" "$S"; do
	send "$f" "$t" PING
	[[ $SENT -eq 0 && $(cat "$T/send.out") =~ ^pong\ pid\ $pid\ tid\ $t\ depth\ [0-9]+\ running\ trace\ on$ ]] ||
		fail "PING to $t after the restore: exit $SENT, '$(cat "$T/send.out")' $(cat "$T/send.err")"
done
# beta went on entering beta_even through its breakpoint (not a stop yet).
send "$f" "$B" BLST
[[ $SENT -eq 0 && $(cat "$T/send.out") =~ ^1\ hits=([0-9]+)\ from=4000000000\ thread=all\ at=0x[0-9a-f]+\ beta_even$ ]] ||
	fail "BLST after the restore: exit $SENT, '$(cat "$T/send.out")' $(cat "$T/send.err")"
hits=${BASH_REMATCH[1]}
hits_grew()
{
	local h
	h=$("$RBMON" --thread "$B" --send BLST "$f" | sed -n 's/^1 hits=\([0-9]*\) .*/\1/p')
	[ -n "$h" ] && [ "$h" -gt "$1" ]
}
wait_for "beta's hits on beta_even to grow past $hits" hits_grew "$hits"
dump_json "$f"
expect "stops of every thread" 0 "$(jqv '[.processes[0].threads[] | .stops] | add')"

stop_and_reap "$pid"
expect "exit status of the program" 0 "$REAPED"
# the late thread's line, with the rings the program validated (not 65536)
expect "the program's stderr" "rbtrace: all 5 rings of $f are in use: thread $(tid_of late) runs untraced, as will others that find none; trace with more rings (rbtrace --rings N, RBTRACE_RINGS=N)" \
	"$(cat "$T/app.err")"
exit 0
