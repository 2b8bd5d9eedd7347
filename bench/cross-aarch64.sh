#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/cross-aarch64.sh - rbtrace on aarch64, from an x86-64 machine:
# cross-configure a copy of this tree for aarch64-linux-gnu, build
# librbtrace.so and the unit tests that need nothing but Check (check_lib,
# check_evlog, check_common, check_shared: the hooks, the clocks, the
# event log, the file), check that the library's hooks read CNTVCT_EL0
# (and no rdtsc), and run the tests under qemu-user.
#
# Not part of make check: it needs a cross compiler, qemu and Check for
# arm64, and takes a few minutes.  On Debian 12, as root:
#	apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
#	dpkg --add-architecture arm64 && apt-get update && apt-get install check:arm64
# Without qemu or Check for arm64 it builds what it can and says what it
# did not run.  The monitor (ncursesw, libdw) is not built: configure is
# given its libraries' flags (PKG_CHECK_MODULES then does not look).
#
# qemu-user (Debian 12's 7.2) emulates a process's own /proc/PID/stat with
# no state letter, which the library reads for liveness, and aborts in the
# child of a fork of a threaded process ("cpu == current_cpu"): the tests
# that depend on either are listed in QEMU_LIMITS and their failures
# reported as such; any other failure fails.  The tests run on the arm64
# loader and libraries of the multiarch packages (with -L SYSROOT, a fork
# under qemu 7.2 hangs).
#
# Run from the build directory, or by `make cross-aarch64`:
#	top_srcdir=/path/to/src bash /path/to/src/bench/cross-aarch64.sh
# Knobs (environment): CROSS_HOST (aarch64-linux-gnu), QEMU (qemu-aarch64,
# else qemu-aarch64-static), CROSS_KEEP=1 (keep the build directory),
# WAIT_TIMEOUT (600, seconds for each test under qemu).
# Exit status: 0 built (and the tests, where they could run, passed), 77
# no cross compiler here, 1 a failure (its log is shown).

set -u

NAME=cross-aarch64
BROKE_WORD=FAILED
. "$(dirname "$0")/lib.sh"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
HOST=${CROSS_HOST:-aarch64-linux-gnu}
WAIT_TIMEOUT=${WAIT_TIMEOUT:-600}
MULTIARCH_LIB=/usr/lib/$HOST
TESTS="tests/check_lib tests/check_evlog tests/check_common tests/check_shared"
# program:test that qemu-user cannot run as a kernel would (see above).
QEMU_LIMITS="check_lib:test_file_create check_lib:test_ring_claim_race
check_lib:test_hooks_breakpoints check_common:test_procstat_read_self"

command -v "$HOST-gcc" >/dev/null ||
	skip "no $HOST-gcc (apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross)"
for t in autoreconf git make tar; do
	command -v "$t" >/dev/null || skip "no $t"
done
[ -f "$top_srcdir/configure.ac" ] || broke "no source tree at $top_srcdir"

QEMU=${QEMU:-}
if [ -z "$QEMU" ]; then
	for q in qemu-aarch64 qemu-aarch64-static; do
		command -v "$q" >/dev/null && { QEMU=$q; break; }
	done
fi
HAVE_CHECK=
[ -f "$MULTIARCH_LIB/pkgconfig/check.pc" ] && HAVE_CHECK=1

T=$(mktemp -d "${TMPDIR:-/tmp}/rbt-$NAME.XXXXXX") || broke "mktemp failed"
if [ "${CROSS_KEEP:-0}" = 1 ]; then
	trap 'note "kept $T"' EXIT
else
	trap 'rm -rf "$T"' EXIT
fi
trap 'exit 1' INT TERM HUP

# step NAME COMMAND... - run, its output in $T/NAME.log, shown on failure.
step()
{
	local what=$1
	shift
	if ! "$@" >"$T/$what.log" 2>&1; then
		tail -n 40 "$T/$what.log" >&2
		broke "$what failed: $* (log above)"
	fi
}

# The tree as it is (tracked and new files, not what a native build left).
mkdir "$T/src" || broke "mkdir"
(cd "$top_srcdir" && git ls-files -z --cached --others --exclude-standard |
	xargs -0 tar cf - --ignore-failed-read 2>/dev/null) | tar xf - -C "$T/src" ||
	broke "cannot copy $top_srcdir (a git checkout is needed)"
cd "$T/src" || broke "cd"
step autoreconf autoreconf -i

# Check from the arm64 pkg-config files; the monitor's libraries named
# only (nothing here links them).
export PKG_CONFIG_LIBDIR=$MULTIARCH_LIB/pkgconfig:/usr/share/pkgconfig
step configure ./configure --host="$HOST" \
	NCURSESW_CFLAGS=-DRB_CROSS NCURSESW_LIBS=-lncursesw \
	LIBDW_CFLAGS=-DRB_CROSS LIBDW_LIBS=-ldw \
	LIBELF_CFLAGS=-DRB_CROSS LIBELF_LIBS=-lelf \
	LIBBSD_CFLAGS=-DRB_CROSS LIBBSD_LIBS=-lbsd
grep -q "WARNING: .*untested" "$T/configure.log" &&
	broke "configure warns that $HOST is untested: $(grep 'untested' "$T/configure.log")"

targets=lib/librbtrace.la
[ -n "$HAVE_CHECK" ] && targets="$targets $TESTS"
step make make -j2 $targets

# The library is aarch64's, and its hooks read the counter inline.
LIB=lib/.libs/librbtrace.so
file -L "$LIB" | grep -q 'ARM aarch64' || broke "$LIB is not an aarch64 object: $(file -L "$LIB")"
DIS=$T/enter.s
"$HOST-objdump" -d --no-show-raw-insn "$LIB" >"$DIS" || broke "objdump $LIB"
awk '/<__cyg_profile_func_enter>:/ { on = 1; next } on && /^$/ { exit } on' "$DIS" >"$T/hook.s"
grep -q 'mrs.*cntvct_el0' "$T/hook.s" ||
	broke "__cyg_profile_func_enter does not read cntvct_el0 inline: $(cat "$T/hook.s")"
grep -q 'isb' "$T/hook.s" || broke "__cyg_profile_func_enter reads cntvct_el0 without an isb"
grep -qi 'rdtsc' "$DIS" && broke "$LIB has an rdtsc"
note "$LIB: aarch64, __cyg_profile_func_enter reads cntvct_el0 after an isb"

ran= limited=
if [ -z "$HAVE_CHECK" ]; then
	note "unit tests not built: no Check for arm64 (dpkg --add-architecture arm64; apt-get update; apt-get install check:arm64)"
elif [ -z "$QEMU" ]; then
	note "unit tests built, not run: no qemu-aarch64 (apt-get install qemu-user)"
else
	# Check's time limits are for native speed.
	export CK_TIMEOUT_MULTIPLIER=20 CK_VERBOSITY=normal
	for t in $TESTS; do
		p=${t##*/} log=$T/${t##*/}.log
		file "$t" | grep -q 'ARM aarch64' || broke "$t is not an aarch64 program"
		rc=0
		timeout "$WAIT_TIMEOUT" "$QEMU" "$t" >"$log" 2>&1 || rc=$?
		summary=$(grep -E '^[0-9]+%: Checks' "$log")
		[ -n "$summary" ] || { tail -n 40 "$log" >&2; broke "$t under $QEMU exited $rc without a summary (log above)"; }
		# Failures and errors: "file:line:F|E:case:test:..."
		bad=
		while IFS=: read -r _ _ kind _ test _; do
			if [[ " $(echo $QEMU_LIMITS) " == *" $p:$test "* ]]; then
				limited="$limited $p:$test"
			else
				bad="$bad $test"
			fi
		done < <(grep -E '^[^:]+:[0-9]+:[FE]:' "$log")
		if [ -n "$bad" ]; then
			grep -E '^[^:]+:[0-9]+:[FE]:' "$log" >&2
			broke "$t under $QEMU:$bad failed"
		fi
		[ "$rc" -eq 0 ] || [ -n "$limited" ] || broke "$t under $QEMU exited $rc"
		note "$t under $QEMU: $summary"
		ran="$ran $p"
	done
	[ -n "$limited" ] && note "failed as qemu-user emulates them (not aarch64's doing, see the top of $0):$limited"
fi

n=$(echo $limited | wc -w)
echo "$NAME: $HOST-gcc $("$HOST-gcc" -dumpversion), librbtrace.so built${ran:+; ran under $QEMU:$ran, every test passed${limited:+ but $n that qemu-user cannot run}}"
exit 0
