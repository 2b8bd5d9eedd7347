#!/bin/bash
# SPDX-License-Identifier: MIT
# stl-clang: deep chains of inlined instrumented C++ (std:: containers, RAII
# guards, a condition-variable wrapper, lambdas) (clang++ -O2); rbmon's
# stacks must be gdb's.
. "$(dirname "$0")/stacks.sh"
stacks_run stl clang
