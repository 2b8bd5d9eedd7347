#!/bin/bash
# SPDX-License-Identifier: MIT
# dyn-unwind: functions switched off and on (rbtrace -p --exclude,
# --include) while C++ exceptions are thrown across them and longjmp()
# leaves them (tests/apps/dynhard -u).  No crash, every result right, and
# once everything is on again the parked threads' stacks are what they
# are in: no frame left behind by an exit switched off, though the same
# functions are called again and again from the same instructions.  For
# g++ and clang++ builds at -O2.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dynhard.sh"
need_attach
CYCLES=10

switch_hard gxx -u dh-exc dh-jmp dh-hold
switch_hard clangxx -u dh-exc dh-jmp dh-hold
exit 0
