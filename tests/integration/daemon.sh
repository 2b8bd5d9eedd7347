#!/bin/bash
# SPDX-License-Identifier: MIT
# daemon: a parent forks and exits at once; its child (a daemon) runs its
# first hook only once it has been given to another parent.  The child's
# ppid in the file is still the pid of the parent that forked it, recorded
# at the fork, not the getppid() of its first hook; the text dump says so.
. "$(dirname "$0")/lib.sh"

f=$T/daemon.trace
traced app RBTRACE_FILE="$f" "$APPS/daemon"
pid=$LAUNCHED
wait_ready "parent $pid [0-9]+"
child=$(ready_field parent 3)
wait_ready "daemon $child $pid"
wait_json "$f" "[.processes[] | select(.pid == $child) | .threads[] |
	select(.state == \"running\" and .frames[0].function == \"daemon_park\")] | length == 1" \
	"the daemon parked"
expect "the daemon's parent now" 1 "$([ "$(ps -o ppid= -p "$child" | tr -d ' ')" != "$pid" ] && echo 1)"
expect "the daemon's ppid" "$pid" "$(jqv ".processes[] | select(.pid == $child) | .ppid")"
"$RBMON" --dump "$f" >"$T/text" || fail "rbmon --dump $f exited $?"
grep -qx "process $child (daemon) alive, parent $pid" "$T/text" ||
	fail "the daemon's process line: $(grep '^process' "$T/text")"
exit 0
