#!/bin/bash
# SPDX-License-Identifier: MIT
# inject: tools/inject.c (driven by tests/apps/inject-run) loads
# libinjectee.so into a running tests/apps/victim and calls inj_probe in
# it: ret 42, the message names the victim's pid, the thread stopped and
# the argument, and says the call ran with the ABI's state (DF clear,
# default MXCSR and x87 control word, the stack 16-byte aligned) even in a
# thread whose own state is none of these; the library shows in
# /proc/PID/maps.  Chosen threads are ones blocked in a system call; each
# named thread (a register loop, a float loop, read, nanosleep,
# epoll_wait) can be stopped and called in, and the victim, which checks
# every register, its sums, that read and epoll_wait never see EINTR and
# that nanosleep never returns early, runs on without an error, its other
# threads ticking during a 2-second call.  gdb setting one register of the
# loop shows that the victim would notice.  One line for each error: no
# such process, a zombie, another user's process, traced already, a
# static program, another mount namespace, not an ELF object (dlerror's
# text), no such function, a crashing call (its address checked with nm),
# the victim killed during a call, a call that outlives its timeout.
# Prints the pauses measured (dlopen and call, call alone).
. "$(dirname "$0")/lib.sh"

[ "$(uname -m)" = x86_64 ] || skip "tools/inject.c supports x86-64 only"
INJECT=$APPS/inject-run
VICTIM=$APPS/victim
LIB=$APPS/.libs/libinjectee.so
[ -x "$INJECT" ] && [ -x "$VICTIM" ] && [ -f "$LIB" ] ||
	fail "not built: $INJECT, $VICTIM or $LIB"
LIB=$(realpath "$LIB")
TICK_RE='^tick [0-9]+ flops [0-9]+ regs [0-9]+ reads [0-9]+ sleeps [0-9]+ polls [0-9]+ usr1 [0-9]+$'

# inject NAME ARGS... - inject-run ARGS into $T/NAME.out and .err; sets RC.
inject()
{
	local n=$1
	shift
	RC=0
	"$INJECT" "$@" >"$T/$n.out" 2>"$T/$n.err" </dev/null || RC=$?
}

# field NAME KEY - the rest of the line "KEY ..." of inject-run's output.
field() { awk -v k="$2" '$1 == k { sub(/^[^ ]+ /, ""); print; exit }' "$T/$1.out"; }

# tick NAME KEY - KEY's value in the last tick line of victim NAME.
tick() { grep -E "$TICK_RE" "$T/$1.out" | tail -n 1 | awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }

# grown NAME KEY MIN - KEY of victim NAME is above MIN.
grown() { [ "$(tick "$1" "$2")" -gt "$3" ]; }

# exited PID - the process ended (a zombie or gone).
exited()
{
	local st
	st=$(awk '{ sub(/.*\) /, ""); print substr($0, 1, 1) }' "/proc/$1/stat" 2>/dev/null)
	[ -z "$st" ] || [ "$st" = Z ] || [ "$st" = X ]
}

# victim_ok NAME PID - it runs, and said nothing on stderr.
victim_ok()
{
	[ -s "$T/$1.err" ] && fail "$1 reported: $(cat "$T/$1.err")"
	exited "$2" && fail "$1 ($2) ended"
	return 0
}

# start_victim NAME [-p] - launch one, wait for its threads and first tick;
# sets VP.  Its readiness lines go to a file of its own, $RBT_READY from now.
start_victim()
{
	export RBT_READY=$T/$1.ready
	launch "$1" "$VICTIM" "${@:2}"
	VP=$LAUNCHED
	if [ "${2:-}" = -p ]; then
		wait_threads "$VP" regs flops reader sleeper
	else
		wait_threads "$VP" regs flops reader sleeper epoll
	fi
	wait_for "the first tick of $1" grep -Eq "$TICK_RE" "$T/$1.out"
}

# vtid NAME - the tid of the last victim's thread NAME.
vtid() { awk -v n="$1" '$1 == "thread" && $2 == n { print $3 }' "$RBT_READY"; }

# check_probe NAME ARG [TID] - inj_probe(ARG) ran in TID (else a thread of $VPID) and returned 42.
check_probe()
{
	local n=$1 arg=$2 want=${3:-} tid
	expect "$n: exit status (stderr: $(cat "$T/$n.err"))" 0 "$RC"
	expect "$n: stderr" "" "$(cat "$T/$n.err")"
	tid=$(field "$n" tid)
	[ -n "$want" ] && expect "$n: thread stopped" "$want" "$tid"
	[ -d "/proc/$VPID/task/$tid" ] || fail "$n: thread '$tid' is not one of $VPID's"
	expect "$n: ret" 42 "$(field "$n" ret)"
	expect "$n: msg" "pid=$VPID tid=$tid arg=$arg ctor=1 df=0 mxcsr=1f80 fcw=037f align=0" \
		"$(field "$n" msg)"
	[[ "$(field "$n" pause_ns)" =~ ^[1-9][0-9]*$ ]] || fail "$n: no pause measured"
}

start_victim victim
VPID=$VP
MAIN=$VPID
REGS=$(vtid regs)
FLOPS=$(vtid flops)
READER=$(vtid reader)
SLEEPER=$(vtid sleeper)
EPOLL=$(vtid epoll)
grep -qF "$LIB" "/proc/$VPID/maps" && fail "$LIB is mapped before any injection"

# The first injection loads the library; without ptrace, nothing here can run.
inject first "$VPID" "$LIB" inj_probe hello-1
if [ "$RC" -ne 0 ] && grep -Eq 'not permitted|ptrace_scope|CAP_SYS_PTRACE' "$T/first.err"; then
	skip "ptrace is not permitted here: $(cat "$T/first.err")"
fi
check_probe first hello-1
expect "first: dlopen" yes "$(field first dlopen)"
note "pause (dlopen loading the library, and call): $(($(field first pause_ns) / 1000)) us"
grep -qF "$LIB" "/proc/$VPID/maps" || fail "$LIB is not in /proc/$VPID/maps after dlopen"

# Four more, the library mapped: no dlopen.  The thread chosen is one blocked
# in a system call (main in clock_nanosleep, reader, sleeper, epoll).
for i in 2 3 4 5; do
	inject "auto$i" "$VPID" "$LIB" inj_probe "hello-$i"
	check_probe "auto$i" "hello-$i"
	expect "auto$i: dlopen" no "$(field "auto$i" dlopen)"
	t=$(field "auto$i" tid)
	[ "$t" = "$MAIN" ] || [ "$t" = "$READER" ] || [ "$t" = "$SLEEPER" ] ||
		[ "$t" = "$EPOLL" ] || fail "auto$i: stopped thread $t, not one in a system call"
done
expect "mappings of $LIB" 1 "$(awk -v p="$LIB" '$6 == p && $3 == "00000000"' "/proc/$VPID/maps" | wc -l)"

# The argument goes in as bytes; inject-run prints the message escaped.
inject esc "$VPID" "$LIB" inj_probe $'tab\there'
check_probe esc 'tab\x09here'

# Each thread by name, whatever it is doing.
for n in REGS FLOPS READER SLEEPER EPOLL; do
	inject "t-$n" -t "${!n}" "$VPID" "$LIB" inj_probe "$n"
	check_probe "t-$n" "$n" "${!n}"
done
victim_ok victim "$VPID"

# The victim runs on: every thread makes progress, none saw anything.
for k in flops regs reads sleeps polls; do
	v=$(tick victim "$k")
	wait_for "the victim's $k to grow past $v" grown victim "$k" "$v"
done
victim_ok victim "$VPID"

# Pauses: 20 times dlopen (of the library loaded already) and call, 20
# times the call alone.
pauses()
{
	local kind=$1 i
	shift
	: >"$T/pauses.$kind"
	for i in $(seq 1 20); do
		inject "p-$kind-$i" "$@" "$VPID" "$LIB" inj_probe "p$i"
		check_probe "p-$kind-$i" "p$i"
		field "p-$kind-$i" pause_ns >>"$T/pauses.$kind"
	done
	sort -n "$T/pauses.$kind" | awk -v k="$kind" '{ v[NR] = $1 }
		END { printf "pause (%s) over %d: min %d us, median %d us, max %d us\n",
		      k, NR, v[1] / 1000, v[int((NR + 1) / 2)] / 1000, v[NR] / 1000 }' >&2
}
pauses "dlopen+call" -d
pauses "call" 
victim_ok victim "$VPID"

# Other threads run during a call: 2 s in inj_slowsig, ticking meanwhile.  A
# second injector meanwhile finds the victim traced.  A signal for the
# thread during the call is the program's: its handler runs (interrupting
# the call's sleep), the call goes on, and the sleeper sees nothing.
before=$(tick victim tick)
expect "SIGUSR1 taken before" 0 "$(tick victim usr1)"
launch slow "$INJECT" -t "$SLEEPER" "$VPID" "$LIB" inj_slowsig "$T/slow.started"
SLOW=$LAUNCHED
wait_for "inj_slowsig to run" test -e "$T/slow.started"
inject traced "$VPID" "$LIB" inj_probe x
expect "second injector: status" 1 "$RC"
expect "second injector: stderr" \
	"inject-run: $VPID is already traced by process $SLOW (inject-run): detach that debugger first" \
	"$(cat "$T/traced.err")"
kill -USR1 "$VPID"
wait_for "the slow call to end" exited "$SLOW"
RC=0
wait "$SLOW" || RC=$?
expect "slow: status (stderr: $(cat "$T/slow.err"))" 0 "$RC"
expect "slow: ret" 7 "$(awk '$1 == "ret" { print $2 }' "$T/slow.out")"
expect "slow: msg" "slept eintr=1" "$(field slow msg)"
ns=$(awk '$1 == "pause_ns" { print $2 }' "$T/slow.out")
[ "$ns" -ge 2000000000 ] || fail "slow: pause of $ns ns, less than the 2 s slept"
after=$(tick victim tick)
[ "$after" -ge $((before + 10)) ] || fail "the victim ticked from $before to $after only during a 2 s call"
wait_for "the sleeper to sleep again" grown victim sleeps "$(tick victim sleeps)"
expect "SIGUSR1 taken by the victim's handler" 1 "$(tick victim usr1)"
victim_ok victim "$VPID"

# A call that crashes: reported with where, the thread put back.
inject crash -t "$READER" "$VPID" "$LIB" inj_crash x
expect "crash: status" 1 "$RC"
re="^inject-run: inj_crash\(\) crashed in $VPID: Segmentation fault at address 0x10 \(instruction at 0x[0-9a-f]+ in libinjectee\.so\+0x([0-9a-f]+)\); the thread's registers are put back, but $VPID may be left in a bad state$"
[[ "$(cat "$T/crash.err")" =~ $re ]] || fail "crash: stderr: $(cat "$T/crash.err")"
off=$((16#${BASH_REMATCH[1]}))
read -r start size <<<"$(nm -D -S "$LIB" | awk '$4 == "inj_crash" { print $1, $2 }')"
[ -n "$start" ] || fail "nm finds no inj_crash in $LIB"
# the message gives a file offset, nm an address: the same where the text
# segment's offset and address are (readelf)
read -r soff saddr <<<"$(readelf -lW "$LIB" | awk '$1 == "LOAD" && / R E / { print $2, $3 }')"
[ -n "$soff" ] && [ $((soff)) -eq $((saddr)) ] ||
	fail "libinjectee.so's text segment: offset '$soff', address '$saddr'"
[ "$off" -ge $((16#$start)) ] && [ "$off" -lt $((16#$start + 16#$size)) ] ||
	fail "crash: offset 0x${BASH_REMATCH[1]} is not in inj_crash (0x$start, 0x$size bytes)"
v=$(tick victim reads)
wait_for "the reader to read again" grown victim reads "$v"
victim_ok victim "$VPID"

# Loading what is not a library: dlerror()'s text, read from the victim.
for i in $(seq 1 64); do echo "not an ELF object, line $i"; done >"$T/notalib.so"
NOTALIB=$(realpath "$T/notalib.so")
inject notalib "$VPID" "$NOTALIB" inj_probe x
expect "notalib: status" 1 "$RC"
expect "notalib: stderr" \
	"inject-run: dlopen($NOTALIB) failed in $VPID: $NOTALIB: invalid ELF header" \
	"$(cat "$T/notalib.err")"
inject nofunc "$VPID" "$LIB" no_such_function x
expect "nofunc: status" 1 "$RC"
expect "nofunc: stderr" "inject-run: $LIB defines no function no_such_function" \
	"$(cat "$T/nofunc.err")"
victim_ok victim "$VPID"

# gdb changing one register of the loop: the victim notices (so it would
# have noticed the injector's restoring any register wrong).  gdb's attach
# makes epoll_wait fail with EINTR: this victim has no epoll thread.
if command -v gdb >/dev/null && gdb -batch -ex 'python print(1)' >/dev/null 2>&1; then
	start_victim victim5 -p
	V5=$VP
	gdb -q -batch -p "$V5" \
		-ex "python [t.switch() for t in gdb.selected_inferior().threads() if t.ptid[1] == $(vtid regs)]" \
		-ex 'set $rbx = $rbx + 1' -ex detach >"$T/gdb.out" 2>&1 ||
		fail "gdb failed: $(cat "$T/gdb.out")"
	wait_for "victim5 to notice rbx" exited "$V5"
	grep -q '^victim: ERROR regs: rbx is ' "$T/victim5.err" ||
		fail "the victim did not report gdb's change of rbx: $(cat "$T/victim5.err")"
else
	note "no gdb with python: the victim's register check not shown to work"
fi

# Errors: one line each.
bash -c 'exit 0' &
DEAD=$!
wait "$DEAD"
inject dead "$DEAD" "$LIB" inj_probe x
expect "dead pid: status" 1 "$RC"
expect "dead pid: stderr" "inject-run: no process $DEAD" "$(cat "$T/dead.err")"

# The child ends once its parent is sleep(1), which never reaps it (ended
# before the exec, bash could reap it first).
launch zombie bash -c '(until read -r c </proc/$$/comm && [ "$c" = sleep ]; do sleep 0.01; done) &
	echo $! >"$1"; exec sleep 600' _ "$T/zombie.pid"
zstate() { [ -s "$T/zombie.pid" ] && [ "$(awk '{ sub(/.*\) /, ""); print substr($0, 1, 1) }' "/proc/$(cat "$T/zombie.pid")/stat")" = Z ]; }
wait_for "a zombie" zstate
Z=$(cat "$T/zombie.pid")
inject zombie "$Z" "$LIB" inj_probe x
expect "zombie: stderr" "inject-run: $Z is a zombie: it has exited, and its parent has not reaped it yet" \
	"$(cat "$T/zombie.err")"

start_victim victim2
V2=$VP
if [ "$(id -u)" -eq 0 ]; then
	if command -v setpriv >/dev/null &&
	   setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$INJECT" 2>/dev/null; then
		nobody=$(getent passwd 65534 | cut -d: -f1)
		nobody=${nobody:+user $nobody (uid 65534)}
		RC=0
		setpriv --reuid=65534 --regid=65534 --clear-groups "$INJECT" "$V2" "$LIB" inj_probe x \
			>"$T/perm.out" 2>"$T/perm.err" </dev/null || RC=$?
		expect "as nobody: status" 1 "$RC"
		expect "as nobody: stderr" \
			"inject-run: $V2 runs as user root (uid 0) and you are ${nobody:-uid 65534}: only that user or root may attach to it" \
			"$(cat "$T/perm.err")"
	else
		note "cannot run $INJECT as uid 65534 here: the permission case not tried"
	fi
elif [ "$(stat -c %u /proc/1)" -ne "$(id -u)" ]; then
	inject perm 1 "$LIB" inj_probe x
	expect "pid 1: status" 1 "$RC"
	grep -Eq '^inject-run: (1 runs as .* and you are .*: only that user or root may attach to it|1 is not dumpable.*|kernel\.yama\.ptrace_scope=.*)$' "$T/perm.err" ||
		fail "pid 1: stderr: $(cat "$T/perm.err")"
else
	note "pid 1 is ours: the permission case not tried"
fi
victim_ok victim2 "$V2"

# Killed during a call: "exited while being attached", and no hang.
launch kill "$INJECT" -t "$(vtid sleeper)" "$V2" "$LIB" inj_slow "$T/kill.started"
KILLER=$LAUNCHED
wait_for "inj_slow to run in victim2" test -e "$T/kill.started"
kill -KILL "$V2"
wait_for "the injector to end after the victim's death" exited "$KILLER"
RC=0
wait "$KILLER" || RC=$?
expect "killed victim: status" 1 "$RC"
expect "killed victim: stderr" "inject-run: $V2 exited while being attached" "$(cat "$T/kill.err")"

# A call that does not return in time is left running: when it returns to
# address 0, the victim dies of it, as the message says.
start_victim victim3
V3=$VP
inject timeout -w 300 -t "$(vtid sleeper)" "$V3" "$LIB" inj_slow "$T/timeout.started"
expect "timeout: status" 1 "$RC"
re="^inject-run: inj_slow\(\) has not returned after 300 ms \(thread $(vtid sleeper) of $V3 is at 0x[0-9a-f]+ in [^ ]+\+0x[0-9a-f]+\): it is left running it, detached; should it return, $V3 dies of a SIGSEGV at address 0$"
[[ "$(cat "$T/timeout.err")" =~ $re ]] || fail "timeout: stderr: $(cat "$T/timeout.err")"
wait_for "victim3 to die of the call's return" exited "$V3"
RC=0
wait "$V3" || RC=$?
expect "victim3's status" $((128 + 11)) "$RC"

# Static: no loader to dlopen with.
CC=${STACKS_GCC:-}
libc_a=$([ -n "$CC" ] && "$CC" -print-file-name=libc.a)
if [ -n "$CC" ] && [ "${libc_a#/}" != "$libc_a" ] && [ -f "$libc_a" ]; then
	"$CC" -O1 -static -I"$APPS_SRC" -o "$T/plain-static" "$APPS_SRC/plain.c" 2>"$T/cc.err" ||
		fail "$CC -static failed: $(cat "$T/cc.err")"
	launch static "$T/plain-static" -p
	SPID=$LAUNCHED
	wait_ready "plain $SPID" "$SPID"
	inject static "$SPID" "$LIB" inj_probe x
	expect "static: stderr" \
		"inject-run: $SPID runs a statically linked program: it has no dynamic loader to load a library with" \
		"$(cat "$T/static.err")"
else
	note "no gcc or no static C library (libc.a): the static case not tried"
fi

# Another mount namespace, where the library's directory is a tmpfs.
if [ "$(id -u)" -eq 0 ] && unshare -m --propagation private true 2>/dev/null; then
	launch victim4 unshare -m --propagation private \
		sh -c 'mount -t tmpfs none "$1" && exec "$2"' _ "$(dirname "$LIB")" "$VICTIM"
	V4=$LAUNCHED
	wait_ready "main $V4" "$V4"
	inject mntns "$V4" "$LIB" inj_probe x
	expect "mount namespace: stderr" \
		"inject-run: $V4 runs in another mount namespace; $LIB is not at that path inside it" \
		"$(cat "$T/mntns.err")"
	victim_ok victim4 "$V4"
else
	note "cannot make a mount namespace here: that case not tried"
fi

# A 32-bit program, where one can be built.
if [ -n "$CC" ] && "$CC" -m32 -I"$APPS_SRC" -o "$T/plain32" "$APPS_SRC/plain.c" 2>/dev/null; then
	launch plain32 "$T/plain32" -p
	P32=$LAUNCHED
	wait_ready "plain $P32" "$P32"
	inject m32 "$P32" "$LIB" inj_probe x
	expect "32-bit: stderr" "inject-run: $P32 is a 32-bit process: only 64-bit ones can be attached to" \
		"$(cat "$T/m32.err")"
else
	note "no 32-bit toolchain: the 32-bit case not tried"
fi
exit 0
