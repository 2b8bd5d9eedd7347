#!/bin/bash
# SPDX-License-Identifier: MIT
# exc-off-gcc: exc-gcc (C++, a caught exception) with a member function
# and a function template switched off at start: rbmon's stacks must be
# gdb's without those frames.
. "$(dirname "$0")/stacks.sh"
STACKS_OFF='shop::Store::serve,shop::restock<long>'
stacks_run exc gcc
