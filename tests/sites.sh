#!/bin/bash
# SPDX-License-Identifier: MIT
# sites: the site table (lib/dyn/) against objdump.  Programs built with
# -finstrument-functions by gcc and clang, C and C++, PIE and not, with
# and without -fno-plt, a shared library, and a -Bsymbolic one that
# defines the hooks itself (direct calls): the table must list exactly the
# calls of the hooks objdump shows, with this_fn the address objdump shows
# loaded into %rdi wherever it shows one (unknown allowed only where that
# value is a register's copy, which a join may change: the table's data
# flow sees joins, objdump's linear listing does not), and no range
# undecodable.  Then
# the decoder's instruction starts over the whole code of the C library
# must be objdump's, every one.
set -u
: "${top_builddir:=$PWD}" "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
dump=$top_builddir/tests/sites/sitesdump
src=$top_srcdir/tests/sites
[ -x "$dump" ] || { echo "sites: FAIL: $dump not built"; exit 1; }
command -v objdump >/dev/null || { echo "sites: SKIP: no objdump"; exit 77; }
command -v gcc >/dev/null || { echo "sites: SKIP: no gcc"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0 checked=0 nsites=0

# compare BIN: the table against objdump.
compare() {
	local bin=$1 name=$2
	"$dump" "$bin" > "$tmp/mine" 2> "$tmp/err" || {
		echo "sites: FAIL: $name: sitesdump: $(cat "$tmp/err")"; fail=1; return; }
	grep -q '^sites .* failed 0 ' "$tmp/mine" || {
		echo "sites: FAIL: $name: ranges not decoded: $(grep '^sites' "$tmp/mine")"; fail=1; }
	awk '$1 !~ /^(sites|failed)$/ { print $1, $2, $5, $6 }' "$tmp/mine" | sort > "$tmp/m"
	objdump -d -w --no-show-raw-insn "$bin" | awk -f "$src/objdump-sites.awk" | sort > "$tmp/o"
	if [ ! -s "$tmp/o" ]; then
		echo "sites: FAIL: $name: objdump shows no call of the hooks"; fail=1; return
	fi
	if ! diff <(cut -d' ' -f1-3 "$tmp/o") <(cut -d' ' -f1-3 "$tmp/m") > "$tmp/d"; then
		echo "sites: FAIL: $name: sites differ from objdump's (< objdump, > table):"
		head -20 "$tmp/d"; fail=1; return
	fi
	# known: as objdump's; unknown: only from a register copied into %rdi
	bad=$(join <(sort "$tmp/o") <(sort "$tmp/m") |
	    awk '$4 != "?" && $4 != $8 && ($8 != "?" || $5 == "load")')
	if [ -n "$bad" ]; then
		echo "sites: FAIL: $name: this_fn differs (addr hook kind objdump ... table):"
		echo "$bad" | head -10; fail=1; return
	fi
	checked=$((checked + 1))
	nsites=$((nsites + $(wc -l < "$tmp/m")))
	echo "sites: $name: $(wc -l < "$tmp/m") sites as objdump," \
	    "$(awk '$4 == "?"' "$tmp/o" | wc -l) without a value objdump shows," \
	    "$(awk '$4 == "?"' "$tmp/m" | wc -l) unknown in the table"
}

gcc -O2 -fPIC -shared -o "$tmp/libhooks.so" "$src/hooks.c" || { echo "sites: FAIL: hooks"; exit 1; }
n=0
for cc in gcc clang; do
	command -v $cc >/dev/null || { echo "sites: note: no $cc"; continue; }
	cxx=${cc/gcc/g++}; cxx=${cxx/clang/clang++}
	for mode in "-fPIE -pie" "-fno-pie -no-pie" "-fPIE -pie -fno-plt" "-fno-pie -no-pie -fno-plt" "-O0 -fPIE -pie"; do
		n=$((n + 1))
		$cc -O2 -g -finstrument-functions $mode -o "$tmp/c$n" "$src/prog.c" \
		    -L"$tmp" -lhooks 2> "$tmp/err" || { echo "sites: FAIL: $cc $mode: $(cat "$tmp/err")"; fail=1; continue; }
		compare "$tmp/c$n" "$cc $mode C"
		if command -v $cxx >/dev/null; then
			$cxx -O2 -g -finstrument-functions $mode -o "$tmp/x$n" "$src/prog.cc" \
			    -L"$tmp" -lhooks 2> "$tmp/err" || { echo "sites: FAIL: $cxx $mode: $(cat "$tmp/err")"; fail=1; continue; }
			compare "$tmp/x$n" "$cxx $mode C++"
		fi
	done
	$cc -O2 -finstrument-functions -fPIC -shared -o "$tmp/lib$cc.so" "$src/prog.c" \
	    -L"$tmp" -lhooks && compare "$tmp/lib$cc.so" "$cc shared library"
	$cc -O2 -finstrument-functions -fPIC -shared -Wl,-Bsymbolic -o "$tmp/libsym$cc.so" \
	    "$src/prog.c" "$src/hooks.c" && compare "$tmp/libsym$cc.so" "$cc -Bsymbolic library (direct calls)"
	grep -q ' direct ' "$tmp/mine" || { echo "sites: FAIL: $cc -Bsymbolic: no direct site"; fail=1; }
done

# The decoder against objdump over all of the C library's code.
libc=$(gcc -print-file-name=libc.so.6)
[ -f "$libc" ] || libc=$(ldd "$dump" | awk '/libc.so.6/ { print $3 }')
if [ -f "$libc" ]; then
	objdump -d -z --no-show-raw-insn "$libc" |
	    awk -F: '/^ *[0-9a-f]+:\t/ { sub(/^ +/, "", $1); print $1 }' | sort -u > "$tmp/ins.o"
	"$dump" -i "$libc" 2>/dev/null | sort -u > "$tmp/ins.m"
	diffs=$(comm -3 "$tmp/ins.o" "$tmp/ins.m" | wc -l)
	if [ "$diffs" -ne 0 ] || [ ! -s "$tmp/ins.o" ]; then
		echo "sites: FAIL: $libc: $diffs instruction starts differ from objdump's:"
		comm -3 "$tmp/ins.o" "$tmp/ins.m" | head; fail=1
	else
		echo "sites: $libc: all $(wc -l < "$tmp/ins.o") instruction starts as objdump's"
	fi
else
	echo "sites: note: no libc.so.6 found for the decoder check"
fi
[ "$fail" -eq 0 ] || exit 1
echo "sites: $checked objects, $nsites sites, all as objdump shows"
exit 0
