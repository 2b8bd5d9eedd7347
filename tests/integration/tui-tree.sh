#!/bin/bash
# SPDX-License-Identifier: MIT
# tui-tree: rbmon's list shows processes as a tree under their parents
# (tests/apps/forktree: a root, its children left and right, left's child
# leaf): each process's threads, then its child processes, indented, with
# ├─ └─ │ (|- `- | with --ascii) and "(child of PPID)"; Down/End/Home and a
# search walk the thread rows in tree order, each showing its own stack;
# when right is gone and h hides it, left closes the tree.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

f=$T/tree.trace
traced app RBTRACE_FILE="$f" "$APPS/forktree"
root=$LAUNCHED
wait_ready "root $root [0-9]+ [0-9]+" "$root"
left=$(ready_field root 3)
right=$(ready_field root 4)
wait_ready "left $left [0-9]+" "$root"
leaf=$(ready_field left 3)
wait_ready "leaf $leaf" "$root"
wait_ready "right $right" "$root"
R='[0-9][^ ]*s'		# the TIME column

# list_is RE... - the list's rows (between its title and the stack's)
# match the EREs, one each, in order.
list_is()
{
	local i=0 re
	tui_screen >"$T/screen"
	awk '/^ +TID NAME/ { on = 1; next } /^ Stack/ { on = 0 } on && NF' \
		"$T/screen" >"$T/list"
	for re in "$@"; do
		i=$((i + 1))
		sed -n "${i}p" "$T/list" | grep -Eq -- "^$re\$" ||
			{ echo "row $i: '$(sed -n "${i}p" "$T/list")', want /$re/"; return 1; }
	done
	[ "$(wc -l <"$T/list")" -eq "$i" ] ||
		{ echo "$(wc -l <"$T/list") rows, want $i:"; cat "$T/list"; return 1; }
}

# stack_of TID DEPTH FUNCTIONS - the stack pane shows thread TID's functions.
stack_of()
{
	tui_has "^ Stack of thread $1 \"forktree\": running, depth $2\$" ||
		{ echo "title: $(grep -E '^ Stack' "$T/screen")"; return 1; }
	[ "$(stack_rows | cut -d' ' -f1 | tr '\n' ' ')" == "$3 " ] ||
		{ echo "frames: $(stack_rows | cut -d' ' -f1 | tr '\n' ' ')"; return 1; }
}

tui_start 100 30 "$RBMON" -d 3 "$f"
tui_wait "^PID $root forktree: alive, 1 thread\$" "the root's process row"
poll "the tree" list_is \
	"PID $root forktree: alive, 1 thread" \
	"├─ +$root forktree +running +$KC +3 +$R root_park" \
	"├─ PID $left forktree: alive, 1 thread \\(child of $root\\)" \
	"│  ├─ +$left forktree +running +$KC +4 +$R left_park" \
	"│  └─ PID $leaf forktree: alive, 1 thread \\(child of $left\\)" \
	"│     └─ +$leaf forktree +running +$KC +4 +$R leaf_park" \
	"└─ PID $right forktree: alive, 1 thread \\(child of $root\\)" \
	"   └─ +$right forktree +running +$KC +3 +$R right_park"

poll "the root's thread selected" attrs_are "^├─ +$root :$SEL"
poll "the root's stack" stack_of "$root" 3 "root_park plant main"
tui_keys Down
poll "left's stack" stack_of "$left" 4 "left_park grow_left plant main"
poll "left's row selected" attrs_are "^│  ├─ +$left :$SEL" "^├─ +$root :fg=39"
tui_keys Down
poll "leaf's stack" stack_of "$leaf" 4 "leaf_park grow_left plant main"
tui_keys Down
poll "right's stack" stack_of "$right" 3 "right_park plant main"
tui_keys Down
poll "right's stack (the last row)" stack_of "$right" 3 "right_park plant main"
tui_keys Home
poll "the root's stack again" stack_of "$root" 3 "root_park plant main"
tui_keys End
poll "right's stack after End" stack_of "$right" 3 "right_park plant main"
tui_keys Up Up
poll "left's stack after Up Up" stack_of "$left" 4 "left_park grow_left plant main"

# A search finds the grandchild by the function it is parked in.
tui_keys /
tui_wait '^Search: ?$' "the search prompt"
tui_keys -l leaf_p
tui_wait '^Search: leaf_p$' "the typed text"
poll "leaf found" stack_of "$leaf" 4 "leaf_park grow_left plant main"
tui_keys Enter Escape
tui_wait 'EnterStack' "the list focused again"
poll "leaf's row selected" attrs_are "^│     └─ +$leaf :$SEL"

# right ends (killed by its parent, its ring not released): gone.
kill -USR1 "$root"
wait_ready "right gone" "$root"
poll "right gone, still under the root" list_is \
	"PID $root forktree: alive, 1 thread" \
	"├─ +$root forktree +running +$KC +3 +$R root_park" \
	"├─ PID $left forktree: alive, 1 thread \\(child of $root\\)" \
	"│  ├─ +$left forktree +running +$KC +4 +$R left_park" \
	"│  └─ PID $leaf forktree: alive, 1 thread \\(child of $left\\)" \
	"│     └─ +$leaf forktree +running +$KC +4 +$R leaf_park" \
	"└─ PID $right forktree: gone, 1 thread \\(child of $root\\)" \
	"   └─ +$right forktree +gone +$KC +3 +right_park"
# h hides it: left is the root's last child now, its bars go.
tui_keys h
tui_wait '^exited threads hidden \(h shows them\)' "the hide message"
poll "left closing the tree" list_is \
	"PID $root forktree: alive, 1 thread" \
	"├─ +$root forktree +running +$KC +3 +$R root_park" \
	"└─ PID $left forktree: alive, 1 thread \\(child of $root\\)" \
	"   ├─ +$left forktree +running +$KC +4 +$R left_park" \
	"   └─ PID $leaf forktree: alive, 1 thread \\(child of $left\\)" \
	"      └─ +$leaf forktree +running +$KC +4 +$R leaf_park"
poll "leaf still selected" attrs_are "^      └─ +$leaf :$SEL"
tui_quit

# --ascii: the same tree in ASCII.
tmx kill-server 2>/dev/null
tui_start 100 30 "$RBMON" --ascii -d 3 "$f"
tui_wait "^PID $root forktree: alive, 1 thread\$" "the root's process row (--ascii)"
poll "the tree in ASCII" list_is \
	"PID $root forktree: alive, 1 thread" \
	"\\|- +$root forktree +running +$KC +3 +$R root_park" \
	"\\|- PID $left forktree: alive, 1 thread \\(child of $root\\)" \
	"\\|  \\|- +$left forktree +running +$KC +4 +$R left_park" \
	"\\|  \`- PID $leaf forktree: alive, 1 thread \\(child of $left\\)" \
	"\\|     \`- +$leaf forktree +running +$KC +4 +$R leaf_park" \
	"\`- PID $right forktree: gone, 1 thread \\(child of $root\\)" \
	"   \`- +$right forktree +gone +$KC +3 +right_park"
tui_quit "--ascii"

stop_and_reap "$root"
expect "program exit status" 0 "$REAPED"
exit 0
