# SPDX-License-Identifier: MIT
# tests/integration/control.sh - helpers the control tests share.
#
# Source it after lib.sh.  FILE is a trace file, TID a thread; replies go
# to $T/send.out and $T/send.err, rbmon's exit status to SENT.  The wait_*
# helpers read the trace file named by $f.

# th TID - jq path of thread TID in a dump.
th() { echo ".processes[0].threads[] | select(.tid == $1)"; }

# send FILE TID CMD [OPTIONS] - rbmon --send, waiting up to 10 s.
send()
{
	local file=$1 tid=$2 cmd=$3
	shift 3
	SENT=0
	"$RBMON" --thread "$tid" --send "$cmd" --timeout 10 "$@" "$file" \
		>"$T/send.out" 2>"$T/send.err" || SENT=$?
}

# send_ok FILE TID CMD REPLY [OPTIONS] - CMD must succeed with exactly REPLY.
send_ok()
{
	send "$1" "$2" "$3" "${@:5}"
	[ "$SENT" -eq 0 ] ||
		fail "'$3' to thread $2 exited $SENT, expected 0 (stderr: $(cat "$T/send.err"))"
	expect "reply to '$3' (thread $2)" "$4" "$(cat "$T/send.out")"
}

# send_err FILE TID CMD MESSAGE [OPTIONS] - CMD must get ERR MESSAGE.
send_err()
{
	send "$1" "$2" "$3" "${@:5}"
	expect "exit status of '$3' (stderr: $(cat "$T/send.err"))" 1 "$SENT"
	expect "stdout of '$3'" "" "$(cat "$T/send.out")"
	expect "stderr of '$3'" "rbmon: thread $2: $4" "$(cat "$T/send.err")"
}

# wait_stopped TID STOPS DESC - wait until TID is stopped with STOPS stops.
wait_stopped()
{
	wait_json "$f" "$(th "$1") | .state == \"stopped\" and .stops == $2" "$3"
}

# wait_running TID DESC
wait_running() { wait_json "$f" "$(th "$1") | .state == \"running\"" "$2"; }
