#!/bin/bash
# SPDX-License-Identifier: MIT
# dbgfile-clang: stk-threads with its DWARF in a separate file (.gnu_debuglink)
# (clang -O2); rbmon's stacks must be gdb's.
. "$(dirname "$0")/stacks.sh"
stacks_run dbgfile clang
