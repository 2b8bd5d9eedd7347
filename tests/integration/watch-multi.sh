#!/bin/bash
# SPDX-License-Identifier: MIT
# watch-multi: several watches in one call, on several threads at once, and
# a thread that never answers.
#
#  - four --watch in one call print "EXPR = VALUE" lines in the order given,
#    exit 0; with some of them failing, the good ones still print, each
#    failure is a "rbmon: thread TID: EXPR: MESSAGE" line on stderr, exit 1;
#    a fifth --watch is a usage error (exit 2, nothing printed);
#  - rbmon --watch tls_value run at the same time against ticker, w1 and w2
#    gets each thread's own value (1000, 1001, 1002), five rounds; two
#    rbmons at once on one thread, two watches each, share its four entries;
#  - threads that pass no hook (parked in read(), main in sigwait()): while
#    rbmon waits, the JSON dump shows the entry (inuse 1, the expression,
#    resready 0); after --timeout rbmon exits 2 saying it passes no hook,
#    and the entries (one on parked, four on main) are left with their
#    removal asked (inuse -2: only the owner may free an entry, which it
#    could be evaluating); main's four taken entries make a fifth watch an
#    error; the parked thread frees its entry once released;
#  - results in the dump: with rbmon frozen (SIGSTOP) while its two watches
#    (counter, nosuch) wait on the parked thread, SIGUSR1 releases the
#    thread: the dump shows resready 1 with "value" (reslength its length)
#    and "error" (reslength < 0); thawed, rbmon prints that same value and
#    the error, exit 1; the thread then answers again (its own tls_value, 0);
#  - after every call, every thread's "watches" is [] in the JSON dump; the
#    program keeps running and counter keeps changing throughout.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/control.sh"

# watch TID [--timeout S] EXPR... - rbmon --watch on $f (default timeout
# 10 s); stdout to $T/watch.out, stderr to $T/watch.err, status to WATCHED.
watch()
{
	local tid=$1 e args=() timeout=10
	shift
	if [ "$1" = --timeout ]; then
		timeout=$2
		shift 2
	fi
	for e; do
		args+=(--watch "$e")
	done
	WATCHED=0
	"$RBMON" --thread "$tid" "${args[@]}" --timeout "$timeout" "$f" \
		>"$T/watch.out" 2>"$T/watch.err" || WATCHED=$?
}

# all_free DESC [TID] - every thread's watch entries (but TID's) are free
# (one dump, now).
all_free()
{
	dump_json "$f"
	expect_jq "every thread's \"watches\" is [] ($1)" \
		"[.processes[0].threads[] | select(.tid != ${2:-0}) | .watches == []] | all"
}

# counter_now - counter on the ticker, a number, into COUNTER.
counter_now()
{
	watch "$K" counter
	[ "$WATCHED" -eq 0 ] && [[ $(cat "$T/watch.out") =~ ^[0-9]+$ ]] ||
		fail "--watch counter: exit $WATCHED, stdout '$(cat "$T/watch.out")', stderr '$(cat "$T/watch.err")'"
	COUNTER=$(cat "$T/watch.out")
}

# counter_above N - counter is now above N (for wait_for: no fail here).
counter_above()
{
	watch "$K" counter
	echo "exit $WATCHED, stdout '$(cat "$T/watch.out")', stderr '$(cat "$T/watch.err")', first $1"
	[ "$WATCHED" -eq 0 ] && [[ $(cat "$T/watch.out") =~ ^[0-9]+$ ]] &&
		[ "$(cat "$T/watch.out")" -gt "$1" ]
}

# still_live DESC [TID] - the program runs and counter changes; all_free.
still_live()
{
	local first
	kill -0 "$pid" 2>/dev/null || fail "the program died ($1): $(cat "$T/app.err")"
	counter_now
	first=$COUNTER
	wait_for "counter to move on from $first ($1)" counter_above "$first"
	all_free "$1" "${2:-0}"
}

f=$T/watch.trace
traced app RBTRACE_FILE="$f" "$APPS/watch"
pid=$LAUNCHED
wait_threads "$pid" ticker w1 w2 parked
K=$(tid_of ticker)
W1=$(tid_of w1)
W2=$(tid_of w2)
P=$(tid_of parked)
all_free "at start"
still_live "at start"

# --- Four watches in one call.
watch "$K" counter answer/x cfg.pos "list->next->next->value"
[ "$WATCHED" -eq 0 ] || fail "four watches exited $WATCHED (stderr: $(cat "$T/watch.err"))"
expect "stderr of four watches" "" "$(cat "$T/watch.err")"
expect "lines of four watches" 4 "$(wc -l <"$T/watch.out")"
[[ $(sed -n 1p "$T/watch.out") =~ ^counter\ =\ [0-9]+$ ]] ||
	fail "first line of four watches: expected 'counter = N', got '$(sed -n 1p "$T/watch.out")'"
expect "lines 2-4 of four watches" \
	"answer/x = 0x2a|cfg.pos = {x = 3, y = 4}|list->next->next->value = 3" \
	"$(sed -n 2,4p "$T/watch.out" | paste -sd '|')"
all_free "after four watches"

# The same on w2, another order.
watch "$W2" "cfg.table[2]" tls_value "(enum color)2" letter
[ "$WATCHED" -eq 0 ] || fail "four watches on w2 exited $WATCHED (stderr: $(cat "$T/watch.err"))"
expect "stderr of four watches on w2" "" "$(cat "$T/watch.err")"
expect "four watches on w2" \
	"cfg.table[2] = 30|tls_value = 1002|(enum color)2 = BLUE|letter = 65 'A'" \
	"$(paste -sd '|' "$T/watch.out")"
all_free "after four watches on w2"

# Two of four failing.
watch "$K" answer nosuch neg "1 +"
expect "exit status of four watches, two bad (stderr: $(cat "$T/watch.err"))" 1 "$WATCHED"
expect "stdout of four watches, two bad" "answer = 42|neg = -5" \
	"$(paste -sd '|' "$T/watch.out")"
expect "stderr lines of four watches, two bad" 2 "$(wc -l <"$T/watch.err")"
expect "first stderr line of four watches, two bad" \
	"rbmon: thread $K: nosuch: no symbol \"nosuch\"" "$(sed -n 1p "$T/watch.err")"
[[ $(sed -n 2p "$T/watch.err") == "rbmon: thread $K: 1 +: syntax error"* ]] ||
	fail "second stderr line of four watches, two bad: expected 'rbmon: thread $K: 1 +: syntax error...', got '$(sed -n 2p "$T/watch.err")'"
all_free "after four watches, two bad"

# A fifth is one too many.
watch "$K" counter answer neg mask flag
expect "exit status of five watches (stderr: $(cat "$T/watch.err"))" 2 "$WATCHED"
expect "stdout of five watches" "" "$(cat "$T/watch.out")"
[[ $(head -n 1 "$T/watch.err") == "rbmon: "* ]] ||
	fail "stderr of five watches: expected an 'rbmon: ' message, got '$(cat "$T/watch.err")'"
all_free "after five watches"

# --- Several threads at once: each evaluates its own tls_value.
for round in 1 2 3 4 5; do
	bg=()
	for tid in "$K" "$W1" "$W2"; do
		"$RBMON" --thread "$tid" --watch tls_value --timeout 10 "$f" \
			>"$T/bg.$tid.out" 2>"$T/bg.$tid.err" &
		bg+=($!)
	done
	i=0
	for tid in "$K" "$W1" "$W2"; do
		rc=0
		wait "${bg[$i]}" || rc=$?
		expect "exit status of tls_value on thread $tid, round $round (stderr: $(cat "$T/bg.$tid.err"))" \
			0 "$rc"
		expect "stderr of tls_value on thread $tid, round $round" "" "$(cat "$T/bg.$tid.err")"
		i=$((i + 1))
	done
	expect "tls_value on ticker, w1, w2 at once, round $round" "1000 1001 1002" \
		"$(cat "$T/bg.$K.out" "$T/bg.$W1.out" "$T/bg.$W2.out" | paste -sd ' ')"
	all_free "after tls_value on three threads, round $round"
done

# Two rbmons at once on w1, two watches each: all four entries in use.
for round in 1 2 3; do
	"$RBMON" --thread "$W1" --watch tls_value --watch answer --timeout 10 "$f" \
		>"$T/bga.out" 2>"$T/bga.err" &
	a=$!
	"$RBMON" --thread "$W1" --watch neg --watch "cfg.pos.y * 10 + 1" --timeout 10 "$f" \
		>"$T/bgb.out" 2>"$T/bgb.err" &
	b=$!
	rc=0
	wait "$a" || rc=$?
	expect "exit status of the first of two rbmons on w1, round $round (stderr: $(cat "$T/bga.err"))" 0 "$rc"
	rc=0
	wait "$b" || rc=$?
	expect "exit status of the second of two rbmons on w1, round $round (stderr: $(cat "$T/bgb.err"))" 0 "$rc"
	expect "first of two rbmons on w1, round $round" "tls_value = 1001|answer = 42" \
		"$(paste -sd '|' "$T/bga.out")"
	expect "second of two rbmons on w1, round $round" "neg = -5|cfg.pos.y * 10 + 1 = 41" \
		"$(paste -sd '|' "$T/bgb.out")"
	all_free "after two rbmons on w1, round $round"
done
still_live "after the concurrent watches"

# --- Threads that pass no hook: "parked" in read(), and main in sigwait().
# "thread parked" comes before parked_wait is entered: wait until it is past
# that hook and asleep in read().
in_read()
{
	json_true "$f" "$(th "$P") | (.frames | map(.function)) == [\"parked_wait\", \"parked_main\"]" ||
		return 1
	awk '{ sub(/^.*\) /, ""); print "state " $1; exit $1 != "S" }' "/proc/$pid/task/$P/stat"
}
wait_for "the parked thread asleep in parked_wait" in_read

# no_hook FILE TID DESC - FILE says thread TID passes no hook.
no_hook()
{
	grep -Eq "^rbmon: thread $2 .*passe[sd] no hook" "$1" ||
		fail "stderr of $3: expected 'rbmon: thread $2 ...' saying it passes no hook, got '$(cat "$1")'"
}

"$RBMON" --thread "$P" --watch counter --timeout 3 "$f" >"$T/bgp.out" 2>"$T/bgp.err" &
bgp=$!
wait_json "$f" "$(th "$P") | .watches | length == 1" "the parked thread's watch entry in the dump"
expect_jq "the parked thread's pending entry: entry 0-3, inuse 1, expr counter, resready 0, a reslength, no value, no error" \
	"$(th "$P") | .watches[0] | (.entry >= 0 and .entry <= 3) and .inuse == 1 and .expr == \"counter\" and .resready == 0 and (.reslength | type == \"number\") and (has(\"value\") | not) and (has(\"error\") | not)"
rc=0
wait "$bgp" || rc=$?
expect "exit status of --watch on the parked thread (stderr: $(cat "$T/bgp.err"))" 2 "$rc"
expect "stdout of --watch on the parked thread" "" "$(cat "$T/bgp.out")"
no_hook "$T/bgp.err" "$P" "--watch on the parked thread"
# Its entry waits for the thread to free it.
dump_json "$f"
expect "the parked thread's watch right after its timed-out watch" \
	'[{"expr":"counter","inuse":-2}]' \
	"$(jqv "[$(th "$P") | .watches[] | {expr, inuse}]" -c)"

# Four at once on main (in sigwait() since it reported "main PID").
watch "$pid" --timeout 1 counter answer neg mask
expect "exit status of four watches on main (stderr: $(cat "$T/watch.err"))" 2 "$WATCHED"
expect "stdout of four watches on main" "" "$(cat "$T/watch.out")"
no_hook "$T/watch.err" "$pid" "four watches on main"
expect "stderr lines of four watches on main" 1 "$(wc -l <"$T/watch.err")"
dump_json "$f"
expect "main's watches right after its four timed-out watches" \
	"counter:-2 answer:-2 neg:-2 mask:-2" \
	"$(jqv "[$(th "$pid") | .watches[] | \"\\(.expr):\\(.inuse)\"] | join(\" \")")"
watch "$pid" --timeout 1 counter
expect "exit status of a fifth watch on main (stderr: $(cat "$T/watch.err"))" 1 "$WATCHED"
expect "stderr of a fifth watch on main" \
	"rbmon: thread $pid: counter: all 4 watch entries of thread $pid are in use" \
	"$(cat "$T/watch.err")"
expect "the parked thread's frames" "parked_wait parked_main" \
	"$(jqv "$(th "$P") | .frames | map(.function) | join(\" \")")"

# --- Results in the dump.  rbmon posts two watches to the parked thread
# and is frozen (SIGSTOP) while they are pending; SIGUSR1 releases the
# thread, which evaluates them at its next hook; the dump shows a value and
# an error; thawed, rbmon prints the same value.
"$RBMON" --thread "$P" --watch counter --watch nosuch --timeout 30 "$f" \
	>"$T/bgd.out" 2>"$T/bgd.err" &
bgd=$!
wait_json "$f" "[$(th "$P") | .watches[] | select(.inuse == 1)] | map(.expr) == [\"counter\", \"nosuch\"]" \
	"the two pending watches of the parked thread"
kill -STOP "$bgd"
frozen() { awk '{ sub(/^.*\) /, ""); print "state " $1; exit $1 != "T" }' "/proc/$bgd/stat"; }
wait_for "rbmon (pid $bgd) frozen" frozen
kill -USR1 "$pid"
wait_ready "parked released" "$pid"
W="$(th "$P") | .watches[] | select(.inuse == 1)"
wait_json "$f" "[$W | .resready] == [1, 1]" "both results of the parked thread in the dump"
expect_jq "counter's entry: resready 1, a decimal value, reslength its length, no error" \
	"$W | select(.expr == \"counter\") | .resready == 1 and (.value | test(\"^[0-9]+\$\")) and .reslength == (.value | length) and (has(\"error\") | not)"
expect_jq "nosuch's entry: resready 1, reslength < 0, the error, no value" \
	"$W | select(.expr == \"nosuch\") | .resready == 1 and .reslength < 0 and .error == \"no symbol \\\"nosuch\\\"\" and (has(\"value\") | not)"
expect_jq "the released thread's two entries are 0-3 and distinct" \
	"[$W | .entry] | (map(. >= 0 and . <= 3) | all) and (unique | length) == 2"
value=$(jqv "$W | select(.expr == \"counter\") | .value")
kill -CONT "$bgd"
rc=0
wait "$bgd" || rc=$?
expect "exit status of the thawed rbmon (stderr: $(cat "$T/bgd.err"))" 1 "$rc"
expect "stdout of the thawed rbmon" "counter = $value" "$(cat "$T/bgd.out")"
expect "stderr of the thawed rbmon" "rbmon: thread $P: nosuch: no symbol \"nosuch\"" \
	"$(cat "$T/bgd.err")"
# The thread passes hooks now: whatever was left in use is freed.
wait_json "$f" "$(th "$P") | .watches == []" "the released parked thread's watch entries freed"

watch "$P" answer "cfg.table[0]" tls_value
[ "$WATCHED" -eq 0 ] ||
	fail "three watches on the released parked thread exited $WATCHED (stderr: $(cat "$T/watch.err"))"
expect "three watches on the released parked thread" \
	"answer = 42|cfg.table[0] = 10|tls_value = 0" "$(paste -sd '|' "$T/watch.out")"
expect "stderr of three watches on the released parked thread" "" "$(cat "$T/watch.err")"
dump_json "$f"
expect "the parked thread's watches after it answered" "[]" "$(jqv "$(th "$P") | .watches" -c)"
expect "thread states at the end" "running running running running running" \
	"$(jqv '[.processes[0].threads[] | .state] | join(" ")')"
# (main's entries: checked last)
still_live "at the end" "$pid"

stop_and_reap "$pid"
expect "exit status of the program" 0 "$REAPED"

exit 0
