#!/bin/bash
# SPDX-License-Identifier: MIT
# stl-gcc: deep chains of inlined instrumented C++ (std:: containers, RAII
# guards, a condition-variable wrapper, lambdas) (g++ -O2); rbmon's
# stacks must be gdb's.
. "$(dirname "$0")/stacks.sh"
stacks_run stl gcc
