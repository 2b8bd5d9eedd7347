#!/bin/bash
# SPDX-License-Identifier: MIT
# dyn-auto: rbtrace --auto-exclude switches off, after its warm-up, the
# functions called very often that return very fast (dc_hot, dc_leaf:
# millions of calls a second) and keeps those whose calls are long
# (dc_spin spins 30 us a call, dc_round calls it) and those that never
# return (dc_thread); --dump counts them, --json lists them with the
# reason "auto"; the program's results stay right.  gcc and clang.
. "$(dirname "$0")/lib.sh"

# off_reasons FILE PID - "function:reason ..." of what is off, sorted.
off_reasons()
{
	jq -r ".processes[] | select(.pid == $2) | .dynamic.off // [] |
		map(\"\(.function | sub(\"\\\\(.*\"; \"\")):\(.reason)\") | sort | join(\" \")" "$T/json"
}

auto_done()
{
	dump_json "$1" || return 1
	[ -n "$(off_reasons "$1" "$2")" ] &&
	    jq -e ".processes[] | select(.pid == $2) | .dynamic.functions_off >= 2" "$T/json" >/dev/null &&
	    off_reasons "$1" "$2" | grep -q "dc_hot:auto" &&
	    off_reasons "$1" "$2" | grep -q "dc_leaf:auto"
}

one()
{
	local v=$1 app=$APPS/dyncount-$1 f=$T/$1.trace pid off
	[ -x "$app" ] || { note "no $app: skipped"; return 0; }
	: >"$RBT_READY"
	launch "$v" "$RBTRACE" --auto-exclude=200 --file "$f" -- "$app" -l -t 2 -n 200 -s 30
	wait_ready "running [0-9]+" "$LAUNCHED"
	pid=$(ready_field running 2)
	wait_for "$v: dc_hot and dc_leaf switched off automatically" auto_done "$f" "$pid"
	off=$(off_reasons "$f" "$pid")
	for fn in dc_spin dc_round dc_thread main; do
		case " $off " in
		*" $fn:"*) fail "$v: $fn, whose calls are long, was switched off: $off" ;;
		esac
	done
	case " $off " in
	*":name"*) fail "$v: a function off by name: $off" ;;
	esac
	"$RBMON" --dump "$f" >"$T/dump" || fail "rbmon --dump failed"
	grep -Eq "^  dynamic: [0-9]+ functions not traced \(0 by name, [0-9]+ automatically\); [0-9,]+ of [0-9,]+ sites off$" "$T/dump" ||
		{ cat "$T/dump" >&2; fail "$v: --dump says no count"; }
	kill -TERM "$pid"
	wait_ready "done $pid"
	wait "$LAUNCHED"
	expect "$v: exit status (0: every result right)" 0 "$?"
}

one gcc
one clang
exit 0
