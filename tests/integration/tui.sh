# tests/integration/tui.sh - drive the real rbmon in a real terminal (tmux).
#
# Source it after lib.sh.  Each test gets a tmux server of its own (socket
# in $T), one session "rbt" whose pane runs the command under test through
# a wrapper that records the terminal settings before and after it and its
# exit status, then keeps the pane alive (tmux reports a dead pane's modes
# as reset), so the terminal state rbmon left behind can still be read.  Nothing sleeps and hopes:
# tui_wait polls the screen, bounded by WAIT_TIMEOUT.

command -v tmux >/dev/null || skip "tmux is not installed"

TUI_SOCK=$T/tmux.sock
TUI_TERM=${TUI_TERM:-screen}

tmx() { tmux -S "$TUI_SOCK" -f /dev/null "$@"; }

tui_cleanup()
{
	tmx kill-server 2>/dev/null
	lib_cleanup
}
trap tui_cleanup EXIT

# tui_start COLS ROWS [VAR=VALUE...] CMD [ARGS...] - run CMD in a new pane
# of COLS x ROWS with TERM=$TUI_TERM and a UTF-8 locale (the VAR=VALUE
# words override).  $T/tui.rc gets CMD's exit status, $T/stty.before and
# $T/stty.after the terminal settings around it.
tui_start()
{
	local cols=$1 rows=$2 q
	shift 2
	q=$(printf '%q ' "$@")
	cat >"$T/tui.run" <<-EOF
	stty -g >"$T/stty.before"
	env TERM=$TUI_TERM LANG=C.UTF-8 LC_ALL= $q 2>"$T/tui.err"
	rc=\$?
	stty -g >"$T/stty.after"
	echo \$rc >"$T/tui.rc"
	exec sleep 3600
	EOF
	rm -f "$T/tui.rc"
	tmx new-session -d -s rbt -x "$cols" -y "$rows" \
		"exec bash $(printf '%q' "$T/tui.run")" ||
		fail "tmux new-session failed"
	tmx set-option -t rbt remain-on-exit on >/dev/null
	tmx set-option -t rbt status off >/dev/null
	tmx set-window-option -t rbt window-size manual >/dev/null 2>&1 || :
}

# tui_screen - the visible screen, one line per row.
tui_screen() { tmx capture-pane -p -t rbt; }

# tui_screen_attrs - the screen with its attributes as escape sequences.
tui_screen_attrs() { tmx capture-pane -p -e -t rbt; }

# tui_row N - row N (0-based) of the screen.
tui_row() { tui_screen | sed -n "$(($1 + 1))p"; }

# tui_keys KEY... - type keys (tmux send-keys names: Enter, Up, F1, C-c).
tui_keys() { tmx send-keys -t rbt "$@"; }

# tui_has ERE - the screen shows a line matching ERE.
tui_has() { tui_screen >"$T/screen" && grep -Eq -- "$1" "$T/screen"; }

# tui_lacks ERE - no line of the screen matches ERE.
tui_lacks() { tui_screen >"$T/screen" && ! grep -Eq -- "$1" "$T/screen"; }

tui_fail()
{
	echo "--- screen:" >&2
	tui_screen >&2
	[ -s "$T/tui.err" ] && { echo "--- rbmon stderr:" >&2; cat "$T/tui.err" >&2; }
	fail "$@"
}

# tui_wait ERE DESCRIPTION - wait until the screen shows ERE.
tui_wait()
{
	local deadline=$((SECONDS + WAIT_TIMEOUT))
	until tui_has "$1"; do
		[ "$SECONDS" -ge "$deadline" ] &&
			tui_fail "timed out after ${WAIT_TIMEOUT}s waiting for $2 (/$1/)"
		sleep 0.1
	done
}

# tui_wait_gone ERE DESCRIPTION - wait until no line shows ERE.
tui_wait_gone()
{
	local deadline=$((SECONDS + WAIT_TIMEOUT))
	until tui_lacks "$1"; do
		[ "$SECONDS" -ge "$deadline" ] &&
			tui_fail "timed out after ${WAIT_TIMEOUT}s waiting for $2 to go (/$1/)"
		sleep 0.1
	done
}

# tui_wait_exit - wait for the pane's command to end; sets TUI_RC.
tui_wait_exit()
{
	local deadline=$((SECONDS + WAIT_TIMEOUT))
	until [ -s "$T/tui.rc" ]; do
		[ "$SECONDS" -ge "$deadline" ] &&
			tui_fail "timed out after ${WAIT_TIMEOUT}s waiting for rbmon to exit"
		sleep 0.1
	done
	TUI_RC=$(cat "$T/tui.rc")
}

# tui_pane FORMAT - a tmux format of the pane (#{alternate_on}, ...).
tui_pane() { tmx display-message -p -t rbt "$1"; }

# tui_restored - after the command ended: the terminal is as it was
# (same stty settings, normal screen, cursor shown, no mouse, no keypad).
tui_restored()
{
	expect "stty settings after rbmon" "$(cat "$T/stty.before")" "$(cat "$T/stty.after")"
	expect "alternate screen off" 0 "$(tui_pane '#{alternate_on}')"
	expect "cursor visible" 1 "$(tui_pane '#{cursor_flag}')"
	expect "mouse reporting off" 0 "$(tui_pane '#{mouse_any_flag}')"
	expect "keypad mode off" 0 "$(tui_pane '#{keypad_flag}')"
}

# tui_resize COLS ROWS
tui_resize() { tmx resize-window -t rbt -x "$1" -y "$2"; }

# tui_size - "COLS ROWS" of the pane as tmux has it.
tui_size() { tui_pane '#{pane_width} #{pane_height}'; }
