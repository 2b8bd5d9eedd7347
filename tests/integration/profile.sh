#!/bin/bash
# SPDX-License-Identifier: MIT
# profile: rbmon profile samples the live stacks of tests/apps/kstate's
# threads, whose stacks and kernel states are known and stay put: the
# spinner on CPU in spin_main -> spin_here, the reader off CPU in read(),
# the waiter in a futex, main in its signal wait.  Every pass counts every
# thread once, so each stack's count is the number of passes the summary
# gives; --on-cpu, --off-cpu and -t keep what they say; it ends at
# --duration, at SIGINT (writing what it has) and when the program ends;
# bad options are refused.
. "$(dirname "$0")/lib.sh"

f=$T/kstate.trace
traced app RBTRACE_FILE="$f" "$APPS/kstate"
pid=$LAUNCHED
wait_threads "$pid" spinner reader waiter
spin=$(tid_of spinner)
rd=$(tid_of reader)
wt=$(tid_of waiter)

kstate_of() { local s; read -r s <"/proc/$pid/task/$1/stat" && s=${s##*) } && echo "${s%% *}"; }
state_is() { [ "$(kstate_of "$1")" = "$2" ]; }
wait_for "the reader asleep in read()" state_is "$rd" S
wait_for "the waiter asleep in its futex" state_is "$wt" S
wait_for "main asleep in its signal wait" state_is "$pid" S

# The system call a thread waits in, by this test's reading of /proc: its
# number, and the name the kernel's own table gives it on x86_64.
sc_nr() { local n; read -r n _ <"/proc/$pid/task/$1/syscall" && echo "$n"; }
expect "the reader's system call (read is 0 on x86_64)" 0 "$(sc_nr "$rd")"
expect "the waiter's system call (futex is 202)" 202 "$(sc_nr "$wt")"
expect "main's system call (rt_sigtimedwait is 128)" 128 "$(sc_nr "$pid")"

want="kstate ($pid);kstate ($pid);main;main_wait;[off-CPU: rt_sigtimedwait]
kstate ($pid);spinner ($spin);spin_main;spin_here
kstate ($pid);reader ($rd);read_main;read_here;[off-CPU: read]
kstate ($pid);waiter ($wt);wait_main;wait_here;[off-CPU: futex]"

# ---- two seconds of everything -------------------------------------------------
"$RBMON" profile -d 2s -r 200 -o "$T/all.folded" "$f" 2>"$T/all.err" ||
	fail "rbmon profile exited $?: $(cat "$T/all.err")"
passes=$(sed -n 's/^rbmon: \([0-9]*\) samples of 4 threads in [0-9.]* s: \([0-9]*\) passes, .*/\2/p' "$T/all.err")
[ -n "$passes" ] || fail "no summary of 4 threads: $(cat "$T/all.err")"
samples=$(sed -n 's/^rbmon: \([0-9]*\) samples.*/\1/p' "$T/all.err")
expect "samples: every thread once a pass" $((4 * passes)) "$samples"
# 200 a second for 2 s: on a loaded machine some ticks are missed, but a
# pass is at most one tick, and a second's worth must have been taken.
[ "$passes" -ge 200 ] && [ "$passes" -le 401 ] || fail "$passes passes in 2 s at 200 a second"
expect "the stacks, each seen at every pass" \
	"$(printf '%s\n' "$want" | sed "s/\$/ $passes/")" "$(cat "$T/all.folded")"
grep -q '^rbmon:   25.0% on CPU, 75.0% off CPU; 4 distinct stacks;' "$T/all.err" ||
	fail "no on/off CPU split of 25/75: $(cat "$T/all.err")"

# ---- filters ----------------------------------------------------------------------
"$RBMON" profile -d 300ms --on-cpu "$f" >"$T/on" 2>"$T/on.err" || fail "--on-cpu exited $?: $(cat "$T/on.err")"
expect "--on-cpu: the spinner only" "kstate ($pid);spinner ($spin);spin_main;spin_here" "$(sed 's/ [0-9]*$//' "$T/on")"
"$RBMON" profile -d 300ms --off-cpu -p "$pid" >"$T/off" 2>"$T/off.err" || fail "--off-cpu exited $?: $(cat "$T/off.err")"
expect "--off-cpu (and -p): the three waiting" "$(printf '%s\n' "$want" | grep off-CPU)" "$(sed 's/ [0-9]*$//' "$T/off")"
"$RBMON" profile -d 300ms -t "$rd,$wt" "$f" >"$T/tid" 2>"$T/tid.err" || fail "-t exited $?: $(cat "$T/tid.err")"
expect "-t: the reader and the waiter" "$(printf '%s\n' "$want" | grep -e reader -e waiter)" "$(sed 's/ [0-9]*$//' "$T/tid")"

# ---- stopping: SIGINT writes what it has; the program's end ends it ----------------------
"$RBMON" profile -o "$T/int.folded" "$f" 2>"$T/int.err" &
prof=$!
has_samples() { grep -q 'samples' "$T/int.err" 2>/dev/null; }
# (it writes nothing before it stops: wait until it sampled for a while by
# its CPU time, then interrupt it)
sampling() { local s; read -r s <"/proc/$prof/stat" 2>/dev/null && s=${s##*) } && set -- $s && [ $(( ${12} + ${13} )) -ge 1 ]; }
wait_for "rbmon profile sampling" sampling
kill -INT "$prof"
wait "$prof" || fail "rbmon profile exited $? at SIGINT: $(cat "$T/int.err")"
wait_for "its summary" has_samples
expect "stacks after SIGINT" "$want" "$(sed 's/ [0-9]*$//' "$T/int.folded")"

"$RBMON" profile -o "$T/end.folded" "$f" 2>"$T/end.err" &
prof=$!
wait_for "rbmon profile sampling" sampling
kill -TERM "$pid"
wait_gone() { ! kill -0 "$prof" 2>/dev/null; }
wait_for "rbmon profile to end with the program" wait_gone
wait "$prof" || fail "rbmon profile exited $? at the program's end: $(cat "$T/end.err")"
grep -q '; the program ended$' "$T/end.err" || fail "no word of the program's end: $(cat "$T/end.err")"
grep -q "spinner ($spin);spin_main;spin_here " "$T/end.folded" || fail "no spinner in: $(cat "$T/end.folded")"

# ---- the event log off: the stacks are all it needs ----------------------------------
mv "$RBT_READY" "$T/ready.first"
traced noev RBTRACE_FILE="$T/noev.trace" RBTRACE_EVENTS=0 "$APPS/kstate"
pid=$LAUNCHED
wait_threads "$pid" spinner
spin=$(tid_of spinner)
"$RBMON" profile -d 300ms --on-cpu "$T/noev.trace" >"$T/noev" 2>"$T/noev.err" ||
	fail "rbmon profile with the event log off exited $?: $(cat "$T/noev.err")"
expect "the spinner with the event log off" "kstate ($pid);spinner ($spin);spin_main;spin_here" \
	"$(sed 's/ [0-9]*$//' "$T/noev")"

# ---- bad input ------------------------------------------------------------------------
bad() {
	local want=$1
	shift
	"$RBMON" profile "$@" >/dev/null 2>"$T/bad.err"
	local rc=$?
	expect "rbmon profile $* exit" 2 "$rc"
	expect "rbmon profile $*" "$want" "$(head -1 "$T/bad.err")"
}
bad "rbmon profile: invalid rate '0' (1 to 10000 samples per second)" -r 0 "$f"
bad "rbmon profile: invalid duration '1x' (for example 10s, 1.5m, 500ms)" -d 1x "$f"
bad "rbmon profile: give --on-cpu or --off-cpu, not both" --on-cpu --off-cpu "$f"
bad "rbmon profile: no trace file given (FILE or --pid PID; see rbmon --list)"
bad "rbmon profile: give a FILE or --pid, not both" -p 1 "$f"
bad "rbmon profile: unknown option '--bogus'" --bogus "$f"
"$RBMON" profile -d 1s "$T/nope.trace" >/dev/null 2>"$T/nofile.err"; rc=$?
expect "a missing file's exit" 1 "$rc"
grep -q "^rbmon profile: $T/nope.trace: " "$T/nofile.err" || fail "no message for a missing file: $(cat "$T/nofile.err")"
exit 0
