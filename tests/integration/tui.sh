# SPDX-License-Identifier: MIT
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
	env TERM=$TUI_TERM LANG=C.UTF-8 LC_ALL= XDG_STATE_HOME=$T/state $q 2>"$T/tui.err"
	rc=\$?
	stty -g >"$T/stty.after"
	echo \$rc >"$T/tui.rc"
	exec sleep 3600
	EOF
	# A tmux server starting on a loaded machine now and then dies
	# before it answers ("server exited unexpectedly"): the session then
	# does not exist and nothing ran in it, so start it again.
	local try
	for try in 1 2 3; do
		rm -f "$T/tui.rc"
		tmx new-session -d -s rbt -x "$cols" -y "$rows" \
			"exec bash $(printf '%q' "$T/tui.run")" 2>"$T/tmux.err" && break
		tmx has-session -t rbt 2>/dev/null && break
		[ "$try" -lt 3 ] || fail "tmux new-session failed: $(cat "$T/tmux.err")"
		echo "tmux new-session failed ($(cat "$T/tmux.err")), again" >&2
		sleep 1
	done
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

# rbmon_pid - the pid of the rbmon the pane runs (bash -> env -> rbmon).
rbmon_pid()
{
	local c exe
	exe=$(readlink -f "$RBMON")
	for c in $(pgrep -P "$(tui_pane '#{pane_pid}')"); do
		[ "$(readlink "/proc/$c/exe")" == "$exe" ] && { echo "$c"; return 0; }
	done
	return 1
}

# tui_resize COLS ROWS
tui_resize() { tmx resize-window -t rbt -x "$1" -y "$2"; }

# tui_size - "COLS ROWS" of the pane as tmux has it.
tui_size() { tui_pane '#{pane_width} #{pane_height}'; }

# tui_quit [NAME] - q: rbmon exits 0, terminal restored, stderr empty (NAME in the messages).
tui_quit()
{
	local what=${1:+ ($1)}
	tui_keys q
	tui_wait_exit
	expect "rbmon exit status$what" 0 "$TUI_RC"
	tui_restored
	[ ! -s "$T/tui.err" ] || fail "rbmon wrote to stderr$what: $(cat "$T/tui.err")"
}

# ---- Checks that look closer.  poll and soon run a check (CMD...) every
# 0.05s and keep what it last printed in $T/poll.last.  screen_attrs writes
# $T/plain (the text), $T/rowattr (the state of each row's first cell) and
# $T/runs ("ROW<tab>STATE<tab>TEXT" for each run of text drawn alike, ROW
# 1-based); a state is "fg=N bg=N bold=B dim=D ul=U rev=R", followed from the
# top of the screen (tmux only writes changes).

# poll DESCRIPTION CMD... - wait until CMD succeeds; on timeout fail showing its last output.
poll()
{
	local desc=$1 deadline=$((SECONDS + WAIT_TIMEOUT))
	shift
	until "$@" >"$T/poll.last" 2>&1; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			echo "--- last check output:" >&2
			cat "$T/poll.last" >&2
			tui_fail "timed out after ${WAIT_TIMEOUT}s waiting for $desc"
		fi
		sleep 0.05
	done
}

# Known problems, collected by bug; the test reports them after the rest ran.
BUGS=()

# bug TEXT - note a wrong behaviour in BUGS and go on.
bug() { note "BUG: $*"; BUGS+=("$*"); }

# soon DESCRIPTION CMD... - poll for 2 s; a timeout is a bug (shows $SOON_SHOW if set).
soon()
{
	local desc=$1 deadline=$((SECONDS + 2))
	shift
	until "$@" >"$T/poll.last" 2>&1; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			bug "$desc: $(tr '\n' ' ' <"$T/poll.last")"
			[ -z "${SOON_SHOW:-}" ] || { echo "--- screen:"; cat "$SOON_SHOW"; } >&2
			return 1
		fi
		sleep 0.05
	done
}

# screen_attrs - capture the screen into $T/plain, $T/rowattr and $T/runs.
screen_attrs()
{
	tui_screen_attrs >"$T/attrs" || return 1
	awk -v plain="$T/plain" -v rowattr="$T/rowattr" -v runs="$T/runs" '
	function reset() { fg = 39; bg = 49; bold = 0; dim = 0; ul = 0; rev = 0 }
	function sgr(p,    n, a, i, c) {
		n = split(p, a, ";")
		if (n == 0) { reset(); return }
		for (i = 1; i <= n; i++) {
			c = a[i] + 0
			if (c == 0) reset()
			else if (c == 1) bold = 1
			else if (c == 2) dim = 1
			else if (c == 4) ul = 1
			else if (c == 7) rev = 1
			else if (c == 22) { bold = 0; dim = 0 }
			else if (c == 24) ul = 0
			else if (c == 27) rev = 0
			else if ((c >= 30 && c <= 37) || c == 39) fg = c
			else if ((c >= 40 && c <= 47) || c == 49) bg = c
			else if (c == 38 || c == 48) {
				v = a[i + 1] == 5 ? a[i + 2] : "rgb"
				if (c == 38) fg = "x" v; else bg = "x" v
				i += a[i + 1] == 5 ? 2 : 4
			}
		}
	}
	function state() {
		return sprintf("fg=%s bg=%s bold=%d dim=%d ul=%d rev=%d", fg, bg, bold, dim, ul, rev)
	}
	BEGIN { reset() }
	{
		s = $0
		text = ""
		first = ""
		while (match(s, /\033\[[0-9;]*m/)) {
			if (RSTART > 1) {
				if (first == "")
					first = state()
				printf "%d\t%s\t%s\n", NR, state(), substr(s, 1, RSTART - 1) >runs
			}
			text = text substr(s, 1, RSTART - 1)
			sgr(substr(s, RSTART + 2, RLENGTH - 3))
			s = substr(s, RSTART + RLENGTH)
		}
		if (s != "")
			printf "%d\t%s\t%s\n", NR, state(), s >runs
		text = text s
		if (first == "")
			first = state()
		print text >plain
		print first >rowattr
	}' "$T/attrs"
}

# The colours of tty.c under TERM=screen: what a row starts with.
SEL='fg=30 bg=46'		# selected row of the focused pane
SEL_DIM='fg=30 bg=47'		# selected thread while the stack has focus
TITLE='fg=30 bg=47'		# title of a pane without focus
TITLE_FOCUS='fg=30 bg=42'	# title of the focused pane

# attrs_are ERE:ATTRS... - in one capture, the first row matching each ERE starts with ATTRS.
attrs_are()
{
	local spec re want row got
	screen_attrs || return 1
	for spec in "$@"; do
		re=${spec%%:*}
		want=${spec#*:}
		row=$(grep -En -m1 -- "$re" "$T/plain" | cut -d: -f1)
		[ -n "$row" ] || { echo "no row matches /$re/"; return 1; }
		got=$(sed -n "${row}p" "$T/rowattr")
		case "$got" in
		"$want"*) ;;
		*) echo "row $((row - 1)) /$re/: '$got', want '$want'"; return 1 ;;
		esac
	done
}

# The kernel's columns of a thread row: S (a state letter, - unknown) and
# CPU% (- unknown); KS alone, below 72 columns.
KC='[A-Za-z-] +([0-9]+\.[0-9]|-)'
KS='[A-Za-z-]'

# thread_rows - the thread rows of $T/screen, "TID NAME STATE" each.
thread_rows() { sed -n 's/^\(├─\|└─\) *\([0-9]*\) \+\([^ ]*\) \+\([^ ]*\) .*/\2 \3 \4/p' "$T/screen"; }

# rows_are WANT - the thread rows, top to bottom, are WANT.
rows_are() { tui_screen >"$T/screen" && [ "$(thread_rows)" == "$1" ] || { thread_rows; false; }; }

# stack_rows - the stack pane's frames in $T/screen, "function file:line", innermost first.
stack_rows() { awk '/^ Stack of thread/ { on = 1; next } /^ Watches/ { on = 0 } on && /^#[0-9]+ / { print $2, $3 }' "$T/screen"; }

# stack_is TID NAME STATE DEPTH FRAMES - the stack pane shows that thread and exactly FRAMES.
stack_is()
{
	tui_has "^ Stack of thread $1 \"$2\": $3, depth $4\$" ||
		{ echo "title: $(grep -E '^ Stack' "$T/screen")"; return 1; }
	[ "$(stack_rows)" == "$5" ] || { echo "frames:"; stack_rows; echo "want:"; echo "$5"; return 1; }
}

# ---- tests/apps/tuithreads, traced as $pid (named $prog) into $f: main and
# five named threads parked at known call chains, marked LINE:... in its source.

TUITHREADS_SRC=$APPS_SRC/tuithreads.c

# tuithreads_launch - trace the program into $f, set prog and pid, wait until it is ready.
tuithreads_launch()
{
	f=$T/tui.trace
	prog=tuithreads
	traced app RBTRACE_FILE="$f" "$APPS/tuithreads"
	pid=$LAUNCHED
	wait_ready "main $pid" "$pid"
}


# frames FRAME... - the frames, a line each.
frames() { local a; for a in "$@"; do echo "$a"; done; }

# L MARKER - the line of LINE:MARKER (there exactly once) in the source.
L()
{
	[[ "${LN[$1]:-}" =~ ^[0-9]+\ $ ]] || fail "marker LINE:$1 not found exactly once in $TUITHREADS_SRC"
	echo "${LN[$1]% }"
}

# tuithreads_known - set STACK_<name>, DEPTH, LEAF, TID, ST and names (all but main).
tuithreads_known()
{
	local F=$prog.c n
	declare -gA LN=()
	eval "$(awk '{ while (match($0, /LINE:[a-z_]+ \*\//)) { m = substr($0, RSTART + 5, RLENGTH - 8); printf "LN[%s]+=\"%d \"\n", m, NR; $0 = substr($0, RSTART + RLENGTH) } }' "$TUITHREADS_SRC")"
	STACK_main=$(frames "main_wait $F:$(L main_wait_def)" "main $F:$(L call_main_wait)")
	STACK_north=$(frames "walk_leaf $F:$(L walk_leaf_def)" "walk_main $F:$(L walk_call_leaf)")
	STACK_south=$(frames "swim_leaf $F:$(L swim_leaf_def)" "swim_step $F:$(L swim_call_leaf)" \
		"swim_main $F:$(L swim_call_step)")
	STACK_east=$(frames "fly_leaf $F:$(L fly_leaf_def)" "fly_high $F:$(L fly_call_leaf)" \
		"fly_up $F:$(L fly_call_high)" "fly_main $F:$(L fly_call_up)")
	STACK_west=$(frames "dig_bottom $F:$(L dig_bottom_def)" "dig_deepest $F:$(L dig_call_bottom)" \
		"dig_deeper $F:$(L dig_call_deepest)" "dig_down $F:$(L dig_call_deeper)" \
		"dig_main $F:$(L dig_call_down)")
	STACK_brief=$(frames "nap_leaf $F:$(L nap_leaf_def)" "nap_main $F:$(L nap_call_leaf)")
	STACK_latecomer=$(frames "jog_leaf $F:$(L jog_leaf_def)" "jog_main $F:$(L jog_call_leaf)")
	declare -gA DEPTH=([main]=2 [north]=2 [south]=3 [east]=4 [west]=5 [brief]=2 [latecomer]=2)
	declare -gA LEAF=([main]=main_wait [north]=walk_leaf [south]=swim_leaf [east]=fly_leaf
		[west]=dig_bottom [brief]=nap_leaf [latecomer]=jog_leaf)
	declare -gA TID=([main]=$pid)
	declare -gA ST=()
	names="north south east west brief"
	for n in $names; do
		TID[$n]=$(tid_of $n)
		[ -n "${TID[$n]}" ] || fail "no tid reported for thread $n"
	done
}

# see NAME [STATE] - wait until the stack pane shows selected thread NAME's known stack.
see()
{
	local n=$1 st=${2:-running} sn=$1 var=STACK_$1
	[ "$n" == main ] && sn=$prog
	poll "the stack of $n" stack_is "${TID[$n]}" "$sn" "$st" "${DEPTH[$n]}" "${!var}"
}

# order NAME... - "TID NAME STATE" rows in the list's order: main first, then by tid.
order()
{
	local n
	for n in "$@"; do
		if [ "$n" == main ]; then
			echo "$pid $prog running"
		else
			echo "${TID[$n]} $n ${ST[$n]:-running}"
		fi
	done | { read -r first; echo "$first"; sort -n; }
}
