#!/bin/bash
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
for t; do
	work=$build/work/$t
	mkdir -p "$work/corpus" || exit 1
	dict=
	[ -f "$src/$t.dict" ] && dict=-dict=$src/$t.dict
	echo "=== fuzz $t: ${seconds}s, $jobs job(s), log in $work/log"
	rc=0
	# shellcheck disable=SC2086
	"$build/fuzz-$t" -max_total_time="$seconds" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 \
		-jobs="$jobs" -workers="$jobs" $dict \
		-artifact_prefix="$work/" ${FUZZ_FLAGS:-} \
		"$work/corpus" "$src/corpus/$t" >"$work/log" 2>&1 || rc=$?
	[ "$jobs" -gt 1 ] && cat fuzz-*.log >>"$work/log" 2>/dev/null &&
		rm -f fuzz-*.log
	grep -E '^(stat::number_of_executed_units|stat::average_exec_per_sec|#[0-9]+ *DONE)' \
		"$work/log" | sed "s/^/=== fuzz $t: /"
	if [ "$rc" -ne 0 ] || ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* \
		"$work"/oom-* >/dev/null 2>&1; then
		echo "=== fuzz $t: FOUND SOMETHING (exit $rc): see $work/log and $work/" >&2
		failed="$failed $t"
	fi
done
[ -z "$failed" ] || { echo "=== fuzz: findings in:$failed" >&2; exit 1; }
echo "=== fuzz: nothing found"
