#!/bin/bash
# SPDX-License-Identifier: MIT
# tui-display: how rbmon draws (tests/apps/tuithreads: six threads).
# Tree glyphs: "├─"/"└─" in a UTF-8 locale, "|-"/"`-" (and no byte beyond
# ASCII on the screen) with --ascii or LANG=C.  Colour: SGR colours under
# TERM=screen by default, none with --no-color or NO_COLOR=1, where the
# selection is drawn in reverse instead.  Space freezes the display: the
# header says "[frozen]", the ages stop, a thread started meanwhile does
# not show, moving the selection still works on the frozen data; space
# again resumes (the new thread shows, the ages move).  + and - step the
# refresh interval (0.1s 0.2s 0.3s 0.5s 1s 1.5s 2s ..., never below 0.1s)
# in the header and the message line, and the display really refreshes
# that often.  F1 and ? open the help screen, any key (even q) closes it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

tuithreads_launch
# The thread under main in the list (the lowest tid: normally north).
read -r N NN < <(awk '$1 == "thread" { print $3, $2 }' "$RBT_READY" | sort -n | head -n1)
[ -n "$N" ] || fail "no tids reported"
# Threads, and the tid of the list's last row (main first, then by tid).
NT=6
LAST=$(awk '$1 == "thread" { print $3 }' "$RBT_READY" | sort -n | tail -n1)

# has_colour - the last screen_attrs capture ($T/attrs) sets a foreground
# or background colour (SGR 30-37, 40-47, 90-97, 100-107, 38;..., 48;...).
has_colour()
{
	grep -o $'\e\\[[0-9;]*m' "$T/attrs" | tr -d '\033[m' | tr ';' '\n' |
		grep -Eqx '3[0-8]|4[0-8]|9[0-7]|10[0-7]'
}

# The list's rows (text only) and the header's counts of the last capture.
list_text() { grep -E '^(PID |├─|└─|\|-|`-)' "$T/screen"; }

# session NAME [VAR=VALUE...] [OPTIONS...] - rbmon in a new pane (the last
# one is ended first), the six threads on screen.
session()
{
	local name=$1
	shift
	tmx kill-server 2>/dev/null
	tui_start 80 24 "$@"
	tui_wait "^PID $pid $prog: alive, $NT threads\$" "the process row ($name)"
	tui_wait " $LAST [a-z]+ +running " "the last thread's row ($name)"
}

# ascii_screen NAME - ASCII tree glyphs on every thread row, "`-" closing
# the tree, no byte beyond ASCII anywhere on the screen.
ascii_screen()
{
	tui_screen >"$T/screen"
	expect "ASCII thread rows ($1)" "$NT" "$(grep -Ec '^(\|-|`-) +[0-9]+ ' "$T/screen")"
	expect "rows closing the tree ($1)" 1 "$(grep -Ec '^`- +[0-9]+ ' "$T/screen")"
	grep -Eq "^\`- +$LAST " "$T/screen" || tui_fail "the last row lacks \"\`-\" ($1)"
	LC_ALL=C grep -q $'[\x80-\xff]' "$T/screen" && tui_fail "bytes beyond ASCII on the screen ($1)"
	return 0
}

# ---- UTF-8, colour (the defaults); freeze, refresh interval, help.
session default "$RBMON" -d 1 "$f"
tui_screen >"$T/screen"
expect "UTF-8 thread rows" 6 "$(grep -Ec '^(├─|└─) +[0-9]+ ' "$T/screen")"
expect "rows closing the tree" 1 "$(grep -Ec '^└─ +[0-9]+ ' "$T/screen")"
grep -Eq "^└─ +$LAST " "$T/screen" || tui_fail "the last row lacks └─"
grep -Eq '^(\||`)-' "$T/screen" && tui_fail "ASCII glyphs in a UTF-8 locale"
screen_attrs
has_colour || tui_fail "no colour under TERM=screen by default"
poll "the selection in colour" attrs_are "^├─ +$pid $prog :$SEL bold=0 dim=0 ul=0 rev=0"
tui_has 'refresh 0\.1s  clock' || tui_fail "header with -d 1"

# Live: the ages move.
tui_screen >"$T/screen"
list_text >"$T/live.0"
ages_moved() { tui_screen >"$T/screen" && ! list_text | cmp -s - "$1"; }
poll "the ages to move while live" ages_moved "$T/live.0"

# Frozen: header, message, bar; nothing changes, even when a thread starts.
tui_keys Space
tui_wait '\[frozen\] refresh 0\.1s  clock' "[frozen] in the header"
tui_wait '^display frozen \(space resumes\)$' "the frozen message"
tui_has 'SpaceResume' || tui_fail "the bar label when frozen"
tui_screen >"$T/frozen.1"
kill -USR1 "$pid"
wait_ready late "$pid"
L=$(tid_of latecomer)
[ -n "$L" ] || fail "no tid reported for latecomer"
NT=7
LAST=$(awk '$1 == "thread" { print $3 }' "$RBT_READY" | sort -n | tail -n1)
sleep 0.5	# five refresh intervals: none may reread the file
tui_screen >"$T/frozen.2"
cmp -s "$T/frozen.1" "$T/frozen.2" || { diff "$T/frozen.1" "$T/frozen.2" >&2; tui_fail "the frozen screen changed"; }
grep -q latecomer "$T/frozen.2" && tui_fail "a thread started while frozen shows"
# Moving works on the frozen data: the ages stay as they were.
tui_keys Down
tui_wait "^ Stack of thread $N \"$NN\"" "$NN selected while frozen"
tui_screen >"$T/screen"
grep -E '^(PID |├─|└─)' "$T/frozen.1" >"$T/frozen.list"
list_text | cmp -s - "$T/frozen.list" || tui_fail "the list changed when moving while frozen"
tui_has 'Threads 6 alive, 0 exited, 0 gone' || tui_fail "header counts changed while frozen"

# Resumed: the new thread shows, the ages move.
tui_keys Space
tui_wait '^display live$' "the live message"
tui_wait "^(├─|└─) +$L latecomer +running " "the thread started while frozen"
tui_has 'Threads 7 alive, 0 exited, 0 gone' || tui_fail "header counts after resuming"
tui_lacks '\[frozen\]' || tui_fail "[frozen] stayed in the header"
tui_has 'SpaceFreeze' || tui_fail "the bar label when live"
list_text >"$T/live.1"
poll "the ages to move again" ages_moved "$T/live.1"

# + and -: the intervals, in the header and the message line.
interval() { tui_has "^refresh every ${1//./\\.}\$" && grep -q "refresh $1  clock" "$T/screen"; }
for d in 0.2s 0.3s 0.5s 1s 1.5s 2s; do
	tui_keys +
	poll "refresh $d after +" interval $d
done
for d in 1.5s 1s 0.5s 0.3s 0.2s 0.1s; do
	tui_keys -
	poll "refresh $d after -" interval $d
done
# Not below 0.1s: - then + is 0.2s.
tui_keys - +
poll "refresh 0.2s after - + at 0.1s" interval 0.2s
# = and _ are + and - without the shift key.
tui_keys '='
poll "refresh 0.3s after =" interval 0.3s
tui_keys _ _
poll "refresh 0.1s after _ _" interval 0.1s
# At 30s the display is reread no more (for this test's while); back at
# 0.1s it is at once.
tui_keys + + + + + + + + + + +
tui_wait '^refresh every 30s$' "the message at 30s"
tui_wait "refresh 30s  clock" "the header at 30s"
tui_screen >"$T/slow.1"
sleep 0.5	# five times the old interval
tui_screen >"$T/slow.2"
cmp -s "$T/slow.1" "$T/slow.2" || { diff "$T/slow.1" "$T/slow.2" >&2; tui_fail "the screen changed within a 30s interval"; }
tui_keys - - - - - - - - - - -
tui_wait '^refresh every 0\.1s$' "the message back at 0.1s"
grep -E '^(PID |├─|└─)' "$T/slow.2" >"$T/slow.list"
poll "the ages to move at 0.1s" ages_moved "$T/slow.list"

# Help: F1, any key closes it; ?, Down/j scroll it, q closes it too.
tui_keys F1
tui_wait '^rbmon: the live call stacks of a traced program$' "the help screen (F1)"
tui_has '^Keys$' || tui_fail "help without its Keys section"
tui_lacks '^F1Help' || tui_fail "the function bar over the help screen"
# h closes it, and only that (it does not also hide exited threads).
tui_keys h
tui_wait '^F1Help /Search' "the monitor after closing the help screen"
tui_lacks 'rbmon: the live call stacks' || tui_fail "help text left on screen"
tui_has 'hHideExited' || tui_fail "the key closing the help screen acted on the monitor"
tui_lacks 'exited threads (hidden|shown)' || tui_fail "the key closing the help screen acted on the monitor"
tui_has "^ Stack of thread $N \"$NN\"" || tui_fail "the selection changed by the help screen"
tui_keys ?
tui_wait '^rbmon: the live call stacks of a traced program$' "the help screen (?)"
tui_keys Down j
tui_wait '^The top lists every traced process' "the help screen scrolled by two rows"
[[ "$(tui_row 0)" == "The top lists every traced process"* ]] || tui_fail "help row 0 after scrolling: $(tui_row 0)"
tui_keys q
tui_wait '^F1Help /Search' "the monitor after q on the help screen"
[ -e "$T/tui.rc" ] && tui_fail "q on the help screen quit rbmon"
tui_quit default

# ---- --ascii (in a UTF-8 locale) and --no-color.
session "--ascii --no-color" "$RBMON" --ascii --no-color -d 1 "$f"
ascii_screen "--ascii"
screen_attrs
has_colour && { grep -o $'\e\\[[0-9;]*m' "$T/attrs" | sort | uniq -c >&2; tui_fail "colour with --no-color"; }
poll "the selection in reverse (--no-color)" attrs_are "^\\|- +$pid $prog :fg=39 bg=49 bold=0 dim=0 ul=0 rev=1"
tui_quit "--ascii --no-color"

# ---- LANG=C and NO_COLOR=1.
session "LANG=C NO_COLOR=1" LANG=C LC_CTYPE= NO_COLOR=1 "$RBMON" -d 1 "$f"
ascii_screen "LANG=C"
screen_attrs
has_colour && { grep -o $'\e\\[[0-9;]*m' "$T/attrs" | sort | uniq -c >&2; tui_fail "colour with NO_COLOR=1"; }
poll "the selection in reverse (NO_COLOR=1)" attrs_are "^\\|- +$pid $prog :fg=39 bg=49 bold=0 dim=0 ul=0 rev=1"
tui_quit "LANG=C NO_COLOR=1"

stop_and_reap "$pid"
expect "program exit status" 0 "$REAPED"
exit 0
