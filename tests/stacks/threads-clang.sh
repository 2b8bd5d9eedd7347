#!/bin/bash
# SPDX-License-Identifier: MIT
# threads-clang: five threads, each blocked in read() under its own chain
# (clang -O2); rbmon's stacks must be gdb's.
. "$(dirname "$0")/stacks.sh"
stacks_run threads clang
