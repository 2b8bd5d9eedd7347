#!/bin/bash
# SPDX-License-Identifier: MIT
# exc-clang: C++ exceptions thrown three calls deep and caught, then parked
# (clang -O2); rbmon's stacks must be gdb's.
. "$(dirname "$0")/stacks.sh"
stacks_run exc clang
