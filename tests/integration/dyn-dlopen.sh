#!/bin/bash
# SPDX-License-Identifier: MIT
# dyn-dlopen: a plugin unloaded and loaded again in a loop while two
# threads call it (tests/apps/dynload checks every result), two builds of
# it in turn whose sites are in different places, mostly loaded where the
# other was.  Excluded from the start (RBTRACE_EXCLUDE), every copy loaded
# comes in switched off: a lossless recording has none of its calls and
# every call of the program's own dl_call.  Switched off and on with
# rbtrace -p while it is reloaded: no site of an unloaded object is ever
# written (no crash, every result right), and after the last exclude no
# copy loaded later shows on a stack.  Asleep (RBTRACE_DORMANT), loaded
# more times than the library has slots for objects, excluded, woken and
# put to sleep again while reloaded: every copy as the process wants it.
. "$(dirname "$0")/lib.sh"
need_attach

app=$APPS/dynload
A=$APPS/dynplug-a.so
B=$APPS/dynplug-b.so
[ -x "$app" ] || skip "no $app (gcc not found by configure)"

# switch WHAT ARG... - rbtrace -p $pid ARG...; a pattern that names no
# function now is no failure: the plugin is between its dlclose() and its
# dlopen() (the request applies to it once it is loaded again).
switch()
{
	local what=$1 out
	shift
	out=$("$RBTRACE" -p "$pid" "$@" 2>&1 >/dev/null) && return 0
	case $out in
	*"no function matches 'plugin_*'"*) return 0 ;;
	esac
	fail "$what: $out"
}

reloads() { awk '$1 == "reload" { n = $2 } END { print n + 0 }' "$RBT_READY"; }

# wait_reloads N - wait until the plugin was loaded at least N more times.
reloaded() { kill -0 "$pid" && [ "$(reloads)" -ge "$1" ]; }
wait_reloads()
{
	wait_for "$1 more loads of the plugin" reloaded $(($(reloads) + $1))
}

# ---- excluded from the start, recorded ---------------------------------------
: >"$RBT_READY"
"$RBTRACE" record --blocking -o "$T/ex.rbr" --file "$T/ex.trace" \
	--exclude 'plugin_*' -- "$app" -t 2 -r 100 "$A" "$B" \
	>"$T/ex.out" 2>"$T/ex.err" ||
	fail "rbtrace record --exclude exited $?: $(cat "$T/ex.err")"
ready "bad .*" && fail "a result changed: $(grep bad "$RBT_READY")"
grep -q ', 0 lost$' "$T/ex.err" || fail "events lost: $(cat "$T/ex.err")"
"$RBMON" report --json "$T/ex.rbr" >"$T/report" 2>"$T/report.err" ||
	fail "rbmon report: $(cat "$T/report.err")"
calls=$(ready_field calls 2)
expect "dl_call, every call" "$calls" \
	"$(jq -r '[.functions[] | select(.function == "dl_call") | .calls] | add // 0' "$T/report")"
expect "only the program's functions recorded (no plugin copy switched on)" \
	"dl_call dl_loader dl_thread main" \
	"$(jq -r '[.functions[].function] | sort | join(" ")' "$T/report")"

# ---- switched off and on while reloaded ---------------------------------------
: >"$RBT_READY"
f=$T/live.trace
launch live "$RBTRACE" --file "$f" -- "$app" -t 2 -l "$A" "$B"
wait_ready "running [0-9]+" "$LAUNCHED"
pid=$(ready_field running 2)
wait_reloads 20
for i in $(seq 1 8); do
	switch "exclude $i" --exclude 'plugin_*'
	switch "include $i" --include 'plugin_*'
	kill -0 "$pid" 2>/dev/null || fail "the program died (include $i)"
	ready "bad .*" && fail "a result changed: $(grep bad "$RBT_READY")"
done
# Traced: the plugin's frames show.
wait_json "$f" '[.processes[].threads[] | select(.name | startswith("dl-"))
	| .frames[] | select(.function == "plugin_mid")] | length > 0' \
	"plugin_mid on a stack while included"
switch "the last exclude" --exclude 'plugin_*'
# Every copy loaded since comes in off: no plugin frame, sampled while it
# is loaded again and again.
wait_reloads 20
for i in $(seq 1 10); do
	dump_json "$f"
	expect "plugin frames after the last exclude (sample $i)" 0 \
		"$(jqv '[.processes[].threads[] | .frames[] |
			select((.function // "") | startswith("plugin_"))] | length')"
	[ $((i % 5)) -eq 0 ] && wait_reloads 20
done
expect "nothing on in the entry" true \
	"$(jqv ".processes[] | select(.pid == $pid) | .dynamic | .functions_off >= 3 and .sites_off >= 6")"
kill -TERM "$pid"
wait_ready "done $pid"
wait "$LAUNCHED"
expect "exit status (0: every result right)" 0 "$?"

# ---- asleep while reloaded ----------------------------------------------------
: >"$RBT_READY"
f=$T/dorm.trace
launch dorm env RBTRACE_ORPHAN_TIMEOUT=0 "$RBTRACE" --dormant --file "$f" -- \
	"$app" -t 2 -l "$A" "$B"
wait_ready "running [0-9]+" "$LAUNCHED"
pid=$(ready_field running 2)
# Loaded more times than the library has slots for objects: an unloaded
# object's slot is taken again.  Excluded while asleep, then woken: no copy
# of the plugin is traced.
wait_for "1100 loads of the plugin" reloaded 1100
switch "exclude while asleep" --exclude 'plugin_*'
out=$("$RBTRACE" -p "$pid" 2>&1 >/dev/null) || fail "wake: $out"
wait_for "thread dl-0 traced" json_true "$f" \
	'[.processes[].threads[] | select(.name == "dl-0")] | length == 1'
for i in $(seq 1 10); do
	dump_json "$f"
	expect "plugin frames after 1100 loads (sample $i)" 0 \
		"$(jqv '[.processes[].threads[] | .frames[] |
			select((.function // "") | startswith("plugin_"))] | length')"
	[ $((i % 5)) -eq 0 ] && wait_reloads 20
done
switch include --include 'plugin_*'
out=$("$RBTRACE" -p "$pid" --detach 2>&1 >/dev/null) || fail "sleep: $out"
for i in $(seq 1 3); do
	wait_reloads 20
	wait_json "$f" ".processes[] | select(.pid == $pid) | .dynamic |
		.dormant and .sites > 0 and .sites_off == .sites" \
		"every site off while asleep ($i)"
	out=$("$RBTRACE" -p "$pid" 2>&1 >/dev/null) || fail "wake $i: $out"
	wait_reloads 20
	wait_json "$f" ".processes[] | select(.pid == $pid) | .dynamic |
		(.dormant | not) and .sites_off == 0" "every site on once woken ($i)"
	out=$("$RBTRACE" -p "$pid" --detach 2>&1 >/dev/null) || fail "sleep $i: $out"
	ready "bad .*" && fail "a result changed: $(grep bad "$RBT_READY")"
done
kill -TERM "$pid"
wait_ready "done $pid"
wait "$LAUNCHED"
expect "exit status asleep (0: every result right)" 0 "$?"
exit 0
