#!/bin/bash
# SPDX-License-Identifier: MIT
# break-cxx: breakpoints on real C++ functions (tests/apps/brk, built -O2),
# resolved by rbmon and checked against nm.
#
#  - Json::Value::operator[] has ten overloads, each split by GCC into its
#    entry and a .cold fragment (nm shows both, the fragments first in the
#    symbol table): BRKP sets the breakpoint on exactly nm's ten entry
#    addresses (at the load bias), never on a fragment; three rounds of
#    ten calls count hits=30 exactly;
#  - "descend<0>" names the template instance int descend<0>(int), as do
#    "int descend<0>(int)", "descend<0>(int)", "int descend<0>" and its
#    mangled name: one address, nm's; "descend<1>" is another, "descend<2>"
#    (never instantiated) no function; a hit count or "thread" after such
#    a name is still read as one;
#  - the breakpoint on descend<0> stops the worker at that function's
#    entry (frames[0] int descend<0>(int), at nm's address) while main runs
#    on; BCLR and CONT let the round finish.
# Every BRKP, BLST and BCLR goes to the main thread, which waits in read()
# all along, with --timeout 0.5: none of them needs a thread to answer.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/control.sh"
. "$(dirname "$0")/brk.sh"

f=$T/brk.trace
brk_start "$APPS/brk"
bias=$(load_bias "$PID" "$APPS/brk")
[ -n "$bias" ] || fail "no mapping of $APPS/brk in /proc/$PID/maps"

# The premise: GCC split every operator[] (nm lists the fragments).
ncold=$(nm --defined-only -C "$APPS/brk" | grep -c -E ' Json::Value::operator\[\]\(.*\[clone \.cold\]$')
[ "$ncold" -eq 10 ] ||
	fail "expected 10 Json::Value::operator[] .cold fragments in $APPS/brk, nm shows $ncold (built without -O2?)"
first=$(nm --defined-only -p "$APPS/brk" | grep -n -E '_ZN?K?4Json5Valueix' | head -n 1)
[[ $first == *.cold ]] ||
	fail "the symbol table lists an operator[] entry before the fragments: $first"
want=$(nm --defined-only -C "$APPS/brk" | grep -E ' Json::Value::operator\[\]\(' |
	grep -v '\[clone ' | sort | while read -r a _; do printf '%#x\n' $((0x$a + bias)); done | paste -sd, -)
[ "$(tr ',' '\n' <<<"$want" | wc -l)" -eq 10 ] || fail "nm: not 10 operator[] entries: $want"

# --- operator[]: ten locations, counted, none a fragment.
send_ok "$f" "$M" "BRKP Json::Value::operator[] 1000000000" \
	"breakpoint 1 at Json::Value::operator[] (10 locations), stops from hit 1000000000" --timeout 0.5
expect "BLST line of operator[]" \
	"1 hits=0 from=1000000000 thread=all at=$want Json::Value::operator[]" "$(blst_line "$f" "$M" 1)"
release main ooo
wait_round main 3 o
expect "BLST line of operator[] after 3 rounds of 10 calls" \
	"1 hits=30 from=1000000000 thread=all at=$want Json::Value::operator[]" "$(blst_line "$f" "$M" 1)"
send_ok "$f" "$M" "BCLR 1" "cleared breakpoint 1" --timeout 0.5

# --- Templates: every spelling names the one instance.
d0=$(nm_addrs "$APPS/brk" "$bias" ' int descend<0>\(int\)$')
d1=$(nm_addrs "$APPS/brk" "$bias" ' int descend<1>\(int\)$')
[ -n "$d0" ] && [ -n "$d1" ] && [ "$d0" != "$d1" ] || fail "nm: descend<0> at '$d0', descend<1> at '$d1'"
id=2
for name in 'descend<0>' 'int descend<0>(int)' 'descend<0>(int)' 'int descend<0>' \
	"$(nm --defined-only "$APPS/brk" | awk '$3 ~ /^_Z7descendILi0EEii$/ { print $3 }')"; do
	send_ok "$f" "$M" "BRKP $name 1000000000" \
		"breakpoint $id at $name, stops from hit 1000000000" --timeout 0.5
	expect "BLST line of '$name'" "$id hits=0 from=1000000000 thread=all at=$d0 $name" \
		"$(blst_line "$f" "$M" "$id")"
	send_ok "$f" "$M" "BCLR $id" "cleared breakpoint $id" --timeout 0.5
	id=$((id + 1))
done
send_ok "$f" "$M" "BRKP descend<1> 5 thread" \
	"breakpoint $id at descend<1>, stops from hit 5, thread $M only" --timeout 0.5
expect "BLST line of descend<1>" "$id hits=0 from=5 thread=$M at=$d1 descend<1>" \
	"$(blst_line "$f" "$M" "$id")"
send_ok "$f" "$M" "BCLR *" "cleared 1 breakpoint" --timeout 0.5
send_err "$f" "$M" "BRKP descend<2>" "no function 'descend<2>' in the program's symbols" --timeout 0.5
send_err "$f" "$M" "BRKP Json::Value::operator[](int) [clone .cold]" \
	"no function 'Json::Value::operator[](int) [clone .cold]' in the program's symbols" --timeout 0.5
cold=$(nm --defined-only "$APPS/brk" | awk '$3 ~ /^_ZN4Json5ValueixEi\.cold$/ { print $3 }')
[ -n "$cold" ] || fail "nm: no _ZN4Json5ValueixEi.cold"
send_err "$f" "$M" "BRKP $cold" "no function '$cold' in the program's symbols" --timeout 0.5

# --- A stop at descend<0>'s entry, in the worker; main runs on.
id=$((id + 1))
send_ok "$f" "$M" "BRKP descend<0>" "breakpoint $id at descend<0>" --timeout 0.5
release worker d
wait_stopped "$W" 1 "the worker stopped at descend<0>"
expect "stop reason" breakpoint "$(jqv "$(th "$W") | .stop.reason")"
expect "stop breakpoint" "$id" "$(jqv "$(th "$W") | .stop.breakpoint")"
expect "stop at" entry "$(jqv "$(th "$W") | .stop.at")"
expect "frames[0] at the stop" "int descend<0>(int)" "$(jqv "$(th "$W") | .frames[0].function")"
expect "frames[0]'s address at the stop (nm's)" "$d0" "$(jqv "$(th "$W") | .frames[0].address")"
release main o
wait_round main 4 o
dump_json "$f"
expect "main's state while the worker is stopped" running "$(jqv "$(th "$M") | .state")"
expect "main's stops" 0 "$(jqv "$(th "$M") | .stops")"
expect "BLST line at the stop" "$id hits=1 from=1 thread=all at=$d0 descend<0>" \
	"$(blst_line "$f" "$M" "$id")"
send_ok "$f" "$M" "BCLR $id" "cleared breakpoint $id" --timeout 0.5
send_ok "$f" "$W" CONT continuing
wait_round worker 1 d
dump_json "$f"
expect "the worker's stops after the round" 1 "$(jqv "$(th "$W") | .stops")"

release worker q
release main q
rc=0
wait "$PID" || rc=$?
expect "exit status" 0 "$rc"
exit 0
