#!/bin/bash
# SPDX-License-Identifier: MIT
# planted: what another user plants at a name rbtrace or rbmon writes, in a
# shared sticky directory (rbmon(1), "FILES IT WRITES"): a symbolic link to
# a file that must stay as it is, a FIFO (nothing may wait on it), a file
# of another user (root neither replaces it).  For recordings (rbtrace
# record, its default name and -o), exports (-o), profiles (-o) and the
# launcher's --output: a default name is never replaced; a name given is
# replaced only when the user's own file or link is there, the link
# replaced, never followed; anything else is refused at once, in one line
# that names the path escaped, and leaves no file behind.
. "$(dirname "$0")/lib.sh"

command -v mkfifo >/dev/null || skip "mkfifo is not installed"
command -v timeout >/dev/null || skip "timeout is not installed"

D=$T/shared
mkdir "$D"
chmod 1777 "$D"
printf 'precious\n' >"$T/victim"
chmod 600 "$T/victim"

# Another user's files need root to make; uid 65534 (nobody), as the other
# hostile-*.sh tests do: nothing is added to the user database.
OTHER=0
if [ "$(id -u)" -eq 0 ]; then
	OTHER=1
else
	note "not root: no file of another user can be planted; those cases are skipped"
fi

# run NAME CMD... - CMD, which must end within 60 s (a FIFO must not hold
# it; what ignores SIGTERM then is killed with its process group):
# $RC is its status, $T/NAME.err its standard error.
run()
{
	local name=$1
	RC=0
	shift
	timeout -k 5 60 "$@" >"$T/$name.out" 2>"$T/$name.err" </dev/null || RC=$?
	[ "$RC" -ne 124 ] && [ "$RC" -ne 137 ] ||
		fail "$name: hung on what was planted there (killed after 60 s)"
}

# refused NAME STATUS TEXT - the status, and the one line saying why.
refused()
{
	expect "$1: exit status (stderr: $(cat "$T/$1.err"))" "$2" "$RC"
	grep -qF -- "$3" "$T/$1.err" || fail "$1: no '$3' in: $(cat -v "$T/$1.err")"
}

intact() { expect "$1: the link's target" precious "$(cat "$T/victim")"; }

# link NAME [OWNER] - a symbolic link NAME -> $T/victim, of OWNER's
link()
{
	ln -s "$T/victim" "$1" || fail "ln -s $1"
	[ -z "${2:-}" ] || chown -h "$2" "$1" || fail "chown -h $2 $1"
}

# theirs NAME - a file of uid 65534 at NAME
theirs() { printf 'theirs\n' >"$1" && chown 65534:65534 "$1" || fail "chown $1"; }

still_theirs()
{
	expect "$1: their file's content" theirs "$(cat "$2")"
	expect "$1: their file's owner" 65534 "$(stat -c %u "$2")"
}

is_recording()
{
	[ -f "$2" ] && [ ! -L "$2" ] || fail "$1: $2 is not a regular file now"
	"$RBMON" report --json "$2" >"$T/$1.report" 2>"$T/$1.report.err" ||
		fail "$1: rbmon report of $2 exited $?: $(cat "$T/$1.report.err")"
	jq -e '[.functions[].function] | index("simple_leaf") != null' "$T/$1.report" >/dev/null ||
		fail "$1: no simple_leaf in its report: $(cat "$T/$1.report")"
}

# record NAME [ARGS...] - rbtrace record [ARGS] of tests/apps/simple in
# $D, with the trace file $T/NAME.trace: its default recording is
# $D/NAME.rbr.  A recorder that fails keeps the program waiting 1 s.
record()
{
	local name=$1
	shift
	run "$name" env -C "$D" RBTRACE_RECORD_WAIT=1 "$RBTRACE" record \
		--file "$T/$name.trace" "$@" -- "$APPS/simple"
}

# ---- recordings: the default name -------------------------------------------------
link "$D/r-link.rbr"
record r-link
refused r-link 125 "rbmon: $T/r-link.trace: cannot write the recording r-link.rbr: it is a symbolic link (not followed); name it with -o to replace it"
intact r-link
[ -L "$D/r-link.rbr" ] || fail "r-link: the planted link was removed"

mkfifo "$D/r-fifo.rbr"
record r-fifo
refused r-fifo 125 "cannot write the recording r-fifo.rbr: it is a FIFO"
! grep -q "to replace it" "$T/r-fifo.err" || fail "r-fifo: -o offered to replace a FIFO"

printf 'mine\n' >"$D/r-mine.rbr"
record r-mine
refused r-mine 125 "cannot write the recording r-mine.rbr: it exists; name it with -o to replace it"
expect "r-mine: the file is kept" mine "$(cat "$D/r-mine.rbr")"

if [ "$OTHER" -eq 1 ]; then
	link "$D/r-their-link.rbr" 65534:65534
	record r-their-link
	refused r-their-link 125 "cannot write the recording r-their-link.rbr: it is a symbolic link of uid 65534"
	intact r-their-link
fi

# ---- recordings: -o ---------------------------------------------------------------
link "$D/o-link.rbr"
record o-link -o "$D/o-link.rbr"
expect "o-link: exit status (stderr: $(cat "$T/o-link.err"))" 0 "$RC"
intact o-link
is_recording o-link "$D/o-link.rbr"

printf 'mine\n' >"$D/o-mine.rbr"
record o-mine -o "$D/o-mine.rbr"
expect "o-mine: exit status (stderr: $(cat "$T/o-mine.err"))" 0 "$RC"
is_recording o-mine "$D/o-mine.rbr"

mkfifo "$D/o-fifo.rbr"
record o-fifo -o "$D/o-fifo.rbr"
refused o-fifo 125 "cannot write the recording $D/o-fifo.rbr: it is a FIFO"

if [ "$OTHER" -eq 1 ]; then
	theirs "$D/o-theirs.rbr"
	record o-theirs -o "$D/o-theirs.rbr"
	refused o-theirs 125 "cannot write the recording $D/o-theirs.rbr: it is a file of uid 65534"
	still_theirs o-theirs "$D/o-theirs.rbr"
	link "$D/o-their-link.rbr" 65534:65534
	record o-their-link -o "$D/o-their-link.rbr"
	refused o-their-link 125 "it is a symbolic link of uid 65534"
	intact o-their-link
fi
REC=$D/o-mine.rbr

# ---- exports -------------------------------------------------------------------------
link "$D/e-link.json"
run e-link "$RBMON" export --chrome -o "$D/e-link.json" "$REC"
expect "e-link: exit status (stderr: $(cat "$T/e-link.err"))" 0 "$RC"
intact e-link
[ -f "$D/e-link.json" ] && [ ! -L "$D/e-link.json" ] || fail "e-link: not a regular file now"
jq -e '.traceEvents | length > 0' "$D/e-link.json" >/dev/null || fail "e-link: not the export"

mkfifo "$D/e-fifo.json"
run e-fifo "$RBMON" export --folded -o "$D/e-fifo.json" "$REC"
refused e-fifo 1 "rbmon export: cannot write $D/e-fifo.json: it is a FIFO"

# A name with control bytes reaches the terminal escaped.
mkfifo "$D/e-$(printf '\033]2;x\007')"
run e-esc "$RBMON" export --folded -o "$D/e-$(printf '\033]2;x\007')" "$REC"
refused e-esc 1 "rbmon export: cannot write $D/e-\\x1b]2;x\\x07: it is a FIFO"
! LC_ALL=C grep -q "$(printf '\033')" "$T/e-esc.err" || fail "e-esc: a raw ESC on stderr"

# A recording that cannot be read leaves no export.
run e-bad "$RBMON" export --chrome -o "$D/e-bad.json" "$T/victim"
expect "e-bad: exit status" 1 "$RC"
[ ! -e "$D/e-bad.json" ] || fail "e-bad: an export was left"

if [ "$OTHER" -eq 1 ]; then
	theirs "$D/e-theirs.json"
	run e-theirs "$RBMON" export --chrome -o "$D/e-theirs.json" "$REC"
	refused e-theirs 1 "rbmon export: cannot write $D/e-theirs.json: it is a file of uid 65534"
	still_theirs e-theirs "$D/e-theirs.json"
fi

# ---- profiles ------------------------------------------------------------------------
traced parked RBTRACE_FILE="$T/p.trace" "$APPS/simple" -p
wait_ready "parked $LAUNCHED" "$LAUNCHED"

link "$D/p-link.folded"
run p-link "$RBMON" profile -d 100ms -o "$D/p-link.folded" "$T/p.trace"
expect "p-link: exit status (stderr: $(cat "$T/p-link.err"))" 0 "$RC"
intact p-link
grep -q ';simple_leaf;' "$D/p-link.folded" || fail "p-link: not the profile: $(cat "$D/p-link.folded")"

mkfifo "$D/p-fifo.folded"
run p-fifo "$RBMON" profile -d 100ms -o "$D/p-fifo.folded" "$T/p.trace"
refused p-fifo 1 "rbmon profile: cannot write $D/p-fifo.folded: it is a FIFO"

if [ "$OTHER" -eq 1 ]; then
	theirs "$D/p-theirs.folded"
	run p-theirs "$RBMON" profile -d 100ms -o "$D/p-theirs.folded" "$T/p.trace"
	refused p-theirs 1 "rbmon profile: cannot write $D/p-theirs.folded: it is a file of uid 65534"
	still_theirs p-theirs "$D/p-theirs.folded"
fi

# ---- the launcher's --output (echo is not instrumented: rbmon never starts) -------------
ECHO=$(command -v echo)
[ -x /bin/echo ] && ECHO=/bin/echo
link "$D/l-link.out"
run l-link "$RBTRACE" -m --output "$D/l-link.out" -- "$ECHO" hello
expect "l-link: exit status (stderr: $(cat "$T/l-link.err"))" 0 "$RC"
intact l-link
expect "l-link: the program's output" hello "$(cat "$D/l-link.out")"

mkfifo "$D/l-fifo.out"
run l-fifo "$RBTRACE" -m --output "$D/l-fifo.out" -- "$ECHO" hello
refused l-fifo 125 "rbtrace: cannot write the program's output to $D/l-fifo.out: it is a FIFO"

if [ "$OTHER" -eq 1 ]; then
	theirs "$D/l-theirs.out"
	run l-theirs "$RBTRACE" -m --output "$D/l-theirs.out" -- "$ECHO" hello
	refused l-theirs 125 "rbtrace: cannot write the program's output to $D/l-theirs.out: it is a file of uid 65534"
	still_theirs l-theirs "$D/l-theirs.out"
fi

# No temporary file is left behind.
left=$(find "$D" -name '.*' ! -name . -printf '%f\n')
[ -z "$left" ] || fail "temporary files left: $left"
exit 0
