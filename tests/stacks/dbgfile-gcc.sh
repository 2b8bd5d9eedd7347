#!/bin/bash
# SPDX-License-Identifier: MIT
# dbgfile-gcc: stk-threads with its DWARF in a separate file (.gnu_debuglink)
# (gcc -O2); rbmon's stacks must be gdb's.
. "$(dirname "$0")/stacks.sh"
stacks_run dbgfile gcc
