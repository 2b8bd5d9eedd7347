#!/bin/bash
# SPDX-License-Identifier: MIT
# events: the event log of a program whose calls are known exactly
# (tests/apps/evseq.c), under each policy: rbmon --events --json gives
# exactly that sequence (entries, exits, nesting, names, the lines the
# functions are defined on as gdb's "info functions" has them, the call
# lines, named frames, line marks); fill keeps the first records and drain drops when nobody
# consumes, both counted and marked; the text graph shows the same calls.
. "$(dirname "$0")/lib.sh"

src=$APPS_SRC/evseq.c
command -v gdb >/dev/null || skip "gdb is not installed"

# One round of evseq, as "kind:function:depth" from depth D on.
round()
{
	local d=$1
	echo "entry:seq_round:$d entry:phase:$((d + 1)) entry:seq_a:$((d + 2))" \
		"entry:seq_b:$((d + 3)) exit:seq_b:$((d + 3)) line:-:$((d + 3))" \
		"entry:seq_c:$((d + 3)) exit:seq_c:$((d + 3)) exit:seq_a:$((d + 2))" \
		"exit:phase:$((d + 1)) exit:seq_round:$d"
}
SEQ="entry:main:0 entry:seq_run:1 $(round 2) $(round 2) $(round 2) exit:seq_run:1 entry:seq_park:1"
RECS='.processes[0].threads[0].records'
seq_of() { jqv "[$RECS[] | \"\(.kind):\(.function // \"-\"):\(.depth // \"-\")\"] | join(\" \")"; }

# The line a function is defined on, as gdb says ("65:	static void f(int);").
gdb_line()
{
	gdb -nx -batch -ex "info functions ^$1\$" "$APPS/evseq" 2>/dev/null |
		sed -n 's/^\([0-9]*\):.*/\1/p' | head -1
}

run_policy()
{
	local policy=$1 size=$2 f=$T/$1-$2.trace pid
	: >"$RBT_READY"
	launch "$policy" env RBTRACE_FILE="$f" RBTRACE_POLICY="$policy" \
		RBTRACE_EVENTS="$size" "$APPS/evseq" -n 3
	pid=$LAUNCHED
	wait_ready "done $pid" "$pid"
	events_json "$f" "$pid"
	expect "$policy: policy in the header" "$policy" "$(jqv .events.policy)"
	expect "$policy: size" "$size" "$(jqv .events.size)"
	PID=$pid
}

# ---- ring (the default policy and size when not given) ---------------------
run_policy ring 4096
expect "ring: the sequence" "$SEQ" "$(seq_of)"
expect "ring: nothing lost" "0 0 0" "$(jqv '.processes[0].threads[0] | "\(.overwritten) \(.dropped) \(.consumed)"')"
# 40 records: each named entry has a text record after it.
expect "ring: written, buffered, records shown" "40 40 37" \
	"$(jqv ".processes[0].threads[0] | \"\(.written) \(.buffered) \(.records | length)\"")"
for fn in seq_round seq_a seq_b seq_c; do
	g=$(gdb_line "$fn")
	[ -n "$g" ] || fail "gdb gives no line for $fn"
	expect "$fn: line it is defined on, as gdb's info functions" "$g" \
		"$(jqv "[$RECS[] | select(.kind == \"entry\" and .function == \"$fn\") | .line] | unique | join(\" \")")"
	expect "$fn: file" evseq.c \
		"$(jqv "[$RECS[] | select(.function == \"$fn\") | .file] | unique | join(\" \")")"
done
expect "call lines of seq_b seq_c seq_a seq_round" \
	"$(line_of "$src" call_b) $(line_of "$src" call_c) $(line_of "$src" call_a) $(line_of "$src" call_round)" \
	"$(jqv ". as \$r | [\"seq_b\", \"seq_c\", \"seq_a\", \"seq_round\"] | map(. as \$f | [\$r$RECS[] | select(.kind == \"entry\" and .function == \$f) | .call_line] | unique | join(\",\")) | join(\" \")")"
expect "named frame: name, file, line" "phase evseq.c 77" \
	"$(jqv "[$RECS[] | select(.named and .kind == \"entry\")][0] | \"\(.function) \(.file) \(.line)\"")"
expect "line marks" "42 42 42" "$(jqv "[$RECS[] | select(.kind == \"line\") | .line] | join(\" \")")"
expect_jq "timestamps never go back" "[$RECS[] | .ts_ns] | . == sort and all(. > 0)"
expect_jq "the last call is open" "$RECS | last | .open == true"
# The thread's clock is the snapshot's: the records are older than time_ns.
expect_jq "ts_ns on the clock of time_ns" "[$RECS[] | .ts_ns] | max < \$t" --argjson t "$(jqv .time_ns)"

# The text graph: the same calls, nested, with durations.
"$RBMON" --events --thread "$PID" "$T/ring-4096.trace" >"$T/text" 2>"$T/text.err" ||
	fail "rbmon --events exited $?: $(cat "$T/text.err")"
grep -Eq '^ +[0-9]+\.[0-9]{3} [um]?s \|   +seq_b\(\);$' "$T/text" || fail "no timed leaf 'seq_b();' in: $(cat "$T/text")"
grep -Eq '^ +[0-9]+\.[0-9]{3} [um]?s \|   +seq_a\(\) \{$' "$T/text" || fail "no timed 'seq_a() {' in: $(cat "$T/text")"
grep -Eq '^ +open \|    seq_park\(\) \{$' "$T/text" || fail "seq_park not shown open: $(cat "$T/text")"
grep -Eq '^ +\| +\} /\* seq_round \*/$' "$T/text" || fail "no closing brace of seq_round: $(cat "$T/text")"
expect "text: calls of seq_c" 3 "$(grep -c 'seq_c();' "$T/text")"

# ---- fill, and drain with nobody consuming: the first records, then
# drops, counted and marked.  16 records hold main, seq_run, the first
# round (12 records) and the second seq_round; its named frame (2 records)
# does not fit, and nothing after that first drop is kept (fill) or finds
# room (drain: the gap's mark would need one more).
for policy in fill drain; do
	run_policy $policy 16
	expect "$policy: the first records" \
		"$(echo "$SEQ" | tr ' ' '\n' | head -14 | tr '\n' ' ')lost:-:-" "$(seq_of)"
	expect "$policy: written buffered dropped overwritten consumed" "40 15 25 0 0" \
		"$(jqv '.processes[0].threads[0] | "\(.written) \(.buffered) \(.dropped) \(.overwritten) \(.consumed)"')"
	expect "$policy: the lost record at the end counts the drops" 25 "$(jqv "$RECS | last | .count")"
	"$RBMON" --events "$T/$policy-16.trace" >"$T/text" 2>&1 || fail "rbmon --events: $(cat "$T/text")"
	grep -q '\[LOST 25 EVENTS\]' "$T/text" || fail "$policy: no [LOST 25 EVENTS] in: $(cat "$T/text")"
done

# ---- no event log at all ----------------------------------------------------
run_policy ring 0
expect "RBTRACE_EVENTS=0: no records" 0 "$(jqv "$RECS | length")"
expect "RBTRACE_EVENTS=0: not recording" false "$(jqv '.processes[0].threads[0].recording')"
"$RBMON" --events "$T/ring-0.trace" 2>&1 | grep -q "no event log" || fail "no 'no event log' note"
exit 0
