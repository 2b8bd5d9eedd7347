#!/bin/bash
# SPDX-License-Identifier: MIT
# condvar-gcc: threads blocked in pthread_cond_wait() inside an inlined
# condition-variable wrapper inlined at several places of their function
# (g++ -O2); rbmon's stacks, the caller's line included, must be gdb's.
. "$(dirname "$0")/stacks.sh"
stacks_run condvar gcc
