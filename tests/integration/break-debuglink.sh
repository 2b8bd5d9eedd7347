#!/bin/bash
# SPDX-License-Identifier: MIT
# break-debuglink: static functions the program's symbol table lacks.
#
#  - a copy of tests/apps/brk gives its debug information and symbol table
#    to brk.debug (objcopy --only-keep-debug, strip --strip-all, objcopy
#    --add-gnu-debuglink), so nm finds nothing in the program itself;
#  - tests/apps/brk-nolocals is linked with --discard-all: its symbol
#    table has no local symbols, so inner is only in its DWARF.
# In both, rbmon resolves BRKP inner (a static function) to its address as
# nm shows it in brk.debug, or as DWARF gives it (readelf), at the load
# bias; released, the worker stops there, with its frames named.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/control.sh"
. "$(dirname "$0")/brk.sh"

for tool in objcopy strip nm readelf; do
	command -v "$tool" >/dev/null || skip "$tool is not installed"
done

# stop_at_inner PROGRAM ADDRESS FRAMES - BRKP inner in PROGRAM (running as
# $PID) resolves to ADDRESS and stops the worker there, with FRAMES.
stop_at_inner()
{
	send_ok "$f" "$M" "BRKP inner" "breakpoint 1 at inner" --timeout 0.2
	send_ok "$f" "$M" BLST "1 hits=0 from=1 thread=all at=$2 inner" --timeout 0.2
	release worker i
	wait_stopped "$W" 1 "the worker of $1 stopped at inner"
	expect "the worker's stop ($1)" "breakpoint 1 entry" \
		"$(jqv "$(th "$W") | \"\(.stop.reason) \(.stop.breakpoint) \(.stop.at)\"")"
	expect "the worker's frames ($1)" "$3" \
		"$(jqv "$(th "$W") | .frames | map(.function) | join(\" \")")"
	expect "frames[0]'s address ($1)" "$2" "$(jqv "$(th "$W") | .frames[0].address")"
	send_ok "$f" "$M" BLST "1 hits=1 from=1 thread=all at=$2 inner" --timeout 0.2
	send_ok "$f" "$M" "BCLR 1" "cleared breakpoint 1" --timeout 0.2
	send_ok "$f" "$W" CONT continuing
	wait_round worker 1 i
	release worker q
	release main q
	rc=0
	wait "$PID" || rc=$?
	expect "exit status ($1)" 0 "$rc"
}

# --- Symbols in a separate debug file.
mkdir -p "$T/bin"
prog=$T/bin/brk
cp "$APPS/brk" "$prog"
objcopy --only-keep-debug "$prog" "$prog.debug" || fail "objcopy --only-keep-debug"
strip --strip-all "$prog" || fail "strip --strip-all"
(cd "$T/bin" && objcopy --add-gnu-debuglink=brk.debug brk) || fail "objcopy --add-gnu-debuglink"
[ -z "$(nm "$prog" 2>/dev/null)" ] ||
	fail "the stripped program still has a symbol table: $(nm "$prog" | head -n 3)"
nm -D "$prog" | grep -q 'inner' && fail "inner is in the stripped program's dynamic symbols"
f=$T/debuglink.trace
brk_start "$prog"
wait_for "the worker asleep in read()" asleep "$W" "worker_main(void*)"
inner=$(nm_addrs "$prog.debug" "$(load_bias "$PID" "$prog")" ' inner\(int\)$')
[ -n "$inner" ] || fail "nm: no inner(int) in $prog.debug"
stop_at_inner "the stripped program" "$inner" "inner(int) worker_main(void*)"

# --- No local symbols: DWARF only.
prog=$APPS/brk-nolocals
nm -C "$prog" | grep -q ' inner(int)$' && fail "$prog has inner in its symbol table"
low=$(readelf --debug-dump=info "$prog" |
	awk '/DW_TAG_subprogram/ { sub_ = 1; name = ""; next }
	     /DW_TAG_/ { sub_ = 0 }
	     sub_ && /DW_AT_name/ { name = $NF }
	     sub_ && name == "inner" && /DW_AT_low_pc/ { print $NF; exit }')
[ -n "$low" ] || fail "readelf: no DW_AT_low_pc of inner in $prog"
: >"$RBT_READY"
f=$T/nolocals.trace
rm -rf "$T/fifo"
brk_start "$prog"
wait_for "the worker asleep in read()" asleep "$W" "worker_main(void*)"
# (no symbol names inner here: rbmon names the frame from DWARF.)
stop_at_inner "$prog" "$(printf '%#x' $((low + $(load_bias "$PID" "$prog"))))" \
	"inner worker_main(void*)"
exit 0
