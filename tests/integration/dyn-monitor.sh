#!/bin/bash
# SPDX-License-Identifier: MIT
# dyn-monitor: rbmon's side of dynamic tracing, on entries of the file's
# dynamic tracing table written by tests/apps/dynpoke into the live file
# of tests/apps/ctl.  --dump says how many functions are not traced (or
# that the process is dormant, or why the system refused), --json names
# them as the frames are named, --list marks a dormant file; hostile
# entries (a list longer than the table, a reason without its NUL, unknown
# bits, a gen odd for ever) are shown bounded, escaped or as torn; the
# DYN command reaches the library, whose worker switches the function and
# writes the entry itself; the screen's stack title counts what is not
# traced, X lists it, Enter there switches one back on, x switches a
# frame's function off.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

command -v jq >/dev/null || skip "jq is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
command -v tmux >/dev/null || skip "tmux is not installed"
POKE=$APPS/dynpoke

f=$T/ctl.trace
traced app RBTRACE_FILE="$f" "$APPS/ctl"
pid=$LAUNCHED
wait_threads "$pid" alpha beta seq blocked
A=$(tid_of alpha)
K=$(tid_of blocked)

# The blocked thread's frames stay put: two functions with known names.
wait_json "$f" "[.processes[].threads[] | select(.tid == $K) |
	.frames[] | select(.function == \"blocked_wait\")] | length == 1" \
	"blocked_wait on the blocked thread's stack"
fn1=$(jqv ".processes[].threads[] | select(.tid == $K) | .frames[] |
	select(.function == \"blocked_wait\") | .address")
fn2=$(jqv ".processes[].threads[] | select(.tid == $K) | .frames[1].address")
name2=$(jqv ".processes[].threads[] | select(.tid == $K) | .frames[1].function")
[ -n "$fn1" ] && [ -n "$fn2" ] && [ "$name2" != null ] ||
	fail "no addresses on the blocked thread's stack"

# No entry yet: no line, "dynamic": null.
"$RBMON" --dump "$f" >"$T/dump" || fail "rbmon --dump failed"
grep -q "dynamic:" "$T/dump" && fail "a dynamic line without an entry"
dump_json "$f"
expect "dynamic without an entry" null "$(jqv ".processes[] | select(.pid == $pid) | .dynamic")"

# ---- counts, names, reasons ------------------------------------------------
"$POKE" "$f" 0 "$pid" sites=20112 sites_off=3456 off_name=10 off_auto=2 \
	"fn=$fn1:1" "fn=$fn2:3" || fail "dynpoke failed"
"$RBMON" --dump "$f" >"$T/dump" || fail "rbmon --dump failed"
grep -qx "  dynamic: 12 functions not traced (10 by name, 2 automatically); 3,456 of 20,112 sites off" "$T/dump" ||
	{ cat "$T/dump" >&2; fail "--dump: no count of the functions not traced"; }
"$RBMON" --json "$f" >"$T/json" || fail "rbmon --json failed"
python3 - "$T/json" "$pid" "$fn1" "$fn2" "$name2" <<'PY' || fail "--json: the dynamic object"
import json, sys
doc = json.load(open(sys.argv[1]))
pid, fn1, fn2, name2 = int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
p = [p for p in doc["processes"] if p["pid"] == pid][0]
want = {"dormant": False, "refused": None, "sites": 20112, "sites_off": 3456,
        "functions_off": 12, "more": 10, "batches": 0, "traps": 0,
        "private_bytes": 0, "last_batch_ns": 0,
        "off": [{"function": "blocked_wait", "address": fn1, "reason": "name"},
                {"function": name2, "address": fn2, "reason": "name,auto"}]}
if p["dynamic"] != want:
    sys.exit("got %r" % p["dynamic"])
PY

# ---- dormant: --dump, --json, --list ---------------------------------------
"$POKE" "$f" 0 "$pid" flags=1 || fail "dynpoke failed"
"$RBMON" --dump "$f" >"$T/dump" || fail "rbmon --dump failed"
grep -qx "  dynamic: dormant (every site off)" "$T/dump" ||
	{ cat "$T/dump" >&2; fail "--dump: not dormant"; }
dump_json "$f"
expect "dormant in --json" true "$(jqv ".processes[] | select(.pid == $pid) | .dynamic.dormant")"
RBTRACE_DIR=$T TMPDIR=$T "$RBMON" --list >"$T/list" || fail "rbmon --list failed"
grep -E "^$f +$pid .* dormant\$" "$T/list" >/dev/null ||
	{ cat "$T/list" >&2; fail "--list does not mark the file dormant"; }

# ---- refused, with an escape byte in the reason -----------------------------
"$POKE" "$f" 0 "$pid" flags=2 'why=no \e[31mwritable text' || fail "dynpoke failed"
"$RBMON" --dump "$f" >"$T/dump" || fail "rbmon --dump failed"
grep -qxF '  dynamic: refused: no \x1b[31mwritable text' "$T/dump" ||
	{ cat -v "$T/dump" >&2; fail "--dump: the refusal, escaped"; }
grep -q $'\033' "$T/dump" && fail "an escape byte reached the output"
dump_json "$f"
expect "refused in --json" $'no \033[31mwritable text' \
	"$(jqv ".processes[] | select(.pid == $pid) | .dynamic.refused")"

# Refused without a reason: still said.
"$POKE" "$f" 0 "$pid" flags=2 why= || fail "dynpoke failed"
"$RBMON" --dump "$f" >"$T/dump" || fail "rbmon --dump failed"
grep -qx "  dynamic: refused (no reason given)" "$T/dump" ||
	{ cat "$T/dump" >&2; fail "--dump: a refusal without a reason"; }

# ---- hostile entries: nothing crashes, nothing unbounded --------------------
"$POKE" "$f" 0 "$pid" flags=0xffffffff why=@fill listed=4000000000 \
	off_name=4294967295 off_auto=4294967295 sites_off=99 sites=1 \
	"fill=1024:$fn1:0xffffffff" || fail "dynpoke failed"
"$RBMON" --dump "$f" >"$T/dump" || fail "rbmon --dump of a hostile entry failed"
grep -qx "  dynamic: refused: $(printf 'w%.0s' $(seq 128))" "$T/dump" ||
	{ cat "$T/dump" >&2; fail "a reason without its NUL is not cut at 128 bytes"; }
dump_json "$f"
expect "hostile: listed bounded" 1024 "$(jqv ".processes[] | select(.pid == $pid) | .dynamic.off | length")"
expect "hostile: unknown reason bits dropped" name,auto \
	"$(jqv ".processes[] | select(.pid == $pid) | .dynamic.off[0].reason")"
expect "hostile: more" $((2 * 4294967295 - 1024)) \
	"$(jqv ".processes[] | select(.pid == $pid) | .dynamic.more")"
# A list of addresses without a known reason names nothing.
"$POKE" "$f" 0 "$pid" flags=0 off_name=3 off_auto=0 \
	"fill=5:$fn1:0x100" || fail "dynpoke failed"
dump_json "$f"
expect "unknown reasons only" 0 "$(jqv ".processes[] | select(.pid == $pid) | .dynamic.off | length")"
# gen odd for ever: torn, said so, never garbage.
"$POKE" "$f" 0 "$pid" off_name=1 gen=7 || fail "dynpoke failed"
"$RBMON" --dump "$f" >"$T/dump" || fail "rbmon --dump of a torn entry failed"
grep -qx "  dynamic: changing (entry torn)" "$T/dump" ||
	{ cat "$T/dump" >&2; fail "--dump: a torn entry"; }
dump_json "$f"
expect "torn in --json" '{"torn":true}' "$(jqv -c ".processes[] | select(.pid == $pid) | .dynamic")"
# An entry of a process without a ring is listed on its own.
"$POKE" "$f" 1 999999 pstart=1 image=77 flags=1 || fail "dynpoke failed"
"$RBMON" --dump "$f" >"$T/dump" || fail "rbmon --dump failed"
grep -q "^process 999999 (.*) gone, no traced thread\$" "$T/dump" ||
	{ cat "$T/dump" >&2; fail "--dump: the entry without a ring"; }
dump_json "$f"
expect "ringless entry in --json" true \
	"$(jqv '.processes[] | select(.pid == 999999) | .dynamic.dormant and (.threads == [])')"
"$POKE" "$f" 1 999999 pstart=1 image=77 state=0 || fail "dynpoke failed"
kill -0 "$pid" || fail "the program died"

# ---- the DYN command, end to end ---------------------------------------------
# The library takes the request, its worker switches blocked_wait off and
# writes the process's entry (entry 0, claimed above with its pstart).
"$RBMON" --send "DYN exclude-addr $fn1" -t "$A" "$f" >"$T/send.out" 2>"$T/send.err" ||
	fail "DYN exclude-addr: $(cat "$T/send.err")"
grep -q "queued" "$T/send.out" || fail "DYN exclude-addr said: $(cat "$T/send.out")"
wait_json "$f" ".processes[] | select(.pid == $pid) | .dynamic |
	.functions_off == 1 and .sites > 0 and .sites_off > 0 and
	.off == [{\"function\": \"blocked_wait\", \"address\": \"$fn1\", \"reason\": \"name\"}]" \
	"blocked_wait off in the library's own entry"
"$RBMON" --send "DYN include-addr $fn1" -t "$A" "$f" >/dev/null 2>"$T/send.err" ||
	fail "DYN include-addr: $(cat "$T/send.err")"
wait_json "$f" ".processes[] | select(.pid == $pid) | .dynamic |
	.functions_off == 0 and .sites_off == 0 and .off == []" \
	"blocked_wait on again"
"$RBMON" --send "DYN" -t "$A" "$f" >/dev/null 2>"$T/send.err" && fail "DYN without a request answered OK"
grep -q "usage: DYN REQUEST" "$T/send.err" || fail "DYN's usage: $(cat "$T/send.err")"

# ---- the screen -------------------------------------------------------------
"$POKE" "$f" 0 "$pid" gen=8 flags=0 off_name=1 off_auto=1 \
	sites=40 sites_off=4 "fn=$fn1:1" "fn=$fn2:2" || fail "dynpoke failed"
tui_start 120 32 "$RBMON" -d 1 "$f"
tui_wait "PID $pid ctl" "the process row"
tui_keys /
tui_wait '^Search: ?$' "the search prompt"
tui_keys -l alpha
tui_keys Enter
tui_wait "^ Stack of thread $A \"alpha\": running, depth [0-9]+; 2 not traced" \
	"the count in the stack title"
tui_keys X
tui_wait "^ Not traced in process $pid: 2 functions not traced \(1 by name, 1 automatically\); 4 of 40 sites off" \
	"the list's title"
tui_wait "^ name +$fn1 +blocked_wait" "blocked_wait in the list"
tui_wait "^ auto +$fn2 +$name2" "$name2 in the list"
tui_keys Enter
tui_wait "^thread $A: queued" "the answer to DYN include-addr"
tui_keys q
# The library's own entry again: nothing off.
tui_wait "^ Stack of thread $A \"alpha\": running, depth [0-9]+ *$" \
	"back from the list, no count in the stack title"
tui_keys Tab
tui_keys x
tui_wait "^thread $A: queued" "the answer to DYN exclude-addr"
tui_wait "^ Stack of thread $A \"alpha\": running, depth [0-9]+; 1 not traced" \
	"the frame's function off, counted in the stack title"
"$POKE" "$f" 0 "$pid" flags=1 || fail "dynpoke failed"
tui_wait "^ Stack of thread $A \"alpha\": running, depth [0-9]+; dormant" \
	"dormant in the stack title"
tui_keys q
exit 0
