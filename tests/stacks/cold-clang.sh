#!/bin/bash
# SPDX-License-Identifier: MIT
# cold-clang: a .cold split on the way to the parking point
# (clang -O2); rbmon's stacks must be gdb's.
. "$(dirname "$0")/stacks.sh"
stacks_run cold clang
