#!/bin/bash
# SPDX-License-Identifier: MIT
# tui-latency: l opens the latency view on tests/apps/latency -l (a 1 ms
# sleeper and a quick function, called over and over): the table of the
# last seconds' calls with both functions, the sleeper's p50 in ms; the
# selected row's histogram below; s sorts by the next key (the title says
# which); Down selects the next row and its histogram follows; the help
# screen lists the view; any other key goes back.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

f=$T/lat.trace
traced app RBTRACE_FILE="$f" "$APPS/latency" -l 300 30000
pid=$LAUNCHED
wait_ready "ready $pid" "$pid"

tui_start 120 300 "$RBMON" -d 5 "$f"
tui_wait "^PID $pid latency: alive" "the process row"
tui_keys l
tui_wait "^ Latency, last 2 s  \[sort: calls\]  [0-9]+ threads  lost [0-9]+  dropped [0-9]+  cut [0-9]+" "the view's title"
tui_wait '^ +CALLS +TOTAL +P50 +P99 +MAX  FUNCTION$' "the column heads"
tui_wait '^ +[0-9]+ +[0-9.]+ [mun]?s +[0-9.]+ [nu]s +[0-9.]+ [num]?s +[0-9.]+ [num]?s  lat_quick$' "lat_quick's row"
tui_wait '^ +[0-9]+ +[0-9.]+ m?s +[0-9.]+ ms +[0-9.]+ m?s +[0-9.]+ m?s  lat_sleeper$' "lat_sleeper's row, p50 in ms"
tui_wait '^[0-9]+ calls of lat_quick$' "the first row's histogram"
tui_wait ' value  -* Distribution -* count$' "the histogram's head"

# Sorted by p50: the sleeper (or the workers, longer) above the quick one.
tui_keys s s
tui_wait "\[sort: p50\]" "sorted by p50"
above() { tui_screen | awk '/  lat_sleeper$/ { s = NR } /  lat_quick$/ { q = NR } END { exit !(s && q && s < q) }'; }
poll "the sleeper above the quick one by p50" above
tui_keys s s s
tui_wait "\[sort: name\]" "sorted by name"
tui_wait '^[0-9]+ calls of lat_quick$' "lat_quick first by name"
tui_keys Down
tui_wait '^[0-9]+ calls of lat_sleeper$' "Down: the sleeper's histogram"
tui_wait '^ +1\.05 ms \|@+ +[0-9]+$' "its 1 ms bucket"

tui_keys x
tui_wait "^PID $pid latency: alive" "back on the main screen"
tui_keys F1
tui_wait "^Latency \(l\): per function, calls ended in the last 2 seconds" "the view in the help screen"
tui_has "^  s +sort by calls, total, p50, p99, max, name" || tui_fail "no sort key in the help"
tui_keys x
tui_quit
