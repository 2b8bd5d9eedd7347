#!/bin/bash
# SPDX-License-Identifier: MIT
# untraced-setuid (as root): user and group ids.
#  - A copy of tests/apps/simple (in a build with AddressSanitizer, of
#    simple.c built here without it) owned by nobody with the set-user-ID bit
#    runs in the loader's secure mode, which ignores LD_PRELOAD: rbtrace
#    says so in one line and runs it (its status, no trace file, and run
#    under LD_PRELOAD directly it makes none either); set-group-ID alike;
#    the copy without the bits is traced, as the line advises.
#  - tests/apps/dropuid calls setuid(65534) once it runs: the kernel then
#    gives its /proc/PID/auxv and mem to root, but a watch still reads its
#    variables (twice, counting on); a copy of mode 0700, which the process
#    can no longer read, gets an error that says so.
. "$(dirname "$0")/lib.sh"

[ -x "$RBTRACE" ] || fail "rbtrace not built: $RBTRACE"
[ "$(id -u)" -eq 0 ] || skip "not root"
nobody=$(id -u nobody 2>/dev/null) || skip "no user nobody"
nogroup=$(id -g nobody)
group=$(getent group "$nogroup" | cut -d: -f1)
[ -n "$group" ] || skip "no name for group $nogroup"
as_nobody() { setpriv --reuid="$nobody" --regid="$nogroup" --clear-groups "$@"; }
command -v setpriv >/dev/null || skip "no setpriv"
as_nobody test -r "$top_builddir/lib/.libs/rbtrace-watch.so" ||
	skip "user nobody cannot read the build tree"

chmod 755 "$T"
mkdir -m 755 "$T/pub"
mkdir -m 1777 "$T/tmp"
export TMPDIR=$T/tmp
findmnt -no OPTIONS --target "$T/pub" 2>/dev/null | tr ',' '\n' | grep -qx nosuid &&
	skip "$T is on a nosuid file system"

# ---- set-user-ID, set-group-ID ----------------------------------------------
# In a build with AddressSanitizer, tests/apps/simple carries LeakSanitizer,
# which cannot work in a set-ID program (it ptrace()s its own threads,
# which the kernel refuses there, and no ASAN_OPTIONS turns it off there)
# and fails its exit: the copies are of simple.c built here without it.
setid=$APPS/simple
if [ -n "${SAN_RUNTIME:-}" ]; then
	cc=${STACKS_GCC:-${STACKS_CLANG:-}}
	[ -n "$cc" ] ||
		skip "configure found neither gcc nor clang to build a set-ID program without LeakSanitizer (a build with AddressSanitizer)"
	"$cc" -g -O0 -finstrument-functions -fno-inline -I"$APPS_SRC" \
		-o "$T/simple" "$APPS_SRC/simple.c" 2>"$T/cc.err" ||
		fail "cannot build simple.c: $(cat "$T/cc.err")"
	setid=$T/simple
fi
cp "$setid" "$T/pub/suid"
chown "$nobody" "$T/pub/suid"
chmod 4755 "$T/pub/suid"
cp "$setid" "$T/pub/sgid"
chgrp "$nogroup" "$T/pub/sgid"
chmod 2755 "$T/pub/sgid"

for p in suid sgid; do
	case $p in
	suid) what="set-user-ID nobody" bit="the set-user-ID bit" ;;
	sgid) what="set-group-ID $group" bit="the set-group-ID bit" ;;
	esac
	RC=0
	"$RBTRACE" -- "$T/pub/$p" -e 3 >/dev/null 2>"$T/$p.err" </dev/null || RC=$?
	expect "status of $p" 3 "$RC"
	expect "stderr of rbtrace -- $p" \
		"rbtrace: $T/pub/$p is $what: the loader ignores LD_PRELOAD for it, it runs untraced; trace a copy without $bit" \
		"$(cat "$T/$p.err")"
	expect "files in \$TMPDIR after $p" "" "$(ls "$TMPDIR")"
	# What the loader does with it: the line is right.
	LD_PRELOAD=$RB_PRELOAD RBTRACE_FILE=$TMPDIR/direct.trace "$T/pub/$p" -e 0 ||
		fail "$p under LD_PRELOAD exited $?"
	[ -e "$TMPDIR/direct.trace" ] && fail "LD_PRELOAD traced $p after all"
done

cp "$T/pub/suid" "$T/pub/copy"		# cp drops the bits
RC=0
"$RBTRACE" -q --file "$TMPDIR/copy.trace" -- "$T/pub/copy" -e 0 2>"$T/copy.err" || RC=$?
expect "status of the copy" 0 "$RC"
expect "stderr of rbtrace -q -- copy" "" "$(cat "$T/copy.err")"
[ -f "$TMPDIR/copy.trace" ] || fail "the copy without the bit was not traced"

# ---- setuid() once running: watches -----------------------------------------
cp "$APPS/dropuid" "$T/pub/dropuid"
cp "$APPS/dropuid" "$T/pub/dropuid700"
chmod 700 "$T/pub/dropuid700"

# start NAME - run it traced until it has given up root; PID, FILE.
start()
{
	FILE=$T/$1.trace
	: >"$RBT_READY"
	launch "$1" "$RBTRACE" -q --file "$FILE" -- "$T/pub/$1" "$nobody"
	wait_ready "dropuid [0-9]+" "$LAUNCHED"
	PID=$(ready_field dropuid 2)
	wait_for "$1 running as nobody" grep -Eq "^Uid:\s+$nobody\s+$nobody\s" "/proc/$PID/status"
	# what the kernel did: the process may no longer open these
	expect "owner of /proc/$PID/auxv" 0 "$(stat -c %u "/proc/$PID/auxv")"
	wait_json "$FILE" ".processes[0].threads[] | select(.tid == $PID) | .frames[0].function == \"dropuid_tick\"" \
		"$1 in dropuid_tick"
}

# watch - rbmon --watch ticks on PID; W_OUT, W_ERR, W_RC.
watch()
{
	W_RC=0
	"$RBMON" --thread "$PID" --watch ticks --timeout 10 "$FILE" >"$T/w.out" 2>"$T/w.err" || W_RC=$?
	W_OUT=$(cat "$T/w.out")
	W_ERR=$(cat "$T/w.err")
}

start dropuid
watch
expect "status of the watch (stderr: $W_ERR)" 0 "$W_RC"
[[ $W_OUT =~ ^([0-9]+)$ ]] || fail "watch of ticks printed '$W_OUT'"
first=${BASH_REMATCH[1]}
watch
[[ $W_OUT =~ ^([0-9]+)$ ]] || fail "second watch of ticks printed '$W_OUT' ($W_ERR)"
[ "${BASH_REMATCH[1]}" -gt "$first" ] || fail "ticks did not count on: $first then ${BASH_REMATCH[1]}"
kill -TERM "$PID"

start dropuid700
watch
expect "status of the watch on dropuid700" 1 "$W_RC"
expect "stderr of the watch on dropuid700" \
	"rbmon: thread $PID: ticks: no symbol \"ticks\" (user $nobody cannot read the executable $T/pub/dropuid700: Permission denied)" \
	"$W_ERR"
kill -TERM "$PID"
exit 0
