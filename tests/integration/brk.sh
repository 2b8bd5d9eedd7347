# SPDX-License-Identifier: MIT
# tests/integration/brk.sh - helpers the breakpoint tests share, for
# tests/apps/brk.  Source it after lib.sh and control.sh.

# th TID - jq path of thread TID in a dump, in whichever process.
th() { echo ".processes[].threads[] | select(.tid == $1)"; }

# brk_start PROGRAM [VAR=VALUE...] - run PROGRAM (tests/apps/brk or a copy)
# traced into $f with its FIFOs in $T/fifo; sets PID, M (main's tid) and
# W (the worker's).
brk_start()
{
	local prog=$1
	shift
	mkdir -p "$T/fifo"
	traced app RBTRACE_FILE="$f" RBTRACE_ORPHAN_TIMEOUT=0 "$@" "$prog" "$T/fifo"
	PID=$LAUNCHED
	wait_threads "$PID" worker
	M=$PID
	W=$(tid_of worker)
}

# release WHO BYTES - give thread WHO (main or worker) rounds to run.
release() { printf '%s' "$2" >"$T/fifo/$1"; }

# wait_round WHO N C - wait until WHO reported its Nth round, byte C.
wait_round() { wait_ready "$1 done $2 $3" "$PID"; }

# asleep TID FRAMES - TID sleeps in a system call (state S) with the
# frames given (function names, newest first, space-separated).
asleep()
{
	json_true "$f" "$(th "$1") | (.frames | map(.function) | join(\" \")) == \"$2\"" ||
		return 1
	awk '{ sub(/^.*\) /, ""); print "state " $1; exit $1 != "S" }' "/proc/$PID/task/$1/stat"
}

# load_bias PID PATH - what the object PATH's addresses are moved by in
# process PID (0 for a fixed-address executable).
load_bias()
{
	local real type
	real=$(readlink -f "$2")
	type=$(od -An -t u2 -j 16 -N 2 "$real" | tr -d ' ')
	if [ "$type" != 3 ]; then
		echo 0
		return
	fi
	awk -v p="$real" '$6 == p && $3 == "00000000" { split($1, a, "-"); print "0x" a[1]; exit }' \
		"/proc/$1/maps"
}

# nm_addrs OBJECT BIAS PATTERN - the runtime addresses (0x..., sorted) of
# OBJECT's defined symbols whose demangled names match the grep -E PATTERN.
nm_addrs()
{
	local a
	nm --defined-only -C "$1" | grep -E -- "$3" | sort | while read -r a _; do
		printf '%#x\n' $((0x$a + $2))
	done
}

# blst_line FILE TID ID - breakpoint ID's BLST line (the thread may wait in read()).
blst_line()
{
	send "$1" "$2" BLST --timeout 0.5
	[ "$SENT" -eq 0 ] || fail "BLST exited $SENT: $(cat "$T/send.err")"
	awk -v id="$3" '$1 == id' "$T/send.out"
}
