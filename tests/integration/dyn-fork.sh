#!/bin/bash
# SPDX-License-Identifier: MIT
# dyn-fork: a program asleep (rbtrace --dormant) forks while a thread runs,
# and forks a child that executes it again (tests/apps/dynfork, every
# result checked).  The fork child inherits the no-ops and runs asleep
# with an entry of its own in the file; the exec'd image starts asleep
# again (RBTRACE_DORMANT).  rbtrace -p wakes the child alone: its thread is
# traced, the parent and the exec'd image stay asleep; then the exec'd
# image alone, the child put back to sleep.
. "$(dirname "$0")/lib.sh"
need_attach

app=$APPS/dynfork
[ -x "$app" ] || skip "no $app (gcc not found by configure)"

# entry PID - the process's "dynamic" object in the last dump.
entry() { jqv -c ".processes[] | select(.pid == $1) | .dynamic"; }

# traced_work PID - the dump shows process PID's df-work thread running, in
# df_thread.
traced_work()
{
	json_true "$f" "[.processes[] | select(.pid == $1) | .threads[] |
		select(.state == \"running\" and .name == \"df-work\") |
		select(any(.frames[]; .function == \"df_thread\"))] | length == 1"
}

# asleep PID - its entry says dormant, every site off, and it has no ring
# running.
asleep()
{
	json_true "$f" "[.processes[] | select(.pid == $1)] as \$p |
		(\$p | length) == 1 and \$p[0].dynamic.dormant and
		\$p[0].dynamic.sites > 0 and \$p[0].dynamic.sites_off == \$p[0].dynamic.sites and
		([\$p[0].threads[] | select(.state == \"running\")] | length == 0)"
}

f=$T/df.trace
launch df env RBTRACE_ORPHAN_TIMEOUT=0 "$RBTRACE" --dormant --file "$f" -- "$app"
wait_ready "parent [0-9]+" "$LAUNCHED"
wait_ready "child [0-9]+" "$LAUNCHED"
wait_ready "exec [0-9]+" "$LAUNCHED"
P=$(ready_field parent 2)
C=$(ready_field child 2)
X=$(ready_field exec 2)

# Three entries, all asleep, no thread traced.
for p in "$P" "$C" "$X"; do
	wait_for "process $p asleep with an entry of its own" asleep "$p"
done

# The child woken: its thread only.
out=$("$RBTRACE" -p "$C" 2>&1 >/dev/null) || fail "wake the child: $out"
case $out in
*"woke $C"*) ;;
*) fail "waking the child said: $out" ;;
esac
wait_for "the child's df-work traced" traced_work "$C"
dump_json "$f"
expect "the child's entry" false "$(jqv ".processes[] | select(.pid == $C) | .dynamic.dormant")"
expect "the child's sites all on" 0 "$(jqv ".processes[] | select(.pid == $C) | .dynamic.sites_off")"
asleep "$P" || fail "the parent woke with its child: $(entry "$P")"
asleep "$X" || fail "the exec'd image woke with the child: $(entry "$X")"

# The exec'd image woken, the child put back to sleep.
out=$("$RBTRACE" -p "$X" 2>&1 >/dev/null) || fail "wake the exec'd image: $out"
wait_for "the exec'd image's df-work traced" traced_work "$X"
out=$("$RBTRACE" -p "$C" --detach 2>&1 >/dev/null) || fail "put the child to sleep: $out"
case $out in
*"put to sleep $C"*) ;;
*) fail "putting the child to sleep said: $out" ;;
esac
wait_for "the child asleep again" asleep "$C"
asleep "$P" || fail "the parent is not asleep: $(entry "$P")"
traced_work "$X" || fail "the exec'd image stopped being traced"
ready "bad .*" && fail "a result changed: $(grep bad "$RBT_READY")"

kill -TERM "$P"
wait "$LAUNCHED"
expect "exit status (0: every result right, in all three)" 0 "$?"
ready "bad .*" && fail "a result changed: $(grep bad "$RBT_READY")"
exit 0
