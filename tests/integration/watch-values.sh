#!/bin/bash
# SPDX-License-Identifier: MIT
# watch-values: rbmon --thread TID --watch EXPR prints one value, gdb-like.
#
#  - tests/apps/watch (with DWARF): integers (decimal, /x), char, _Bool,
#    double, enums and casts to them, a static, structs, members, indexing,
#    arithmetic, strings escaped like C, pointers printed as
#    "(TYPE *) 0xADDR <SYMBOL+OFFSET>" (the addresses checked against nm
#    and the load base), linked lists, a thread-local evaluated by its own thread (w1
#    1001, w2 1002), a 300-element array cut at 200 elements ("...") whose
#    text is longer than 512 bytes and still printed whole;
#  - values change live: counter read twice differs;
#  - errors: exit 1, nothing on stdout, "rbmon: thread TID: EXPR: MESSAGE"
#    on stderr, for an unknown symbol, a member of an int, a dereference of
#    an int, division by zero, an unknown member, a syntax error, a NULL
#    pointer and a pointer into unmapped memory; the program survives all
#    of them and counter still changes;
#  - tests/apps/watch-nodebug (symbols, no DWARF): a bare symbol is an error
#    asking for a cast, a cast reads it, an unknown symbol is still
#    'no symbol'.
# Every call leaves the thread's "watches" empty in the JSON dump.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/control.sh"

# watch FILE TID EXPR... - rbmon --watch, waiting up to 10 s; stdout to
# $T/watch.out, stderr to $T/watch.err, exit status to WATCHED.
watch()
{
	local file=$1 tid=$2 e args=()
	shift 2
	for e; do
		args+=(--watch "$e")
	done
	WATCHED=0
	"$RBMON" --thread "$tid" "${args[@]}" --timeout 10 "$file" \
		>"$T/watch.out" 2>"$T/watch.err" || WATCHED=$?
}

# freed_after FILE TID - the thread's watch entries are all free again.
freed_after()
{
	dump_json "$1"
	expect "watches of thread $2 after the call" "[]" \
		"$(jqv "$(th "$2") | .watches" -c)"
}

# watch_value FILE TID EXPR - one successful watch; its value in VALUE.
watch_value()
{
	watch "$1" "$2" "$3"
	[ "$WATCHED" -eq 0 ] ||
		fail "--watch '$3' on thread $2 exited $WATCHED, expected 0 (stderr: $(cat "$T/watch.err"))"
	expect "stderr of --watch '$3'" "" "$(cat "$T/watch.err")"
	expect "lines printed for --watch '$3'" 1 "$(wc -l <"$T/watch.out")"
	VALUE=$(cat "$T/watch.out")
}

# watch_ok FILE TID EXPR VALUE - EXPR must print exactly VALUE.
watch_ok()
{
	watch_value "$1" "$2" "$3"
	expect "value of '$3' (thread $2)" "$4" "$VALUE"
	freed_after "$1" "$2"
}

# re_quote TEXT - TEXT as an extended regex matching itself.
re_quote() { printf '%s' "$1" | sed 's/[][\\.*^$(){}+?|/]/\\&/g'; }

# watch_like FILE TID EXPR TEMPLATE - EXPR must print TEMPLATE, where each
# ADDR in it stands for a hex address 0x[0-9a-f]+.
watch_like()
{
	local re rest=$4
	re='^'
	while [[ $rest == *ADDR* ]]; do
		re+="$(re_quote "${rest%%ADDR*}")0x[0-9a-f]+"
		rest=${rest#*ADDR}
	done
	re+="$(re_quote "$rest")\$"
	watch_value "$1" "$2" "$3"
	[[ $VALUE =~ $re ]] ||
		fail "value of '$3' (thread $2): expected '$4' (ADDR: a hex address), got '$VALUE'"
	freed_after "$1" "$2"
}

# watch_err FILE TID EXPR MESSAGE [prefix] - EXPR must fail with MESSAGE
# (with "prefix": with a message starting with MESSAGE).
watch_err()
{
	local want="rbmon: thread $2: $3: $4" got
	watch "$1" "$2" "$3"
	expect "exit status of --watch '$3' (stderr: $(cat "$T/watch.err"))" 1 "$WATCHED"
	expect "stdout of --watch '$3'" "" "$(cat "$T/watch.out")"
	got=$(cat "$T/watch.err")
	if [ "${5:-}" = prefix ]; then
		[[ $got == "$want"* && $got != *$'\n'* ]] ||
			fail "stderr of --watch '$3': expected one line starting '$want', got '$got'"
	else
		expect "stderr of --watch '$3'" "$want" "$got"
	fi
	freed_after "$1" "$2"
}

# sym FILE PID SYMBOL - the runtime address of SYMBOL (nm value + load
# base of the PIE, the program's mapping at file offset 0), as 0x%x.
sym()
{
	local exe base v
	exe=$(readlink "/proc/$2/exe")
	base=$(awk -v p="$exe" '$6 == p && $3 == "00000000" { sub(/-.*/, "", $1); print $1; exit }' \
		"/proc/$2/maps")
	v=$(nm "$exe" | awk -v s="$3" '$3 == s { print $1; exit }')
	[ -n "$base" ] && [ -n "$v" ] || fail "no address for $3 in $exe (base '$base', nm '$v')"
	printf '0x%x\n' $((0x$base + 0x$v))
}

# unmapped PID ADDR - ADDR is in no mapping of PID.
unmapped()
{
	local lo hi a=$(($2))
	while IFS='- ' read -r lo hi _; do
		if ((a >= 0x$lo && a < 0x$hi)); then
			return 1
		fi
	done <"/proc/$1/maps"
	return 0
}

# counter_moved FILE TID FIRST - counter now differs from FIRST (wait_for).
counter_moved()
{
	watch "$1" "$2" counter
	[ "$WATCHED" -eq 0 ] && [[ $(cat "$T/watch.out") =~ ^[0-9]+$ ]] &&
		[ "$(cat "$T/watch.out")" -gt "$3" ] && {
		echo "counter $(cat "$T/watch.out") after $3"
		return 0
	}
	echo "exit $WATCHED, stdout '$(cat "$T/watch.out")', stderr '$(cat "$T/watch.err")', first $3"
	return 1
}

# live FILE TID DESC - counter changes between two watches.
live()
{
	local first
	watch_value "$1" "$2" counter
	[[ $VALUE =~ ^[0-9]+$ ]] || fail "counter ($3): not a number: '$VALUE'"
	first=$VALUE
	wait_for "counter to change from $first ($3)" counter_moved "$1" "$2" "$first"
}

# --- The program with debug info.
f=$T/watch.trace
traced app RBTRACE_FILE="$f" "$APPS/watch"
pid=$LAUNCHED
wait_threads "$pid" ticker w1 w2 parked
K=$(tid_of ticker)
W1=$(tid_of w1)
W2=$(tid_of w2)
FREED=$(ready_field freed 2)
[[ $FREED =~ ^0x[0-9a-f]+$ ]] || fail "bad freed line: '$FREED'"

dump_json "$f"
expect_jq "every thread has an empty \"watches\" array before any watch" \
	'[.processes[0].threads[] | .watches == []] | all'

# Integers.
live "$f" "$K" "ticker"
watch_ok "$f" "$K" answer 42
watch_ok "$f" "$K" answer/x 0x2a
watch_ok "$f" "$K" neg -5
watch_ok "$f" "$K" neg/x 0xfffb
watch_ok "$f" "$K" mask 255
watch_ok "$f" "$K" file_static 7
# char, _Bool, double, enums.
watch_ok "$f" "$K" letter "65 'A'"
watch_ok "$f" "$K" flag true
watch_ok "$f" "$K" ratio 2.5
watch_ok "$f" "$K" color GREEN
watch_ok "$f" "$K" "(enum color)2" BLUE
# Structs, members, indexing, arithmetic.
watch_like "$f" "$K" cfg \
	'{verbose = 1, name = "demo", pos = {x = 3, y = 4}, table = {10, 20, 30, 40}, title = ADDR "Title"}'
watch_ok "$f" "$K" cfg.pos "{x = 3, y = 4}"
watch_ok "$f" "$K" "cfg.table[2]" 30
watch_ok "$f" "$K" "cfgp->name" '"demo"'
watch_ok "$f" "$K" "cfg.pos.y * 10 + 1" 41
watch_ok "$f" "$K" "cfg.table[1] / 3" 6
watch_ok "$f" "$K" "-cfg.verbose" -1
# Strings are escaped like C.
watch_like "$f" "$K" greeting 'ADDR "hello, \"world\"\n"'
# Pointers and lists; the addresses are the symbols'.
cfg_addr=$(sym "$f" "$pid" cfg)
n2_addr=$(sym "$f" "$pid" n2)
watch_ok "$f" "$K" "*list" "{value = 1, next = $n2_addr <n2>}"
watch_ok "$f" "$K" "list->next->next->value" 3
watch_ok "$f" "$K" "list->next->next->next" "(struct node *) 0x0"
watch_ok "$f" "$K" "&cfg" "(struct config *) $cfg_addr <cfg>"
watch_ok "$f" "$K" cfgp "(struct config *) $cfg_addr <cfg>"
watch_ok "$f" "$K" "*&cfg.pos.x" 3
watch_ok "$f" "$K" "(long)answer" 42
watch_ok "$f" "$K" "(char)65" "65 'A'"
# pos follows int verbose and char name[16]: offset 20.
watch_ok "$f" "$K" "(struct point *)&cfg.pos" \
	"(struct point *) $(printf '0x%x' $((cfg_addr + 20))) <cfg+20>"
watch_ok "$f" "$K" "((struct point *)&cfg.pos)->y" 4
watch_ok "$f" "$K" nullp "(int *) 0x0"
# A thread-local is evaluated by the thread itself.
watch_ok "$f" "$W1" tls_value 1001
watch_ok "$f" "$W2" tls_value 1002

# The 300-element array: 200 elements, then "...", longer than 512 bytes.
want='{'
for ((i = 0; i < 200; i++)); do
	want+="$i, "
done
want="${want%, }...}"
[ "${#want}" -gt 512 ] || fail "big's expected text is only ${#want} bytes: not a test"
watch_ok "$f" "$K" big "$want"

# --- Errors.
watch_err "$f" "$K" nosuch 'no symbol "nosuch"'
watch_err "$f" "$K" counter.x '"." needs a struct or union' prefix
watch_err "$f" "$K" "*counter" "cannot dereference" prefix
watch_err "$f" "$K" "counter / 0" "division by zero"
watch_err "$f" "$K" cfg.nosuch 'no member "nosuch" in struct config'
watch_err "$f" "$K" "1 +" "syntax error" prefix
watch_err "$f" "$K" "*nullp" "cannot read 0x0"
unmapped "$pid" "$FREED" ||
	fail "freed ($FREED) is mapped again in the program: cannot test it (maps: $(cat "/proc/$pid/maps"))"
watch_err "$f" "$K" "*freed" "cannot read $FREED"
watch_err "$f" "$W1" "*freed" "cannot read $FREED"
# The program survived all of that, and is still live.
kill -0 "$pid" 2>/dev/null || fail "the program died after the errors: $(cat "$T/app.err")"
live "$f" "$K" "after the errors"
watch_ok "$f" "$W2" "cfg.table[3]" 40
dump_json "$f"
expect "thread states after the errors" "running running running running running" \
	"$(jqv '[.processes[0].threads[] | .state] | join(" ")')"

# --- Without debug info: symbols only.
if command -v readelf >/dev/null; then
	readelf -S "$APPS/watch-nodebug" | grep -q '\.symtab' ||
		fail "$APPS/watch-nodebug has no .symtab"
	! readelf -S "$APPS/watch-nodebug" | grep -q '\.debug_info' ||
		fail "$APPS/watch-nodebug has DWARF (.debug_info): not a test"
fi
g=$T/nodebug.trace
traced nodebug RBTRACE_FILE="$g" RBT_READY="$T/nodebug.ready" "$APPS/watch-nodebug"
npid=$LAUNCHED
RBT_READY=$T/nodebug.ready wait_ready "main $npid" "$npid"
RBT_READY=$T/nodebug.ready wait_ready "thread ticker [0-9]+" "$npid"
NK=$(RBT_READY=$T/nodebug.ready tid_of ticker)
watch "$g" "$NK" counter
expect "exit status of --watch counter without debug info (stderr: $(cat "$T/watch.err"))" \
	1 "$WATCHED"
expect "stdout of --watch counter without debug info" "" "$(cat "$T/watch.out")"
got=$(cat "$T/watch.err")
[[ $got == "rbmon: thread $NK: counter: "* && $got == *"has no debug info"* &&
	$got == *cast* && $got != *$'\n'* ]] ||
	fail "stderr of --watch counter without debug info: expected one line 'rbmon: thread $NK: counter: ...has no debug info...cast...', got '$got'"
freed_after "$g" "$NK"
watch_value "$g" "$NK" "(int)counter"
[[ $VALUE =~ ^[0-9]+$ ]] || fail "(int)counter without debug info: not a number: '$VALUE'"
freed_after "$g" "$NK"
watch_err "$g" "$NK" "(int)nosuch" 'no symbol "nosuch"'

for p in "$pid" "$npid"; do
	stop_and_reap "$p"
	expect "exit status of $p" 0 "$REAPED"
done
exit 0
