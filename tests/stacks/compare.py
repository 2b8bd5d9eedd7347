#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""compare.py - rbmon's stacks against gdb's, frame by frame.

  compare.py RBMON_JSON GDB_JSON
      Compare the threads of GDB_JSON's process (tests/stacks/gdb-frames.py)
      with the same threads (by tid) in RBMON_JSON (rbmon --dump --json).
      Exit 0 if they agree, 1 (after printing both stacks side by side)
      if not, 2 on bad input, 3 on a bug here.

  compare.py --synth GDB_JSON [INNER OUTER]
      Print the rbmon JSON that would agree with GDB_JSON; with INNER and
      OUTER, a wrapped one that keeps that many innermost and outermost
      frames of each thread deeper than INNER + OUTER.  For the self-test.

Only the program's own frames of gdb are compared (not libc's read,
start_thread, ...).  For each frame: the function name (C++ names without
return type and parameter list), the file's basename, the line and whether
it is inlined.  rbmon's innermost frame is located at its function's
definition, so its line is compared with the line gdb gives the function.
A thread whose older frames were overwritten ("wrapped": N) has its
innermost "wrapped_at" frames compared with gdb's innermost ones and the
rest with gdb's outermost ones; its outermost frame must be gdb's.  A
thread of an attached program whose outermost frame is the before-attach
frame ("before_attach": true) has the frames over it compared with gdb's
innermost ones; gdb must show more.

  compare.py --off NAMES RBMON_JSON GDB_JSON
      The same, with the functions NAMES (comma-separated) switched off
      (rbtrace --exclude): their frames are removed from gdb's first, and
      the frame that called one may have no line in rbmon's (the call it
      made is in the function switched off).
"""
import json
import os
import re
import sys
import traceback


def strip_params(s):
    """Drop a trailing C++ parameter list and the qualifiers after it."""
    changed = True
    while changed:
        changed = False
        for q in (" const", " volatile", " &&", " &", " noexcept"):
            if s.endswith(q):
                s = s[:-len(q)]
                changed = True
    if not s.endswith(")"):
        return s
    depth = 0
    for i in range(len(s) - 1, -1, -1):
        if s[i] == ")":
            depth += 1
        elif s[i] == "(":
            depth -= 1
            if depth == 0:
                return s[:i] if i > 0 else s
    return s


def norm_name(name):
    """'long ns::f<long>(ns::A<long>&, long) const' -> 'ns::f<long>'."""
    if name is None:
        return None
    s = strip_params(name.strip())
    depth = 0
    cut = -1
    for i, ch in enumerate(s):
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        elif ch == " " and depth == 0:
            cut = i
    return s[cut + 1:] if cut >= 0 else s


def no_targs(s):
    """'std::f<std::vector<int> >' -> 'std::f<>'."""
    out = []
    depth = 0
    for ch in s:
        if ch == "<":
            if depth == 0:
                out.append(ch)
            depth += 1
        elif ch == ">" and depth > 0:
            depth -= 1
            if depth == 0:
                out.append(ch)
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def last_part(s):
    """The last '::' component outside brackets: 'a::b<c::d>::f' -> 'f'."""
    depth = 0
    cut = 0
    for i, ch in enumerate(s):
        if ch in "<({":
            depth += 1
        elif ch in ">)}":
            depth -= 1
        elif ch == ":" and depth == 0 and s[i:i + 2] == "::":
            cut = i + 2
    return s[cut:]


def same_name(rb, gd):
    """Do rbmon's and gdb's names say the same function?  They spell C++
    differently: the demangler's '{lambda(int)#1}' is gdb's
    '<lambda(int)>', gdb leaves out template arguments that are the
    defaults, and it names an inlined lambda's call operator unqualified."""
    a, b = norm_name(rb), norm_name(gd)
    if a == b:
        return True
    if a is None or b is None:
        return False
    # "f::operator()()" loses one parameter list, gdb's "f::operator()"
    # both: the call operator's name is "operator()".
    if a.endswith("::operator()") and b.endswith("::operator"):
        a = a[:-2]
    a = re.sub(r"\{lambda\(([^)]*)\)#[0-9]+\}", r"<lambda(\1)>", a)
    a, b = no_targs(a), no_targs(b)
    if a == b:
        return True
    return "::" not in b and b.startswith("operator") and \
        strip_params(last_part(a)) == b


def base(path):
    return os.path.basename(path) if path else None


def show(fr, line):
    if fr is None:
        return "-"
    s = "%s %s:%s" % (fr.get("function") or fr.get("name") or "??",
                      base(fr.get("file")) or "??",
                      line if line is not None else "??")
    if fr.get("inlined"):
        s += " [inlined]"
    return s


def frame_diff(i, rb, gd):
    """The fields in which rbmon frame rb (index i) differs from gdb's gd."""
    bad = []
    if rb is None or gd is None:
        return ["missing"]
    if not same_name(rb.get("function"), gd["name"]):
        bad.append("function")
    if base(rb.get("file")) != base(gd["file"]):
        bad.append("file")
    want = gd["funcline"] if i == 0 else gd["line"]
    if rb.get("line") != want and not (gd.get("called_off") and
                                       rb.get("line") is None):
        bad.append("line")
    if bool(rb.get("inlined", False)) != bool(gd["inlined"]):
        bad.append("inlined")
    return bad


def pair_frames(th, gd):
    """[(rbmon index or None, rbmon frame, gdb index, gdb frame)], problems."""
    rb = th.get("frames") or []
    wrapped = th.get("wrapped") or 0
    problems = []
    if rb and rb[-1].get("before_attach") is True:
        # Attached (rbtrace -p): the frames entered since stand over the
        # before-attach frame, which stands for gdb's outer ones.
        k = len(rb) - 1
        pairs = [(i, rb[i], i, gd[i] if i < len(gd) else None)
                 for i in range(k)]
        if len(gd) <= k:
            problems.append("rbmon shows %d frames entered since the attach, "
                            "gdb only %d in all" % (k, len(gd)))
        pairs.append(("attach", None, "attach", None))
        return pairs, problems
    if wrapped <= 0:
        n = max(len(rb), len(gd))
        pairs = [(i if i < len(rb) else None, rb[i] if i < len(rb) else None,
                  i if i < len(gd) else None, gd[i] if i < len(gd) else None)
                 for i in range(n)]
        if len(rb) != len(gd):
            problems.append("rbmon shows %d frames, gdb %d" % (len(rb), len(gd)))
        return pairs, problems
    k = th.get("wrapped_at")
    if not isinstance(k, int) or k < 0 or k > len(rb):
        problems.append("wrapped %d but wrapped_at is %r: the outermost "
                        "frames are lost" % (wrapped, k))
        k = len(rb)
    tail = len(rb) - k
    if len(gd) < len(rb):
        problems.append("rbmon shows %d frames (+%d overwritten), gdb only %d"
                        % (len(rb), wrapped, len(gd)))
    elif not any(f["inlined"] for f in gd) and len(rb) + wrapped != len(gd):
        problems.append("rbmon shows %d frames + %d overwritten = %d, gdb %d"
                        % (len(rb), wrapped, len(rb) + wrapped, len(gd)))
    pairs = [(i, rb[i], i, gd[i] if i < len(gd) else None) for i in range(k)]
    if len(gd) > k + tail:
        pairs.append(("...", None, "...", None))
    for j in range(k, len(rb)):
        g = len(gd) - (len(rb) - j)
        pairs.append((j, rb[j], g if g >= 0 else None,
                      gd[g] if g >= 0 else None))
    if gd and (tail == 0 or
               norm_name(rb[-1].get("function")) != norm_name(gd[-1]["name"])):
        problems.append("outermost frame is %s, gdb's is %s"
                        % (rb[-1].get("function") if rb else None, gd[-1]["name"]))
    return pairs, problems


def print_thread(tid, th, gd, pairs, problems):
    print("thread %d: rbmon depth %s, wrapped %s%s; gdb %d frames of the "
          "program (! marks a difference; rbmon's frame 0 is at its "
          "function's definition)"
          % (tid, th.get("depth"), th.get("wrapped"),
             ", wrapped_at %s" % th["wrapped_at"] if "wrapped_at" in th else "",
             len(gd)))
    for p in problems:
        print("  MISMATCH: %s" % p)
    w = 44
    print("     %-4s %-*s %-4s %s" % ("#", w, "rbmon", "#", "gdb"))
    for ri, rb, gi, g in pairs:
        if ri == "...":
            print("     %-4s %-*s %-4s %s" % ("", w, "... (overwritten)", "...",
                                              ""))
            continue
        if ri == "attach":
            print("     %-4s %-*s %-4s %s" % ("", w, "[frames before attach]",
                                              "...", "(the rest)"))
            continue
        bad = frame_diff(ri, rb, g)
        gline = None
        if g is not None:
            gline = g["line"]
            if ri == 0:
                gline = "%s (definition; at %s)" % (g["funcline"], g["line"])
        print("  %s  %-4s %-*s %-4s %s%s"
              % ("!" if bad else " ", ri if ri is not None else "",
                 w, show(rb, rb.get("line") if rb else None),
                 gi if gi is not None else "", show(g, gline),
                 "   <- " + ", ".join(bad) if bad else ""))


def drop_off(gd, off):
    """gdb's frames (innermost first) without those of the functions
    switched off; the frame over one, its caller, is marked called_off."""
    kept = []
    called = False
    for f in gd:
        if norm_name(f["name"]) in off:
            called = True
            continue
        kept.append(dict(f, called_off=True) if called else f)
        called = False
    return kept


def compare(rbmon, gdbj, off=frozenset()):
    pid = gdbj["pid"]
    procs = [p for p in rbmon.get("processes", []) if p.get("pid") == pid]
    if not procs:
        print("rbmon shows no process %d" % pid)
        return 1
    rthreads = {}
    for p in procs:
        for t in p.get("threads", []):
            if t.get("state") != "exited":
                rthreads[t["tid"]] = t
    status = 0
    for gt in gdbj["threads"]:
        tid = gt["tid"]
        gd = drop_off([f for f in gt["frames"] if f["own"]], off)
        th = rthreads.pop(tid, None)
        if not gd:
            print("thread %d: gdb shows no frame of the program "
                  "(no debug information found?)" % tid)
            status = 1
            continue
        if th is None:
            print("thread %d: not in rbmon's dump" % tid)
            th = {"frames": []}
        pairs, problems = pair_frames(th, gd)
        bad = any(frame_diff(ri, rb, g) for ri, rb, _, g in pairs
                  if ri not in ("...", "attach"))
        if bad or problems:
            status = 1
            print_thread(tid, th, gd, pairs, problems)
            print()
    for tid in rthreads:
        print("thread %d: in rbmon's dump, not in gdb's" % tid)
        status = 1
    if status == 0:
        print("%d threads agree with gdb: %s"
              % (len(gdbj["threads"]),
                 ", ".join("%d frames" % len([f for f in t["frames"] if f["own"]])
                           for t in gdbj["threads"])))
    return status


def synth(gdbj, inner=None, outer=None):
    threads = []
    for gt in gdbj["threads"]:
        gd = [f for f in gt["frames"] if f["own"]]
        frames = [{"function": f["name"], "file": f["file"],
                   "line": f["funcline"] if i == 0 else f["line"],
                   "inlined": f["inlined"]} for i, f in enumerate(gd)]
        th = {"tid": gt["tid"], "state": "running",
              "depth": len([f for f in gd if not f["inlined"]]),
              "wrapped": 0, "frames": frames}
        if inner is not None and len(frames) > inner + outer:
            th["wrapped"] = len(frames) - inner - outer
            th["wrapped_at"] = inner
            th["frames"] = frames[:inner] + frames[len(frames) - outer:]
        threads.append(th)
    return {"processes": [{"pid": gdbj["pid"], "alive": True,
                           "threads": threads}]}


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print("compare.py: %s: %s" % (path, e), file=sys.stderr)
        sys.exit(2)


def main(argv):
    if len(argv) in (3, 5) and argv[1] == "--synth":
        args = [int(a) for a in argv[3:]] if len(argv) == 5 else []
        json.dump(synth(load(argv[2]), *args), sys.stdout)
        print()
        return 0
    off = frozenset()
    if len(argv) == 5 and argv[1] == "--off":
        off = frozenset(norm_name(n) for n in argv[2].split(",") if n)
        argv = argv[:1] + argv[3:]
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    return compare(load(argv[1]), load(argv[2]), off)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except Exception:
        # Not a difference between the stacks: never exit 1 for it.
        traceback.print_exc()
        sys.exit(3)
