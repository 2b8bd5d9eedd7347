#!/bin/bash
# SPDX-License-Identifier: MIT
# threads-off-clang: threads-clang with functions switched off at start
# (RBTRACE_EXCLUDE): rbmon's stacks must be gdb's without those frames.
. "$(dirname "$0")/stacks.sh"
STACKS_OFF=next_job,accept_loop,flush_wait
stacks_run threads clang
