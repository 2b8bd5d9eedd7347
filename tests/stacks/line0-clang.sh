#!/bin/bash
# SPDX-License-Identifier: MIT
# line0-clang: calls whose line-table row says line 0 (clang merges the
# calls of switch cases into one) (clang -O2); rbmon's stacks must be gdb's.
. "$(dirname "$0")/stacks.sh"
stacks_run line0 clang
