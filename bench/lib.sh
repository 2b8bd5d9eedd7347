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

# bench_sql_script ROWS - the SQL script bench/dyn.sh and bench/history.sh
# give the sqlite3 shell (in :memory:): inserts of ROWS rows in one
# transaction, two indexes, selects through them, a join and a group by;
# its output every build must agree on.
bench_sql_script() {
	LC_ALL=C awk -v n="$1" 'BEGIN {
		print "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c INTEGER, d REAL);"
		print "BEGIN;"
		for (i = 1; i <= n; i++)
			printf "INSERT INTO t VALUES(%d, '\''k%08d'\'', %d, %d.5);\n",
			    i, (i * 7919) % n, (i * 31) % 1000, i % 977
		print "COMMIT;"
		print "CREATE INDEX tb ON t(b);"
		print "CREATE INDEX tc ON t(c);"
		print "SELECT count(*), sum(c) FROM t WHERE b BETWEEN '\''k00001000'\'' AND '\''k00020000'\'';"
		print "SELECT c, count(*), printf('\''%.1f'\'', avg(d)) FROM t GROUP BY c ORDER BY 2 DESC, 1 LIMIT 3;"
		print "SELECT count(*) FROM t x JOIN t y ON y.c = x.c WHERE x.a % 50 = 0 AND y.a % 7 = 0;"
		print "SELECT sum(length(b || c)) FROM t WHERE c IN (SELECT c FROM t WHERE a % 97 = 0);"
		print "UPDATE t SET d = d * 2 WHERE c < 100;"
		print "SELECT total(d) FROM t;"
	}'
}
