# SPDX-License-Identifier: MIT
# tests/stacks/stacks.sh - compare rbmon's stacks with gdb's.
#
# Sourced by each case's script, whose `stacks_run CASE COMPILER` runs
# tests/apps/stk-CASE-COMPILER under the freshly built librbtrace.so,
# waits until every thread is blocked in read() (in a futex wait for the
# programs that park in pthread_cond_wait(): STACKS_SYSCALL), takes
# `rbmon --dump --json` and then gdb's stacks of the same frozen process
# (gdb -p -batch with gdb-frames.py), and compares them frame by frame
# with compare.py: function, file, line, inlined.  See tests/stacks.mk.

. "$(dirname "$0")/../integration/lib.sh"

# Anything but a difference between the stacks is a hard error (exit 99),
# so that an expected failure (XFAIL_TESTS) can only be that difference.
fail()
{
	printf '%s: ERROR: %s\n' "$TEST_NAME" "$*" >&2
	exit 99
}

STACKS_DIR=$top_srcdir/tests/stacks
# The system call every parked thread is blocked in: read, or futex for
# condvar and cvwait (x86_64 numbers).
STACKS_SYSCALL=0
GDB=${GDB:-gdb}
PYTHON=${PYTHON:-python3}

# stacks_require COMPILER PROGRAM - skip when a tool is missing.
stacks_require()
{
	local scope

	command -v "$GDB" >/dev/null ||
		skip "gdb is not installed (quickstart installs it)"
	command -v "$PYTHON" >/dev/null ||
		skip "python3 is not installed (quickstart installs it)"
	if [ ! -x "$2" ]; then
		[ "$1" = clang ] && [ -z "${STACKS_CLANG:-}" ] &&
			skip "clang or clang++ was not found by configure: install clang (quickstart does) and rerun configure"
		[ "$1" = gcc ] && [ -z "${STACKS_GCC:-}" ] &&
			skip "gcc, g++ or objcopy was not found by configure: install build-essential (quickstart does) and rerun configure"
		fail "not built: $2"
	fi
	[ "$(uname -m)" = x86_64 ] ||
		skip "tells a thread blocked in read() by x86_64's syscall number"
	scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)
	[ "$scope" -ge 3 ] &&
		skip "gdb cannot attach: kernel.yama.ptrace_scope is 3 (attaching disabled until reboot)"
	[ "$scope" -ge 2 ] && [ "$(id -u)" -ne 0 ] &&
		skip "gdb cannot attach: kernel.yama.ptrace_scope is 2 (root only); run as root or set it to 1"
	read -r _ </proc/self/syscall 2>/dev/null ||
		skip "/proc/PID/syscall is unreadable: cannot tell when threads are blocked in read()"
	return 0
}

# in_read PID N [SYSCALL] - PID has N tasks, all blocked in read(2)
# (syscall 0 on x86_64) or SYSCALL, the library's workers aside;
# prints what each is doing.
in_read()
{
	local task sc k=0 all=0 want=${3:-0}

	for task in /proc/"$1"/task/*; do
		case $(cat "$task/comm" 2>/dev/null) in
		rbtrace-watch | rbtrace-dyn) continue ;;
		esac
		read -r sc _ <"$task/syscall" || return 1
		echo "task ${task##*/}: syscall $sc"
		[ "$sc" = "$want" ] || all=1
		k=$((k + 1))
	done
	echo "$k tasks, $2 expected"
	[ "$all" -eq 0 ] && [ "$k" -eq "$2" ]
}

# all_asleep PID N - PID has N tasks, each asleep in a system call (state
# S), the library's watch worker aside.
all_asleep()
{
	local task st k=0 all=0

	for task in /proc/"$1"/task/*; do
		case $(cat "$task/comm" 2>/dev/null) in
		rbtrace-watch | rbtrace-dyn) continue ;;
		esac
		st=$(awk '{ sub(/.*\) /, ""); print $1 }' "$task/stat" 2>/dev/null)
		echo "task ${task##*/}: state $st"
		[ "$st" = S ] || all=1
		k=$((k + 1))
	done
	echo "$k tasks, $2 expected"
	[ "$all" -eq 0 ] && [ "$k" -eq "$2" ]
}

# asleep_shown FILE PID - rbmon shows the 5 threads of PID, each with its 3
# frames, all seeded (made in rbtrace -p, none of them ran since).
asleep_shown()
{
	json_true "$1" "[.processes[] | select(.pid == $2) | .threads[] |
		select(.state != \"exited\" and .state != \"detached\") |
		select([.frames[] | select(.seeded == true)] | length == 3)] |
		length == 5"
}

# stacks_asleep PROGRAM FILE - stk-asleep-*: every thread falls asleep at
# start-up, before rbtrace -p; all must show at once, with their frames,
# again after a detach and an attach (the library loaded already), and no
# system call of theirs may fail with EINTR meanwhile.  Leaves the pid in
# STACKS_PID and the first dump in $T/rbmon.json.
stacks_asleep()
{
	local pid

	mkfifo "$T/ctl" || fail "mkfifo $T/ctl"
	launch app env ${SAN_RUNTIME:+LD_PRELOAD="$SAN_RUNTIME"} "$1" "$T/ctl"
	pid=$LAUNCHED
	wait_ready "asleep $pid 5" "$pid"
	wait_for "all 5 threads of $pid asleep" all_asleep "$pid" 5
	"$RBTRACE" -p "$pid" --file "$2" >"$T/attach.out" 2>"$T/attach.err" ||
		fail "rbtrace -p $pid exited $?: $(cat "$T/attach.err")"
	cat "$T/attach.err" >&2
	grep -Eq "^rbtrace: $pid: 5 threads without a ring shown with their stacks \(5 whole, 0 in part, 0 with none found\); its 5 threads stopped for [0-9.]+ ms$" "$T/attach.err" ||
		{ echo "$TEST_NAME: FAIL: rbtrace -p says no 5 threads shown whole" >&2; exit 1; }
	# At once: no thread runs, so no wait is needed, but rbmon may be slow.
	wait_for "rbmon to show the 5 threads of $pid, 3 frames each" \
		asleep_shown "$2" "$pid"
	dump_json "$2"
	mv "$T/json" "$T/rbmon.json"

	"$RBTRACE" -p "$pid" --detach >/dev/null 2>"$T/detach.err" ||
		fail "rbtrace -p $pid --detach exited $?: $(cat "$T/detach.err")"
	grep -Eq "^rbtrace: detached from $pid: [0-9]+ entr(y|ies) restored, 5 rings given back;" "$T/detach.err" ||
		{ cat "$T/detach.err" >&2; echo "$TEST_NAME: FAIL: the detach gave back no 5 rings" >&2; exit 1; }
	"$RBTRACE" -p "$pid" --file "$2" >/dev/null 2>"$T/attach2.err" ||
		fail "rbtrace -p $pid (again) exited $?: $(cat "$T/attach2.err")"
	wait_for "rbmon to show the 5 threads of $pid again" \
		asleep_shown "$2" "$pid"
	"$RBTRACE" -p "$pid" --detach >/dev/null 2>"$T/detach2.err" ||
		fail "rbtrace -p $pid --detach (again) exited $?: $(cat "$T/detach2.err")"
	echo report >"$T/ctl"
	wait_ready "eintr $pid [0-9]+" "$pid"
	expect "system calls that failed with EINTR through two attaches" 0 \
		"$(ready_field eintr 3)"
	STACKS_PID=$pid
}

# stacks_capture PROGRAM - run it until it is frozen; leaves its pid in
# STACKS_PID, the rbmon dump in $T/rbmon.json and gdb's in $T/gdb.json.
# stk-asleep-* is stacks_asleep's.  stk-attach-* starts untraced (in a build with AddressSanitizer, with the
# sanitizer's runtime preloaded, which its library needs); rbtrace -p
# attaches to it while it waits, then SIGUSR1 lets it go on to park.
stacks_capture()
{
	local f=$T/${1##*/}.trace pid n rc=0

	case ${1##*/} in
	stk-attach-*)
		launch app env ${SAN_RUNTIME:+LD_PRELOAD="$SAN_RUNTIME"} "$1"
		pid=$LAUNCHED
		wait_ready "waiting $pid [0-9]+" "$pid"
		"$RBTRACE" -p "$pid" --file "$f" >"$T/attach.out" 2>"$T/attach.err" ||
			fail "rbtrace -p $pid exited $?: $(cat "$T/attach.err")"
		expect "rbtrace -p prints the trace file" "$f" "$(cat "$T/attach.out")"
		kill -USR1 "$pid"
		;;
	stk-asleep-*)
		stacks_asleep "$1" "$f"
		pid=$STACKS_PID
		;;
	*)
		traced app RBTRACE_FILE="$f" ${STACKS_OFF:+RBTRACE_EXCLUDE="$STACKS_OFF"} "$1"
		pid=$LAUNCHED
		;;
	esac
	case ${1##*/} in
	stk-asleep-*)
		;;
	*)
		wait_ready "parked $pid [0-9]+" "$pid"
		n=$(awk -v p="$pid" '$1 == "parked" && $2 == p { print $3; exit }' "$RBT_READY")
		wait_for "all $n threads of $pid blocked in system call $STACKS_SYSCALL" \
			in_read "$pid" "$n" "$STACKS_SYSCALL"
		wait_json "$f" "[.processes[] | select(.pid == $pid) | .threads[] |
			select(.state != \"exited\")] | length == $n" "rbmon to show $n threads"
		dump_json "$f"
		mv "$T/json" "$T/rbmon.json"
		;;
	esac

	rm -f "$T/gdb.json"
	STK_GDB_OUT=$T/gdb.json DEBUGINFOD_URLS= timeout $((WAIT_TIMEOUT * 4)) \
		"$GDB" -nx -batch -iex 'set debuginfod enabled off' \
		-p "$pid" -x "$STACKS_DIR/gdb-frames.py" >"$T/gdb.log" 2>&1 || rc=$?
	if grep -qi 'ptrace: Operation not permitted' "$T/gdb.log"; then
		skip "gdb cannot attach to $pid (ptrace: Operation not permitted; no CAP_SYS_PTRACE?)"
	fi
	if [ "$rc" -ne 0 ] || ! jq -e '.threads | length > 0' "$T/gdb.json" >/dev/null 2>&1; then
		cat "$T/gdb.log" >&2
		fail "gdb -p $pid exited $rc without the stacks (log above)"
	fi
	STACKS_PID=$pid
}

# gdb_frames FILTER - jq FILTER over the program's own frames of each gdb
# thread (.frames), one result per thread.
gdb_frames()
{
	jq -r ".threads[] | .frames |= map(select(.own)) | $1" "$T/gdb.json"
}

# stacks_compare - compare.py on the captured dumps; fails with both
# stacks side by side.  STACKS_OFF: the functions switched off at start
# (RBTRACE_EXCLUDE), whose frames gdb shows and rbmon must not.
stacks_compare()
{
	local rc=0

	"$PYTHON" "$STACKS_DIR/compare.py" ${STACKS_OFF:+--off "$STACKS_OFF"} \
		"$T/rbmon.json" "$T/gdb.json" >"$T/compare.out" 2>&1 || rc=$?
	cat "$T/compare.out" >&2
	[ "$rc" -eq 1 ] && {
		echo "$TEST_NAME: FAIL: rbmon's stacks differ from gdb's (above)" >&2
		exit 1
	}
	[ "$rc" -eq 0 ] || fail "compare.py exited $rc"
}

# stacks_check CASE - what gdb shows must be what the case is about.
stacks_check()
{
	case $1 in
	deep)
		expect "gdb: frames of main and of the worker" "47 120+" \
			"$(gdb_frames '.frames | length' | sort -n |
			awk '{ a[NR] = $1 } END { print a[1], (a[2] >= 120 ? "120+" : a[2]) }')"
		;;
	inline)
		expect "gdb: inlined frames" 4 \
			"$(gdb_frames '[.frames[] | select(.inlined)] | length')"
		expect "gdb: files of the inlined frames" \
			"stk-inline.c stk-inline.h stk-inline.h stk-inline.c" \
			"$(gdb_frames '[.frames[] | select(.inlined) | .file] | join(" ")')"
		;;
	exc)
		expect "gdb: functions" "stk_park shop::Ledger<long>::wait_delivery shop::restock<long> shop::Store::serve main" \
			"$(gdb_frames '[.frames[].name | sub("\\(.*"; "")] | join(" ")')"
		;;
	longjmp)
		expect "gdb: functions" "stk_park wait_input recover run_parser main" \
			"$(gdb_frames '[.frames[].name] | join(" ")')"
		;;
	cold)
		expect "gdb: functions" "stk_park retry_later log_failure handle_request serve_requests main" \
			"$(gdb_frames '[.frames[].name] | join(" ")')"
		;;
	attach)
		expect "gdb: the program's frames of each thread" \
			"stk_park flush_logs logger_before logger_inner logger_main|stk_park main_after main_before main|stk_park poll_queue serve_one worker_before worker_main|stk_park poll_queue serve_one worker_before worker_main" \
			"$(gdb_frames '[.frames[].name] | join(" ")' | sort | paste -sd'|')"
		# Unwound at each thread's first hook: the frames entered
		# before the attach, no entry time; the logger's unwind
		# stopped at code without unwind tables.
		expect "rbmon: each thread's frames entered before the attach" \
			"logger_before logger_inner [frames before attach]|main_before main|worker_before worker_main|worker_before worker_main" \
			"$(jq -r '.processes[].threads[] | select(.state != "exited") |
				[.frames[] | select(.seeded == true or .before_attach == true) | .function] | join(" ")' "$T/rbmon.json" | sort | paste -sd'|')"
		expect "rbmon: frames entered before the attach have no age" 0 \
			"$(jq '[.processes[].threads[].frames[] | select(.seeded == true and .age_ns != null)] | length' "$T/rbmon.json")"
		;;
	stl)
		expect "gdb: the guard's destructor inlined into unlock_twice" 1 \
			"$(jq '[.threads[].frames[] | select(.inlined and
			(.name | startswith("bench::MutexLock::~MutexLock")))] |
			length' "$T/gdb.json")"
		;;
	condvar)
		# Each thread in another inlined copy of CondVar::wait().
		expect "gdb: the frames of main and of the worker" \
			"port::CondVar::wait+ bench::Bench::run main|port::CondVar::wait+ bench::Bench::wait_turn+ bench::Bench::run worker_main" \
			"$(gdb_frames '[.frames[] | (.name | sub("\\(.*"; "")) + (if .inlined then "+" else "" end)] | join(" ")' | sort | paste -sd'|')"
		;;
	cvwait)
		expect "gdb: the frames of main and of the worker" \
			"queue_wait+ consume main|queue_wait+ consume worker_main" \
			"$(gdb_frames '[.frames[] | .name + (if .inlined then "+" else "" end)] | join(" ")' | sort | paste -sd'|')"
		;;
	getc)
		expect "gdb: the frames of main and of the worker" \
			"getc_unlocked+ read_word main|getc_unlocked+ read_word worker_main" \
			"$(gdb_frames '[.frames[] | .name + (if .inlined then "+" else "" end)] | join(" ")' | sort | paste -sd'|')"
		;;
	line0)
		# The row before the merged call's line-0 row: case 'l'.
		expect "gdb: the line of read_format's call of read_item" \
			"$(grep -n 'success = read_item(n, 1);' "$top_srcdir/tests/apps/stk-line0.c" | cut -d: -f1)" \
			"$(gdb_frames '.frames[] | select(.name == "read_format") | .line')"
		;;
	asleep)
		expect "gdb: the program's frames of each thread" \
			"cond_wait_job cond_worker cond_main|main_wait main_serve main|nap_loop napper nap_main|poll_events event_loop event_main|read_command control control_main" \
			"$(gdb_frames '[.frames[].name] | join(" ")' | sort | paste -sd'|')"
		expect "rbmon: every frame seeded, none over the before-attach frame" \
			"cond_wait_job cond_worker cond_main|main_wait main_serve main|nap_loop napper nap_main|poll_events event_loop event_main|read_command control control_main" \
			"$(jq -r '.processes[].threads[] | select(.state != "exited") |
				[.frames[] | select(.seeded == true) | .function] | join(" ")' "$T/rbmon.json" | sort | paste -sd'|')"
		# Woken, it runs on unharmed and exits (the line, then the
		# exit: not waited for as a process that must stay alive).
		echo quit >"$T/ctl"
		wait_ready "done $STACKS_PID [0-9]+"
		rc=0
		wait "$STACKS_PID" || rc=$?
		expect "its exit status once woken" 0 "$rc"
		;;
	threads | dbgfile)
		expect "gdb: threads" 5 "$(jq '.threads | length' "$T/gdb.json")"
		;;
	esac
}

# stacks_run CASE COMPILER - the whole test of tests/apps/stk-CASE-COMPILER.
stacks_run()
{
	local prog=$APPS/stk-$1-$2

	stacks_require "$2" "$prog"
	case $1 in
	condvar | cvwait) STACKS_SYSCALL=202 ;;
	esac
	case $1-$2 in
	cold-gcc)
		nm "$prog" | grep -q ' handle_request\.cold$' ||
			fail "gcc split no handle_request.cold out of handle_request: nothing to test"
		;;
	cold-clang)
		note "clang splits no .cold parts; comparing its build all the same"
		;;
	dbgfile-*)
		readelf -S "$prog" | grep -q '\.gnu_debuglink' ||
			fail "$prog has no .gnu_debuglink"
		readelf -S "$prog" | grep -q '\.debug_info' &&
			fail "$prog still has its DWARF"
		readelf -S "$prog.debug" 2>/dev/null | grep -q '\.debug_info' ||
			fail "$prog.debug has no DWARF"
		;;
	esac
	stacks_capture "$prog"
	stacks_check "$1"
	stacks_compare
	exit 0
}
