#!/bin/bash
# SPDX-License-Identifier: MIT
# cxx: C++ frames are shown demangled.
. "$(dirname "$0")/lib.sh"

[ -x "$APPS/cxx" ] || skip "no C++ compiler"
f=$T/cxx.trace
traced app RBTRACE_FILE="$f" "$APPS/cxx"
pid=$LAUNCHED
wait_ready cxx "$pid"
dump_json "$f"
expect "functions" "shop::Basket<long>::wait(int) main" \
	"$(jqv '.processes[0].threads[0].frames | map(.function) | join(" ")')"
exit 0
