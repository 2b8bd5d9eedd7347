#!/bin/bash
# SPDX-License-Identifier: MIT
# selftest: the comparison itself.  From gdb's stacks of stk-inline-gcc
# and stk-deep-gcc, compare.py --synth makes the dump rbmon should give
# (and a wrapped one); compare.py must accept it and reject each altered
# copy: another function, file or line, frame 0 at its current line
# rather than its definition, an inlined mark lost, a frame lost or added,
# a wrong wrapped_at or overwritten count, lost outermost frames, a
# missing thread.  Also its C++ name normalisation.
. "$(dirname "$0")/stacks.sh"

stacks_require gcc "$APPS/stk-inline-gcc"
[ -x "$APPS/stk-deep-gcc" ] || fail "not built: $APPS/stk-deep-gcc"

# verdict WANT DESCRIPTION SYNTH JQ-FILTER - apply the filter to the
# synthesized dump; compare.py must exit WANT (0 agree, 1 differ).
verdict()
{
	local want=$1 desc=$2 rc=0

	jq "$4" "$T/$3" >"$T/altered.json" || fail "$desc: bad jq filter"
	"$PYTHON" "$STACKS_DIR/compare.py" "$T/altered.json" "$T/gdb-$3" \
		>"$T/verdict.out" 2>&1 || rc=$?
	if [ "$rc" -ne "$want" ]; then
		cat "$T/verdict.out" >&2
		fail "$desc: compare.py exited $rc, expected $want"
	fi
	if [ "$want" -eq 1 ] && [ -n "${5:-}" ] &&
	    ! grep -q -- "$5" "$T/verdict.out"; then
		cat "$T/verdict.out" >&2
		fail "$desc: compare.py does not say '$5'"
	fi
}

"$PYTHON" - "$STACKS_DIR" <<'EOF' || fail "compare.py's C++ name normalisation"
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from compare import norm_name
cases = {
    "main": "main",
    "shop::restock<long>": "shop::restock<long>",
    "long shop::restock<long>(shop::Ledger<long>&, long)": "shop::restock<long>",
    "shop::Ledger<long>::wait_delivery(long)": "shop::Ledger<long>::wait_delivery",
    "shop::Store::serve(int) const": "shop::Store::serve",
    "(anonymous namespace)::f(int)": "(anonymous namespace)::f",
    "std::pair<int, int> ns::g<std::pair<int, int> >(int)":
        "ns::g<std::pair<int, int> >",
}
bad = [(k, norm_name(k), v) for k, v in cases.items() if norm_name(k) != v]
for k, got, want in bad:
    print("norm_name(%r) = %r, want %r" % (k, got, want))
sys.exit(1 if bad else 0)
EOF

stacks_capture "$APPS/stk-inline-gcc"
mv "$T/gdb.json" "$T/gdb-inline.json"
"$PYTHON" "$STACKS_DIR/compare.py" --synth "$T/gdb-inline.json" >"$T/inline.json" ||
	fail "compare.py --synth"
expect "inlined frames in the synthesized dump" 4 \
	"$(jq '[.processes[0].threads[0].frames[] | select(.inlined)] | length' "$T/inline.json")"

F='.processes[0].threads[0].frames'
verdict 0 "synthesized dump" inline.json '.'
verdict 0 "demangled name with return type and parameters" inline.json \
	"$F[0].function = \"int stk_park(void)\""
verdict 0 "a full path for the file" inline.json \
	"$F[1].file = \"/src/tests/apps/\" + $F[1].file"
verdict 1 "another function" inline.json "$F[3].function = \"decode\"" "function"
verdict 1 "no function" inline.json "$F[3].function = null" "function"
verdict 1 "another file" inline.json "$F[4].file = \"stk-inline.c\"" "file"
verdict 1 "another line" inline.json "$F[5].line += 1" "line"
verdict 1 "frame 0 at its current line" inline.json \
	"$F[0].line = $(jq '[.threads[0].frames[] | select(.own)][0].line' "$T/gdb-inline.json")" \
	"line"
verdict 1 "inlined mark lost" inline.json "$F[1].inlined = false" "inlined"
verdict 1 "inlined mark absent" inline.json "del($F[3].inlined)" "inlined"
verdict 1 "inlined mark on a real frame" inline.json "$F[2].inlined = true" "inlined"
verdict 1 "a frame lost" inline.json "del($F[2])" "rbmon shows 7 frames, gdb 8"
verdict 1 "a dead frame left" inline.json \
	"$F |= .[0:2] + [{function: \"pick_item\", file: \"x.c\", line: 3}] + .[2:]"
verdict 1 "two frames swapped" inline.json "$F |= .[0:3] + [.[4], .[3]] + .[5:]"
verdict 1 "thread missing" inline.json ".processes[0].threads = []" "not in rbmon"
verdict 1 "another thread" inline.json ".processes[0].threads[0].tid += 100000" "not in gdb"
verdict 1 "another process" inline.json ".processes[0].pid += 100000" "no process"

stacks_capture "$APPS/stk-deep-gcc"
mv "$T/gdb.json" "$T/gdb-deep.json"
"$PYTHON" "$STACKS_DIR/compare.py" --synth "$T/gdb-deep.json" 20 10 >"$T/deep.json" ||
	fail "compare.py --synth"
T1='.processes[0].threads[1]'
expect "wrapped_at, frames and overwritten of each thread" "20 30 17 20 30 91" \
	"$(jq -r '.processes[0].threads | map(.wrapped_at, (.frames | length), .wrapped) | join(" ")' \
	"$T/deep.json")"
verdict 0 "synthesized wrapped dump" deep.json '.'
verdict 1 "wrapped_at one too small" deep.json "$T1.wrapped_at -= 1"
verdict 1 "wrapped_at one too large" deep.json "$T1.wrapped_at += 1"
verdict 1 "overwritten count off by one" deep.json "$T1.wrapped += 1" "overwritten"
verdict 1 "outermost frames lost" deep.json \
	"$T1 |= (.frames = .frames[0:20] | del(.wrapped_at))" "outermost"
verdict 1 "only the innermost 30 frames" deep.json \
	"$T1 |= (.frames = .frames[0:30] | .wrapped = 92 | del(.wrapped_at))" "outermost"
verdict 1 "main lost from the main thread" deep.json \
	".processes[0].threads[0] |= (.frames = .frames[0:29] | .wrapped += 1)" "outermost"
exit 0
