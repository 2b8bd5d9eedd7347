#!/bin/bash
# SPDX-License-Identifier: MIT
# dyn-signals: functions switched off and on (rbtrace -p --exclude,
# --include) while signal handlers run them (tests/apps/dynhard -s:
# SIGUSR1 handled on the thread's stack and on an alternate stack,
# sigaltstack), and while a thread raises SIGTRAP and runs int3 for a
# SIGTRAP handler of the program's own, which must get each exactly once
# while the library writes the text and takes its own traps; that handler
# is instrumented and switched too.  No crash, every result right, and
# once everything is on again the parked threads' stacks are what they
# are in.  For g++ and clang++ builds at -O2.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dynhard.sh"
need_attach
CYCLES=4

switch_hard gxx -s dh-sig0 dh-sig1 dh-trap
switch_hard clangxx -s dh-sig0 dh-sig1 dh-trap
exit 0
