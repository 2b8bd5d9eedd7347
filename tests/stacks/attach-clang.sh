#!/bin/bash
# SPDX-License-Identifier: MIT
# attach-clang: a program started without the library, attached with rbtrace -p
# while its four threads wait; each then enters its chain and parks in
# read() (clang -O2): rbmon's frames over "[frames before attach]" must be
# gdb's innermost ones.
. "$(dirname "$0")/stacks.sh"
stacks_run attach clang
