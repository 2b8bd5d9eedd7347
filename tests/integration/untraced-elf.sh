#!/bin/bash
# SPDX-License-Identifier: MIT
# untraced-elf: rbtrace finds the libraries a program links as the loader
# does, and warns exactly when none of them calls the hooks.  Built here
# with the configured gcc: an uninstrumented main linking an instrumented
# library (whose constructor calls the hooks) found through DT_RPATH with
# $ORIGIN, DT_RUNPATH with ${ORIGIN}, LD_LIBRARY_PATH, or as a library's
# own dependency through its DT_RUNPATH; and given in the user's
# LD_PRELOAD.  Each runs without a warning and really is traced (its
# trace file shows the library's frame).  The same main linking an
# uninstrumented library gets the warning and no file, as does an
# instrumented library the loader cannot find (then the loader says so).
# A 32-bit program, where gcc -m32 builds one, gets its own line.
. "$(dirname "$0")/lib.sh"

[ -x "$RBTRACE" ] || fail "rbtrace not built: $RBTRACE"
CC=${STACKS_GCC:-}
[ -n "$CC" ] || skip "gcc was not found by configure"
mkdir "$T/tmp"
export TMPDIR=$T/tmp
unset LD_LIBRARY_PATH LD_PRELOAD

never() { echo "rbtrace: nothing $1 links calls the hooks of -finstrument-functions: it runs untraced; build it with -finstrument-functions"; }

cc_ok() { "$CC" "$@" 2>"$T/cc.err" || fail "$CC $*: $(cat "$T/cc.err")"; }

cat >"$T/inst.c" <<'EOF'
__attribute__((constructor)) static void inst_init(void) { }
void lib_fn(void) { }
EOF
cat >"$T/mid.c" <<'EOF'
void lib_fn(void);
void mid_fn(void) { lib_fn(); }
EOF
cat >"$T/main.c" <<'EOF'
void lib_fn(void);
int main(void) { lib_fn(); return 0; }
EOF
cat >"$T/deep.c" <<'EOF'
void mid_fn(void);
int main(void) { mid_fn(); return 0; }
EOF
# Two trees alike but for libinst.so: instrumented in a/, not in b/.
for t in a b; do
	mkdir -p "$T/$t/lib" "$T/$t/bin" "$T/$t/mid"
	if [ $t = a ]; then
		cc_ok -shared -fPIC -finstrument-functions -o "$T/a/lib/libinst.so" "$T/inst.c"
	else
		cc_ok -shared -fPIC -o "$T/b/lib/libinst.so" "$T/inst.c"
	fi
	cc_ok -shared -fPIC -o "$T/$t/mid/libmid.so" "$T/mid.c" -L"$T/$t/lib" -linst \
		-Wl,--enable-new-dtags,-rpath,'$ORIGIN/../lib'
	cc_ok -o "$T/$t/bin/rpath" "$T/main.c" -L"$T/$t/lib" -linst \
		-Wl,--disable-new-dtags,-rpath,'$ORIGIN/../lib'
	cc_ok -o "$T/$t/bin/runpath" "$T/main.c" -L"$T/$t/lib" -linst \
		-Wl,--enable-new-dtags,-rpath,'${ORIGIN}/../lib'
	cc_ok -o "$T/$t/bin/bare" "$T/main.c" -L"$T/$t/lib" -linst
	# libmid's DT_RUNPATH, not deep's DT_RPATH (the other tree), finds libinst
	cc_ok -o "$T/$t/bin/deep" "$T/deep.c" -L"$T/$t/mid" -lmid \
		-Wl,--disable-new-dtags,-rpath,"$T/$t/mid:$T/$([ $t = a ] && echo b || echo a)/lib" \
		-Wl,-rpath-link,"$T/$t/lib"
done
cc_ok -shared -fPIC -o "$T/libplainlib.so" "$T/inst.c"
cc_ok -o "$T/plain" "$T/main.c" -L"$T" -lplainlib -Wl,-rpath,"$T"
if command -v readelf >/dev/null; then
	readelf -d "$T/a/bin/rpath" | grep -q '(RPATH).*\$ORIGIN/\.\./lib' ||
		fail "no DT_RPATH in rpath: $(readelf -d "$T/a/bin/rpath")"
	readelf -d "$T/a/bin/runpath" | grep -q '(RUNPATH).*\${ORIGIN}/\.\./lib' ||
		fail "no DT_RUNPATH in runpath: $(readelf -d "$T/a/bin/runpath")"
fi

# traced_ok NAME PROGRAM [VAR=VALUE...] - no warning, and the main
# thread's event log has the library's calls: its constructor, lib_fn().
traced_ok()
{
	local name=$1 prog=$2 f=$T/$1.trace
	shift 2
	RC=0
	env "$@" "$RBTRACE" -q --file "$f" -- "$prog" >"$T/$name.out" \
		2>"$T/$name.err" </dev/null || RC=$?
	expect "status of $name" 0 "$RC"
	expect "stderr of rbtrace -q -- $name" "" "$(cat "$T/$name.err")"
	[ -f "$f" ] || fail "$name: no trace file"
	events_json "$f"
	expect "$name: the calls traced" \
		"entry inst_init exit inst_init entry lib_fn exit lib_fn" \
		"$(jqv '[.processes[0].threads[0].records[] | "\(.kind) \(.function)"] | join(" ")')"
}

# traced when the loader finds a/lib/libinst.so ...
traced_ok rpath "$T/a/bin/rpath"
# DT_RPATH comes before LD_LIBRARY_PATH
traced_ok rpath-ld "$T/a/bin/rpath" LD_LIBRARY_PATH="$T/b/lib"
traced_ok runpath "$T/a/bin/runpath"
traced_ok ldpath "$T/a/bin/bare" LD_LIBRARY_PATH="$T/nowhere:$T/a/lib"
# LD_LIBRARY_PATH comes before DT_RUNPATH
traced_ok runpath-ld "$T/b/bin/runpath" LD_LIBRARY_PATH="$T/a/lib"
traced_ok deep "$T/a/bin/deep"
# (rbtrace itself runs under that LD_PRELOAD: in a build with
# AddressSanitizer the sanitizer's runtime must come first in it.)
traced_ok preload "$T/plain" LD_PRELOAD="${SAN_RUNTIME:+$SAN_RUNTIME:}$T/a/lib/libinst.so"

# ... and warned about when it finds b/lib/libinst.so the same way (so
# rbtrace did find it: a library it cannot find leaves it silent).
# untraced_ok NAME PROGRAM [VAR=VALUE...]
untraced_ok()
{
	local name=$1 prog=$2
	shift 2
	RC=0
	env "$@" "$RBTRACE" -- "$prog" >/dev/null 2>"$T/$name.err" </dev/null || RC=$?
	expect "status of $name" 0 "$RC"
	expect "stderr of rbtrace -- $name" "$(never "$prog")" "$(cat "$T/$name.err")"
	expect "files in \$TMPDIR after $name" "" "$(ls "$TMPDIR")"
}
untraced_ok b-rpath "$T/b/bin/rpath"
untraced_ok b-rpath-ld "$T/b/bin/rpath" LD_LIBRARY_PATH="$T/a/lib"
untraced_ok b-runpath "$T/b/bin/runpath"
untraced_ok b-ldpath "$T/b/bin/bare" LD_LIBRARY_PATH="$T/nowhere:$T/b/lib"
untraced_ok b-runpath-ld "$T/a/bin/runpath" LD_LIBRARY_PATH="$T/b/lib"
untraced_ok b-deep "$T/b/bin/deep"
untraced_ok plain "$T/plain"

# The library cannot be found: rbtrace cannot tell, and leaves it to the
# loader.
RC=0
"$RBTRACE" -q -- "$T/a/bin/bare" >/dev/null 2>"$T/bare.err" </dev/null || RC=$?
expect "status of bare without its library" 127 "$RC"
grep -q '^rbtrace: ' "$T/bare.err" && fail "rbtrace spoke of bare: $(cat "$T/bare.err")"
grep -q 'libinst.so' "$T/bare.err" || fail "the loader did not say what it missed: $(cat "$T/bare.err")"

printf 'int main(void) { return 3; }\n' >"$T/m32.c"
if "$CC" -m32 -o "$T/plain32" "$T/m32.c" 2>/dev/null; then
	RC=0
	"$RBTRACE" -- "$T/plain32" >/dev/null 2>"$T/m32.err" </dev/null || RC=$?
	expect "status of a 32-bit program" 3 "$RC"
	expect "rbtrace's line on plain32" "rbtrace: $T/plain32 is a 32-bit program: the 64-bit librbtrace cannot be loaded into it, it runs untraced; build it as a 64-bit program" \
		"$(head -n 1 "$T/m32.err")"
else
	note "gcc -m32 builds nothing here: the 32-bit case not tried"
fi
exit 0
