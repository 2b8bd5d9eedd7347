#!/bin/bash
# SPDX-License-Identifier: MIT
# install: `make install DESTDIR=...` installs the programs, the library
# (its API and the names it interposes exported, nothing else; no libtool
# .la files), the watch module, headers, rbtrace.pc, the man pages
# (librbtrace(3) among them) and bash completion; a program built against
# the installed files with pkg-config runs traced; bash-completion, when
# installed, completes rbmon's and rbtrace's options with the scripts;
# `make uninstall` leaves no file behind.
. "$(dirname "$0")/lib.sh"

command -v make >/dev/null || skip "make is not installed"
[ -f "$top_builddir/Makefile" ] || skip "no Makefile in $top_builddir"
inst=$T/inst
# The make running this test passes its flags and jobserver down: not here.
unset MAKEFLAGS MFLAGS MAKELEVEL
mk() { make -C "$top_builddir" -s DESTDIR="$inst" "$@" >"$T/make.out" 2>&1 || fail "make $* failed: $(tail -n 20 "$T/make.out")"; }
var() { make -C "$top_builddir" -s --no-print-directory --eval "rb-print-var: ; @echo \$($1)" rb-print-var; }
mk install
libdir=$inst$(var libdir)
pkglibdir=$inst$(var pkglibdir)
mandir=$inst$(var mandir)
includedir=$inst$(var includedir)
bindir=$inst$(var bindir)
compdir=$inst$(var bashcompletiondir)

for f in "$bindir/rbtrace" "$bindir/rbmon" "$libdir/librbtrace.so" "$pkglibdir/rbtrace-watch.so" \
	"$includedir/rbtrace/rbtrace.h" "$includedir/rbtrace/format.h" "$libdir/pkgconfig/rbtrace.pc" \
	"$mandir/man1/rbtrace.1" "$mandir/man1/rbmon.1" "$mandir/man5/rbtrace.5" "$mandir/man3/librbtrace.3" \
	"$compdir/rbtrace" "$compdir/rbmon"; do
	[ -e "$f" ] || fail "not installed: ${f#$inst}"
done
las=$(find "$inst" -name '*.la')
[ -z "$las" ] || fail "libtool files installed: $las"

# The library's dynamic symbols: its API, what it interposes, and the two
# calls rbtrace -p makes in a running program; only.
want="__cxa_begin_catch __cyg_profile_func_enter __cyg_profile_func_exit __longjmp_chk __rbtrace_start _longjmp dlmopen dlopen longjmp pthread_setname_np rbtrace_file rbtrace_line rbtrace_pop rbtrace_push siglongjmp"
got=$(nm -D --defined-only "$libdir/librbtrace.so" | awk '{ print $3 }' | sed 's/@.*//' | sort | tr '\n' ' ')
expect "librbtrace.so's exported symbols" "$want" "${got% }"

# A program built against what was installed, with pkg-config.
cat >"$T/api.c" <<'C'
#include <stdio.h>
#include <rbtrace/rbtrace.h>
int main(void)
{
	if (rbtrace_push("scripted", "x.py", 3) != 1 || rbtrace_pop() != 0)
		return 1;
	printf("%s\n", rbtrace_file() ? rbtrace_file() : "(none)");
	return 0;
}
C
flags=$(PKG_CONFIG_SYSROOT_DIR=$inst PKG_CONFIG_LIBDIR=$libdir/pkgconfig pkg-config --cflags --libs rbtrace) ||
	fail "pkg-config does not know the installed rbtrace"
${CC:-cc} -o "$T/api" "$T/api.c" $flags 2>"$T/cc.err" || fail "cannot build against the installed files ($flags): $(cat "$T/cc.err")"
# A sanitized library needs its runtime loaded first (the program is not).
out=$(env RBTRACE_FILE="$T/api.trace" LD_LIBRARY_PATH="$libdir" ${SAN_RUNTIME:+LD_PRELOAD="$SAN_RUNTIME"} \
	"$T/api") || fail "the program built against it failed"
expect "rbtrace_file() of the installed library" "$T/api.trace" "$out"

# Completion, with bash-completion itself.
bc=/usr/share/bash-completion/bash_completion
if [ -r "$bc" ]; then
	complete_words() {
		PATH=$bindir:$PATH bash -c '
			. "$1"; . "$2/rbmon"; . "$2/rbtrace"
			shift 2
			COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
			COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
			_${COMP_WORDS[0]}
			printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$bc" "$compdir" "$@"
	}
	expect "rbmon --pr<TAB>" "--prune" "$(complete_words rbmon --pr)"
	expect "rbmon <TAB> commands" "$(printf '%s\n' export hot profile replay report)" \
		"$(complete_words rbmon "" | grep -Ex 'export|hot|profile|replay|report')"
	expect "rbmon hot --f<TAB>" "--flags" "$(complete_words rbmon hot --f)"
	expect "rbtrace --pol<TAB>" "--policy" "$(complete_words rbtrace --pol)"
	expect "rbtrace --policy <TAB>" "$(printf '%s\n' drain fill ring)" "$(complete_words rbtrace --policy "")"
else
	note "bash-completion is not installed: completion not exercised"
fi

mk uninstall
left=$(find "$inst" -type f -o -type l)
[ -z "$left" ] || fail "make uninstall left: $left"
exit 0
