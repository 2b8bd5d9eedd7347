#!/bin/bash
# SPDX-License-Identifier: MIT
# deleted: a program whose binary is deleted after it started keeps its
# names while it runs (rbmon reads the binary through the live process) and
# says "binary deleted" instead of showing unexplained ?? once it is gone
# (killed, so its last stack stays in the file).
. "$(dirname "$0")/lib.sh"

f=$T/simple.trace
cp "$APPS/simple" "$T/simple"
traced app RBTRACE_FILE="$f" "$T/simple" -p
pid=$LAUNCHED
wait_ready "parked $pid" "$pid"
rm -f "$T/simple"

TH='.processes[0].threads[0]'
dump_json "$f"
expect "functions while it runs" "simple_leaf simple_work main" \
	"$(jqv "$TH.frames | map(.function) | join(\" \")")"
grep -q "rbmon: note: $T/simple: binary deleted since it was loaded; reading it through the live process" \
	"$T/json.err" || fail "no note while it runs: $(cat "$T/json.err")"

kill -KILL "$pid"
wait "$pid" 2>/dev/null
dump_json "$f"
expect "functions once it is gone" "null null null" \
	"$(jqv "$TH.frames | map(.function // \"null\") | join(\" \")")"
grep -q "rbmon: note: $T/simple: binary deleted since it was loaded; its frames show addresses only" \
	"$T/json.err" || fail "no note once it is gone: $(cat "$T/json.err")"
"$RBMON" --dump "$f" >"$T/text" 2>"$T/text.err" || fail "rbmon --dump exited $?"
grep -q "binary deleted" "$T/text.err" || fail "the text dump does not say why: $(cat "$T/text.err")"
exit 0
