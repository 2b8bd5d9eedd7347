#!/bin/bash
# SPDX-License-Identifier: MIT
# line0-gcc: calls whose line-table row says line 0 (clang merges the
# calls of switch cases into one) (gcc -O2); rbmon's stacks must be gdb's.
. "$(dirname "$0")/stacks.sh"
stacks_run line0 gcc
