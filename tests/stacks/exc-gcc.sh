#!/bin/bash
# SPDX-License-Identifier: MIT
# exc-gcc: C++ exceptions thrown three calls deep and caught, then parked
# (gcc -O2); rbmon's stacks must be gdb's.
. "$(dirname "$0")/stacks.sh"
stacks_run exc gcc
