#!/bin/bash
# SPDX-License-Identifier: MIT
# tui-cpu: what the kernel says of each thread on rbmon's screen, for
# tests/apps/kstate: the spinning thread in state R with a CPU share that
# /proc confirms is real (over 25% on the screen, and the thread got over
# a quarter of a core by /proc's count meanwhile); the thread blocked in
# read() in state S at 0.0%, its stack pane's first row "blocked in
# read(FD, 0x..., 1)" with the descriptor the program reports (the kernel's
# syscall file read by this test says the same); the header shows the
# process's CPU share; sorted by CPU (F6 twice), the spinner comes first.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

f=$T/kstate.trace
traced app RBTRACE_FILE="$f" "$APPS/kstate"
pid=$LAUNCHED
wait_threads "$pid" spinner reader waiter
spin=$(tid_of spinner)
rd=$(tid_of reader)
fd=$(ready_field fd 3)
[[ $fd =~ ^[0-9]+$ ]] || fail "no descriptor from the reader: '$fd'"

# ticks TID - utime + stime of a thread, from /proc.
ticks()
{
	local s f
	read -r s <"/proc/$pid/task/$1/stat" || return 1
	s=${s##*) }
	read -r -a f <<<"$s"
	echo $((f[11] + f[12]))
}

tui_start 100 30 "$RBMON" -d 5 "$f"
tui_wait "^PID $pid kstate: alive" "the process row"
t0=$(ticks "$spin")
s0=$SECONDS

# cpu_of TID - the CPU% column of a thread's row ("-" unknown).
cpu_of() { tui_screen | sed -n "s/^[^0-9]* $1 .* \([A-Za-z-]\) \+\([0-9.]\+\|-\) \+[0-9]\+ .*/\1 \2/p"; }
spinning()
{
	local v
	v=$(cpu_of "$spin")
	[[ $v =~ ^R\ ([0-9]+)\.[0-9]$ ]] && [ "${BASH_REMATCH[1]}" -ge 25 ] || { echo "spinner: '$v'"; false; }
}
poll "the spinner in R over 25% of a core" spinning
# /proc's word for it: a quarter of a core at least, since rbmon started.
later() { [ "$SECONDS" -gt $((s0 + 1)) ]; }
wait_for "a second of the spinner's running" later
t1=$(ticks "$spin")
share=$(( (t1 - t0) * 100 / $(getconf CLK_TCK) / (SECONDS - s0) ))
[ "$share" -ge 20 ] || fail "/proc gave the spinner ${share}% of a core while the screen said over 25%"
asleep()
{
	local v
	v=$(cpu_of "$rd")
	[ "$v" == "S 0.0" ] || { echo "reader: '$v'"; false; }
}
poll "the reader asleep at 0.0%" asleep
tui_has "PID $pid CPU [0-9]+\.[0-9]%  events ring 4096  refresh" || tui_fail "the header lacks the process's CPU share"

# The reader's stack: what it waits in, first.
tui_keys /
tui_wait '^Search: ?$' "the search prompt"
tui_keys -l reader
tui_keys Enter
tui_wait "^ Stack of thread $rd \"reader\"" "the reader's stack"
read -r -a sc <"/proc/$pid/task/$rd/syscall" || fail "cannot read the reader's syscall file"
expect "the reader's system call (x86_64 read)" 0 "${sc[0]}"
expect "the descriptor the kernel has" "$fd" "$((sc[1]))"
tui_wait "^     blocked in read\($fd, ${sc[2]}, 1\)\$" "the blocked row over the reader's stack"
tui_screen | grep -A1 '^     blocked in read' | tail -n1 | grep -q '^#0 \+read_here ' ||
	tui_fail "the blocked row is not right over #0 read_here"

# Sorted by CPU: the spinner first.
tui_keys F6 F6
tui_wait '\[sort: CPU%\]' "sorted by CPU"
first_is_spinner() { [ "$(tui_screen | sed -n 's/^├─ \+\([0-9]\+\) .*/\1/p' | head -n1)" == "$spin" ]; }
poll "the spinner first when sorted by CPU" first_is_spinner
tui_quit
exit 0
