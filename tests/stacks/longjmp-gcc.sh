#!/bin/bash
# SPDX-License-Identifier: MIT
# longjmp-gcc: longjmp out of three calls, then parked
# (gcc -O2); rbmon's stacks must be gdb's.
. "$(dirname "$0")/stacks.sh"
stacks_run longjmp gcc
