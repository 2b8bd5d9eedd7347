#!/bin/bash
# SPDX-License-Identifier: MIT
# record-lost: the recorder's accounting identity.  tests/apps/evcount's
# threads make a number of entries and exits known exactly (each says it);
# recorded with logs of 64 records, most are lost.  For every thread of
# the recording (threads, a fork child, the program before and after an
# exec), what the readers say it kept plus what they say it lost is that
# number, in rbmon report and hot (JSON), the Chrome export's otherData,
# and rbmon replay's text (its entries, exits and [LOST N EVENTS] lines);
# the exports' thread names carry the same losses, and the recorder's
# summary the same totals.  Twice: the recorder running along (drops
# marked in the streams, and after their last records), and the recorder
# held up (SIGSTOP) while every thread runs to its end with its log full.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "python3 is not installed"

CALLS=20000

# check NAME - the identity on $T/NAME.rbr, against the "hooks" lines of
# $RBT_READY and the recorder's summary in $T/NAME.err.
check()
{
	local n=$1
	"$RBMON" report --json "$T/$n.rbr" >"$T/$n.report" 2>"$T/$n.report.err" ||
		fail "rbmon report exited $?: $(cat "$T/$n.report.err")"
	"$RBMON" hot --json "$T/$n.rbr" >"$T/$n.hot" 2>"$T/$n.hot.err" ||
		fail "rbmon hot exited $?: $(cat "$T/$n.hot.err")"
	"$RBMON" replay "$T/$n.rbr" >"$T/$n.replay" 2>"$T/$n.replay.err" ||
		fail "rbmon replay exited $?: $(cat "$T/$n.replay.err")"
	"$RBMON" export --chrome "$T/$n.rbr" >"$T/$n.chrome" 2>"$T/$n.chrome.err" ||
		fail "export --chrome exited $?: $(cat "$T/$n.chrome.err")"
	"$RBMON" export --speedscope "$T/$n.rbr" >"$T/$n.ss" 2>/dev/null ||
		fail "export --speedscope exited $?"
	"$RBMON" export --folded "$T/$n.rbr" >"$T/$n.folded" 2>/dev/null ||
		fail "export --folded exited $?"
	"$RBMON" export --perfetto -o "$T/$n.pb" "$T/$n.rbr" 2>/dev/null ||
		fail "export --perfetto exited $?"
	python3 - "$n" "$T" "$RBT_READY" "$2" <<'EOF' || fail "$n: the accounting does not add up (above)"
import json, re, sys
name, T, ready, held = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "held"
bad = []
def say(m):
    bad.append(m)

# What each thread made: "hooks PID TID N", in the order they ended.
want = [tuple(int(v) for v in l.split()[1:4]) for l in open(ready) if l.startswith("hooks ")]

# rbmon replay: per tid, its entries and exits and [LOST N EVENTS].
line = re.compile(r"^.{10} \[ *(\d+)\] \| *(.*)$")
got = {}
for l in open("%s/%s.replay" % (T, name)):
    m = line.match(l.rstrip("\n"))
    if not m:
        continue
    tid, text = int(m.group(1)), m.group(2)
    n = 0
    if re.fullmatch(r"\[LOST (\d+) EVENTS\]", text):
        n = int(text[6:].split()[0])
    elif text.endswith("() {"):
        n = 1
    elif text.endswith("();"):
        n = 2
    elif re.fullmatch(r"\} /\* [A-Za-z_0-9]+ \*/", text):
        n = 1
    elif text.endswith("{ /* entry lost */") or text.startswith("} /*"):
        n = 0
    else:
        say("replay line not understood: %r" % l)
    got[tid] = got.get(tid, 0) + n
exp = {}
for w in want:
    exp[w[1]] = exp.get(w[1], 0) + w[2]
if got != exp:
    say("replay: kept + lost per tid %r, the program made %r" % (got, exp))

rep = json.load(open("%s/%s.report" % (T, name)))
if "threads" not in rep:
    say("report --json has no threads and their losses: %r" % sorted(rep))
    for m in bad:
        print("record-lost: %s: %s" % (name, m), file=sys.stderr)
    sys.exit(1)
threads = rep["threads"]
if len(threads) != len(want):
    say("%d threads recorded, %d made calls: %r" % (len(threads), len(want), threads))
# Streams of one pid and tid (an exec) come in the order they ended.
left = list(want)
lost_all = 0
for t in threads:
    m = [w for w in left if w[0] == t["pid"] and w[1] == t["tid"]]
    if not m:
        say("thread %d/%d: no count from the program" % (t["pid"], t["tid"]))
        continue
    left.remove(m[0])
    calls = m[0][2]
    if t["lost_unknown"]:
        say("thread %d: losses of unknown size" % t["tid"])
    if t["records"] + t["lost"] != calls:
        say("thread %d (%s): kept %d + lost %d = %d, it made %d" % (t["tid"], t["name"],
            t["records"], t["lost"], t["records"] + t["lost"], calls))
    if held and (t["lost"] == 0 or t["records"] > 2 * 64):
        say("thread %d: held up, it kept %d and lost %d" % (t["tid"], t["records"], t["lost"]))
    lost_all += t["lost"]
if lost_all == 0:
    say("nothing lost with logs of 64 records")
if rep["lost"] != lost_all or not rep["lower_bounds"] or not rep["complete"]:
    say("report totals: lost %r lower_bounds %r complete %r" % (rep["lost"], rep["lower_bounds"], rep["complete"]))

# hot and the Chrome export: the same, thread by thread.
hot = json.load(open("%s/%s.hot" % (T, name)))
if hot["threads"] != threads or hot["lost"] != lost_all or hot["records"] != rep["records"]:
    say("hot's threads differ from report's: %r" % hot["threads"])
chrome = json.load(open("%s/%s.chrome" % (T, name)))
od = chrome["otherData"]
if od["threads"] != threads or od["lost"] != lost_all or not od["lower_bounds"]:
    say("the Chrome export's otherData differs: %r" % od)
def grouped(v):
    return "{:,}".format(v)

def lost_text(t):
    return "%s records lost" % grouped(t["lost"])

tn = [e["args"]["name"] for e in chrome["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name"]
for t in threads:
    if (("%s (%s)" % (t["name"], lost_text(t))) if t["lost"] else t["name"]) not in tn:
        say("no Chrome thread name with %d's losses: %r" % (t["tid"], tn))

# speedscope, folded, perfetto: each thread's name says what it lost.
ss = [p["name"] for p in json.load(open("%s/%s.ss" % (T, name)))["profiles"]]
folded = open("%s/%s.folded" % (T, name)).read()
pb = open("%s/%s.pb" % (T, name), "rb").read()
for t in threads:
    lost = ", " + lost_text(t) if t["lost"] else ""
    if "%s (pid %d, tid %d%s)" % (t["name"], t["pid"], t["tid"], lost) not in ss:
        say("no speedscope profile named with %d/%d's losses: %r" % (t["pid"], t["tid"], ss))
    if ";%s (%d%s);" % (t["name"], t["tid"], lost) not in folded:
        say("no folded thread frame with %d's losses" % t["tid"])
    if t["lost"] and ("%s (%s)" % (t["name"], lost_text(t))).encode() not in pb:
        say("no perfetto thread named with %d's losses" % t["tid"])

if not re.search(r"^# %s records lost in %d threads" % (re.escape(grouped(lost_all)), len(threads)),
                 open("%s/%s.replay" % (T, name)).read(), re.M):
    say("no loss table at the end of the replay")

# The recorder's summary: the same totals.
err = open("%s/%s.err" % (T, name)).read()
m = re.search(r"^rbmon: recorded ([0-9,]+) events of (\d+) threads? in (\d+) process(?:es)? into .*, ([0-9,]+) lost$", err, re.M)
if not m:
    say("no summary: %r" % err)
elif (int(m.group(1).replace(",", "")), int(m.group(2)), int(m.group(4).replace(",", ""))) != \
        (rep["records"], len(threads), lost_all):
    say("summary %r; the readers: %d records, %d threads, %d lost" % (m.group(0), rep["records"], len(threads), lost_all))
for m in bad:
    print("record-lost: %s: %s" % (name, m), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
}

# ---- the recorder along: 4 threads, a fork child, an exec --------------------
(cd "$T" && "$RBTRACE" record -o "$T/along.rbr" --file "$T/along.trace" --events 64 -- \
	"$APPS/evcount" -t 4 -n "$CALLS" -f -x >"$T/along.out" 2>"$T/along.err")
rc=$?
[ "$rc" -eq 0 ] || fail "rbtrace record exited $rc: $(cat "$T/along.err")"
expect "threads that said what they made" 7 "$(grep -c '^hooks ' "$RBT_READY")"
check along along

# ---- the recorder held up while every thread runs to its end -------------------
: >"$RBT_READY"
launch held "$RBTRACE" record -o "$T/held.rbr" --file "$T/held.trace" --events 64 -- \
	"$APPS/evcount" -w -t 4 -n "$CALLS" -f -x
rb=$LAUNCHED
wait_ready "armed [0-9]+" "$rb"
pid=$(ready_field armed 2)
wait_for "the recorder" pgrep -P "$rb" -x rbmon
rec=$(pgrep -P "$rb" -x rbmon)
kill -STOP "$rec"
kill -USR1 "$pid"
wait_ready "done $pid" "$rb"
kill -CONT "$rec"
wait "$rb"
rc=$?
[ "$rc" -eq 0 ] || fail "rbtrace record (held) exited $rc: $(cat "$T/held.err")"
expect "threads that said what they made" 7 "$(grep -c '^hooks ' "$RBT_READY")"
check held held
exit 0
