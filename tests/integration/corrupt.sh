#!/bin/bash
# SPDX-License-Identifier: MIT
# corrupt: rbmon refuses a missing file, a file that is not a trace file,
# another format version, a truncated file, a corrupt header (layout not
# matching the geometry) and a file of another user: exit 1, one line
# "rbmon: ..." on stderr, nothing on stdout, never a crash.
. "$(dirname "$0")/lib.sh"

# A real trace file to damage: a process killed while traced.
good=$T/good.trace
traced app RBTRACE_FILE="$good" "$APPS/simple" -p
pid=$LAUNCHED
wait_ready "parked $pid" "$pid"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
dump_json "$good"
expect "the undamaged file dumps" "simple_leaf simple_work main" \
	"$(jqv '.processes[0].threads[0].frames | map(.function) | join(" ")')"
size=$(stat -c %s "$good")
hsize=$(header_field header | cut -d' ' -f2)

# refuse DESCRIPTION FILE [PREFIX-COMMAND...] - every mode must refuse it.
refuse()
{
	local desc=$1 file=$2 mode rc out err
	shift 2
	for mode in "--dump" "--dump --json" "--json"; do
		out=$T/refuse.out
		err=$T/refuse.err
		rc=0
		# shellcheck disable=SC2086
		"$@" "$RBMON" $mode "$file" >"$out" 2>"$err" || rc=$?
		[ "$rc" -eq 1 ] ||
			fail "$desc: rbmon $mode exited $rc, expected 1 (stderr: $(head -c 300 "$err"))"
		[ "$(wc -l <"$err")" -eq 1 ] ||
			fail "$desc: rbmon $mode: expected one line on stderr, got: $(cat "$err")"
		grep -q '^rbmon: ..*' "$err" ||
			fail "$desc: rbmon $mode: message does not start with 'rbmon: ': $(cat "$err")"
		grep -Eqi 'segmentation|aborted|core dumped|sanitizer' "$err" &&
			fail "$desc: rbmon $mode crashed: $(cat "$err")"
		[ -s "$out" ] && fail "$desc: rbmon $mode wrote to stdout: $(head -c 300 "$out")"
	done
	note "ok: $desc: $(cat "$err")"
}

# damaged NAME - a fresh copy of the good file.
damaged() { cp "$good" "$T/$1"; echo "$T/$1"; }

refuse "missing file" "$T/no-such.trace"
cp /etc/passwd "$T/passwd"
refuse "not a trace file (/etc/passwd)" "$T/passwd"
: >"$T/empty"
refuse "empty file" "$T/empty"
head -c "$size" /dev/zero >"$T/zeros"
refuse "all zeros" "$T/zeros"
refuse "directory" "$T"

x=$(damaged magic); printf 'RBTRACEX' | dd of="$x" conv=notrunc status=none
refuse "bad magic" "$x"
x=$(damaged version1); header_put "$x" version 1
refuse "format version 1" "$x"
x=$(damaged version2); header_put "$x" version 2
refuse "format version 2" "$x"
x=$(damaged version3); header_put "$x" version 3
refuse "format version 3" "$x"
x=$(damaged version4); header_put "$x" version 4
refuse "format version 4" "$x"
x=$(damaged version5); header_put "$x" version 5
refuse "format version 5" "$x"
x=$(damaged version6); header_put "$x" version 6
refuse "format version 6" "$x"
x=$(damaged version8); header_put "$x" version 8
refuse "format version 8" "$x"
x=$(damaged version0); header_put "$x" version 0
refuse "format version 0" "$x"

for cut in 100 $hsize $((hsize + 64)) $((size / 2)) $((size - 1)); do
	x=$(damaged "trunc$cut"); truncate -s "$cut" "$x"
	refuse "truncated to $cut of $size bytes" "$x"
done

x=$(damaged rings); header_put "$x" rings 65536
refuse "rings does not match the layout" "$x"
x=$(damaged rings0); header_put "$x" rings 0
refuse "rings 0" "$x"
x=$(damaged slots); header_put "$x" slots 0
refuse "slots 0" "$x"
x=$(damaged slot_sz); header_put "$x" slot_sz 4000
refuse "slot_sz does not match the layout" "$x"
x=$(damaged ring_size); header_put "$x" ring_size 8
refuse "ring_size does not match the layout" "$x"
x=$(damaged rings_off); header_put "$x" rings_off 4294963200
refuse "rings_off beyond the file" "$x"
x=$(damaged owners_off); header_put "$x" owners_off 3
refuse "owners_off misaligned" "$x"
x=$(damaged slots_off); header_put "$x" slots_off 4294967295
refuse "slots_off beyond the ring" "$x"
x=$(damaged header_size); header_put "$x" header_size 16
refuse "header_size too small" "$x"

# Another user's file: refused even when readable (root aside).
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	chmod 711 "$T"
	x=$(damaged mine); chmod 644 "$x"
	"${nobody[@]}" test -r "$x" || skip "nobody cannot read $x (is $top_builddir reachable?)"
	# the build tree may sit where nobody cannot go (/root): use a copy
	mkdir -m 755 "$T/bin"
	cp "$RBMON" "$T/bin/rbmon"
	"${nobody[@]}" test -x "$T/bin/rbmon" || skip "nobody cannot run $T/bin/rbmon"
	RBMON=$T/bin/rbmon refuse "another user's file (readable)" "$x" "${nobody[@]}"
	chmod 600 "$x"
	RBMON=$T/bin/rbmon refuse "another user's file (mode 0600)" "$x" "${nobody[@]}"
	# root reads anyone's file
	chown 65534:65534 "$x"
	dump_json "$x"
	expect "root reads another user's file" simple "$(jqv .program)"
else
	note "not root: other-user cases skipped"
fi
exit 0
