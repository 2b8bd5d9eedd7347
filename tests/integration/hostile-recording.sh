#!/bin/bash
# SPDX-License-Identifier: MIT
# hostile-recording: the object paths a recording holds are names its
# writer chose (rbmon(1), "HOSTILE FILES").  rbmon report (replay, hot and
# export read them alike) takes an object's symbols only from a file whose
# build-id is the one recorded, and, run by root on another user's
# recording, only from where that user could read:
#  - tests/apps/simple.c built here and recorded: its names resolve;
#  - built without a build-id: no names, a note says why;
#  - rebuilt at the same path since (another build-id, or none): no names;
#  - root on nobody's recording of a program in a root-only directory
#    (0700, the file 0600), with its build-id or without: no names; the
#    same recording owned by root, and nobody's recording of a program
#    nobody can read, give them.
. "$(dirname "$0")/lib.sh"

GCC=${STACKS_GCC:-$(command -v gcc || command -v cc || true)}
[ -n "$GCC" ] || skip "no C compiler"
command -v readelf >/dev/null || skip "readelf is not installed"

# build PATH [FLAGS...] - tests/apps/simple.c, instrumented, as PATH
build()
{
	local out=$1
	shift
	mkdir -p "$(dirname "$out")"
	"$GCC" -g -O0 -finstrument-functions -I"$APPS_SRC" "$@" -o "$out" \
		"$APPS_SRC/simple.c" 2>"$T/cc.err" || fail "$GCC $* failed: $(cat "$T/cc.err")"
}

build_id() { readelf -n "$1" | sed -n 's/^ *Build ID: //p'; }

# record NAME PROGRAM - rbtrace record PROGRAM into $T/NAME.rbr
record()
{
	(cd "$T" && "$RBTRACE" record -o "$T/$1.rbr" --file "$T/$1.trace" -- \
		"$2" >"$T/$1.out" 2>"$T/$1.err") ||
		fail "rbtrace record of $2 exited $?: $(cat "$T/$1.err")"
}

# report NAME [RECORDING] - rbmon report --json of $T/NAME.rbr (or
# RECORDING): the function names, sorted, space-separated, in $NAMES_GOT;
# stderr in $T/NAME.report.err.  The text report must agree.
report()
{
	local rec=${2:-$T/$1.rbr}
	"$RBMON" report --json "$rec" >"$T/$1.json" 2>"$T/$1.report.err" ||
		fail "rbmon report --json $rec exited $?: $(cat "$T/$1.report.err")"
	NAMES_GOT=$(jq -r '.functions[].function' "$T/$1.json" | sort | tr '\n' ' ')
	"$RBMON" report "$rec" >"$T/$1.txt" 2>/dev/null ||
		fail "rbmon report $rec exited $?"
	if grep -q simple_leaf "$T/$1.txt"; then
		[[ "$NAMES_GOT" == *simple_leaf* ]] || fail "$1: the text report has names the JSON has not"
	else
		[[ "$NAMES_GOT" != *simple_leaf* ]] || fail "$1: the JSON report has names the text has not"
	fi
}

# named NAME [RECORDING] - its report gives simple's names, and no note
named()
{
	report "$1" "${2:-}"
	expect "$1: the names" "main simple_leaf simple_work " "$NAMES_GOT"
	[ ! -s "$T/$1.report.err" ] || fail "$1: notes: $(cat "$T/$1.report.err")"
}

# unnamed NAME NOTE [RECORDING] - it gives none of them, and a note says why
unnamed()
{
	report "$1" "${3:-}"
	[[ "$NAMES_GOT" != *simple_* ]] || fail "$1: symbols read from the object: $NAMES_GOT"
	grep -qF -- "$2" "$T/$1.report.err" ||
		fail "$1: no note '$2' in: $(cat "$T/$1.report.err")"
}

# ---- with its build-id: names ------------------------------------------------------
build "$T/ok/simple"
[ -n "$(build_id "$T/ok/simple")" ] || skip "$GCC links without a build-id by default"
record ok "$T/ok/simple"
named ok

# ---- without: none ----------------------------------------------------------------------
build "$T/nobid/simple" -Wl,--build-id=none
[ -z "$(build_id "$T/nobid/simple")" ] || fail "--build-id=none left a build-id"
record nobid "$T/nobid/simple"
unnamed nobid "rbmon: note: $T/nobid/simple: the recording gives no build-id for it; not read for symbols, its frames show addresses only"

# ---- rebuilt since: another build-id, or none ----------------------------------------
build "$T/chg/simple"
record chg "$T/chg/simple"
named chg
cp "$T/chg.rbr" "$T/chg2.rbr"
build "$T/chg/simple" -Wl,--build-id=0x0123456789abcdef
unnamed chg "rbmon: note: $T/chg/simple: its build-id is not the recorded one; not read for symbols"
build "$T/chg/simple" -Wl,--build-id=none
unnamed chg2 "rbmon: note: $T/chg/simple: it has no build-id to match the recorded one; not read for symbols"

# ---- root on another user's recording --------------------------------------------------
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then
	note "not root: the owner's rights on recordings are not tested"
	exit 0
fi
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
chmod 711 "$T"
mkdir -m 700 "$T/secret"
mkdir -m 755 "$T/open"
build "$T/secret/simple"
build "$T/secret/nobid" -Wl,--build-id=none
build "$T/open/simple"
chmod 700 "$T/secret/simple" "$T/secret/nobid"
record secret "$T/secret/simple"
record secret-nobid "$T/secret/nobid"
record open "$T/open/simple"
chmod 600 "$T/secret/simple" "$T/secret/nobid"
chmod 755 "$T/open/simple"
"${nobody[@]}" test -r "$T/open/simple" || skip "nobody cannot read $T/open/simple"
! "${nobody[@]}" test -r "$T/secret/simple" || fail "nobody can read $T/secret/simple"

# Root's own recording: root reads where root may.
named secret-root "$T/secret.rbr"
# Nobody's: only where nobody may, build-id or not.
chown 65534:65534 "$T/secret.rbr" "$T/secret-nobid.rbr" "$T/open.rbr"
unnamed secret "rbmon: note: $T/secret/simple: Permission denied; not read for symbols"
unnamed secret-nobid "rbmon: note: $T/secret/nobid: Permission denied; not read for symbols"
named open
exit 0
