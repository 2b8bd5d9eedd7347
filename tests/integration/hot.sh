#!/bin/bash
# SPDX-License-Identifier: MIT
# hot: rbmon hot on a program whose call counts are known exactly
# (tests/apps/hot-main.c, hot-leaf.c), built here with the real compilers.
# The table gives the exact counts and gdb's definition lines; the flags it
# suggests, given back to GCC, really remove those functions' calls (and
# the one it warns a substring also removes), and no other; its file list
# removes just that file's; clang's -finstrument-functions-after-inlining,
# which it recommends, removes the inlined function's calls.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip "jq is not installed"
command -v gdb >/dev/null || skip "gdb is not installed"
GCC=${STACKS_GCC:-}
[ -n "$GCC" ] || skip "gcc was not found by configure"

SRCS="$APPS_SRC/hot-main.c $APPS_SRC/hot-leaf.c"

# build NAME COMPILER FLAGS... - the program, instrumented, as $T/NAME
build()
{
	local name=$1 cc=$2
	shift 2
	"$cc" -g -O2 -finstrument-functions "$@" -o "$T/$name" $SRCS \
		2>"$T/$name.cc.err" || fail "$cc $* failed: $(cat "$T/$name.cc.err")"
}

# record NAME - run $T/NAME under rbtrace record into $T/NAME.rbr
record()
{
	(cd "$T" && "$RBTRACE" record -o "$T/$1.rbr" --file "$T/$1.trace" -- \
		"$T/$1" >"$T/$1.out" 2>"$T/$1.err") ||
		fail "rbtrace record of $1 exited $?: $(cat "$T/$1.err")"
	grep -q '^sum ' "$T/$1.out" || fail "$1 printed no sum: $(cat "$T/$1.out")"
	grep -q ', 0 lost$' "$T/$1.err" || fail "$1's recording lost records: $(cat "$T/$1.err")"
}

# counts NAME - "function calls" lines of rbmon hot --json, by name
counts()
{
	"$RBMON" hot --json -n 100 "$T/$1.rbr" >"$T/$1.json" 2>"$T/$1.hot.err" ||
		fail "rbmon hot $1 exited $?: $(cat "$T/$1.hot.err")"
	jq -r '.functions[] | "\(.function) \(.calls)"' "$T/$1.json" | sort
}

# ---- the table -----------------------------------------------------------------
build plain "$GCC"
record plain
expect "calls of the plain build" "$(printf '%s\n' 'leaf_add 1000' 'leaf_add_all 2' \
	'leaf_mul 500' 'main 1' 'sq 200' 'walk 10')" "$(counts plain)"

# At a cost given, the estimate is that cost times the calls.
"$RBMON" hot --cost 15 "$T/plain.rbr" >"$T/plain.txt" 2>"$T/plain.txt.err" ||
	fail "rbmon hot exited $?: $(cat "$T/plain.txt.err")"
[ -s "$T/plain.txt.err" ] && fail "rbmon hot said: $(cat "$T/plain.txt.err")"
grep -qx '1,713 calls; the hooks, at 15 ns a call (given), took' "$T/plain.txt" ||
	fail "no total of 1,713 calls at 15 ns given: $(head -1 "$T/plain.txt")"
sed -n 2p "$T/plain.txt" | grep -q "^about 25.695 us of the threads' " ||
	fail "no estimate at 15 ns: $(head -2 "$T/plain.txt")"
# By default, at the cost measured in the run, which the line says.
"$RBMON" hot "$T/plain.rbr" >"$T/measured.txt" 2>"$T/measured.txt.err" ||
	fail "rbmon hot exited $?: $(cat "$T/measured.txt.err")"
cost=$(jq '.measured.cost_ns | round' "$T/plain.json")
[ "$cost" -gt 0 ] || fail "no cost measured: $(jq -c .measured "$T/plain.json")"
expect "the JSON's cost and its basis" "$cost measured" \
	"$(jq -r '"\(.cost_ns | round) \(.cost_basis)"' "$T/plain.json")"
grep -qx "1,713 calls; the hooks, at $cost ns a call (measured in this run, below), took" \
	"$T/measured.txt" || fail "no total at the measured $cost ns: $(head -1 "$T/measured.txt")"
jq -e '.measured.share <= 1 and .measured.hook_bounded_ns <= .thread_ns' "$T/plain.json" >/dev/null ||
	fail "the hooks' share is over the threads' time: $(jq -c .measured "$T/plain.json")"
# Every row's file:line is where gdb's info functions says it is defined.
for f in leaf_add leaf_mul walk main; do
	want=$(gdb -nx -batch -ex "info functions ^$f\$" "$T/plain" 2>/dev/null |
		awk '/^File / { file = $2; sub(/:$/, "", file); n = split(file, p, "/"); file = p[n] }
		     /^[0-9]+:/ { sub(/:.*/, ""); print file ":" $0; exit }')
	[ -n "$want" ] || fail "gdb knows no definition of $f"
	grep -Eq " $f  $want\$" "$T/plain.txt" ||
		fail "$f is not at gdb's $want: $(grep " $f " "$T/plain.txt")"
done
# Marked: 1% of the calls or more, main never.
expect "marked rows" "leaf_add leaf_mul sq" \
	"$(awk '$1 ~ /^[0-9]+$/ && $6 == "*" { printf "%s%s", s, $7; s = " " }' "$T/plain.txt")"
grep -qx "  (note: 'leaf_add' also excludes leaf_add_all: GCC matches substrings)" "$T/plain.txt" ||
	fail "no note of the substring match: $(cat "$T/plain.txt")"
grep -qx '  -finstrument-functions-exclude-file-list=hot-leaf.c' "$T/plain.txt" ||
	fail "no file list of hot-leaf.c: $(cat "$T/plain.txt")"
grep -q 'remove 99.2% of the calls (hooks: about 195 ns)' "$T/plain.txt" ||
	fail "no estimate of what excluding saves: $(cat "$T/plain.txt")"

flags=$("$RBMON" hot --flags "$T/plain.rbr")
expect "rbmon hot --flags" "-finstrument-functions-exclude-function-list=leaf_add,leaf_mul,sq" "$flags"
# --names: the same functions, one a line, for rbtrace --exclude @FILE.
expect "rbmon hot --names" "leaf_add
leaf_mul
sq" "$("$RBMON" hot --names "$T/plain.rbr")"
expect "-n 1 marks one" '["leaf_add"]' \
	"$("$RBMON" hot --json -n 1 "$T/plain.rbr" | jq -c .gcc_exclude_function_list)"
expect "the JSON's file list" '["hot-leaf.c"]' "$(jq -c .gcc_exclude_file_list "$T/plain.json")"
expect "the JSON's total" 1713 "$(jq .calls "$T/plain.json")"

# ---- the suggestions, given back to GCC ------------------------------------------
build nofunc "$GCC" "$flags"
record nofunc
expect "calls once the function list is excluded (leaf_add_all too, as noted)" \
	"$(printf '%s\n' 'main 1' 'walk 10')" "$(counts nofunc)"
# At the nominal cost: at the cost measured (tens of ns), walk, which
# calls nothing instrumented any more, is short enough to suggest.
expect "no suggestion left" "" "$("$RBMON" hot --cost 15 --flags "$T/nofunc.rbr")"

build nofile "$GCC" -finstrument-functions-exclude-file-list=hot-leaf.c
record nofile
expect "calls once hot-leaf.c is excluded" \
	"$(printf '%s\n' 'leaf_add_all 2' 'main 1' 'sq 200' 'walk 10')" "$(counts nofile)"

# ---- clang: before and after inlining ----------------------------------------------
if [ -n "${STACKS_CLANG:-}" ]; then
	build clang "$STACKS_CLANG"
	record clang
	expect "clang's calls (inlined sq still instrumented)" \
		"$(printf '%s\n' 'leaf_add 1000' 'leaf_add_all 2' 'leaf_mul 500' 'main 1' 'sq 200' 'walk 10')" \
		"$(counts clang)"
	build after "$STACKS_CLANG" -finstrument-functions-after-inlining
	record after
	expect "clang's calls after inlining (sq inlined, not instrumented)" \
		"$(printf '%s\n' 'leaf_add 1000' 'leaf_add_all 2' 'leaf_mul 500' 'main 1' 'walk 10')" \
		"$(counts after)"
	grep -q -- '-finstrument-functions-after-inlining' "$T/plain.txt" ||
		fail "no advice for clang: $(cat "$T/plain.txt")"
else
	note "clang not found by configure: its builds not checked"
fi

# ---- bad input ---------------------------------------------------------------------
"$RBMON" hot -n 0 "$T/plain.rbr" >/dev/null 2>"$T/e1"; rc=$?
expect "-n 0 exit" 2 "$rc"
expect "-n 0 message" "rbmon hot: invalid count '0' (1 to 100000)" "$(head -1 "$T/e1")"
"$RBMON" hot --cost -1 "$T/plain.rbr" >/dev/null 2>"$T/e2"; rc=$?
expect "--cost -1 exit" 2 "$rc"
"$RBMON" hot --json --flags "$T/plain.rbr" >/dev/null 2>"$T/e3"; rc=$?
expect "--json --flags exit" 2 "$rc"
"$RBMON" hot --names --flags "$T/plain.rbr" >/dev/null 2>"$T/e5"; rc=$?
expect "--names --flags exit" 2 "$rc"
printf 'not a recording, only a line of text long enough to hold a header\n' >"$T/bad.rbr"
"$RBMON" hot "$T/bad.rbr" >/dev/null 2>"$T/e4"; rc=$?
expect "a text file's exit" 1 "$rc"
expect "a text file" "rbmon hot: $T/bad.rbr: not a recording (no rbtrace record magic)" "$(cat "$T/e4")"
exit 0
