#!/bin/bash
# SPDX-License-Identifier: MIT
# attach: rbtrace -p on tests/apps/attachee, started without the library.
#  - attached: the file printed alone on stdout, one line on stderr with the
#    pause; every worker shows the chain it entered since over worker_main,
#    entered before and found by unwinding ("seeded", no age); threads
#    started later have no such frame; a fork child of a thread that ran
#    before has main so; a watch reads the
#    program's tick counter within the ticks it printed meanwhile; the program's ticks go on, no sleep ends early and
#    no floating point sum goes wrong (it prints ERROR otherwise);
#  - a second attach says so and changes nothing;
#  - --detach: rings given back as "detached", nothing traced afterwards,
#    the program runs on; a second detach says it is not attached;
#  - attached again: same file, chains again;
#  - refused in one line, the program left running: not instrumented,
#    static, started without the sanitizer's runtime (in a build with
#    AddressSanitizer), no such process, another user (as nobody), and
#    killed while the library loads (a stand-in library that takes 3 s).
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip "jq is not installed"
need_attach

launch app "$APPS/attachee" 3
pid=$LAUNCHED
wait_ready "ready $pid" "$pid"
f=$T/att.trace
[ -e "$f" ] && fail "a trace file before the attach"
ticks() { grep -c '^tick' "$T/app.out"; }
ticks_past() { [ "$(ticks)" -ge "$1" ]; }

# rbtrace_p NAME ARGS... - rbtrace ARGS into $T/NAME.out/.err; sets rc.
rbtrace_p()
{
	local name=$1
	shift
	rc=0
	timeout 60 "$RBTRACE" "$@" >"$T/$name.out" 2>"$T/$name.err" || rc=$?
}

# ---- attach ----------------------------------------------------------------
rbtrace_p a1 -p "$pid" --file "$f"
expect "rbtrace -p exit status ($(cat "$T/a1.err"))" 0 "$rc"
expect "rbtrace -p prints the trace file" "$f" "$(cat "$T/a1.out")"
grep -Eq "^rbtrace: attached to $pid: .*; its thread [0-9]+ stopped for [0-9.]+ ms$" "$T/a1.err" ||
	fail "rbtrace -p said: $(cat "$T/a1.err")"
P=".processes[] | select(.pid == $pid) | .threads[]"
# The threads alive at the attach show at once, seeded (rbtrace(1)): a
# "spawned" thread among them has frames from before it.
dump_json "$f"
atattach=$(jq -c "[$P | select([.frames[] | select(.seeded or .before_attach)] | length > 0) | .tid]" "$T/json")
wait_json "$f" "[$P | select(.name == \"worker\" and .state == \"running\") |
	select([.frames[].function] == [\"chain_inner\", \"chain_middle\", \"chain_outer\", \"worker_main\"] and
	       [.frames[].seeded] == [null, null, null, true] and .frames[3].age_ns == null and
	       .frames[3].file == \"attachee.c\" and .frames[3].line != null)] | length == 3" \
	"every worker's chain over worker_main, entered before the attach"
expect_jq "no thread begins with the before-attach frame: each was unwound whole" \
	"[$P | .frames[] | select(.before_attach)] | length == 0"
wait_json "$f" "[$P | select(.name == \"spawned\" and .state == \"running\" and
	[.frames[].function] == [\"spawned_work\", \"spawned_main\"])] | length >= 1" \
	"a thread started after the attach, whole"
expect_jq "no thread started after the attach has frames from before it" \
	"[$P | select(.name == \"spawned\" and (.tid | IN($atattach[]) | not)) | .frames[] | select(.seeded or .before_attach)] | length == 0"

# A fork child of main, which ran before the attach with no ring yet.
kill -USR1 "$pid"
wait_for "the child's line" grep -q '^child ' "$T/app.out"
cpid=$(awk '$1 == "child" { print $2; exit }' "$T/app.out")
wait_json "$f" "[.processes[] | select(.pid == $cpid) | .threads[] | select(.state == \"running\") |
	select([.frames[].function] == [\"chain_inner\", \"child_chain\", \"main\"] and
	       .frames[2].seeded == true)] | length == 1" \
	"the fork child's chain over main, entered before the attach"

# A watch, as gdb prints the same variable meanwhile.
wtid=$(jq -r "[$P | select(.name == \"worker\" and .state == \"running\")][0].tid" "$T/json")
# The program prints each tick after counting it: the value read lies
# between the last tick printed before and the last printed after.
lo=$(ticks)
v=$("$RBMON" --thread "$wtid" --watch attachee_ticks --timeout 30 "$f" 2>"$T/watch.err") ||
	fail "rbmon --watch on the attached program: $(cat "$T/watch.err")"
hi=$(($(ticks) + 1))
[[ $v =~ ^[0-9]+$ ]] && [ "$v" -ge "$lo" ] && [ "$v" -le "$hi" ] ||
	fail "--watch attachee_ticks printed '$v', the program's ticks were $lo to $hi"

now=$(ticks)
wait_for "the program's ticks to go on after the attach" ticks_past $((now + 5))

# ---- attached twice ----------------------------------------------------------
rbtrace_p a2 -p "$pid"
expect "a second attach's exit status" 1 "$rc"
grep -q "already attached: tracing into $f" "$T/a2.err" || fail "a second attach said: $(cat "$T/a2.err")"

# ---- detach -------------------------------------------------------------------
rbtrace_p d1 -p "$pid" --detach
expect "--detach exit status ($(cat "$T/d1.err"))" 0 "$rc"
grep -Eq "^rbtrace: detached from $pid: .* rings given back; its thread [0-9]+ stopped for [0-9.]+ ms$" "$T/d1.err" ||
	fail "--detach said: $(cat "$T/d1.err")"
dump_json "$f"
expect_jq "the workers' rings given back as detached" \
	"[$P | select(.name == \"worker\" and .detached == true and .state == \"exited\")] | length == 3"
expect_jq "no thread of $pid traced" "[$P | select(.state != \"exited\")] | length == 0"
# Threads started since (one each 100 ms) call the hooks no more: none takes a ring.
now=$(ticks)
wait_for "ticks after the detach" ticks_past $((now + 10))
dump_json "$f"
expect_jq "no thread of $pid traced after the detach" "[$P | select(.state != \"exited\")] | length == 0"
rbtrace_p d2 -p "$pid" --detach
expect "a second detach's exit status" 1 "$rc"
grep -q "not attached" "$T/d2.err" || fail "a second detach said: $(cat "$T/d2.err")"

# ---- attached again ---------------------------------------------------------
rbtrace_p a3 -p "$pid"
expect "attach again: exit status ($(cat "$T/a3.err"))" 0 "$rc"
expect "attach again: the same file" "$f" "$(cat "$T/a3.out")"
wait_json "$f" "[$P | select(.name == \"worker\" and .state == \"running\") |
	select([.frames[].function] == [\"chain_inner\", \"chain_middle\", \"chain_outer\", \"worker_main\"])] | length == 3" \
	"every worker's chain again"
kill -0 "$pid" || fail "the program died"
grep -q ERROR "$T/app.out" && fail "the program saw: $(grep ERROR "$T/app.out" | head -3)"

# ---- refused ----------------------------------------------------------------
launch plain "$APPS/plain" -p
ppid=$LAUNCHED
wait_ready "plain $ppid" "$ppid"
rbtrace_p u -p "$ppid"
expect "an uninstrumented program: exit status" 1 "$rc"
grep -q "^rbtrace: $ppid (plain) cannot be traced: nothing it has loaded calls __cyg_profile_func_enter; build it with -finstrument-functions$" "$T/u.err" ||
	fail "an uninstrumented program: $(cat "$T/u.err")"
kill -0 "$ppid" || fail "the uninstrumented program died"
grep -q librbtrace "/proc/$ppid/maps" && fail "librbtrace loaded into the uninstrumented program"

rbtrace_p n -p 2147483
expect "no such process: exit status" 1 "$rc"
expect "no such process" "rbtrace: no process 2147483" "$(cat "$T/n.err")"

rbtrace_p x -p "$pid" --detach --file /tmp/x
expect "--detach with --file: usage error" 2 "$rc"

GCC=${STACKS_GCC:-}
if [ -n "$GCC" ] && echo 'int main(void){return 0;}' | "$GCC" -static -x c -o "$T/st0" - 2>/dev/null; then
	printf '#include <unistd.h>\nvoid f(void){pause();}\nint main(void){f();return 0;}\n' |
		"$GCC" -static -finstrument-functions -x c -o "$T/static" - ||
		fail "cannot build a static program"
	launch static "$T/static"
	spid=$LAUNCHED
	is_static() { [ "$(readlink "/proc/$spid/exe")" = "$T/static" ]; }
	wait_for "the static program to run" is_static
	rbtrace_p s -p "$spid"
	expect "a static program: exit status" 1 "$rc"
	grep -q "^rbtrace: $spid (static) is a static program: it has no dynamic loader" "$T/s.err" ||
		fail "a static program: $(cat "$T/s.err")"
	kill -0 "$spid" || fail "the static program died"
else
	note "no static C library: the static case is not run"
fi

# A build with AddressSanitizer: its library cannot work in a program
# started without the sanitizer's runtime.
if [ -n "${SAN_RUNTIME:-}" ] && [ -n "$GCC" ]; then
	printf '#include <unistd.h>\nvoid f(void){pause();}\nint main(void){f();return 0;}\n' |
		"$GCC" -finstrument-functions -x c -o "$T/nosan" - ||
		fail "cannot build a program without the sanitizer"
	launch nosan "$T/nosan"
	npid=$LAUNCHED
	is_nosan() { [ "$(readlink "/proc/$npid/exe")" = "$T/nosan" ]; }
	wait_for "the program without the runtime to run" is_nosan
	rbtrace_p ns -p "$npid"
	expect "without the sanitizer's runtime: exit status" 1 "$rc"
	expect "without the sanitizer's runtime" \
		"rbtrace: $npid (nosan) was started without $SAN_RUNTIME, which this sanitized build's librbtrace needs loaded first: start it with that first in LD_PRELOAD, or attach with an rbtrace built without sanitizers" \
		"$(cat "$T/ns.err")"
	kill -0 "$npid" || fail "the program without the runtime died"
	grep -q librbtrace "/proc/$npid/maps" && fail "librbtrace loaded into the program without the runtime"
fi

if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1 &&
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups test -x "$RBTRACE"; then
	rc=0
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
		"$RBTRACE" -p "$pid" >"$T/nobody.out" 2>"$T/nobody.err" || rc=$?
	expect "another user's process: exit status" 1 "$rc"
	grep -q "^rbtrace: $pid runs as user root (uid 0) and you are user nobody (uid [0-9]*): only that user or root may attach to it$" "$T/nobody.err" ||
		fail "another user's process: $(cat "$T/nobody.err")"
else
	note "not root, or no user nobody: the other user's case is not run"
fi

# Killed while the library loads.
if [ -n "$GCC" ]; then
	"$GCC" -shared -fPIC -o "$T/slowattach.so" "$APPS_SRC/slowattach.c" ||
		fail "cannot build the stand-in library"
	launch victim "$APPS/attachee" 1
	vpid=$LAUNCHED
	wait_ready "ready $vpid" "$vpid"
	RBTRACE_LIB=$T/slowattach.so timeout 60 "$RBTRACE" -p "$vpid" >"$T/k.out" 2>"$T/k.err" &
	kpid=$!
	wait_for "the stand-in library to be loading" grep -q slowattach.so "/proc/$vpid/maps"
	kill -9 "$vpid"
	rc=0
	wait "$kpid" || rc=$?
	expect "killed during the attach: exit status ($(cat "$T/k.err"))" 1 "$rc"
	expect "killed during the attach" "rbtrace: $vpid exited while being attached" "$(cat "$T/k.err")"
fi
exit 0
