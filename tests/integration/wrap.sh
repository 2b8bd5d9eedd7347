#!/bin/bash
# wrap: a stack 3x deeper than the ring (RBTRACE_SLOTS=16, depth 50) reports
# its depth, wrapped == depth - slots, and the innermost 16 frames; after
# unwinding below the ring size, frames whose slots were overwritten by the
# deeper calls are not shown as if they were live.
. "$(dirname "$0")/lib.sh"

src=$APPS_SRC/recurse.c
f=$T/recurse.trace
slots=16
levels=48		# recurse(1) .. recurse(48)
unwind=10
depth=$((levels + 2))	# + main + at_bottom

traced app RBTRACE_FILE="$f" RBTRACE_SLOTS=$slots "$APPS/recurse" $levels $unwind
pid=$LAUNCHED
wait_ready deep "$pid"
dump_json "$f"

expect "slots in the header" $slots "$(header_get "$f" slots)"
TH='.processes[0].threads[0]'
expect "threads" 1 "$(jqv '[.processes[].threads[]] | length')"
expect "depth" $depth "$(jqv "$TH.depth")"
expect "wrapped" $((depth - slots)) "$(jqv "$TH.wrapped")"
expect "frames shown" $slots "$(jqv "$TH.frames | length")"
want="at_bottom$(printf ' recurse%.0s' $(seq $((slots - 1))))"
expect "innermost functions" "$want" "$(jqv "$TH.frames | map(.function) | join(\" \")")"
want="$(line_of "$src" at_bottom_def) $(line_of "$src" bottom_call)$(printf " $(line_of "$src" recurse_call)%.0s" $(seq $((slots - 2))))"
expect "innermost lines" "$want" "$(jqv "$TH.frames | map(.line) | join(\" \")")"

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
# A frame shown at index i stands for stack level depth - i: main at the
# bottom, recurse above it; a stale slot (one that still holds a deeper,
# overwritten frame) must not be passed off as that level.
expect_jq "every frame shown is the live frame of its level (or unknown)" \
	"$TH.frames as \$fr | [range(1; \$fr | length) as \$i |
	  \$fr[\$i].function as \$fn |
	  (\$fn == null) or (if \$i == $shallow - 1 then \$fn == \"main\" else \$fn == \"recurse\" end)] | all"
exit 0
