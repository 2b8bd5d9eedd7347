# SPDX-License-Identifier: MIT
# bench/lib.sh - what the benchmarks share; sourced by each after it set
# NAME (the benchmark's name, the first word of its lines).
#
# Exit codes follow bench/local.mk: 0 measured (a missed target is said,
# not failed), 77 cannot run here, 1 the harness itself broke.

# note TEXT... - a progress line on stderr.
note() { printf '%s: %s\n' "$NAME" "$*" >&2; }
# broke TEXT... - the harness broke: say so and exit 1.
broke() { printf '%s: %s: %s\n' "$NAME" "${BROKE_WORD:-HARNESS FAILURE}" "$*" >&2; exit 1; }
# skip TEXT... - cannot run here: say why and exit 77.
skip() { printf '%s: SKIP: %s\n' "$NAME" "$*" >&2; exit 77; }

# calc AWK - evaluate an awk statement (printf ...) in the C locale.
calc() { LC_ALL=C awk "BEGIN { $1 }"; }

# median X... - the median of numbers; of integers an integer (the mean of
# the two middle ones rounded toward zero), else to 6 significant digits;
# nothing for none.
median()
{
	[ $# -gt 0 ] || return 0
	printf '%s\n' "$@" | LC_ALL=C sort -g | LC_ALL=C awk '
		{ a[NR] = $1; if ($1 !~ /^-?[0-9]+$/) real = 1 }
		END {
			if (NR % 2) { print a[(NR + 1) / 2]; exit }
			m = (a[NR / 2] + a[NR / 2 + 1]) / 2
			if (real) printf "%.6g\n", m; else printf "%d\n", m
		}'
}

# group N - 12345678 -> 12,345,678
group() { LC_ALL=C awk -v n="$1" 'BEGIN { s = sprintf("%d", n); r = ""; while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) } print s r }'; }

# now_us - wall clock in microseconds into $NOW (no subshell).
now_us() { NOW=${EPOCHREALTIME/[.,]/}; }

# le A B - A <= B, as numbers.
le() { LC_ALL=C awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }
# lt A B - A < B, as numbers.
lt() { LC_ALL=C awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
