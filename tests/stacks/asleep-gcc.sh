#!/bin/bash
# SPDX-License-Identifier: MIT
# asleep-gcc: a program started without the library whose five threads
# fall asleep at start-up in instrumented frames (read, pthread_cond_wait,
# nanosleep, epoll_wait), then rbtrace -p: every thread shows at once,
# seeded from outside, with gdb's frames (gcc -O2); again after a detach
# and a second attach; no system call of theirs fails with EINTR.
. "$(dirname "$0")/stacks.sh"
stacks_run asleep gcc
