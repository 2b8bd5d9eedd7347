#!/bin/bash
# SPDX-License-Identifier: MIT
# names: a thread renamed after its first traced call shows its new name,
# whether pthread_setname_np() or prctl(PR_SET_NAME) renamed it; the name
# recorded through pthread_setname_np() survives the process.
. "$(dirname "$0")/lib.sh"

f=$T/names.trace
traced app RBTRACE_FILE="$f" "$APPS/renamer"
pid=$LAUNCHED
wait_ready renamed "$pid"
wait_json "$f" '[.processes[0].threads[] | select(.name == "other-named" or .name == "self-named")] | length == 2' \
	"both renamed threads"
expect "renamed threads park in by_other and by_self" "by_other by_self" \
	"$(jqv '[.processes[0].threads[] | select(.name | endswith("-named")) | .frames[1].function] | sort | join(" ")')"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
wait_json "$f" '.processes[0].alive == false' "the process to be gone"
expect "post-mortem name" 1 "$(jqv '[.processes[0].threads[] | select(.name == "other-named")] | length')"
exit 0
