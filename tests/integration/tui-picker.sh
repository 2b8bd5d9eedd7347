#!/bin/bash
# SPDX-License-Identifier: MIT
# tui-picker: plain `rbmon` on a terminal lists the user's trace files
# ($RBTRACE_DIR, $TMPDIR, /tmp) to pick from: a live program's file with
# its pid, program, state and threads; a corrupt file as "bad" with the
# reason rbmon gives for it; a file created later shows up by itself.
# Up/Down/j/k move the selection; Enter on the corrupt file keeps the
# picker, with the error on the second-last row; Enter on the live one
# opens it in the monitor; q quits the picker (status 0), and the terminal
# is restored both ways.  Not on a terminal, plain `rbmon` is a usage error.
#
# /tmp is always searched, so files of others may be listed too: the test
# finds its own rows by path and moves relative to them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

COLS=160
# Room for every trace file the picker will find, this test's and /tmp's.
ROWS=$(($(find /tmp -maxdepth 1 -name '*.trace' 2>/dev/null | wc -l) + 40))
[ "$ROWS" -le 1000 ] || skip "too many trace files in /tmp for one screen of the picker"
realT=$(realpath "$T")

# Not on a terminal: status 2, a usage message, no output.
rc=0
"$RBMON" </dev/null >"$T/usage.out" 2>"$T/usage.err" || rc=$?
expect "plain rbmon not on a terminal: status" 2 "$rc"
expect "plain rbmon not on a terminal: stdout" "" "$(cat "$T/usage.out")"
grep -q "^rbmon: ." "$T/usage.err" || fail "no 'rbmon: ' message: $(cat "$T/usage.err")"
grep -Fxq "Try 'rbmon --help'." "$T/usage.err" || fail "no pointer to --help: $(cat "$T/usage.err")"

junk=$realT/junk.trace
head -c 1000 /dev/urandom >"$junk"
rc=0
"$RBMON" --dump "$junk" >/dev/null 2>"$T/junk.err" || rc=$?
expect "rbmon --dump on the corrupt file" 1 "$rc"
cause=$(sed -n "s|^rbmon: $junk: ||p" "$T/junk.err")
[ -n "$cause" ] || fail "no cause for the corrupt file: $(cat "$T/junk.err")"

traced life TMPDIR="$T" "$APPS/tuilife"
pid=$LAUNCHED
wait_ready "main $pid" "$pid"
wait_ready "lifeworker [0-9]+" "$pid"
life=$realT/tuilife.$pid.trace
[ -f "$life" ] || fail "no trace file $life (has: $(ls "$T"))"

# paths - the FILE column of the list's rows, top to bottom.
paths()
{
	tui_screen | sed -n "5,$((ROWS - 2))p" |
		awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) { print $i; break } }'
}

# index_of PATH - its 0-based row in the list.
index_of()
{
	local i
	i=$(paths | grep -nxF -- "$1" | cut -d: -f1)
	[ -n "$i" ] || tui_fail "$1 is not listed"
	echo $((i - 1))
}

# selected - the FILE of the list row drawn in reverse video (NO_COLOR).
selected()
{
	tui_screen_attrs | awk -v first=4 -v last=$((ROWS - 3)) '
	BEGIN { sgr = "\033\\[[0-9;]*m" }
	{
		line = $0; text = ""; seen = 0
		while (line != "") {
			if (match(line, sgr)) {
				seg = substr(line, 1, RSTART - 1)
				code = substr(line, RSTART + 2, RLENGTH - 3)
				line = substr(line, RSTART + RLENGTH)
			} else {
				seg = line; code = "none"; line = ""
			}
			if (seg != "" && rev)
				seen = 1
			text = text seg
			if (code == "none")
				continue
			n = split(code, c, ";")
			if (n == 0)
				rev = 0
			for (i = 1; i <= n; i++) {
				if (c[i] == "" || c[i] == "0" || c[i] == "27")
					rev = 0
				else if (c[i] == "7")
					rev = 1
			}
		}
		if (NR - 1 >= first && NR - 1 <= last && seen) {
			n = split(text, f, " ")
			for (i = 1; i <= n; i++)
				if (f[i] ~ /^\//) { print f[i]; break }
		}
	}'
}

is_selected() { [ "$(selected)" == "$1" ]; }

# keys_to PATH - press Down or Up until PATH (listed now) is selected, one
# press per row between them.
keys_to()
{
	local from to key=Down k=()
	from=$(index_of "$(selected)") || exit 1
	to=$(index_of "$1") || exit 1
	[ "$to" -lt "$from" ] && key=Up
	while [ "$from" -ne "$to" ]; do
		k+=("$key")
		from=$((from + (to > from ? 1 : -1)))
	done
	[ ${#k[@]} -gt 0 ] && tui_keys "${k[@]}"
	wait_for "$1 to be selected" is_selected "$1"
}

tui_start "$COLS" "$ROWS" NO_COLOR=1 RBTRACE_DIR="$T" TMPDIR="$T" "$RBMON"
# The key bar is drawn last: the rows above it are complete then.
tui_wait "^EnterOpen Up/DownMove qQuit *\$" "the picker's key bar"
tui_has "^rbmon: pick a trace file *\$" || tui_fail "no title"
tui_has "^searched $realT /tmp *\$" || tui_fail "the searched line is not '$realT /tmp'"
tui_has "^ +PID PROGRAM +STATE +THREADS +AGE +FILE *\$" || tui_fail "no table header"
expect "alternate screen while picking" 1 "$(tui_pane '#{alternate_on}')"
tui_wait "^ +$pid tuilife +alive +2 +[^ ]+ +$life *\$" "the live program's row"
[ "$(paths | wc -l)" -lt $((ROWS - 8)) ] ||
	skip "too many trace files in /tmp for one screen of the picker"
tui_has "^ +- +- +bad +- +- +$junk \($cause\) *\$" ||
	tui_fail "the corrupt file is not listed as bad with '($cause)'"

# A file created now appears by itself.
later=$realT/later.trace
tui_lacks "$later" || tui_fail "$later listed before it exists"
traced later RBTRACE_FILE="$later" "$APPS/parked"
lpid=$LAUNCHED
wait_ready "main $lpid" "$lpid"
WAIT_TIMEOUT=10 tui_wait "^ +$lpid parked +alive +2 +[^ ]+ +$later *\$" "the new file's row"
tui_has "^ +$pid tuilife +alive" || tui_fail "the first file's row went away"

# The selection starts on the first row and follows the keys.
wait_for "the first row to be selected" is_selected "$(paths | head -n 1)"
keys_to "$life"
i=$(index_of "$life") || exit 1
below=$(paths | sed -n "$((i + 2))p")
[ -n "$below" ] || tui_fail "no row below $life"
tui_keys j
wait_for "j to select the row below" is_selected "$below"
tui_keys k
wait_for "k to select $life again" is_selected "$life"
tui_keys Down
wait_for "Down to select the row below" is_selected "$below"
tui_keys Up
wait_for "Up to select $life again" is_selected "$life"

# Enter on the corrupt file: the picker stays, with the error.
keys_to "$junk"
tui_keys Enter
tui_wait "^$junk: $cause *\$" "the error for the corrupt file"
n=$(tui_screen | grep -nxE -- "$junk: $cause *" | cut -d: -f1)
expect "the row the error is on" "$((ROWS - 2))" "$((${n:-0} - 1))"
tui_has "^rbmon: pick a trace file *\$" || tui_fail "the picker went away"
kill -0 "$pid" || fail "tuilife died"

# Enter on the live one: the monitor on it.
keys_to "$life"
tui_keys Enter
tui_wait "^[^ 0-9A-Za-z]+ +[0-9]+ +lifeworker +running +$KC +3 +[^ ]+ +life_inner *\$" \
	"the monitor's worker row"
tui_has "^PID $pid tuilife: alive, 2 threads *\$" || tui_fail "no process row for $pid"
tui_has "^tuilife  $life " || tui_fail "the monitor's header does not name $life"
tui_lacks "pick a trace file" || tui_fail "the picker is still shown"
tui_keys q
tui_wait_exit
expect "rbmon status after picking and q" 0 "$TUI_RC"
tui_restored
[ -s "$T/tui.err" ] && fail "rbmon wrote to stderr: $(cat "$T/tui.err")"

# q in the picker.
tmx kill-server 2>/dev/null
tui_start "$COLS" "$ROWS" NO_COLOR=1 RBTRACE_DIR="$T" TMPDIR="$T" "$RBMON"
tui_wait "^ +$pid tuilife +alive +2 +[^ ]+ +$life *\$" "the live program's row"
tui_keys q
tui_wait_exit
expect "rbmon status after q in the picker" 0 "$TUI_RC"
tui_restored
[ -s "$T/tui.err" ] && fail "rbmon wrote to stderr: $(cat "$T/tui.err")"
exit 0
