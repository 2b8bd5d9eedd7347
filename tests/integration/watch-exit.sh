#!/bin/bash
# SPDX-License-Identifier: MIT
# watch-exit: a program that exits while its watch worker compiles ends
# normally.
#
#  - a watch that prints a pointer (its symbol table is made from every
#    object, libc's too, whose debug information is not installed) is
#    answered, and loads no debuginfod client into the program (no
#    libdebuginfod, libcurl or TLS library in its maps): a compile never
#    goes to the network, and leaves no exit handler of such libraries to
#    run while another compile is under way;
#  - twenty times: tests/apps/watch gets the same request written straight
#    into its file (tests/apps/wpoke) and SIGTERM 0 to 9 ms later, while
#    the worker loads the module and compiles: each run ends with status 0
#    (not SIGSEGV or SIGABRT from libraries torn down under the compile).
. "$(dirname "$0")/lib.sh"

# launch_watch N - tests/apps/watch on $T/exit.N.trace; PID, K (ticker).
launch_watch()
{
	f=$T/exit.$1.trace
	: >"$RBT_READY"
	traced "app$1" RBTRACE_FILE="$f" "$APPS/watch"
	pid=$LAUNCHED
	wait_threads "$pid" ticker
	K=$(tid_of ticker)
}

launch_watch 0
v=$("$RBMON" --thread "$K" --watch cfgp --timeout 30 "$f") || fail "--watch cfgp"
[[ $v =~ ^\(struct\ config\ \*\)\ 0x[0-9a-f]+\ \<cfg\>$ ]] || fail "--watch cfgp printed '$v'"
expect "debuginfod, curl or TLS libraries in the program" "" \
	"$(grep -oE '[^/ ]*(debuginfod|curl|gnutls|crypto|ssl)[^/ ]*$' "/proc/$pid/maps" | sort -u | tr '\n' ' ')"
stop_and_reap "$pid"
expect "exit status" 0 "$REAPED"

for ((i = 1; i <= 20; i++)); do
	launch_watch "$i"
	"$APPS/wpoke" "$f" "$K" 0 expr=cfgp exprlength=4 resready=0 reslength=0 \
		inuse=1 kick || fail "wpoke"
	sleep "0.00$((i % 10))"
	stop_and_reap "$pid"
	expect "exit status of run $i (stderr: $(cat "$T/app$i.err"))" 0 "$REAPED"
done
exit 0
