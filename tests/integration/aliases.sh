#!/bin/bash
# SPDX-License-Identifier: MIT
# aliases: rbmon's commands spelled (rbmon dump, events, send, record, list,
# prune) do what their flags do (--dump, --events, --send, --record,
# --list, --prune): the same output, the same exit status, the same words
# for what does not go together; each answers --help; a duration without
# its unit is refused, saying so.
. "$(dirname "$0")/lib.sh"

mkdir "$T/tmp"
export TMPDIR=$T/tmp
f=$T/tmp/evseq.trace
launch evseq env RBTRACE_FILE="$f" "$APPS/evseq" -n 2
pid=$LAUNCHED
wait_ready "done $pid" "$pid"

# Times and durations, which two readings of a clock never give alike.
times() { sed -E 's/[0-9]+\.[0-9]+/D/g; s/[0-9]+ ns/D ns/g; s/("[a-z_]*(ns|age|at|time|since)[a-z_]*": )[0-9]+/\1N/g'; }

# same DESCRIPTION "FLAG ARGS" "COMMAND ARGS": outputs and statuses alike.
same()
{
	local what=$1 rc1=0 rc2=0
	# shellcheck disable=SC2086
	"$RBMON" $2 >"$T/a.raw" 2>"$T/a.err" || rc1=$?
	# shellcheck disable=SC2086
	"$RBMON" $3 >"$T/b.raw" 2>"$T/b.err" || rc2=$?
	times <"$T/a.raw" >"$T/a.out"
	times <"$T/b.raw" >"$T/b.out"
	expect "$what: exit status of rbmon $3" "$rc1" "$rc2"
	cmp -s "$T/a.out" "$T/b.out" ||
		fail "$what: rbmon $2 and rbmon $3 differ: $(diff "$T/a.out" "$T/b.out" | head -20)"
	cmp -s "$T/a.err" "$T/b.err" ||
		fail "$what: rbmon $2 and rbmon $3 say different things: $(diff "$T/a.err" "$T/b.err" | head -20)"
	[ -s "$T/a.out" ] || [ -s "$T/a.err" ] || fail "$what: rbmon $2 said nothing"
	note "$what: rbmon $3 is rbmon $2 (exit $rc1)"
}

same "events" "--events $f" "events $f"
same "events --json" "--events --json $f" "events --json $f"
same "events -p" "--events --json -p $pid" "events --json -p $pid"
same "events of no such thread" "--events -t 999999 $f" "events -t 999999 $f"
same "dump --json, its stacks" "--dump --json $f" "dump --json $f"
same "dump -p" "--json -p $pid" "dump --json -p $pid"
same "send BLST" "--send BLST -t $pid $f" "send --send BLST -t $pid $f"
same "send EVOF" "--send EVOF $f" "send --send EVOF $f"
same "send EVON" "--send EVON $f" "send --send EVON $f"
same "list" "--list" "list"
same "prune, dry" "--prune --dry-run $T/tmp" "prune --dry-run $T/tmp"
same "prune of no directory" "--prune $T/none" "prune $T/none"

# What does not go together, said the same way.
same "record with another mode" "--record --events $f" "record --events $f"
same "record without a file" "--record" "record"
same "events with --send" "--events --send PING $f" "events --send PING $f"
same "list with a file" "--list $f" "list $f"
same "prune with a pid" "--prune -p $pid" "prune -p $pid"
same "output without record" "--output x $f" "dump --output x $f"
same "unknown option" "--events --bogus $f" "events --bogus $f"

# Recorded: once the program is gone, each recorder drains what is left.
kill -KILL "$pid"
wait "$pid" 2>/dev/null
rc=0
"$RBMON" --record -o "$T/a.rbr" "$f" >"$T/ra.out" 2>"$T/ra.err" || rc=$?
rc2=0
"$RBMON" record -o "$T/b.rbr" "$f" >"$T/rb.out" 2>"$T/rb.err" || rc2=$?
expect "record: exit status of rbmon record" "$rc" "$rc2"
"$RBMON" replay "$T/a.rbr" 2>&1 | times >"$T/a.replay"
"$RBMON" replay "$T/b.rbr" 2>&1 | times >"$T/b.replay"
grep -q 'seq_round' "$T/a.replay" || fail "rbmon --record kept no call: $(head "$T/a.replay")"
cmp -s "$T/a.replay" "$T/b.replay" ||
	fail "the recordings of rbmon --record and rbmon record differ: $(diff "$T/a.replay" "$T/b.replay" | head)"

# Each command answers --help with its usage; rbmon --help lists them.
"$RBMON" --help >"$T/help" || fail "rbmon --help exited $?"
for c in live dump events send record replay report hot export profile list prune; do
	grep -Eq "^  $c " "$T/help" || fail "rbmon --help does not list $c"
	out=$("$RBMON" "$c" --help) || fail "rbmon $c --help exited $?"
	expect "rbmon $c --help" "Usage: rbmon $c" "$(echo "$out" | head -1 | cut -d' ' -f1-3)"
done

# A duration is a number and its unit.
usage_bare()
{
	local want=$1 rc=0
	shift
	"$RBMON" "$@" >/dev/null 2>"$T/bare.err" || rc=$?
	expect "rbmon $*: refused" "2 $want" "$rc $(head -1 "$T/bare.err")"
}
usage_bare "rbmon: --older-than 3600: a duration needs a unit (ns, us, ms, s, m, h, d), as in 3600h" \
	prune --older-than 3600 "$T/tmp"
usage_bare "rbmon: --older-than 7: a duration needs a unit (ns, us, ms, s, m, h, d), as in 7h" \
	--prune --older-than 7
usage_bare "rbmon profile: --duration 2: a duration needs a unit (ns, us, ms, s, m, h, d), as in 2s" \
	profile -d 2 "$f"
usage_bare "rbmon replay: --min 10: a duration needs a unit (ns, us, ms, s, m, h, d), as in 10us" \
	replay --min 10 "$T/a.rbr"
rc=0
"$RBMON" prune --dry-run --older-than 0 "$T/tmp" >/dev/null 2>"$T/zero.err" || rc=$?
expect "--older-than 0: none" 0 "$rc"
exit 0
