#!/bin/bash
# SPDX-License-Identifier: MIT
# tui-source: v shows the source around a frame's line, read from the
# source file the debug information names (compared with the file
# itself); S saves the selected process's stacks as --dump text.
#
#  - tests/apps/tuithreads, thread west (dig_main, dig_down, dig_deeper,
#    dig_deepest, dig_bottom): in the thread list, v shows the innermost
#    frame's line (dig_bottom's definition); in the stack pane, on
#    dig_deeper (frame #2), the line of its call to dig_deepest; the
#    marked row holds that line's number and text as the file has them;
#    the title names the file's absolute path; Home, End and any other
#    key (back) behave;
#  - a program without debug information (tests/apps/watch-nodebug): v
#    says the frame has no source line, and nothing opens;
#  - S writes rbmon-tuithreads-PID-*.txt in rbmon's directory, whose frame
#    lines are those of rbmon --dump (without the ages).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

tuithreads_launch
tuithreads_known
src=$(readlink -f "$TUITHREADS_SRC")
mkdir "$T/cwd"

tui_start 100 40 env -C "$T/cwd" "$RBMON" -d 3 "$f"
tui_wait "^PID $pid $prog: alive, 6 threads" "the process row"
W=${TID[west]}
tui_keys /
tui_wait '^Search: ?$' "the search prompt"
tui_keys -l west
tui_keys Enter
tui_wait "^ Stack of thread $W \"west\"" "west's stack"
tui_keys Escape	# the search put the focus on the list; keep it there
tui_wait '^F1Help /Search TabPane EnterStack ' "the list focused"

# marked LINE - the marked row shows LINE of the source, as the file has it.
marked()
{
	local want text
	text=$(sed -n "$1p" "$src" | expand)
	tui_screen >"$T/screen"
	want=$(printf '>%*d %s' "$2" "$1" "$text")
	grep -Fxq -- "$(printf '%s' "$want" | sed 's/ *$//')" <(sed 's/ *$//' "$T/screen") ||
		{ echo "want: '$want'"; grep '^>' "$T/screen"; false; }
}
# The number column: as wide as the last line's number, plus one.
width=$(wc -l <"$src" | wc -c)
# The innermost frame from the list: dig_bottom's definition line.
tui_keys v
tui_wait "^ $src:$(L dig_bottom_def)  \(#0 dig_bottom\)" "the source title of frame #0"
poll "dig_bottom's definition marked" marked "$(L dig_bottom_def)" "$width"
tui_has '^Up/Down scroll  PgUp/PgDn page  Home/End ends  other keys: back' ||
	tui_fail "the source view's key bar"
tui_keys Home
tui_wait "^  *1 " "line 1 at the top after Home"
tui_keys End
n=$(wc -l <"$src")
tui_wait "^  *$n " "the last line after End"
tui_keys q	# back, and q does not quit from here
tui_wait '^F1Help /Search' "the monitor after the source view"
[ -s "$T/tui.rc" ] && tui_fail "q in the source view quit rbmon"

# From the stack pane, frame #2: dig_deeper, at its call to dig_deepest
# (two up from dig_main, the last row).
tui_keys Enter End Up Up
tui_keys v
tui_wait "^ $src:$(L dig_call_deepest)  \(#2 dig_deeper\)" "the source title of frame #2"
poll "the call marked" marked "$(L dig_call_deepest)" "$width"
tui_keys Escape
tui_wait '^F1Help /Search' "the monitor after Esc"

# S: the process's stacks saved, as --dump prints them.
tui_keys S
tui_wait "stacks of process $pid saved in \./rbmon-tuithreads-$pid-[0-9-]+\.txt" "the saved file's name"
saved=$(ls "$T"/cwd/rbmon-tuithreads-"$pid"-*.txt) || fail "no saved file in rbmon's directory"
"$RBMON" --dump "$f" >"$T/dump.txt" || fail "rbmon --dump failed"
# frames FILE - the frame lines of a dump, without their ages.
frames_of() { grep -E '^ +#[0-9]+ ' "$1" | sed -E 's/ +[0-9.]+(ns|us|ms|s|m|h)[0-9ms]* *$//'; }
expect "frame lines of the saved file" "$(frames_of "$T/dump.txt")" "$(frames_of "$saved")"
[ "$(frames_of "$saved" | wc -l)" -ge 18 ] || fail "too few frames saved: $(cat "$saved")"
tui_quit
tmx kill-session -t rbt

# No debug information: a clear note instead.
g=$T/nodebug.trace
traced nodebug RBTRACE_FILE="$g" RBT_READY="$T/nd.ready" "$APPS/watch-nodebug"
npid=$LAUNCHED
RBT_READY=$T/nd.ready wait_threads "$npid" ticker
tui_start 100 30 "$RBMON" -d 3 "$g"
tui_wait "^PID $npid " "the process row"
tui_keys v
tui_wait 'frame #0 \([a-z_]+\) has no source line in its debug information' "the note for a frame without a line"
tui_has '^F1Help /Search' || tui_fail "the monitor is not on screen after v without a source"
tui_quit "without debug information"
exit 0
