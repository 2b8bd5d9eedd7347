#!/bin/bash
# SPDX-License-Identifier: MIT
# rec-bounds: every reader of recordings on crafted ones (tests/mkrec)
# that once took them time or output in the square of their size: 40,000
# threads each of its own process image (each image was looked for in a
# list, and each stream's pid among all before it), 2,000 images whose
# object is one real file (read once per image: a megabyte each, 2 GB),
# one stack 5,000 calls
# deep (the folded export wrote every frame's whole path: 112 MB), 20,000
# threads of one process, 100,000 functions.  Each reader must write at
# most 300 bytes a byte of recording (plus 64 KB) and use at most 30 s
# of CPU; the linear ones need a hundredth of that.
. "$(dirname "$0")/lib.sh"

MKREC=$top_builddir/tests/mkrec
[ -x "$MKREC" ] || fail "tests/mkrec not built"
CPU=30

# bounded NAME RECORDING ARGS... - rbmon ARGS... RECORDING within the CPU
# and output bounds.
bounded()
{
	local name=$1 rec=$2 size max out rc
	shift 2
	size=$(stat -c %s "$rec")
	max=$((300 * size + 65536))
	out=$( (ulimit -t "$CPU"; "$RBMON" "$@" "$rec" 2>"$T/$name.err"
		echo $? >"$T/$name.rc") | head -c $((max + 1)) | wc -c)
	rc=$(cat "$T/$name.rc")
	[ "$out" -le "$max" ] ||
		fail "$name: rbmon $* wrote more than $max bytes for a $size-byte recording"
	# SIGXCPU at the soft limit, SIGKILL at the hard one.
	[ "$rc" -eq 152 ] || [ "$rc" -eq 137 ] &&
		fail "$name: rbmon $* used more than ${CPU}s of CPU"
	[ "$rc" -eq 0 ] || fail "$name: rbmon $* exited $rc: $(cat "$T/$name.err")"
	note "$name: rbmon $*: $out bytes from $size"
}

# every NAME RECORDING - each reader on RECORDING.
every()
{
	bounded "$1-replay" "$2" replay
	bounded "$1-report" "$2" report --json
	bounded "$1-hot" "$2" hot
	bounded "$1-chrome" "$2" export --chrome
	bounded "$1-perfetto" "$2" export --perfetto
	bounded "$1-folded" "$2" export --folded
	bounded "$1-speedscope" "$2" export --speedscope
}

"$MKREC" -N -o "$T/images.rbr" images 40000 || fail "mkrec images"
every images "$T/images.rbr"

# One file, 2,000 images: read once, in well under 800 MB of address
# space (unlimited under a sanitizer, whose shadow needs terabytes).
if command -v nm >/dev/null; then
	addr=$(nm "$RBMON" |
	    awk '$3 == "rbcalls_walk_step" { print "0x" $1; exit }')
	[ -n "$addr" ] || fail "no rbcalls_walk_step in $RBMON"
	"$MKREC" -N -O -P "$RBMON" -F "$addr" -o "$T/files.rbr" images 2000 ||
		fail "mkrec images of a file"
	rc=0
	( [ -n "${SANITIZERS:-}" ] || ulimit -v 800000; ulimit -t "$CPU"
	  exec "$RBMON" replay "$T/files.rbr" ) >"$T/files.out" 2>"$T/files.err" ||
		rc=$?
	[ "$rc" -eq 0 ] || fail "replay of 2,000 images of a file exited $rc: $(head -c 300 "$T/files.err")"
	expect "calls named, of 2,000 images of a file" 2000 \
		"$(grep -c '| rbcalls_walk_step();$' "$T/files.out")"
else
	note "nm is not installed: no images of a real file"
fi

"$MKREC" -M -o "$T/deep.rbr" deep 5000 || fail "mkrec deep"
every deep "$T/deep.rbr"
# The folded stacks say what they folded, and weigh what they did not.
"$RBMON" export --folded "$T/deep.rbr" >"$T/deep.folded" 2>"$T/deep.err" ||
	fail "export --folded exited $?"
grep -q 'stacks deeper than 128 frames' "$T/deep.err" ||
	fail "no word of the folded frames: $(cat "$T/deep.err")"
expect "folded lines" 129 "$(wc -l <"$T/deep.folded")"
last=$(tail -1 "$T/deep.folded")
expect "the deepest line's frames" 132 \
	"$(echo "${last% *}" | tr ';' '\n' | wc -l)"
case $last in
*';[folded: frames deeper than 128];0x401000 '*) ;;
*) fail "no fold in the deepest line: ${last: -100}" ;;
esac
expect "the weights' sum, every call's time" 249950 \
	"$(awk '{ n += $NF } END { print n }' "$T/deep.folded")"
"$RBMON" export --folded -D 4 "$T/deep.rbr" 2>/dev/null >"$T/deep4.folded" ||
	fail "export --folded -D 4 exited $?"
expect "folded lines at -D 4" 5 "$(wc -l <"$T/deep4.folded")"
"$MKREC" -M -o "$T/deep128.rbr" deep 128 || fail "mkrec deep 128"
"$RBMON" export --folded "$T/deep128.rbr" 2>"$T/deep.err" >"$T/deep.folded" ||
	fail "export --folded exited $?"
[ -s "$T/deep.err" ] && fail "128 frames folded: $(cat "$T/deep.err")"
grep -q 'folded:' "$T/deep.folded" && fail "128 frames folded"
# The innermost took no time: the recording ends as it is entered.
expect "folded lines of 128 frames" 127 "$(wc -l <"$T/deep.folded")"

"$MKREC" -L -o "$T/threads.rbr" threads 20000 || fail "mkrec threads"
every threads "$T/threads.rbr"

"$MKREC" -o "$T/funcs.rbr" funcs 100000 || fail "mkrec funcs"
every funcs "$T/funcs.rbr"
exit 0
