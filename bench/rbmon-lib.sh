# SPDX-License-Identifier: MIT
# bench/rbmon-lib.sh - the harness bench/rbmon.sh and bench/rbmon-cpu.sh
# share: a traced program of THREADS threads, rbmon in tmux sessions of a
# server of its own, and the CPU ticks of each.  Sourced after bench/lib.sh
# and the script's settings (THREADS, RINGS, RBMON, LIBRBTRACE,
# WAIT_TIMEOUT); the script sets SCREEN_RE and THREAD_RE, what its thread
# list looks like on the screen, before on_screen() is used.

T=$(mktemp -d "${TMPDIR:-/tmp}/rbt-bench-$NAME.XXXXXX") || broke "mktemp failed"
SOCK=$T/tmux.sock
export RBT_READY=$T/ready
APP_PID=		# the traced program, in a process group of its own
APP_NAME=
TOP_PID=		# a top(1) to stop at the end, if any
SESSION=0		# the last session made, s$SESSION

tmx() { tmux -u -S "$SOCK" -f /dev/null "$@"; }

cleanup()
{
	tmx kill-server >/dev/null 2>&1
	[ -n "$TOP_PID" ] && kill -TERM "$TOP_PID" 2>/dev/null
	if [ -n "$APP_PID" ]; then
		kill -TERM -- "-$APP_PID" 2>/dev/null
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			running "$APP_PID" || break
			sleep 0.1
		done
		kill -KILL -- "-$APP_PID" 2>/dev/null
		wait "$APP_PID" 2>/dev/null
	fi
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# ticks PID - utime+stime of PID in clock ticks into $TICKS (and each into
# $UTICKS, $STICKS); false once gone.
ticks()
{
	local s f
	{ read -r s <"/proc/$1/stat"; } 2>/dev/null || return 1
	s=${s##*) }		# fields from 3 (state) on; comm may hold spaces
	read -r -a f <<<"$s"
	UTICKS=${f[11]}		# field 14 utime
	STICKS=${f[12]}		# field 15 stime
	TICKS=$((UTICKS + STICKS))
}

# running PID - PID exists and has not exited (tmux may leave a zombie).
running()
{
	local s
	{ read -r s <"/proc/$1/stat"; } 2>/dev/null || return 1
	s=${s##*) }
	[ "${s:0:1}" != Z ] && [ "${s:0:1}" != X ]
}

HZ=$(getconf CLK_TCK) || broke "getconf CLK_TCK failed"

# pct TICKS MICROSECONDS - % of one core.
pct() { LC_ALL=C awk -v t="$1" -v us="$2" -v hz="$HZ" 'BEGIN { printf "%.2f", t / hz * 100 / (us / 1e6) }'; }
# verdict VALUE TARGET - "met" below the target, else "MISSED".
verdict() { if lt "$1" "$2"; then echo met; else echo MISSED; fi; }

# bounded DESCRIPTION CMD... - poll CMD every 0.1 s for WAIT_TIMEOUT seconds.
bounded()
{
	local desc=$1 deadline=$((SECONDS + WAIT_TIMEOUT))
	shift
	until "$@" >"$T/wait.last" 2>&1; do
		if [ -n "$APP_PID" ] && ! running "$APP_PID"; then
			cat "$T/app.err" >&2 2>/dev/null
			broke "the traced program died while waiting for $desc"
		fi
		if [ "$SECONDS" -ge "$deadline" ]; then
			echo "--- last output of: $*" >&2
			cat "$T/wait.last" >&2
			broke "timed out after ${WAIT_TIMEOUT}s waiting for $desc"
		fi
		sleep 0.1
	done
}

app_ready() { grep -Eq "^ready $APP_PID $THREADS\$" "$RBT_READY"; }

rings_used()
{
	local used
	used=$("$RBMON" --dump --json "$TRACE" | jq -e '.rings.used') || return 1
	echo "rings.used=$used"
	[ "$used" -ge "$THREADS" ]
}

# app_start PROGRAM ARGS... - start the traced program (its output in
# $T/app.out, .err) and wait until its THREADS threads have rings; then a
# tmux server, kept up by a session of its own ($TMUX_PID), so that
# starting rbmon's sessions does not include starting the server.
app_start()
{
	APP_NAME=$(basename "$1")
	TRACE=$T/$APP_NAME.trace
	setsid env LD_PRELOAD="$LIBRBTRACE" RBTRACE_FILE="$TRACE" \
		RBTRACE_RINGS="$RINGS" "$@" >"$T/app.out" 2>"$T/app.err" &
	APP_PID=$!
	bounded "'ready $APP_PID $THREADS' from $APP_NAME" app_ready
	bounded "$THREADS rings in use" rings_used
	tmx new-session -d -s keep -x 80 -y 24 "exec sleep 100000" ||
		broke "tmux new-session failed"
	TMUX_PID=$(tmx display-message -p -t keep '#{pid}') || broke "no tmux server pid"
}

# on_screen SESSION - the thread list is on the screen (status 0), not yet
# (1), or the session is gone (2).
on_screen()
{
	tmx capture-pane -p -t "$1" >"$T/screen.new" 2>/dev/null || return 2
	mv "$T/screen.new" "$T/screen"
	grep -Eq -- "$SCREEN_RE" "$T/screen" &&
		grep -Eq -- "$THREAD_RE" "$T/screen"
}

# stop_rbmon - quit rbmon ($RBMON_PID in session $S) with q; kill it if it
# does not go.
stop_rbmon()
{
	local deadline=$((SECONDS + 5))
	tmx send-keys -t "$S" q 2>/dev/null
	while running "$RBMON_PID"; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			note "rbmon $RBMON_PID did not quit on q; killing it"
			kill -KILL "$RBMON_PID" 2>/dev/null
			break
		fi
		sleep 0.05
	done
	tmx kill-session -t "$S" >/dev/null 2>&1
	:
}
