#!/bin/bash
# SPDX-License-Identifier: MIT
# wrap: a stack 3x deeper than the ring (RBTRACE_SLOTS=16, depth 50) reports
# its depth, wrapped == depth - slots, the innermost 12 frames and the
# outermost 4 (slots / 4 are pinned: main and recurse(1..3)) with the gap
# between them; after unwinding below the ring size, frames whose slots were
# overwritten by the deeper calls are not shown as if they were live.
. "$(dirname "$0")/lib.sh"

src=$APPS_SRC/recurse.c
f=$T/recurse.trace
slots=16
pinned=$((slots / 4))
inner=$((slots - pinned))
levels=48		# recurse(1) .. recurse(48)
unwind=10
depth=$((levels + 2))	# + main + at_bottom

traced app RBTRACE_FILE="$f" RBTRACE_SLOTS=$slots "$APPS/recurse" $levels $unwind
pid=$LAUNCHED
wait_ready deep "$pid"
dump_json "$f"

expect "slots in the header" $slots "$(header_get "$f" slots)"
expect "pinned slots in the header" $pinned "$(header_get "$f" pinned)"
TH='.processes[0].threads[0]'
expect "threads" 1 "$(jqv '[.processes[].threads[]] | length')"
expect "depth" $depth "$(jqv "$TH.depth")"
expect "wrapped" $((depth - slots)) "$(jqv "$TH.wrapped")"
expect "where the lost frames were" $inner "$(jqv "$TH.wrapped_at")"
expect "frames shown" $slots "$(jqv "$TH.frames | length")"
want="at_bottom$(printf ' recurse%.0s' $(seq $((slots - 2)))) main"
expect "innermost and outermost functions" "$want" "$(jqv "$TH.frames | map(.function) | join(\" \")")"
rc=$(line_of "$src" recurse_call)
want="$(line_of "$src" at_bottom_def) $(line_of "$src" bottom_call)$(printf " $rc%.0s" $(seq $((slots - 3)))) $(line_of "$src" main_call)"
expect "lines (the pinned frame next to the gap too)" "$want" "$(jqv "$TH.frames | map(.line) | join(\" \")")"
"$RBMON" --dump "$f" >"$T/text" || fail "rbmon --dump exited $?"
grep -A2 "^    #$((inner - 1)) recurse " "$T/text" >"$T/gap"
expect "the gap in the text dump" "    ... $((depth - slots)) frames overwritten" "$(sed -n 2p "$T/gap")"
grep -q "^    #$((inner + depth - slots)) recurse (recurse.c:$rc)" "$T/gap" || fail "the frame after the gap: $(cat "$T/gap")"

# Unwind to recurse(10) and park in at_shallow: depth 12, all in the ring
# again, but slots 0..11 were overwritten by frames 32..43 and 48..49.
kill -USR1 "$pid"
wait_ready shallow "$pid"
shallow=$((unwind + 2))
wait_json "$f" ".processes[0].threads[0].depth == $shallow" "depth $shallow after unwinding"
expect "frame #0 after unwinding" at_shallow "$(jqv "$TH.frames[0].function")"
expect "frame #0 line" "$(line_of "$src" at_shallow_def)" "$(jqv "$TH.frames[0].line")"
expect_jq "frames + wrapped == depth after unwinding" \
	"($TH | (.frames | length) + .wrapped) == $shallow"
# Levels 0-3 kept their slots (main, recurse(1..3)); levels 4-10 are
# stale (their slots hold deeper, gone frames) and must not be passed off
# as those levels: between at_shallow and main only recurse frames.
expect "outermost frame after unwinding" main "$(jqv "$TH.frames[-1].function")"
expect "frames after unwinding" "at_shallow recurse recurse recurse main" \
	"$(jqv "$TH.frames | map(.function) | join(\" \")")"
expect "lines after unwinding" "$(line_of "$src" at_shallow_def) 0 $rc $rc $(line_of "$src" main_call)" \
	"$(jqv "$TH.frames | map(.line // 0 | tostring) | join(\" \")")"
exit 0
