#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/fuzz/run.sh - `make fuzz`: run each libFuzzer target for a while.
#
#   run.sh SRCDIR BUILDDIR TARGET...
#
# Each tests/fuzz/fuzz-TARGET runs for FUZZ_SECONDS (FUZZ_JOBS jobs) on
# BUILDDIR/work/TARGET/corpus, where new inputs go, with the committed
# corpus SRCDIR/corpus/TARGET as read-only seeds, and its dictionary if it
# has one.  A crash leaves its input as BUILDDIR/work/TARGET/crash-*; the
# run then fails.  FUZZ_FLAGS adds libFuzzer options.
set -u
src=$1 build=$2
shift 2
seconds=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-1}
failed=
src=$(cd "$src" && pwd) build=$(cd "$build" && pwd) || exit 1
for t; do
	work=$build/work/$t
	mkdir -p "$work/corpus" || exit 1
	rm -f "$work"/fuzz-*.log
	dict=
	[ -f "$src/$t.dict" ] && dict=-dict=$src/$t.dict
	par=
	[ "$jobs" -gt 1 ] && par="-jobs=$jobs -workers=$jobs"
	echo "=== fuzz $t: ${seconds}s, $jobs job(s), log in $work/log"
	rc=0
	# In $work: with -jobs, each job logs to fuzz-N.log there.
	# shellcheck disable=SC2086
	(cd "$work" && exec "$build/fuzz-$t" -max_total_time="$seconds" \
		-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 $par $dict \
		-artifact_prefix="$work/" ${FUZZ_FLAGS:-} \
		"$work/corpus" "$src/corpus/$t") >"$work/log" 2>&1 || rc=$?
	cat "$work"/fuzz-*.log >>"$work/log" 2>/dev/null
	grep -E '^stat::(number_of_executed_units|average_exec_per_sec)' \
		"$work/log" | sed "s/^/=== fuzz $t: /"
	if [ "$rc" -ne 0 ] || ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* \
		"$work"/oom-* >/dev/null 2>&1; then
		echo "=== fuzz $t: FOUND SOMETHING (exit $rc): see $work/log and $work/" >&2
		failed="$failed $t"
	fi
done
[ -z "$failed" ] || { echo "=== fuzz: findings in:$failed" >&2; exit 1; }
echo "=== fuzz: nothing found"
