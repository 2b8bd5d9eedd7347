#!/bin/bash
# SPDX-License-Identifier: MIT
# dlopen: frames inside an object loaded with dlopen() after start-up are
# named with file:line while the program runs and after it was killed (the
# object table records it).
. "$(dirname "$0")/lib.sh"

plugin=$APPS/.libs/libplugin.so
[ -f "$plugin" ] || fail "plugin not built: $plugin"
f=$T/dl.trace
traced app RBTRACE_FILE="$f" "$APPS/dlopener" "$plugin"
pid=$LAUNCHED
wait_ready plugin "$pid"

check_frames()
{
	local M=".processes[0].threads[0]"
	expect "$1: functions" "plugin_wait plugin_run run_plugin main" \
		"$(jqv "$M | .frames | map(.function) | join(\" \")")"
	expect "$1: files" "plugin.c plugin.c dlopener.c" \
		"$(jqv "$M | .frames[0:3] | map(.file) | join(\" \")")"
	expect "$1: lines" "$(line_of "$APPS_SRC/plugin.c" plugin_wait_def) $(line_of "$APPS_SRC/plugin.c" call_plugin_wait) $(line_of "$APPS_SRC/dlopener.c" call_plugin_run)" \
		"$(jqv "$M | .frames[0:3] | map(.line) | join(\" \")")"
}

dump_json "$f"
check_frames live
kill -KILL "$pid"
wait "$pid" 2>/dev/null
wait_json "$f" '.processes[0].alive == false' "the process to be gone"
check_frames post-mortem
exit 0
