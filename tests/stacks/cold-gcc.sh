#!/bin/bash
# SPDX-License-Identifier: MIT
# cold-gcc: a .cold split on the way to the parking point
# (gcc -O2); rbmon's stacks must be gdb's.
. "$(dirname "$0")/stacks.sh"
stacks_run cold gcc
