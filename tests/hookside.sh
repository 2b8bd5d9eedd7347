#!/bin/bash
# SPDX-License-Identifier: MIT
# hookside: the hook side of the expression module (lib/expr/eval.c) runs in
# the watched thread, at its hooks, where nothing may allocate or lock
# (lib/expr/expr.h).  Its object's undefined symbols (nm -u) must all be in
# the list below: the C library's calls that neither allocate nor lock,
# the module's own symbols (x_*), and what a compiler or a sanitizer adds.
# An import outside it fails, named: it goes into compile.c, or, if it
# truly neither allocates nor locks, into this list, with its reason.
set -u
: "${top_builddir:=$PWD}"
lo=$top_builddir/lib/expr/rbtrace_watch_la-eval.lo
[ -f "$lo" ] || { echo "hookside: FAIL: $lo not built"; exit 1; }
obj=$(sed -n "s/^pic_object='\(.*\)'$/\1/p" "$lo")
[ -n "$obj" ] && [ "$obj" != none ] || { echo "hookside: FAIL: no PIC object in $lo"; exit 1; }
obj=$(dirname "$lo")/$obj
command -v nm >/dev/null || { echo "hookside: SKIP: no nm"; exit 77; }

# Allowed: each neither allocates nor takes a lock.
allowed='^(_GLOBAL_OFFSET_TABLE_|__stack_chk_fail|__errno_location|getpid|open|close|pread|pread64|process_vm_readv|memcmp|memcpy|memmove|memset|memchr|strcmp|strncmp|strlen|strnlen|strchr|snprintf|vsnprintf|__snprintf_chk|__vsnprintf_chk|__memcpy_chk|__memmove_chk|__memset_chk|x_[a-z0-9_]+|__(asan|ubsan|tsan|sanitizer|msan)_[A-Za-z0-9_]+)$'

imports=$(nm -u "$obj" | awk '{ print $NF }' | sed 's/@.*//' | sort -u)
[ -n "$imports" ] || { echo "hookside: FAIL: nm found no import in $obj"; exit 1; }
bad=$(echo "$imports" | grep -Ev "$allowed")
if [ -n "$bad" ]; then
	echo "hookside: FAIL: lib/expr/eval.c (the hook side) imports what may allocate or lock:" $bad
	exit 1
fi
# The check itself: what it must refuse, it refuses.
for s in malloc free calloc realloc strdup pthread_mutex_lock dl_iterate_phdr __tls_get_addr fopen; do
	echo "$s" | grep -Eq "$allowed" && { echo "hookside: FAIL: the list allows $s"; exit 1; }
done
echo "hookside: $(echo "$imports" | wc -l) imports of lib/expr/eval.c, none that allocates or locks"
exit 0
