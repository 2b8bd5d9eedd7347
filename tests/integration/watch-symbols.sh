#!/bin/bash
# SPDX-License-Identifier: MIT
# watch-symbols: names several files define, functions, pointers into
# symbols and sizeof, against gdb's print of the same process.
#
#  - tests/apps/watchsyms (DWARF): every expression of SAME prints on
#    rbmon --watch exactly what gdb prints for "print EXPR" ("print/x EXPR"
#    for EXPR/x) of the same process, attached once rbmon's values are in
#    (nothing compared changes): functions "{int (void)} 0xADDR <main>",
#    function pointers "(void (*)(int)) 0xADDR <handle_event>", in structs
#    and arrays too, pointers into symbols "<table+12>", sizeof, and gdb's
#    'file.c'::name and 'dir/file.c'::name;
#  - names several files define (level: three statics, verbose: two,
#    mode: a global and a static, the static function scale: two): the
#    value starts with a note naming the file picked and the others,
#    exactly as in NOTE, and goes on with what gdb prints for the name in
#    the file the note names; given a file, no note;
#  - errors (exit 1, one line): an unknown file, a name the file lacks,
#    syntax; the program survives;
#  - tests/apps/watchsyms-nodebug (symbols only): gdb's "<text variable,
#    no debug info>" and "<data variable, no debug info>" forms and casts,
#    compared with gdb; files from the symbol table, which gdb does not
#    read: (int)'display.c'::level is 4, (int)level 2 with a note giving
#    each util.c's address.
. "$(dirname "$0")/lib.sh"

command -v gdb >/dev/null || skip "gdb is not installed"

# watch FILE TID EXPR - rbmon --watch (10 s); WATCHED, $T/watch.{out,err}.
watch()
{
	WATCHED=0
	"$RBMON" --thread "$2" --watch "$3" --timeout 10 "$1" \
		>"$T/watch.out" 2>"$T/watch.err" || WATCHED=$?
}

# watch_value FILE TID EXPR - one value, into VALUE.
watch_value()
{
	watch "$@"
	[ "$WATCHED" -eq 0 ] ||
		fail "--watch '$3' exited $WATCHED, expected 0 (stderr: $(cat "$T/watch.err"))"
	expect "stderr of --watch '$3'" "" "$(cat "$T/watch.err")"
	expect "lines printed for --watch '$3'" 1 "$(wc -l <"$T/watch.out")"
	VALUE=$(cat "$T/watch.out")
}

# watch_err FILE TID EXPR MESSAGE - EXPR fails with MESSAGE.
watch_err()
{
	watch "$1" "$2" "$3"
	expect "exit status of --watch '$3' (stderr: $(cat "$T/watch.err"))" 1 "$WATCHED"
	expect "stdout of --watch '$3'" "" "$(cat "$T/watch.out")"
	expect "stderr of --watch '$3'" "rbmon: thread $2: $3: $4" "$(cat "$T/watch.err")"
}

# gdb_print PID EXPR... - gdb attached to PID prints each EXPR (EXPR/x:
# print/x); its values, one line each ("ERROR" where it printed none),
# into $T/gdb.values.  Skips the test when gdb cannot attach.
gdb_print()
{
	local pid=$1 e i=0 args=()
	shift
	for e; do
		args+=(-ex "echo @@@ $i\\n")
		if [[ $e == */x ]]; then
			args+=(-ex "print/x ${e%/x}")
		else
			args+=(-ex "print $e")
		fi
		i=$((i + 1))
	done
	timeout 120 gdb -p "$pid" -batch -nx "${args[@]}" >"$T/gdb.out" 2>"$T/gdb.err" </dev/null
	if ! grep -q '^@@@ ' "$T/gdb.out"; then
		grep -qi 'ptrace\|not permitted' "$T/gdb.err" &&
			skip "gdb cannot attach: $(grep -i 'ptrace\|not permitted' "$T/gdb.err" | head -n 1)"
		fail "gdb printed nothing: $(cat "$T/gdb.err")"
	fi
	awk -v n="$i" '
		/^@@@ [0-9]+$/ { cur = $2; next }
		cur != "" && /^\$[0-9]+ = / { sub(/^\$[0-9]+ = /, ""); v[cur] = $0; cur = "" }
		END { for (k = 0; k < n; k++) print (k in v) ? v[k] : "ERROR" }
	' "$T/gdb.out" >"$T/gdb.values"
}

# same_as_gdb FILE TID PID EXPR... - rbmon's value of each EXPR is gdb's.
same_as_gdb()
{
	local file=$1 tid=$2 pid=$3 e i=0 mine=()
	shift 3
	for e; do
		watch_value "$file" "$tid" "$e"
		mine+=("$VALUE")
	done
	gdb_print "$pid" "$@"
	for e; do
		expect "--watch '$e' against gdb's print (gdb stderr: $(cat "$T/gdb.err"))" \
			"$(sed -n "$((i + 1))p" "$T/gdb.values")" "${mine[$i]}"
		i=$((i + 1))
	done
	echo "$# values as gdb prints them" >&2
}

# --- With debug info.
f=$T/watchsyms.trace
traced app RBTRACE_FILE="$f" "$APPS/watchsyms"
pid=$LAUNCHED
wait_threads "$pid" ticker
K=$(tid_of ticker)

SAME=(
	# file-qualified names, as gdb reads them
	"'a/util.c'::level" "'b/util.c'::level" "'display.c'::level"
	"'a/util.c'::verbose" "'main.c'::verbose" "'b/util.c'::mode"
	"'watchsyms-src/b/util.c'::mode" "'display.c'::mode"
	"'a/util.c'::scale" "'b/util.c'::scale" "'b/util.c'::level + 1"
	# functions and pointers to them
	main "&main" "*main" "main + 1" "(void *)main" "(long)main"
	handle_event "&handle_event" log_line tick
	on_event "*on_event" on_tick no_handler log_p pick_p a_scale "*a_scale"
	steps hooks ops opsv "ops.scale" "opsv[1]" "&opsv[1]" "&opsv[1].on_event"
	# pointers into symbols
	tablep table_end "&table[5]" totalp anyp bannerp "banner + 2" plain
	bytesp heapp "&ops" "&'b/util.c'::level"
	# sizeof
	"sizeof ops" "sizeof(struct ops)" "sizeof opsv / sizeof opsv[0]"
	"sizeof(handler_t)" "sizeof main" "sizeof tick" "sizeof *totalp"
	"sizeof (int) * 2" "sizeof(char *)" "sizeof table" "sizeof(void)"
	"sizeof -1" "sizeof 'b/util.c'::level" "sizeof(struct ops *)"
	# /x: the numbers alone
	on_event/x ops/x bannerp/x tablep/x
)
same_as_gdb "$f" "$K" "$pid" "${SAME[@]}"

# Where several files define a name: a note naming the one picked, then
# its value, which gdb prints for the name in the file the note gives (an
# unqualified name is no reference: gdb's pick among statics of one rank
# follows the order of its own index).
NOTE=(
	level "<'a/util.c'::level; also in 'b/util.c', 'display.c'> " "'a/util.c'::level"
	verbose "<'main.c'::verbose; also in 'util.c'> " "'main.c'::verbose"
	mode "<'main.c'::mode; also in 'util.c'> " mode
	scale "<'a/util.c'::scale; also in 'b/util.c'> " "'a/util.c'::scale"
	"'util.c'::level" "<'a/util.c'::level; also in 'b/util.c'> " "'a/util.c'::level"
	"sizeof level" "<'a/util.c'::level; also in 'b/util.c', 'display.c'> " "sizeof 'a/util.c'::level"
	"&level" "<'a/util.c'::level; also in 'b/util.c', 'display.c'> " "&'a/util.c'::level"
	"-verbose" "<'main.c'::verbose; also in 'util.c'> " "-'main.c'::verbose"
)
mine=()
refs=()
for ((i = 0; i < ${#NOTE[@]}; i += 3)); do
	e=${NOTE[$i]}
	note=${NOTE[$((i + 1))]}
	watch_value "$f" "$K" "$e"
	[[ $VALUE == "$note"* ]] ||
		fail "--watch '$e': expected the note '$note' first, got '$VALUE'"
	mine+=("${VALUE#"$note"}")
	refs+=("${NOTE[$((i + 2))]}")
done
gdb_print "$pid" "${refs[@]}"
for ((i = 0; i < ${#refs[@]}; i++)); do
	expect "--watch '${NOTE[$((i * 3))]}' after its note, against gdb's print ${refs[$i]} (gdb stderr: $(cat "$T/gdb.err"))" \
		"$(sed -n "$((i + 1))p" "$T/gdb.values")" "${mine[$i]}"
done
watch_value "$f" "$K" "'b/util.c'::level * 10 + level"
expect "two names, one with a note" \
	"<'a/util.c'::level; also in 'b/util.c', 'display.c'> 32" "$VALUE"

# Errors.
watch_err "$f" "$K" "'nosuch.c'::level" 'no source file "nosuch.c" in the program'
watch_err "$f" "$K" "'til.c'::level" 'no source file "til.c" in the program'
watch_err "$f" "$K" "'a/util.c'::nosuch" 'no symbol "nosuch" in "a/util.c"'
watch_err "$f" "$K" "'display.c'::verbose" 'no symbol "verbose" in "display.c"'
watch_err "$f" "$K" "'display.c'::" "syntax error at end of expression"
watch_err "$f" "$K" "sizeof(struct nosuch)" \
	"no struct \"nosuch\" in the program's debug information"
watch_err "$f" "$K" "-main" "cannot negate int (void)"
kill -0 "$pid" 2>/dev/null || fail "the program died: $(cat "$T/app.err")"

# --- Without debug info: the symbol tables.
g=$T/nodebug.trace
traced nodebug RBTRACE_FILE="$g" \
	RBT_READY="$T/nodebug.ready" "$APPS/watchsyms-nodebug"
npid=$LAUNCHED
RBT_READY=$T/nodebug.ready wait_threads "$npid" ticker
NK=$(RBT_READY=$T/nodebug.ready tid_of ticker)
same_as_gdb "$g" "$NK" "$npid" main "&main" handle_event "sizeof main" \
	"(int *)totalp" "&total" "(int)total" "(long)main" \
	"(void *)a_scale" "&a_scale" "sizeof &total"
watch_value "$g" "$NK" "(int)'display.c'::level"
expect "(int)'display.c'::level without debug info" 4 "$VALUE"
watch_value "$g" "$NK" "(int)level"
[[ $VALUE =~ ^"<'util.c'::level at 0x"[0-9a-f]+"; also in 'util.c' at 0x"[0-9a-f]+", 'display.c'> 2"$ ]] ||
	fail "(int)level without debug info: expected \"<'util.c'::level at 0xADDR; also in 'util.c' at 0xADDR, 'display.c'> 2\", got '$VALUE'"
watch_value "$g" "$NK" "(int)mode"
expect "(int)mode without debug info" "<'watchsyms-nodebug'::mode; also in 'util.c'> 7" "$VALUE"
watch_err "$g" "$NK" "'nosuch.c'::level" 'no source file "nosuch.c" in the program'

for p in "$pid" "$npid"; do
	stop_and_reap "$p"
	expect "exit status of $p" 0 "$REAPED"
done
exit 0
