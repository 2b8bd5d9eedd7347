#!/bin/bash
# SPDX-License-Identifier: MIT
# viewers: the exports read by the programs people view them in, not only by
# our own checks.  A recording of tests/apps/evseq (three threads, two
# processes, calls known exactly) is exported four ways and:
#  - speedscope (the npm release, pinned by ./quickstart) in headless
#    Chromium, driven by playwright-core, loads --speedscope, --chrome and
#    --folded: the title it sets, the threads it offers, and its sandwich
#    table's functions, files and times must be ours; a malformed file must
#    fail there visibly;
#  - Chrome's trace viewer (catapult: chrome://tracing's importer, as
#    Debian's Go sources ship it) imports --chrome: processes, threads and
#    every slice (name, start, duration, args, and parent as the Perfetto
#    export nests it) must be the export's, without import warnings; a
#    malformed file must be refused;
#  - protoc decodes --perfetto as a perfetto.protos.Trace with the schema
#    below (the fields we write, as Perfetto's protos number and type them):
#    no unknown field, descriptors with our pids, tids and names, every
#    sequence cleared before it uses interned data, every iid defined, and
#    per thread the begin/end events rebuilding exactly the Chrome export's
#    slices (as catapult read them); a cut file must not decode.
. "$(dirname "$0")/lib.sh"

missing=
command -v python3 >/dev/null || missing="$missing python3"
command -v script >/dev/null || missing="$missing script(bsdutils)"
command -v protoc >/dev/null || missing="$missing protoc(protobuf-compiler)"
command -v node >/dev/null || missing="$missing node(nodejs)"
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || missing="$missing $CHROMIUM(chromium)"
VIEWERS=${RBTRACE_VIEWERS:-$top_builddir/tests/viewers}
SPEEDSCOPE=$VIEWERS/node_modules/speedscope/dist/release
PLAYWRIGHT=$VIEWERS/node_modules/playwright-core
[ -f "$SPEEDSCOPE/index.html" ] || missing="$missing speedscope(npm,in $VIEWERS)"
[ -f "$PLAYWRIGHT/package.json" ] || missing="$missing playwright-core(npm,in $VIEWERS)"
CATAPULT=
for d in /usr/share/go*/src/cmd/trace/static /usr/lib/go*/src/cmd/trace/static \
	/usr/share/go*/src/internal/trace/traceviewer/static \
	/usr/lib/go*/src/internal/trace/traceviewer/static; do
	[ -f "$d/trace_viewer_full.html" ] && [ -f "$d/webcomponents.min.js" ] && { CATAPULT=$d; break; }
done
[ -n "$CATAPULT" ] || missing="$missing trace_viewer_full.html(golang-1.19-src)"
[ -z "$missing" ] || skip "not installed:$missing (./quickstart test installs them)"

# ---- the recording and its exports ------------------------------------------------
(cd "$T" && "$RBTRACE" record -o "$T/run.rbr" --file "$T/run.trace" -- \
	"$APPS/evseq" -n 3 -w -f -e -p 4 >"$T/record.out" 2>"$T/record.err")
rc=$?
[ "$rc" -eq 0 ] || fail "rbtrace record exited $rc: $(cat "$T/record.err")"
pid=$(ready_field done 2)
child=$(ready_field child 2)
wtid=$(ready_field worker 2)
[ -n "$pid" ] && [ -n "$child" ] && [ -n "$wtid" ] || fail "evseq did not report: $(cat "$RBT_READY")"
g=$(gdb -nx -batch -ex 'info functions ^seq_b$' "$APPS/evseq" 2>/dev/null |
	sed -n 's/^\([0-9]*\):.*/\1/p' | head -1)
[ -n "$g" ] || g=$(line_of "$APPS_SRC/evseq.c" seq_b_def)
cline=$(line_of "$APPS_SRC/evseq.c" call_b)

W=$T/www
mkdir -p "$W"
"$RBMON" export --chrome -o "$W/chrome.json" "$T/run.rbr" || fail "export --chrome exited $?"
"$RBMON" export --speedscope -o "$W/ss.json" "$T/run.rbr" || fail "export --speedscope exited $?"
"$RBMON" export --folded -o "$W/folded.txt" "$T/run.rbr" || fail "export --folded exited $?"
"$RBMON" export --perfetto -o "$T/run.pftrace" "$T/run.rbr" 2>"$T/pf.err" || fail "export --perfetto exited $?"
[ -s "$T/pf.err" ] && fail "export --perfetto said: $(cat "$T/pf.err")"
"$RBMON" export --perfetto "$T/run.rbr" >"$T/stdout.pftrace" || fail "export --perfetto to a pipe exited $?"
cmp -s "$T/run.pftrace" "$T/stdout.pftrace" || fail "export --perfetto: -o and standard output differ"
"$RBMON" export --perfetto -t "$wtid" -o "$T/worker.pftrace" "$T/run.rbr" || fail "export --perfetto -t exited $?"
# Binary data is not for a terminal (script(1) gives it one): refused,
# unless -o is given.
script -qec "$RBMON export --perfetto $T/run.rbr; echo rc=\$?" /dev/null >"$T/tty.out" 2>&1
grep -q 'rbmon export: --perfetto writes binary data, not for a terminal: give -o FILE or redirect standard output' "$T/tty.out" &&
	grep -q 'rc=2' "$T/tty.out" || fail "--perfetto to a terminal: $(cat -v "$T/tty.out")"
script -qec "$RBMON export --perfetto -o $T/tty.pftrace $T/run.rbr; echo rc=\$?" /dev/null >"$T/tty.out" 2>&1
grep -q 'rc=0' "$T/tty.out" && cmp -s "$T/run.pftrace" "$T/tty.pftrace" ||
	fail "--perfetto -o from a terminal: $(cat -v "$T/tty.out")"
# Malformed files, for the viewers to fail on.
printf 'this is no profile at all\n' >"$W/bad.txt"
head -c 200 "$W/chrome.json" >"$W/bad.json"
printf '{"traceEvents": [{"name": "x", "ph": "X", "ts": }]}\n' >>"$W/bad.json"
head -c $(($(stat -c %s "$T/run.pftrace") - 1)) "$T/run.pftrace" >"$T/cut.pftrace"

# ---- Perfetto: protoc with Perfetto's field numbers and types -------------------------
# The messages and fields rbmon writes, as protos/perfetto/trace/ declares
# them (trace.proto, trace_packet.proto, trace_packet_defaults.proto,
# track_event/track_event.proto, track_descriptor.proto,
# process_descriptor.proto, thread_descriptor.proto, debug_annotation.proto,
# source_location.proto, interned_data/interned_data.proto,
# profiling/profile_common.proto).
cat >"$T/perfetto_subset.proto" <<'EOF'
syntax = "proto2";
package perfetto.protos;
message Trace { repeated TracePacket packet = 1; }
message TracePacket {
  optional uint64 timestamp = 8;
  optional TrackEvent track_event = 11;
  optional TrackDescriptor track_descriptor = 60;
  optional uint32 trusted_packet_sequence_id = 10;
  optional InternedData interned_data = 12;
  optional uint32 sequence_flags = 13;
  optional TracePacketDefaults trace_packet_defaults = 59;
}
message TracePacketDefaults {
  optional uint32 timestamp_clock_id = 58;
  optional TrackEventDefaults track_event_defaults = 11;
}
message TrackEventDefaults { optional uint64 track_uuid = 11; }
message TrackEvent {
  repeated uint64 category_iids = 3;
  repeated string categories = 22;
  optional uint64 name_iid = 10;
  optional string name = 23;
  enum Type {
    TYPE_UNSPECIFIED = 0; TYPE_SLICE_BEGIN = 1; TYPE_SLICE_END = 2;
    TYPE_INSTANT = 3; TYPE_COUNTER = 4;
  }
  optional Type type = 9;
  optional uint64 track_uuid = 11;
  repeated DebugAnnotation debug_annotations = 4;
  optional SourceLocation source_location = 33;
  optional uint64 source_location_iid = 34;
}
message DebugAnnotation {
  optional uint64 name_iid = 1;
  optional string name = 10;
  optional bool bool_value = 2;
  optional uint64 uint_value = 3;
  optional int64 int_value = 4;
  optional string string_value = 6;
  optional uint64 string_value_iid = 17;
}
message TrackDescriptor {
  optional uint64 uuid = 1;
  optional uint64 parent_uuid = 5;
  optional string name = 2;
  optional ProcessDescriptor process = 3;
  optional ThreadDescriptor thread = 4;
}
message ProcessDescriptor {
  optional int32 pid = 1;
  repeated string cmdline = 2;
  optional string process_name = 6;
}
message ThreadDescriptor {
  optional int32 pid = 1;
  optional int64 tid = 2;
  optional string thread_name = 5;
}
message InternedData {
  repeated EventCategory event_categories = 1;
  repeated EventName event_names = 2;
  repeated DebugAnnotationName debug_annotation_names = 3;
  repeated SourceLocation source_locations = 4;
  repeated InternedString debug_annotation_string_values = 29;
}
message EventCategory { optional uint64 iid = 1; optional string name = 2; }
message EventName { optional uint64 iid = 1; optional string name = 2; }
message DebugAnnotationName { optional uint64 iid = 1; optional string name = 2; }
message SourceLocation {
  optional uint64 iid = 1;
  optional string file_name = 2;
  optional string function_name = 3;
  optional uint32 line_number = 4;
}
message InternedString { optional uint64 iid = 1; optional bytes str = 2; }
EOF
decode() { protoc -I"$T" --decode=perfetto.protos.Trace "$T/perfetto_subset.proto" <"$1"; }
decode "$T/run.pftrace" >"$T/pf.txt" 2>"$T/pf.derr" || fail "protoc cannot decode the Perfetto export: $(cat "$T/pf.derr")"
decode "$T/worker.pftrace" >"$T/worker.txt" 2>"$T/pf.derr" || fail "protoc cannot decode the -t export: $(cat "$T/pf.derr")"
protoc --decode_raw <"$T/run.pftrace" >/dev/null 2>&1 || fail "protoc --decode_raw refuses the Perfetto export"
decode "$T/cut.pftrace" >/dev/null 2>"$T/cut.err" && fail "protoc decoded a Perfetto file cut short"
grep -q 'Failed to parse input' "$T/cut.err" || fail "protoc on a cut file: $(cat "$T/cut.err")"

# Text format as protoc prints it, into nested dicts (fields as lists).
cat >"$T/textpb.py" <<'EOF'
import codecs, re

def parse(path):
    root, stack = {}, []
    cur = root
    for raw in open(path, encoding="utf-8", errors="surrogateescape"):
        line = raw.strip()
        if not line:
            continue
        if line == "}":
            cur = stack.pop()
            continue
        m = re.match(r'^([A-Za-z_0-9]+) \{$', line)
        if m:
            new = {}
            cur.setdefault(m.group(1), []).append(new)
            stack.append(cur)
            cur = new
            continue
        m = re.match(r'^([A-Za-z_0-9]+): (.*)$', line)
        if not m:
            raise ValueError("unparsed line: %r" % line)
        k, v = m.groups()
        if v.startswith('"'):
            v = codecs.escape_decode(v[1:-1].encode("utf-8", "surrogateescape"))[0].decode("utf-8", "replace")
        elif re.match(r'^-?[0-9]+$', v):
            v = int(v)
        cur.setdefault(k, []).append(v)
    return root

def one(d, k, default=None):
    v = d.get(k)
    return v[0] if v else default
EOF

python3 - "$T" "$W/chrome.json" "$pid" "$wtid" "$child" "$g" "$cline" <<'EOF' || fail "the Perfetto export does not check out (above)"
import json, re, sys
sys.path.insert(0, sys.argv[1])
from textpb import parse, one
T, chrome, pid, wtid, child, bline, cline = sys.argv[1:8]
pid, wtid, child, bline, cline = int(pid), int(wtid), int(child), int(bline), int(cline)
bad = []

def unknown(d, path="Trace", found=set()):
    for k, vs in d.items():
        if re.match(r'^[0-9]+$', k) and (path, k) not in found:
            found.add((path, k))
            bad.append("unknown field %s in %s" % (k, path))
        for v in vs:
            if isinstance(v, dict):
                unknown(v, path + "." + k)

def slices_of(tr):
    """Per thread: slices rebuilt from begin/end, instants; checks the
    sequences' state on the way."""
    procs, threads, seqs, out = {}, {}, {}, {}
    pk = tr.get("packet", [])
    for p in pk:
        td = one(p, "track_descriptor")
        if td is not None:
            if one(td, "process") is not None:
                pr = one(td, "process")
                procs[one(td, "uuid")] = (one(pr, "pid"), one(pr, "process_name"))
            if one(td, "thread") is not None:
                th = one(td, "thread")
                threads[one(td, "uuid")] = (one(th, "pid"), one(th, "tid"), one(th, "thread_name"))
            continue
        seq = one(p, "trusted_packet_sequence_id")
        flags = one(p, "sequence_flags", 0)
        if seq is None:
            bad.append("a packet without a sequence: %r" % p); continue
        if flags & 1:
            dflt = one(one(one(p, "trace_packet_defaults", {}), "track_event_defaults", {}), "track_uuid")
            if dflt not in threads:
                bad.append("sequence %d: default track %r has no thread descriptor before it" % (seq, dflt))
            s = seqs[seq] = {"track": dflt, "names": {}, "cats": {}, "srcs": {}, "argn": {}, "strs": {},
                             "last": 0, "stack": [], "slices": [], "instants": []}
            out[dflt] = s
        else:
            s = seqs.get(seq)
            if s is None:
                bad.append("sequence %d used before it was cleared" % seq); continue
            if flags != 2:
                bad.append("sequence %d: an event packet without SEQ_NEEDS_INCREMENTAL_STATE (%r)" % (seq, flags))
        idata = one(p, "interned_data", {})
        for k, tab in (("event_names", "names"), ("event_categories", "cats"),
                       ("debug_annotation_names", "argn")):
            for e in idata.get(k, []):
                s[tab][one(e, "iid")] = one(e, "name")
        for e in idata.get("source_locations", []):
            s["srcs"][one(e, "iid")] = (one(e, "file_name"), one(e, "function_name"), one(e, "line_number"))
        for e in idata.get("debug_annotation_string_values", []):
            s["strs"][one(e, "iid")] = one(e, "str")
        te = one(p, "track_event")
        if te is None:
            continue
        if one(te, "track_uuid") is not None:
            bad.append("an event names its track: the sequence's default is meant")
        ts = one(p, "timestamp")
        if ts is None or ts < s["last"]:
            bad.append("sequence %d: time %r before %r" % (seq, ts, s["last"])); break
        s["last"] = ts
        args = {}
        for a in te.get("debug_annotations", []):
            n = s["argn"].get(one(a, "name_iid"))
            if n is None:
                bad.append("annotation name iid %r undefined" % one(a, "name_iid")); continue
            if one(a, "string_value_iid") is not None:
                v = s["strs"].get(one(a, "string_value_iid"))
                if v is None:
                    bad.append("annotation string iid %r undefined" % one(a, "string_value_iid"))
                args[n] = v
            else:
                args[n] = one(a, "bool_value")
        cats = [s["cats"].get(c) for c in te.get("category_iids", [])]
        typ = one(te, "type")
        if typ == "TYPE_SLICE_BEGIN":
            name = s["names"].get(one(te, "name_iid"))
            if name is None:
                bad.append("name iid %r undefined on sequence %d" % (one(te, "name_iid"), seq)); continue
            src = None
            if one(te, "source_location_iid") is not None:
                src = s["srcs"].get(one(te, "source_location_iid"))
                if src is None:
                    bad.append("source location iid %r undefined" % one(te, "source_location_iid"))
            s["stack"].append({"name": name, "start": ts, "cats": cats, "src": src, "args": args,
                               "parent": s["stack"][-1]["name"] if s["stack"] else None})
        elif typ == "TYPE_SLICE_END":
            if not s["stack"]:
                bad.append("sequence %d: an end without a begin" % seq); continue
            sl = s["stack"].pop()
            sl["dur"] = ts - sl["start"]
            sl["args"].update(args)
            s["slices"].append(sl)
        elif typ == "TYPE_INSTANT":
            s["instants"].append((ts, one(te, "name"), cats))
        else:
            bad.append("event of type %r" % typ)
    for s in seqs.values():
        if s["stack"]:
            bad.append("track %r: %d slices never ended" % (s["track"], len(s["stack"])))
    return len(pk), procs, threads, out

tr = parse(T + "/pf.txt")
unknown(tr)
npk, procs, threads, out = slices_of(tr)

# The Chrome export of the same recording: the reference.
ev = json.load(open(chrome))["traceEvents"]
X = [e for e in ev if e["ph"] == "X"]
inst = [e for e in ev if e["ph"] == "i"]
cthreads = {(e["pid"], e["tid"]) for e in X}
want_threads = {(pid, pid, "evseq"), (pid, wtid, "worker"), (child, child, "evseq")}
if set(threads.values()) != want_threads:
    bad.append("thread descriptors %r, not %r" % (sorted(threads.values()), sorted(want_threads)))
if sorted(procs.values()) != sorted([(pid, "evseq"), (child, "evseq")]):
    bad.append("process descriptors %r" % sorted(procs.values()))
want_packets = len(procs) + 2 * len(threads) + 2 * len(X) + len(inst)
if npk != want_packets:
    bad.append("%d packets, not %d (descriptors, one state packet per thread, 2 per Chrome X event, 1 per instant)"
               % (npk, want_packets))
pslices = {}
for uuid, s in out.items():
    p_, t_, _ = threads[uuid]
    pslices[(p_, t_)] = s
    cx = [e for e in X if (e["pid"], e["tid"]) == (p_, t_)]
    if len(s["slices"]) != len(cx):
        bad.append("tid %d: %d begin/end pairs, the Chrome export %d X events" % (t_, len(s["slices"]), len(cx)))
    mine = sorted((sl["start"], -sl["dur"], sl["name"], sl["dur"]) for sl in s["slices"])
    theirs = sorted((round(e["ts"] * 1000), -round(e["dur"] * 1000), e["name"], round(e["dur"] * 1000)) for e in cx)
    if mine != theirs:
        bad.append("tid %d: slices differ from the Chrome export's, first %r vs %r" %
                   (t_, next((a for a, b in zip(mine, theirs) if a != b), None),
                    next((b for a, b in zip(mine, theirs) if a != b), None)))
    ci = sorted((round(e["ts"] * 1000), e["name"]) for e in inst if (e["pid"], e["tid"]) == (p_, t_))
    if sorted((a, b) for a, b, _ in s["instants"]) != ci:
        bad.append("tid %d: instants differ from the Chrome export's" % t_)
    if any(c != ["rbtrace"] for _, _, c in s["instants"]):
        bad.append("tid %d: an instant not in category rbtrace" % t_)
    for sl in s["slices"]:
        if sl["cats"] != (["named"] if sl["name"] == "phase" else ["function"]):
            bad.append("%s in categories %r" % (sl["name"], sl["cats"])); break
allsl = [sl for s in out.values() for sl in s["slices"]]
b = [sl for sl in allsl if sl["name"] == "seq_b"]
if len(b) != 9 or any(sl["src"] != ("evseq.c", "seq_b", bline) or sl["args"] != {"call_site": "evseq.c:%d" % cline}
                      or sl["parent"] != "seq_a" for sl in b):
    bad.append("seq_b slices: %r" % b[:2])
lost = [(p_, sl["name"]) for (p_, t_), s in pslices.items() for sl in s["slices"] if sl["args"].get("entry_lost")]
if lost != [(child, "main")]:
    bad.append("entry_lost slices: %r" % lost)
if sum(1 for s in out.values() for _, n, _ in s["instants"] if n == "line 42") != 9:
    bad.append("not 9 'line 42' instants")
json.dump({"%d/%d" % k: [{"name": sl["name"], "start": sl["start"], "dur": sl["dur"], "parent": sl["parent"]}
                         for sl in s["slices"]] for k, s in pslices.items()}, open(T + "/pf-slices.json", "w"))

# -t: the worker alone, in its process.
w = parse(T + "/worker.txt")
_, wprocs, wthreads, wout = slices_of(w)
if list(wthreads.values()) != [(pid, wtid, "worker")] or list(wprocs.values()) != [(pid, "evseq")]:
    bad.append("-t %d: descriptors %r %r" % (wtid, wprocs, wthreads))
if [len(s["slices"]) for s in wout.values()] != [sum(1 for e in X if e["tid"] == wtid)]:
    bad.append("-t %d: not the worker's slices" % wtid)
for m in bad:
    print("viewers: perfetto: " + m, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF

# ---- the browser: speedscope and catapult, over http on a free port -------------------
ln -s "$SPEEDSCOPE" "$W/speedscope"
ln -s "$CATAPULT" "$W/catapult"
cat >"$W/catapult.html" <<'EOF'
<!DOCTYPE html>
<html><head><meta charset="utf-8">
<script src="catapult/webcomponents.min.js"></script>
<link rel="import" href="catapult/trace_viewer_full.html">
</head><body>
<script>document.addEventListener('WebComponentsReady', () => { window.tvReady = true; });</script>
</body></html>
EOF
cat >"$T/httpd.py" <<'EOF'
import functools, http.server, os, sys
root, portfile = sys.argv[1], sys.argv[2]
class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=root))
with open(portfile + ".new", "w") as f:
    f.write("%d\n" % s.server_address[1])
os.rename(portfile + ".new", portfile)
s.serve_forever()
EOF
launch httpd python3 "$T/httpd.py" "$W" "$T/port"
wait_for "the http server's port" test -s "$T/port"
base="http://127.0.0.1:$(cat "$T/port")/"

cat >"$T/drive.js" <<'EOF'
// Load each file in the viewer and report what it shows, as JSON.
const [pw, chromium, profile, base, timeout] = process.argv.slice(2);
const { chromium: browser } = require(pw);
const wait = Number(timeout) * 1000;

async function speedscope(ctx, file) {
  const p = await ctx.newPage();
  const seen = { file, title: null, dialogs: [], profiles: [] };
  let refused;
  const dialog = new Promise(r => { refused = r; });
  p.on('dialog', d => { seen.dialogs.push(d.message()); d.dismiss().catch(() => {}); refused(); });
  await p.goto(base + 'speedscope/index.html#profileURL=' + encodeURIComponent(base + file) + '&view=sandwich');
  // Loaded (the title names the profile) or refused (a dialog says why).
  await Promise.race([dialog,
    p.waitForFunction(() => / - speedscope$/.test(document.title), null, { timeout: wait })]).catch(() => {});
  seen.title = await p.title();
  if (!/ - speedscope$/.test(seen.title)) { await p.close(); return seen; }
  const shown = () => p.evaluate(() => {
    // Rows of three cells: the sandwich table's (total, self, name), and
    // the thread selector's list (duration, number, name).
    const cells = [...document.querySelectorAll('tr')].filter(r => r.children.length === 3 && r.children[0].tagName === 'TD');
    const listed = r => /^[0-9]+$/.test(r.children[0].textContent);
    const rows = cells.filter(r => !listed(r));
    // The thread selector: "name <span>(i/n)</span>".
    const i = [...document.querySelectorAll('span > span')].find(e => /^\(\d+\/\d+\)$/.test(e.textContent));
    return {
      selector: i ? i.parentElement.textContent : null,
      threads: cells.filter(listed).map(r => r.children[1].textContent),
      rows: rows.map(r => ({ total: r.children[0].firstChild.textContent, self: r.children[1].firstChild.textContent,
                             name: r.children[2].textContent, file: r.children[2].getAttribute('title') })),
    };
  });
  let cur = await shown();
  seen.profiles.push(cur);
  const m = cur.selector && cur.selector.match(/\((\d+)\/(\d+)\)$/);
  for (let i = 2; m && i <= Number(m[2]); i++) {
    await p.keyboard.press('n');
    await p.waitForFunction(n => [...document.querySelectorAll('span > span')].some(e => e.textContent === '(' + n + ')'),
      i + '/' + m[2], { timeout: wait });
    seen.profiles.push(await shown());
  }
  await p.close();
  return seen;
}

async function catapult(ctx, file) {
  const p = await ctx.newPage();
  await p.goto(base + 'catapult.html');
  await p.waitForFunction(() => window.tvReady === true, null, { timeout: wait });
  const seen = await p.evaluate(async (url) => {
    const text = await (await fetch(url)).text();
    const m = new tr.Model();
    try {
      new tr.importer.Import(m).importTraces([text]);
    } catch (e) {
      return { error: String(e) };
    }
    const out = { warnings: m.importWarnings.map(w => w.message), processes: [] };
    for (const pr of Object.values(m.processes)) {
      const po = { pid: pr.pid, name: pr.name, threads: [] };
      for (const th of Object.values(pr.threads))
        po.threads.push({ tid: th.tid, name: th.name,
          slices: th.sliceGroup.slices.map(s => ({ title: s.title, start: s.start, dur: s.duration,
            parent: s.parentSlice ? s.parentSlice.title : null, args: s.args })) });
      out.processes.push(po);
    }
    return out;
  }, base + file);
  seen.file = file;
  await p.close();
  return seen;
}

(async () => {
  const ctx = await browser.launchPersistentContext(profile, {
    executablePath: chromium, headless: true, viewport: { width: 1280, height: 2000 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const out = { speedscope: [], catapult: [] };
  for (const f of ['ss.json', 'chrome.json', 'folded.txt', 'bad.txt'])
    out.speedscope.push(await speedscope(ctx, f));
  for (const f of ['chrome.json', 'bad.json'])
    out.catapult.push(await catapult(ctx, f));
  await ctx.close();
  process.stdout.write(JSON.stringify(out));
})().catch(e => { console.error(e); process.exit(1); });
EOF
timeout $((WAIT_TIMEOUT * 4)) node "$T/drive.js" "$PLAYWRIGHT" "$CHROMIUM" "$T/profile" "$base" "$WAIT_TIMEOUT" \
	>"$T/seen.json" 2>"$T/drive.err" || fail "the browser run failed: $(tail -20 "$T/drive.err")"

python3 - "$T" "$W" "$pid" "$wtid" "$child" <<'EOF' || fail "the viewers do not show what was exported (above)"
import json, re, sys
T, W, pid, wtid, child = sys.argv[1:6]
pid, wtid, child = int(pid), int(wtid), int(child)
seen = json.load(open(T + "/seen.json"))
ev = json.load(open(W + "/chrome.json"))["traceEvents"]
X = [e for e in ev if e["ph"] == "X"]
bad = []
body = ["seq_run", "seq_round", "phase", "seq_a", "seq_b", "seq_c", "seq_park"]
funcs = {pid: {"main", "seq_ping"} | set(body), wtid: {"worker", "seq_pong"} | set(body),
         child: {"main"} | set(body)}

def ns(text):
    m = re.match(r'^([0-9.,]+)(ns|µs|ms|s)?', text.strip())
    v = float(m.group(1).replace(",", ""))
    return v * {"ns": 1, "µs": 1e3, "ms": 1e6, "s": 1e9, None: 1}[m.group(2)]

def times(tid):
    """Total and self ns per function of a thread, from the Chrome events."""
    es = sorted((e for e in X if e["tid"] == tid), key=lambda e: (e["ts"], -e["dur"]))
    tot, slf, st = {}, {}, []
    for e in es:
        s, d = round(e["ts"] * 1000), round(e["dur"] * 1000)
        while st and st[-1][0] + st[-1][1] <= s:
            st.pop()
        tot[e["name"]] = tot.get(e["name"], 0) + d
        slf[e["name"]] = slf.get(e["name"], 0) + d
        if st:
            slf[st[-1][2]] -= d
        st.append((s, d, e["name"]))
    return tot, slf

def close(a, b):
    return abs(a - b) <= 0.006 * b + 1

def check_rows(what, tid, rows, strip_args):
    names = {}
    for r in rows:
        n = r["name"].split(" {", 1)[0] if strip_args else r["name"]
        names.setdefault(n, []).append(r)
    if set(names) != funcs[tid]:
        bad.append("%s: tid %d shows %r, not %r" % (what, tid, sorted(names), sorted(funcs[tid])))
        return
    tot, slf = times(tid)
    for n, rs in names.items():
        t, s = sum(ns(r["total"]) for r in rs), sum(ns(r["self"]) for r in rs)
        if not close(t, tot[n]) or not close(s, slf[n]):
            bad.append("%s: tid %d %s total %s self %s, exported %d and %d ns" % (what, tid, n, t, s, tot[n], slf[n]))

# speedscope's own format: one profile per thread, named, with our files.
ss, ch, fo, nope = seen["speedscope"]
if ss["title"] != "evseq - speedscope" or ss["dialogs"]:
    bad.append("speedscope --speedscope: title %r, dialogs %r" % (ss["title"], ss["dialogs"]))
want = {"evseq (pid %d, tid %d)" % (pid, pid): pid, "worker (pid %d, tid %d)" % (pid, wtid): wtid,
        "evseq (pid %d, tid %d)" % (child, child): child}
got = {}
for pr in ss["profiles"]:
    m = re.match(r'^(.*) \(\d+/3\)$', pr["selector"] or "")
    got[m.group(1) if m else pr["selector"]] = pr
if set(got) != set(want) or any(sorted(pr["threads"]) != sorted(want) for pr in ss["profiles"]):
    bad.append("speedscope --speedscope: threads %r (listed %r), not %r" %
               (list(got), [pr["threads"] for pr in ss["profiles"]], sorted(want)))
else:
    for name, tid in want.items():
        check_rows("speedscope --speedscope", tid, got[name]["rows"], False)
        if any(r["file"] != "evseq.c" for r in got[name]["rows"]):
            bad.append("speedscope --speedscope: files %r" % [r["file"] for r in got[name]["rows"]])

# Chrome JSON in speedscope: one profile per thread, named by process and
# thread (speedscope puts the args in the names: "seq_b {...}").
if ch["title"] != "chrome.json - speedscope" or ch["dialogs"] or len(ch["profiles"]) != 3:
    bad.append("speedscope --chrome: title %r, dialogs %r, %d profiles" % (ch["title"], ch["dialogs"], len(ch["profiles"])))
for pr in ch["profiles"]:
    m = re.search(r'\(tid (\d+)\) \(\d/3\)$', pr["selector"] or "")
    if not m or int(m.group(1)) not in funcs:
        bad.append("speedscope --chrome: thread %r" % pr["selector"]); continue
    check_rows("speedscope --chrome", int(m.group(1)), pr["rows"], True)
if not any("worker (tid %d)" % wtid in (pr["selector"] or "") for pr in ch["profiles"]):
    bad.append("speedscope --chrome: no worker thread")

# Folded: one profile; every path's frames, totals and selfs exact.
if fo["title"] != "folded.txt - speedscope" or fo["dialogs"] or len(fo["profiles"]) != 1:
    bad.append("speedscope --folded: title %r, dialogs %r" % (fo["title"], fo["dialogs"]))
else:
    tot, slf = {}, {}
    for line in open(W + "/folded.txt"):
        path, n = line.rstrip("\n").rsplit(" ", 1)
        fr = path.split(";")
        for f in set(fr):
            tot[f] = tot.get(f, 0) + int(n)
        slf[fr[-1]] = slf.get(fr[-1], 0) + int(n)
    rows = {r["name"]: (ns(r["total"]), ns(r["self"])) for r in fo["profiles"][0]["rows"]}
    want_rows = {f: (tot[f], slf.get(f, 0)) for f in tot}
    if rows != want_rows:
        bad.append("speedscope --folded: %r, not %r" % (sorted(rows.items()), sorted(want_rows.items())))
    if not {"evseq (%d)" % pid, "worker (%d)" % wtid, "evseq (%d)" % child} <= set(rows):
        bad.append("speedscope --folded: process and thread frames missing: %r" % sorted(rows))

# The negative control: the same harness sees a bad file fail.
if nope["title"] != "speedscope" or nope["profiles"] or not any("Unrecognized format" in d for d in nope["dialogs"]):
    bad.append("speedscope took a malformed file: title %r, dialogs %r" % (nope["title"], nope["dialogs"]))

# catapult: the Chrome export's processes, threads and every slice, nested.
cat, cbad = seen["catapult"]
if "error" in cat or cat["warnings"]:
    bad.append("catapult: %r" % (cat.get("error") or cat["warnings"]))
else:
    procs = {p["pid"]: p for p in cat["processes"]}
    if set(procs) != {pid, child} or procs[pid]["name"] != "evseq (%d)" % pid:
        bad.append("catapult: processes %r" % [(p["pid"], p["name"]) for p in cat["processes"]])
    threads = {(p["pid"], t["tid"]): t for p in cat["processes"] for t in p["threads"]}
    if {k: t["name"] for k, t in threads.items()} != {(pid, pid): "evseq", (pid, wtid): "worker", (child, child): "evseq"}:
        bad.append("catapult: threads %r" % sorted((k, t["name"]) for k, t in threads.items()))
    pf = json.load(open(T + "/pf-slices.json"))
    for (p, t), th in threads.items():
        sl = [s for s in th["slices"] if s["title"] in funcs[t]]
        mine = sorted((round(s["start"] * 1e6), round(s["dur"] * 1e6), s["title"], s["parent"]) for s in sl)
        cx = sorted((round(e["ts"] * 1000), round(e["dur"] * 1000), e["name"]) for e in X if e["tid"] == t)
        if [m[:3] for m in mine] != cx:
            bad.append("catapult: tid %d slices differ from the export's" % t)
        # Nesting as catapult sees it is the Perfetto export's, but in a
        # thread where a call begins in the same ns as its caller: catapult
        # orders those as the file has them, and X events come as calls
        # end, callees first, so it nests them (and what follows) wrong.
        # Only the fork child has one: its entry-lost main and seq_run.
        pfs = sorted((s["start"], s["dur"], s["name"], s["parent"]) for s in pf["%d/%d" % (p, t)])
        starts = {(s["name"], s["start"]) for s in pf["%d/%d" % (p, t)]}
        ties = [s[2] for s in pfs if s[3] is not None and (s[3], s[0]) in starts]
        if ties != (["seq_run"] if t == child else []):
            bad.append("catapult: tid %d: calls beginning with their caller: %r" % (t, ties))
        elif not ties and mine != pfs:
            bad.append("catapult: tid %d: slices or parents differ from the Perfetto export's, first %r vs %r" %
                       (t, next((a for a, b in zip(mine, pfs) if a != b), None),
                        next((b for a, b in zip(mine, pfs) if a != b), None)))
        marks = [s for s in th["slices"] if s["title"] == "line 42"]
        if len(marks) != 3:
            bad.append("catapult: tid %d has %d 'line 42' marks, not 3" % (t, len(marks)))
    lost = [(p, s["title"]) for (p, t), th in threads.items() for s in th["slices"] if s["args"].get("entry_lost")]
    if lost != [(child, "main")]:
        bad.append("catapult: entry_lost slices %r" % lost)
if "error" not in cbad:
    bad.append("catapult imported a malformed file: %r" % cbad)
for m in bad:
    print("viewers: " + m, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
exit 0
