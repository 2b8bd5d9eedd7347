# SPDX-License-Identifier: MIT
# dynhard.sh - sourced after lib.sh by dyn-signals.sh and dyn-unwind.sh:
# tests/apps/dynhard switched under load, then its stacks checked.

# steps - how many "steps N" lines tests/apps/dynhard wrote so far.
steps() { awk '$1 == "steps" { n = $2 } END { print n + 0 }' "$RBT_READY"; }
stepped() { kill -0 "$pid" && [ "$(steps)" -ge "$1" ]; }

# wait_steps N - wait for N more steps of the first thread.
wait_steps()
{
	wait_for "$1 more steps" stepped $(($(steps) + $1))
}

# hold V - dh-hold of tests/apps/dynhard -u, inside dh_hold when its exit
# is switched off, outside it when it is switched on again, then in it
# again, called from the same instruction: its stack holds it once.
hold()
{
	local v=$1 n out
	n=$(awk '$1 == "out" { n = $2 } END { print n + 0 }' "$RBT_READY")
	wait_ready "out $n" "$pid"
	kill -USR1 "$pid"
	wait_ready "in $((n + 1))" "$pid"
	out=$("$RBTRACE" -p "$pid" --exclude dh_hold 2>&1 >/dev/null) ||
		fail "$v: exclude dh_hold: $out"
	kill -USR1 "$pid"
	wait_ready "out $((n + 1))" "$pid"
	out=$("$RBTRACE" -p "$pid" --include dh_hold 2>&1 >/dev/null) ||
		fail "$v: include dh_hold: $out"
	kill -USR1 "$pid"
	wait_ready "in $((n + 2))" "$pid"
	wait_json "$f" "[.processes[] | select(.pid == $pid) | .threads[] |
		select(.name == \"dh-hold\") | .frames[0].function] == [\"dh_hold\"]" \
		"$v: dh-hold in dh_hold"
	expect "$v: dh-hold's stack, held" '["dh_hold","dh_thread"]' \
		"$(jqv -c "[.processes[] | select(.pid == $pid) | .threads[] |
			select(.name == \"dh-hold\") | .frames[].function]")"
	kill -USR1 "$pid"
	wait_ready "out $((n + 2))" "$pid"
}

# switch_hard V OPTION THREADS... - run tests/apps/dynhard-V OPTION traced,
# switch its functions off and on $CYCLES times while its threads run, all back
# on, then park it: each of THREADS is in dh_thread -> dh_park and nothing
# else, every result was right.
switch_hard()
{
	local v=$1 opt=$2 app=$APPS/dynhard-$1 f i out n
	shift 2
	[ -x "$app" ] || { note "no $app: skipped"; return 0; }
	: >"$RBT_READY"
	f=$T/$v$opt.trace
	launch "$v$opt" "$RBTRACE" --file "$f" -- "$app" "$opt"
	wait_ready "running [0-9]+" "$LAUNCHED"
	pid=$(ready_field running 2)
	wait_steps 2
	for i in $(seq 1 "$CYCLES"); do
		case $((i % 3)) in
		0) out='dh_*' ;;
		1) out='dh_mid,dh_leaf,dh_on_signal,dh_on_trap' ;;
		2) out='dh_thread,dh_throw,dh_jump,dh_exc_step,dh_jmp_step,dh_trap_step' ;;
		esac
		out=$("$RBTRACE" -p "$pid" --exclude "$out" 2>&1 >/dev/null) ||
			fail "$v: exclude $i: $out"
		wait_steps 1
		out=$("$RBTRACE" -p "$pid" --include 'dh_*' 2>&1 >/dev/null) ||
			fail "$v: include $i: $out"
		kill -0 "$pid" 2>/dev/null || fail "$v: the program died: $(tail -1 "$T/$v$opt.err")"
		ready "bad .*" && fail "$v: $(grep bad "$RBT_READY")"
	done
	dump_json "$f"
	expect "$v: everything on" 0 "$(jqv ".processes[] | select(.pid == $pid) | .dynamic.sites_off")"
	case " $* " in
	*" dh-hold "*) hold "$v" ;;
	esac
	# Everything on: the stacks keep running through every function.
	wait_steps 3
	kill -USR2 "$pid"
	wait_ready "parked $#" "$pid"
	dump_json "$f"
	for n; do
		expect "$v: $n's stack, parked" '["dh_park","dh_thread"]' \
			"$(jqv -c "[.processes[] | select(.pid == $pid) | .threads[] |
				select(.name == \"$n\") | .frames[].function]")"
	done
	kill -TERM "$pid"
	wait_ready "done $pid"
	wait "$LAUNCHED"
	expect "$v: exit status (0: every result right)" 0 "$?"
}
