#!/bin/bash
# SPDX-License-Identifier: MIT
# inline-clang: inlined hot helpers at -O2, some from a header
# (clang -O2); rbmon's stacks must be gdb's.
. "$(dirname "$0")/stacks.sh"
stacks_run inline clang
