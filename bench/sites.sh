#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/sites.sh - what the site table (lib/dyn/) costs to build: time and
# peak scratch memory per MiB of decoded code, cold and from the cache,
# with the sites found, the code ranges, the ranges that failed to decode
# and the sites whose this_fn is unknown.
#
# Programs: Lua 5.4, sqlite3 (its amalgamation and shell) and ninja (C++),
# from Debian sources (`apt-get source lua5.4 sqlite3 ninja-build`) under
# BENCH_SITES_SRC (default /work/real/h7), built once with -g -O2
# -finstrument-functions into BENCH_SITES_BUILD (default
# $BENCH_SITES_SRC/build) against hooks that only count; a program whose
# sources are missing is skipped.  Plus every BENCH_SITES_EXTRA file.
# BENCH_RUNS (5) runs each; medians.  Then the decoder against objdump
# over BENCH_SITES_DECODE (libstdc++, gdb): instruction starts that differ.  `sitesdump -s` measures inside one
# process: ms from the mapped image to the finished table, its largest
# scratch mapping, the process's maxrss.
set -u

NAME=sites
. "$(dirname "$0")/lib.sh"
: "${top_builddir:=$PWD}" "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
RUNS=${BENCH_RUNS:-5}
SRC=${BENCH_SITES_SRC:-/work/real/h7}
OUT=${BENCH_SITES_BUILD:-$SRC/build}
DUMP=$top_builddir/tests/sites/sitesdump
[ "$(uname -m)" = x86_64 ] || skip "x86_64 only"
[ -x "$DUMP" ] || broke "$DUMP not built (make tests/sites/sitesdump)"
mkdir -p "$OUT" || broke "cannot create $OUT"
CFLAGS="-g -O2 -finstrument-functions"

[ -f "$OUT/libhooks.so" ] || gcc -O2 -fPIC -shared -o "$OUT/libhooks.so" \
    "$top_srcdir/tests/sites/hooks.c" || broke "hooks"
HOOKS="-L$OUT -lhooks -Wl,-rpath,$OUT"

build_lua() {
	local d; d=$(ls -d "$SRC"/lua5.4-*/src 2>/dev/null | head -1)
	[ -n "$d" ] || return 1
	[ -x "$OUT/lua" ] && return 0
	note "building Lua from $d"
	# Debian's luaconf.h includes a header its build generates.
	mkdir -p "$OUT/lua-inc" && echo '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"' \
	    > "$OUT/lua-inc/lua5.4-deb-multiarch.h" || return 1
	gcc $CFLAGS -I"$OUT/lua-inc" -DLUA_COMPAT_5_3 -DLUA_USE_LINUX -o "$OUT/lua" \
	    $(ls "$d"/*.c | grep -v '/luac\.c$') $HOOKS -lm -ldl
}

build_sqlite() {
	local d; d=$(ls -d "$SRC"/sqlite3-3* 2>/dev/null | head -1)
	[ -n "$d" ] || return 1
	[ -x "$OUT/sqlite3" ] && return 0
	note "building sqlite3 from $d"
	if [ ! -f "$OUT/sqlite-build/sqlite3.c" ]; then
		mkdir -p "$OUT/sqlite-build" &&
		(cd "$OUT/sqlite-build" && "$d/configure" -q >/dev/null &&
		    make -s sqlite3.c shell.c >/dev/null) || return 1
	fi
	gcc $CFLAGS -DSQLITE_THREADSAFE=1 -I"$OUT/sqlite-build" -o "$OUT/sqlite3" \
	    "$OUT/sqlite-build/sqlite3.c" "$OUT/sqlite-build/shell.c" $HOOKS \
	    -lpthread -ldl -lm
}

build_ninja() {
	local d f objs=
	d=$(ls -d "$SRC"/ninja-build-*/src 2>/dev/null | head -1)
	[ -n "$d" ] || return 1
	[ -x "$OUT/ninja" ] && return 0
	note "building ninja from $d"
	mkdir -p "$OUT/ninja-obj" || return 1
	for f in "$d"/*.cc; do
		case $f in
		*_test.cc|*_perftest.cc|*-win32.cc|*.in.cc|*/browse.cc|*/hash_collision_bench.cc|*/test.cc) continue;;
		esac
		o=$OUT/ninja-obj/$(basename "$f" .cc).o
		[ -f "$o" ] || g++ $CFLAGS -std=c++11 -DNINJA_PYTHON=\"python3\" \
		    -c -o "$o" "$f" || return 1
		objs="$objs $o"
	done
	g++ -o "$OUT/ninja" $objs $HOOKS
}

progs=
build_lua && progs="$progs $OUT/lua" || note "Lua: no sources or no build: skipped"
build_sqlite && progs="$progs $OUT/sqlite3" || note "sqlite3: no sources or no build: skipped"
build_ninja && progs="$progs $OUT/ninja" || note "ninja: no sources or no build: skipped"
progs="$progs ${BENCH_SITES_EXTRA:-}"
[ -n "${progs// /}" ] || skip "no program to measure"
[ -n "${BENCH_SITES_BUILD_ONLY:-}" ] && exit 0

cache=$(mktemp -d) || broke "mktemp"
trap 'rm -rf "$cache"' EXIT
printf '%-10s %7s %6s %5s %5s %7s %8s %8s %8s %9s %9s %8s\n' program text_kib \
    sites funcs fail unknown cold_ms ms/MiB scr_kib kib/MiB cached_ms rss_kib
for p in $progs; do
	[ -f "$p" ] || { note "$p: missing"; continue; }
	cold= hot= line=
	for r in $(seq "$RUNS"); do
		line=$("$DUMP" -s "$p" | grep '^sites') || broke "$p: sitesdump"
		cold="$cold $(echo "$line" | awk '{ print $14 }')"
	done
	rm -f "$cache"/*
	"$DUMP" -s -c "$cache" "$p" > /dev/null || broke "$p: sitesdump -c"
	for r in $(seq "$RUNS"); do
		l=$("$DUMP" -s -c "$cache" "$p" | grep '^sites') || broke "$p: cached"
		echo "$l" | grep -q 'cached 1' || broke "$p: the cache was not used"
		hot="$hot $(echo "$l" | awk '{ print $14 }')"
	done
	set -- $line
	text=${12} scratch=${16} rss=${20}
	cm=$(median $cold) hm=$(median $hot)
	printf '%-10s %7d %6d %5d %5d %7d %8.2f %8.2f %8d %9.1f %9.2f %8d\n' \
	    "$(basename "$p")" $((text / 1024)) "$2" "$4" "$6" "$8" \
	    "$cm" "$(calc "printf \"%.2f\", $cm / ($text / 1048576)")" \
	    "$scratch" "$(calc "printf \"%.1f\", $scratch / ($text / 1048576)")" \
	    "$hm" "$rss"
done

# The decoder against objdump over whole large objects (too slow for make
# check, which does the C library): every instruction start must agree.
for f in ${BENCH_SITES_DECODE:-/usr/lib/x86_64-linux-gnu/libstdc++.so.6 /usr/bin/gdb}; do
	f=$(readlink -f "$f") && [ -f "$f" ] || continue
	command -v objdump >/dev/null || break
	now_us; t0=$NOW
	objdump -d -z --no-show-raw-insn "$f" |
	    awk -F: '/^ *[0-9a-f]+:\t/ { sub(/^ +/, "", $1); print $1 }' | sort -u > "$cache/o"
	now_us; t1=$NOW
	"$DUMP" -i "$f" 2>/dev/null | sort -u > "$cache/m"
	now_us; t2=$NOW
	d=$(comm -3 "$cache/o" "$cache/m" | wc -l)
	echo "decode $(basename "$f"): $(group "$(wc -l < "$cache/o")") instructions," \
	    "$d differ from objdump's (objdump $(( (t1 - t0) / 1000 )) ms," \
	    "sitesdump -i $(( (t2 - t1) / 1000 )) ms, both with sort)"
done
exit 0
