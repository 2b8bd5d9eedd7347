#!/bin/bash
# SPDX-License-Identifier: MIT
# longjmp-clang: longjmp out of three calls, then parked
# (clang -O2); rbmon's stacks must be gdb's.
. "$(dirname "$0")/stacks.sh"
stacks_run longjmp clang
