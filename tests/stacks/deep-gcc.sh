#!/bin/bash
# SPDX-License-Identifier: MIT
# deep-gcc: main parked under 45 functions, a worker 120 calls deeper
# (gcc -O2); rbmon's stacks must be gdb's.
. "$(dirname "$0")/stacks.sh"
stacks_run deep gcc
