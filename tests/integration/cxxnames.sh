#!/bin/bash
# SPDX-License-Identifier: MIT
# cxxnames: long C++ names are shortened to fit, not cut at their end
# (tests/apps/cxxnames, parked under leveldb-like and std::string-like
# names, one frame inlined):
#  - in rbmon --dump text, a name longer than 100 columns loses its
#    template arguments (basic_text<...>) and the method stays whole;
#    template value arguments read as gdb prints them (pick<0, 1>); the
#    JSON keeps every name whole, as the demangler gives it;
#  - on an 80-column screen, the stack pane shows each method by its own
#    name (_M_mutate, _M_create, BackgroundThreadMain with its [inlined]
#    mark, BackgroundThreadEntryPoint), the scope cut in its middle;
#  - i on a frame of the stack pane shows its full name;
#  - the history (L) and the top view (P) show the two methods apart.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

[ -x "$APPS/cxxnames" ] || skip "no C++ compiler"
f=$T/cxxnames.trace
traced app RBTRACE_FILE="$f" "$APPS/cxxnames"
pid=$LAUNCHED
wait_ready cxxnames "$pid"

NS='leveldb::(anonymous namespace)::'
TEXT="basic_text<char, std::char_traits<char>, std::allocator<char> >"
dump_json "$f"
expect "names in the JSON" \
"int ${NS}pick<0ul, 1ul>()
${NS}${TEXT}::_M_mutate(unsigned long)
${NS}${TEXT}::_M_create(unsigned long&, unsigned long)
${NS}PosixEnv::BackgroundThreadMain()
${NS}PosixEnv::BackgroundThreadEntryPoint(${NS}PosixEnv*)
main" "$(jqv '.processes[0].threads[0].frames | map(.function) | join("\n")')"

"$RBMON" --dump "$f" >"$T/dump.txt" || fail "rbmon --dump failed"
frame() { sed -n "s/^    #$1 \\(.*\\) (cxxnames\\.cc:[0-9]*)\\(.*\\) [0-9.]*[mun]*s$/\\1\\2/p" "$T/dump.txt"; }
expect "frame #0 in the text" "int ${NS}pick<0, 1>()" "$(frame 0)"
expect "frame #1 in the text" "${NS}basic_text<...>::_M_mutate(unsigned long)" "$(frame 1)"
expect "frame #2 in the text" "${NS}basic_text<...>::_M_create(unsigned long&, unsigned long)" "$(frame 2)"
expect "frame #3 in the text" "${NS}PosixEnv::BackgroundThreadMain() [inlined]" "$(frame 3)"
expect "frame #4 in the text" "${NS}PosixEnv::BackgroundThreadEntryPoint(...)" "$(frame 4)"

tui_start 80 24 "$RBMON" "$f"
tui_wait '^#5 +main ' "the stack pane"
# Each row: "#N", the name in 39 columns, the file and line.
for want in '^#0 +[^ ]*::pick<…>\(\) +cxxnames\.cc' \
	'^#1 +[^ ]*::_M_mutate\(…\) +cxxnames\.cc' \
	'^#2 +[^ ]*::_M_create\(…\) +cxxnames\.cc' \
	'^#3 +[^ ]*::BackgroundThreadMain\(\) \[inlined\] +cxxnames\.cc' \
	'^#4 +[^ ]*::BackgroundThreadEntryPoint\(…\) +cxxnames\.cc'; do
	tui_has "$want" || tui_fail "no row /$want/"
done
tui_has '^#[0-9] +leveldb::\(anonymous' && tui_fail "a scope shown whole, its method cut"

# i on frame #2 shows it whole (wrapped to the width).
tui_keys Enter Down Down
tui_keys i
tui_wait '^ Frame #2 of thread' "the full name of frame #2"
got=$(tui_screen | sed -n '2,5p' | tr -d ' \n')
want=$(printf '%s' "${NS}${TEXT}::_M_create(unsigned long&, unsigned long)" | tr -d ' ')
case $got in
*"$want"*) ;;
*) tui_fail "the full name is not shown" ;;
esac
tui_keys q
tui_wait '^F1Help' "the main screen again"

# The history and the top view shorten them too.
tui_keys L
tui_wait '::_M_mutate\(\.\.\.\)\(\) \{' "_M_mutate in the history"
tui_has '::_M_create\(\.\.\.\)\(\) \{' || tui_fail "no _M_create in the history"
tui_keys q
tui_wait '^F1Help' "the main screen again"
tui_keys P
tui_wait '::_M_mutate\(…\) \(cxxnames\.cc\)' "_M_mutate in the top view"
tui_has '::_M_create\(…\) \(cxxnames\.cc\)' || tui_fail "no _M_create in the top view"
exit 0
