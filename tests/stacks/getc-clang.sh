#!/bin/bash
# SPDX-License-Identifier: MIT
# getc-clang: threads blocked in glibc's getc_unlocked(), an extern inline
# function whose entry hook names libc's out-of-line copy, inlined at two
# places of one function (clang -O2; gcc gives such functions no hooks);
# rbmon's stacks, the caller's line included, must be gdb's.
. "$(dirname "$0")/stacks.sh"
stacks_run getc clang
