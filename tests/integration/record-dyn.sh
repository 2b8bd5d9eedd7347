#!/bin/bash
# SPDX-License-Identifier: MIT
# record-dyn: a recording says which functions its processes did not trace
# (DYN chunks, rbtrace(5) "RECORDINGS"): dc_hot switched off at start with
# rbtrace record --exclude, dc_leaf and dc_tail switched off and on again
# by rbtrace -p while recording; replay, report and hot say so in their
# text and JSON, the exports in their names and metadata; so do they of
# a program dormant throughout; a recording with every function traced
# says nothing.
. "$(dirname "$0")/lib.sh"

APP=$APPS/dyncount-gcc
[ -x "$APP" ] || skip "no $APP (gcc's -finstrument-functions build)"

# readers RBR - every reader's output of RBR into $T/RBR.{report,...}
readers()
{
	local r=$1 c
	for c in report hot replay; do
		"$RBMON" "$c" "$r" >"$r.$c" 2>"$r.$c.err" ||
			fail "rbmon $c $r exited $?: $(cat "$r.$c.err")"
	done
	for c in report hot; do
		"$RBMON" "$c" --json "$r" >"$r.$c.json" 2>"$r.$c.err" ||
			fail "rbmon $c --json $r exited $?: $(cat "$r.$c.err")"
	done
	"$RBMON" export --chrome "$r" >"$r.chrome" 2>"$r.chrome.err" ||
		fail "rbmon export --chrome $r exited $?: $(cat "$r.chrome.err")"
	"$RBMON" export --speedscope "$r" >"$r.ss" 2>"$r.ss.err" ||
		fail "rbmon export --speedscope $r exited $?: $(cat "$r.ss.err")"
}

# said FILE TEXT - FILE has TEXT, as a fixed string
said()
{
	grep -qF -- "$2" "$1" || fail "$1 does not say '$2': $(tail -3 "$1")"
}

# ---- at start: dc_hot off ------------------------------------------------------
"$RBTRACE" record -o "$T/start.rbr" --file "$T/start.trace" --exclude 'dc_hot' \
	-- "$APP" -t 2 -n 200 >"$T/start.out" 2>"$T/start.err" ||
	fail "rbtrace record --exclude exited $?: $(cat "$T/start.err")"
readers "$T/start.rbr"
line="1 function not traced (switched off at run time): dc_hot."
said "$T/start.rbr.report" "$line"
said "$T/start.rbr.hot" "$line"
said "$T/start.rbr.replay" "# $line"
for c in report hot; do
	expect "$c --json: not traced" '{"functions":1,"at_end":1,"more":0,"dormant":false,"names":["dc_hot"]}' \
		"$(jq -c '.not_traced | {functions, at_end, more, dormant, names}' "$T/start.rbr.$c.json")"
done
expect "chrome: otherData" '1 dc_hot' \
	"$(jq -r '.otherData.not_traced | "\(.functions) \(.names | join(","))"' "$T/start.rbr.chrome")"
pid=$(jq -r '[.traceEvents[] | select(.name == "process_name")][0].pid' "$T/start.rbr.chrome")
expect "chrome: the process's name" "dyncount-gcc ($pid; 1 function not traced: dc_hot)" \
	"$(jq -r '[.traceEvents[] | select(.name == "process_name")][0].args.name' "$T/start.rbr.chrome")"
expect "speedscope: the name" "dyncount-gcc (1 function not traced: dc_hot)" \
	"$(jq -r .name "$T/start.rbr.ss")"
said "$T/start.rbr.chrome.err" "start.rbr: 1 function not traced (switched off at run time): dc_hot"
# The function switched off has no calls; the others have them all.
expect "dc_hot's calls" 0 \
	"$(jq '[.functions[] | select(.function == "dc_hot")] | length' "$T/start.rbr.report.json")"
expect "dc_mid's calls" 400 \
	"$(jq '.functions[] | select(.function == "dc_mid") | .calls' "$T/start.rbr.report.json")"

# ---- while recording: dc_leaf and dc_tail off, then on again ----------------------
# not_traced RBR - the functions the recording RBR, still being written,
# says were not traced
not_traced()
{
	"$RBMON" report --json "$1" 2>/dev/null |
		jq -e '.not_traced.functions == 2' >/dev/null
}

if need_attach_ok=$( (need_attach) 2>&1 ); then
	: >"$RBT_READY"
	launch live "$RBTRACE" record -o "$T/live.rbr" --file "$T/live.trace" \
		-- "$APP" -w -l -t 2 -n 50
	rb=$LAUNCHED
	wait_ready "armed [0-9]+" "$rb"
	pid=$(ready_field armed 2)
	wait_for "the recorder" pgrep -P "$rb" -x rbmon
	kill -USR1 "$pid"
	wait_ready "round 1" "$pid"
	out=$("$RBTRACE" -p "$pid" --exclude 'dc_leaf,dc_tail' 2>&1 >/dev/null) ||
		fail "rbtrace -p --exclude: $out"
	# The recorder's DYN chunk, in the file as it is written.
	wait_for "the recording to say 2 functions off" not_traced "$T/live.rbr"
	out=$("$RBTRACE" -p "$pid" --include 'dc_leaf,dc_tail' 2>&1 >/dev/null) ||
		fail "rbtrace -p --include: $out"
	kill -TERM "$pid"
	wait_ready "done $pid"
	wait "$rb"
	expect "rbtrace record's status" 0 "$?"
	readers "$T/live.rbr"
	line="2 functions not traced (switched off at run time): dc_leaf, dc_tail."
	said "$T/live.rbr.report" "$line"
	said "$T/live.rbr.hot" "$line"
	said "$T/live.rbr.replay" "# $line"
	# On again at the end: none off then.
	for c in report hot; do
		expect "$c --json, live: not traced" \
			'{"functions":2,"at_end":0,"dormant":false,"names":["dc_leaf","dc_tail"]}' \
			"$(jq -c '.not_traced | {functions, at_end, dormant, names}' "$T/live.rbr.$c.json")"
	done
else
	note "rbtrace -p cannot attach here: the live part skipped ($need_attach_ok)"
fi

# ---- dormant throughout: nothing traced, and said so ----------------------------------
"$RBTRACE" record -o "$T/dormant.rbr" --file "$T/dormant.trace" --dormant \
	-- "$APP" -t 2 -n 200 >"$T/dormant.out" 2>"$T/dormant.err" ||
	fail "rbtrace record --dormant exited $?: $(cat "$T/dormant.err")"
"$RBMON" report "$T/dormant.rbr" >"$T/dormant.report" 2>&1 ||
	fail "rbmon report, dormant, exited $?: $(cat "$T/dormant.report")"
said "$T/dormant.report" "Dormant for some or all of the recording (nothing traced meanwhile)."
"$RBMON" report --json "$T/dormant.rbr" >"$T/dormant.json" 2>/dev/null ||
	fail "rbmon report --json, dormant, exited $?"
expect "report --json, dormant" '{"functions":0,"dormant":true}' \
	"$(jq -c '.not_traced | {functions, dormant}' "$T/dormant.json")"

# ---- every function traced: nothing said ---------------------------------------------
"$RBTRACE" record -o "$T/all.rbr" --file "$T/all.trace" \
	-- "$APP" -t 2 -n 200 >"$T/all.out" 2>"$T/all.err" ||
	fail "rbtrace record exited $?: $(cat "$T/all.err")"
readers "$T/all.rbr"
for c in report hot replay chrome.err ss.err; do
	grep -q "not traced" "$T/all.rbr.$c" && fail "$c says functions were not traced: $(grep 'not traced' "$T/all.rbr.$c")"
done
for c in report hot; do
	expect "$c --json: not traced" null "$(jq -c .not_traced "$T/all.rbr.$c.json")"
done
expect "chrome: otherData" null "$(jq -c .otherData.not_traced "$T/all.rbr.chrome")"
expect "speedscope: the name" "dyncount-gcc" "$(jq -r .name "$T/all.rbr.ss")"
exit 0
