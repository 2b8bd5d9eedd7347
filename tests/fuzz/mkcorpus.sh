#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/fuzz/mkcorpus.sh - remake a fuzz target's seed corpus.
#
#   make check TESTS=        # builds the programs
#   tests/fuzz/mkcorpus.sh reader|control|expr|recording [DIR]
#
# Run from the build tree; writes DIR (default tests/fuzz/corpus/TARGET in
# the source tree).  libFuzzer's -merge=1 then keeps the inputs that add
# coverage (see the README's developer section).
#
# reader: the trace files of real programs (tests/apps under the freshly
# built library), in the reader target's sparse form (see reader.c): the
# file's non-zero runs as (offset, length, bytes) chunks, so a 150 KB file
# of mostly zeros is a few KB.  Each case runs its program with a small
# geometry, brings it to a known state (threads parked, a stack wrapped, a
# thread stopped at a breakpoint, a command answered, watches set...) and
# copies its file while the program lives, as rbmon would read it then.
#
# control: every command, stopped and running, with good and bad arguments
# and lengths (the input format is in control.c).
#
# expr: the expressions tests/check_watch.c evaluates.
#
# recording: recordings tests/mkrec crafts (many images, deep stacks, many
# threads, LOST chunks, no END chunk, threads ended mid-call, the three
# clocks and a calibration out of range), real ones of examples/demo and
# tests/apps/evseq, and the demo's with DYN chunks spliced in (functions
# not traced; hostile counts and lists, one cut), their objects renamed
# to paths that do not exist:
# an input whose objects are real libraries loads their debug information
# at every run, a thousand times slower.
set -u
: "${top_builddir:=$PWD}"
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
export top_builddir top_srcdir
TARGET=${1:-}
case $TARGET in
reader|control|expr|recording) ;;
*) echo "usage: $0 reader|control|expr|recording [DIR]" >&2; exit 2;;
esac
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/control.sh"
OUT=${2:-$top_srcdir/tests/fuzz/corpus/$TARGET}
mkdir -p "$OUT" || exit 99
OUT=$(cd "$OUT" && pwd)

if [ "$TARGET" = control ]; then
	python3 - "$OUT" <<'EOF'
import os, struct, sys
out = sys.argv[1]
cmds = ['STOP', 'CONT', 'STEP', 'NEXT', 'FINI', 'TRON', 'TROF', 'PING', 'MORE']
seeds = {}
for c in cmds:
    for stopped in (0, 1):
        seeds['%s-%s' % (c.lower(), 'stopped' if stopped else 'running')] = \
            bytes([stopped]) + c.encode()
    seeds[c.lower() + '-arg'] = b'\0' + c.encode() + b'x'
for name, args in (('more-ping', b'0 PING'), ('more-ping-10', b'10 PING'),
                   ('more-past', b'99999 PING'), ('more-stop', b'5 STOP'),
                   ('more-bad', b'abc PING'), ('more-more', b'0 MORE 0 PING'),
                   ('more-spaces', b'  3   PING  ')):
    seeds[name] = b'\1MORE' + args
seeds['unknown'] = b'\0ABCD'
seeds['unprintable'] = b'\0\x01\x02\xff\x7f'
seeds['nul-arg'] = b'\0PING\0x'
for name, n in (('len-neg', -1), ('len-big', 65), ('len-huge', 0x7fffffff),
                ('len-args-max', 1025)):
    seeds[name] = b'\2' + struct.pack('<i', n) + b'PING'
for name, v in (('ready-empty', 0), ('ready-taken', 2), ('ready-3', 3),
                ('ready-7', 7)):
    seeds[name] = b'\4' + struct.pack('<I', v) + b'PING'
for name, data in seeds.items():
    open(os.path.join(out, name), 'wb').write(data)
EOF
	# Event logs: named frames, line marks, a ring overwritten many times, a
# drain log full with its drops pending, recording switched off.
f=$T/evring.trace
launch evring env RBTRACE_FILE="$f" RBTRACE_EVENTS=64 "$APPS/evseq" -s -w
wait_ready "spun $LAUNCHED" "$LAUNCHED"
"$RBMON" -p "$LAUNCHED" --thread "$LAUNCHED" --send EVOF >/dev/null || fail "EVOF failed"
wait_for "recording off" events_true "$f" '[.processes[].threads[] | select(.recording == false)] | length == 1'
keep "$f" events-ring-off
f=$T/evdrain.trace
launch evdrain env RBTRACE_FILE="$f" RBTRACE_EVENTS=32 RBTRACE_POLICY=drain "$APPS/evseq" -n 4
wait_ready "done $LAUNCHED" "$LAUNCHED"
keep "$f" events-drain

note "corpus in $OUT: $(ls "$OUT" | wc -l) inputs"
	exit 0
fi

if [ "$TARGET" = recording ]; then
	mk() { "$top_builddir/tests/mkrec" "$@" || fail "mkrec $*"; }
	mk -o "$OUT/images-24" -N images 24
	mk -o "$OUT/images-objects-8" -O images 8
	mk -o "$OUT/deep-400-midcall" -M deep 400
	mk -o "$OUT/deep-300-lost" -L deep 300
	mk -o "$OUT/deep-200-no-ends" -E -N -M deep 200
	mk -o "$OUT/threads-12-lost" -L threads 12
	mk -o "$OUT/threads-6-midcall-no-end" -M -E threads 6
	mk -o "$OUT/threads-4-tsc" -c tsc threads 4
	mk -o "$OUT/threads-4-noclock" -c none -L threads 4
	mk -o "$OUT/threads-1-slow-clock" -c slow threads 1
	mk -o "$OUT/funcs-200-lost" -L funcs 200

	# rename RECORDING NAME [BYTES] - RECORDING, its objects renamed
	# /nonexistent/BASENAME, as $OUT/NAME; cut to its first BYTES.
	rename()
	{
		python3 - "$1" "$OUT/$2" "${3:-0}" <<'EOF2'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
off = 64
while off + 8 <= len(d):
    t, l = struct.unpack_from('<II', d, off)
    if t == 3 and l >= 72 + 256:
        p = off + 8 + 72
        path = bytes(d[p:p + 256]).split(b'\0')[0]
        new = (b'/nonexistent/' + path.rsplit(b'/', 1)[-1])[:255]
        d[p:p + 256] = new + bytes(256 - len(new))
    off += 8 + l + (8 - l % 8) % 8
n = int(sys.argv[3])
open(sys.argv[2], 'wb').write(bytes(d[:n] if n else d))
EOF2
		note "$2: $(stat -c %s "$OUT/$2") bytes"
	}
	(cd "$T" && "$RBTRACE" record -q -o "$T/demo.rbr" --file "$T/demo.trace" \
		-- "$top_builddir/examples/demo" -t 1 >/dev/null 2>&1) ||
		fail "rbtrace record of the demo failed"
	rename "$T/demo.rbr" demo
	rename "$T/demo.rbr" demo-cut 4000
	(cd "$T" && LD_LIBRARY_PATH=$top_builddir/lib/.libs "$RBTRACE" record -q \
		-o "$T/evseq.rbr" --file "$T/evseq.trace" -- \
		"$APPS/.libs/evseq" -n 1 -w -f -e -p 2 >/dev/null 2>&1) ||
		fail "rbtrace record of evseq failed"
	rename "$T/evseq.rbr" evseq
	(cd "$T" && LD_LIBRARY_PATH=$top_builddir/lib/.libs "$RBTRACE" record -q \
		-o "$T/named.rbr" --file "$T/named.trace" -- \
		"$APPS/.libs/evseq" -n 2 -e >/dev/null 2>&1) ||
		fail "rbtrace record of evseq -n 2 failed"
	rename "$T/named.rbr" evseq-named
	python3 - "$OUT/demo" "$OUT" <<'EOF2' || fail "the DYN inputs"
import struct, sys
# DYN chunks (rbtrace(5) RECORDINGS) spliced into RECORDING before its END:
# well formed, a count far past the list, a list past its count, too short,
# no process, flags and counts at their limits, many images; and one cut
# inside its list.
src, out = sys.argv[1], sys.argv[2]
d = open(src, 'rb').read()
off, thr, lo, end = 64, None, None, len(d)
while off + 8 <= len(d):
    t, l = struct.unpack_from('<II', d, off)
    if t == 3 and lo is None:
        lo = struct.unpack_from('<Q', d, off + 8 + 16)[0]
    if t == 4 and thr is None:
        thr = struct.unpack_from('<iiiIQQ', d, off + 8 + 8)
    if t == 8:
        end = off
    off += 8 + l + (8 - l % 8) % 8
pid, image, pstart = thr[0], thr[4], thr[5]

def chunk(t, p):
    return struct.pack('<II', t, len(p)) + p + bytes((8 - len(p) % 8) % 8)

def dyn(fns, say=None, pid=pid, image=image, flags=0, name=None, auto=0,
        sites=100, soff=10):
    h = struct.pack('<QiIQQQIIIIQ', image, pid, flags, pstart, sites, soff,
                    40, len(fns) if name is None else name, auto,
                    len(fns) if say is None else say, 12345)
    return chunk(9, h + b''.join(struct.pack('<QII', a, r, 0) for a, r in fns))

f = [(lo + 0x40 * i, 1 + i % 3) for i in range(6)]
cases = {
    'dyn-exclude': dyn(f[:2]) + dyn(f[:3], flags=4, auto=1) + dyn([]),
    'dyn-count-hostile': dyn(f[:3], say=0xffffffff, name=0xffffffff,
                             auto=0xffffffff, flags=0xffffffff),
    'dyn-list-long': dyn(f, say=1) + dyn(f[::-1] + f, say=2),
    'dyn-short-pid': chunk(9, b'\x01' * 40) + dyn(f[:1], pid=0) +
                     dyn(f[:1], pid=-5) + dyn([(0, 1), (lo, 0), (lo, 0x80)]),
    'dyn-dormant-images': b''.join(dyn(f[:1], image=i, flags=1 | 2 | 16)
                                   for i in range(300)),
}
for name, c in cases.items():
    open(out + '/' + name, 'wb').write(d[:end] + c + d[end:])
# Cut inside a DYN chunk's list: the recording ends there.
c = dyn(f)
open(out + '/dyn-cut', 'wb').write(d[:end] + c[:len(c) - 20])
EOF2
	note "corpus in $OUT: $(ls "$OUT" | wc -l) inputs"
	exit 0
fi

if [ "$TARGET" = expr ]; then
	python3 - "$top_srcdir/tests/check_watch.c" "$OUT" <<'EOF'
import codecs, os, re, sys
text = open(sys.argv[1]).read()
seen = []
for m in re.finditer(r'EXPECT\("((?:[^"\\]|\\.)*)"', text):
    e = codecs.decode(m.group(1), 'unicode_escape').replace('check_watch', 'expr')
    if e not in seen:
        seen.append(e)
        open(os.path.join(sys.argv[2], 'e%03d' % len(seen)), 'w').write(e)
EOF
	# Event logs: named frames, line marks, a ring overwritten many times, a
# drain log full with its drops pending, recording switched off.
f=$T/evring.trace
launch evring env RBTRACE_FILE="$f" RBTRACE_EVENTS=64 "$APPS/evseq" -s -w
wait_ready "spun $LAUNCHED" "$LAUNCHED"
"$RBMON" -p "$LAUNCHED" --thread "$LAUNCHED" --send EVOF >/dev/null || fail "EVOF failed"
wait_for "recording off" events_true "$f" '[.processes[].threads[] | select(.recording == false)] | length == 1'
keep "$f" events-ring-off
f=$T/evdrain.trace
launch evdrain env RBTRACE_FILE="$f" RBTRACE_EVENTS=32 RBTRACE_POLICY=drain "$APPS/evseq" -n 4
wait_ready "done $LAUNCHED" "$LAUNCHED"
keep "$f" events-drain

note "corpus in $OUT: $(ls "$OUT" | wc -l) inputs"
	exit 0
fi

export RBTRACE_RINGS=4 RBTRACE_SLOTS=8 RBTRACE_SLOTSZ=24 RBTRACE_MSGSZ=64 \
	RBTRACE_GLOBALSZ=1024 RBTRACE_ORPHAN_TIMEOUT=0

# sparse FILE NAME - write FILE's non-zero runs to $OUT/NAME.
sparse()
{
	python3 - "$1" "$OUT/$2" <<'EOF'
import struct, sys
data = open(sys.argv[1], 'rb').read()
out, i, n = bytearray(), 0, len(data)
while i < n:
    if data[i] == 0:
        i += 1
        continue
    j = i
    while j < n:
        # a run ends at 16 zero bytes, or at 65535 bytes
        if data[j:j + 16] == bytes(16) or j - i >= 65535 - 16:
            break
        j += 1
    j = min(j, n)
    out += struct.pack('<IH', i, j - i) + data[i:j]
    i = j
open(sys.argv[2], 'wb').write(bytes(out))
EOF
	note "$2: $(stat -c %s "$1") -> $(stat -c %s "$OUT/$2") bytes"
}

# keep FILE NAME - copy FILE as it is now, then its sparse form.
keep() { cp "$1" "$T/copy.trace" && sparse "$T/copy.trace" "$2"; }

# One thread parked three calls deep; the monotonic clock.
f=$T/simple.trace
traced simple RBTRACE_FILE="$f" RBTRACE_CLOCK=mono "$APPS/simple" -p
wait_ready "parked $LAUNCHED" "$LAUNCHED"
keep "$f" simple-parked-mono

# Threads that exited, threads parked, more threads than rings (TSC).
f=$T/threads.trace
traced threads RBTRACE_FILE="$f" "$APPS/threads" 6 3 2
wait_ready "ready $LAUNCHED" "$LAUNCHED"
keep "$f" threads-churned

# A stack deeper than the ring: wrapped in the middle.
f=$T/recurse.trace
traced recurse RBTRACE_FILE="$f" "$APPS/recurse" 20 3
wait_ready deep "$LAUNCHED"
keep "$f" recurse-wrapped
kill -USR1 "$LAUNCHED"
wait_ready shallow "$LAUNCHED"
keep "$f" recurse-unwound

# Two processes of one image, parent and child.
f=$T/forker.trace
traced forker RBTRACE_FILE="$f" "$APPS/forker"
wait_ready "parent $LAUNCHED [0-9]+" "$LAUNCHED"
keep "$f" forker

# An exec: a second image in the same process.
f=$T/execer.trace
traced execer RBTRACE_FILE="$f" "$APPS/execer" replace "$APPS/simple" -p
wait_ready "pre-exec $LAUNCHED" "$LAUNCHED"
kill -USR1 "$LAUNCHED"
wait_ready "parked $LAUNCHED" "$LAUNCHED"
keep "$f" execer-replaced

# Named frames through the explicit API; threads renamed.
f=$T/named.trace
launch named env RBTRACE_FILE="$f" "$APPS/named"
wait_for "named frames" json_true "$f" '[.processes[].threads[].frames[].function] | any(. == "handler")'
keep "$f" named
f=$T/renamer.trace
traced renamer RBTRACE_FILE="$f" "$APPS/renamer"
wait_for "renamed threads" json_true "$f" '[.processes[].threads[].name] | length >= 2'
keep "$f" renamer

# An object loaded later.
f=$T/dlopen.trace
traced dlopener RBTRACE_FILE="$f" "$APPS/dlopener" "$APPS/.libs/libplugin.so"
wait_for "the plugin's frames" json_true "$f" '[.processes[].threads[].frames[].function] | any(. == "plugin_wait")'
keep "$f" dlopener

# A thread stopped at a breakpoint, a command answered, watches set.
f=$T/watch.trace
traced watch RBTRACE_FILE="$f" "$APPS/watch"
wait_ready "freed 0x[0-9a-f]+" "$LAUNCHED"
K=$(tid_of ticker)
"$RBMON" --thread "$K" --watch counter --watch 'cfg' --timeout 10 "$f" >/dev/null ||
	fail "--watch failed"
keep "$f" watch-values
send "$f" "$K" "BRKP tick"
[ "$SENT" -eq 0 ] || fail "BRKP tick: $(cat "$T/send.err")"
wait_json "$f" "[.processes[].threads[] | select(.tid == $K) | .state] == [\"stopped\"]" "ticker stopped"
send "$f" "$K" PING
keep "$f" watch-stopped-break

# Event logs: named frames, line marks, a ring overwritten many times, a
# drain log full with its drops pending, recording switched off.
f=$T/evring.trace
launch evring env RBTRACE_FILE="$f" RBTRACE_EVENTS=64 "$APPS/evseq" -s -w
wait_ready "spun $LAUNCHED" "$LAUNCHED"
"$RBMON" -p "$LAUNCHED" --thread "$LAUNCHED" --send EVOF >/dev/null || fail "EVOF failed"
wait_for "recording off" events_true "$f" '[.processes[].threads[] | select(.recording == false)] | length == 1'
keep "$f" events-ring-off
# Captures of slow calls: the armed table, captures of step and of leaf.
f=$T/slowcall.trace
${CC:-cc} -g -O0 -finstrument-functions -fno-inline -pthread -o "$T/slowcall" \
	"$APPS_SRC/slowcall.c" || fail "cannot build slowcall"
traced slowcall RBTRACE_FILE="$f" RBTRACE_EVENTS=64 \
	RBTRACE_CAPTURE='step>1ms;leaf>max' "$T/slowcall" -t 2 -n 1500 -e 500 -s 0 -p
wait_for "the captures" grep -q '^done' "$T/slowcall.out"
keep "$f" captures
f=$T/evdrain.trace
launch evdrain env RBTRACE_FILE="$f" RBTRACE_EVENTS=32 RBTRACE_POLICY=drain "$APPS/evseq" -n 4
wait_ready "done $LAUNCHED" "$LAUNCHED"
keep "$f" events-drain

note "corpus in $OUT: $(ls "$OUT" | wc -l) inputs, $(du -sk "$OUT" | cut -f1) KB"
