# SPDX-License-Identifier: MIT
# gdb-frames.py - every thread's stack of the attached process, as JSON.
#
#   STK_GDB_OUT=out.json gdb -nx -batch -p PID -x gdb-frames.py
#
# Writes {"pid": P, "threads": [{"tid": LWP, "frames": [...]}]}, frames
# newest first, each {"name", "inlined", "file" (basename), "line",
# "funcline" (the line gdb gives the function's definition), "own" (the
# code is the program's, not a library's)}.
import json
import os

import gdb


def frame_own(sal):
    if sal.symtab is None:
        return False
    objf = sal.symtab.objfile
    if objf.owner is not None:
        objf = objf.owner
    return os.path.realpath(objf.filename) == PROGRAM


def frame_funcline(f):
    """The function's definition line.  gdb gives an inlined function's
    symbol the line of its call: look for its out-of-line definition."""
    fn = f.function()
    if fn is None:
        return None
    if f.type() != gdb.INLINE_FRAME:
        return fn.line
    for look in (gdb.lookup_static_symbol, gdb.lookup_global_symbol):
        try:
            sym = look(fn.name, gdb.SYMBOL_VAR_DOMAIN)
        except gdb.error:
            sym = None
        if sym is not None and sym.is_function:
            return sym.line
    return None


def frame_info(f):
    sal = f.find_sal()
    return {
        "name": f.name(),
        "inlined": f.type() == gdb.INLINE_FRAME,
        "file": os.path.basename(sal.symtab.filename) if sal.symtab else None,
        "line": sal.line if sal.symtab else None,
        "funcline": frame_funcline(f),
        "own": frame_own(sal),
    }


def thread_frames():
    frames = []
    f = gdb.newest_frame()
    while f is not None:
        frames.append(frame_info(f))
        try:
            f = f.older()
        except gdb.error as e:
            frames.append({"name": "<gdb: %s>" % e, "inlined": False,
                           "file": None, "line": None, "funcline": None,
                           "own": False})
            break
    return frames


PROGRAM = os.path.realpath(gdb.current_progspace().filename)
inferior = gdb.selected_inferior()
threads = []
for th in sorted(inferior.threads(), key=lambda t: t.ptid[1]):
    if th.name == "rbtrace-watch":
        continue    # the library's watch worker: none of the program's
    th.switch()
    threads.append({"tid": th.ptid[1], "frames": thread_frames()})
with open(os.environ["STK_GDB_OUT"], "w") as out:
    json.dump({"pid": inferior.pid, "program": PROGRAM, "threads": threads},
              out, indent=1)
    out.write("\n")
