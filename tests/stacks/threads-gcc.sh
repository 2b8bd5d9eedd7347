#!/bin/bash
# SPDX-License-Identifier: MIT
# threads-gcc: five threads, each blocked in read() under its own chain
# (gcc -O2); rbmon's stacks must be gdb's.
. "$(dirname "$0")/stacks.sh"
stacks_run threads gcc
