#!/bin/bash
# SPDX-License-Identifier: MIT
# cvwait-gcc: threads blocked in pthread_cond_wait() inside a static inline
# helper inlined at two places of their function (gcc -O2); rbmon's
# stacks, the caller's line included, must be gdb's.
. "$(dirname "$0")/stacks.sh"
stacks_run cvwait gcc
