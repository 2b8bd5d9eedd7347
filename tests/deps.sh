#!/bin/bash
# SPDX-License-Identifier: MIT
# deps: what may include what.  rbmon is in rooms, each including only
# the rooms below it (monitor/local.mk):
#   monitor/util/     common/ only
#   monitor/core/     core, util, common
#   monitor/history/  history, core, util, common
#   monitor/screen/   anything but a command
#   monitor/cmd/      anything, but of the commands only cmd/cmd.h: one
#                     command never includes another
# (the public headers, include/rbtrace/, go anywhere).  Then the include
# cycles between modules (a file.c and its file.h are one module; module
# A reaches B when a file of A includes B's header): the only ones are
# inside monitor/screen/ and inside lib/, which share one global each,
# tmux-style; a cycle elsewhere fails.  When the objects are built, a
# command's object may not use a symbol another command's defines.
#
# deps.sh [DIR]: DIR is the source tree (default: $top_srcdir, or .).
set -u
top=${1:-${top_srcdir:-.}}
: "${top_builddir:=$PWD}"
cd "$top" || { echo "deps: FAIL: no $top"; exit 1; }
[ -f monitor/rbmon.c ] || { echo "deps: FAIL: $top is no rbtrace tree"; exit 1; }

fail=0
say() { echo "deps: $*"; }

# Every "FROM TO" include, TO resolved to a file of the tree: from the
# top, from include/, or beside FROM.
files=$(find monitor tools lib common include -name '*.[ch]' | sort)
edges=$(echo "$files" | xargs awk -v files="$files" '
	BEGIN { n = split(files, f, "\n"); for (i = 1; i <= n; i++) have[f[i]] = 1 }
	/^[ \t]*#[ \t]*include[ \t]*"/ {
		inc = $0
		sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
		d = FILENAME; sub(/\/[^\/]*$/, "", d)
		if (inc in have) print FILENAME, inc
		else if (("include/" inc) in have) print FILENAME, "include/" inc
		else if ((d "/" inc) in have) print FILENAME, d "/" inc
	}')
[ -n "$edges" ] || { say "FAIL: no #include found"; exit 1; }

# ---- the rooms ---------------------------------------------------------------
while read -r from to; do
	case $to in include/rbtrace/*) continue ;; esac
	room=
	case $from in
	monitor/util/*)
		case $to in monitor/util/* | common/*) ;; *) room=util ;; esac ;;
	monitor/core/*)
		case $to in monitor/core/* | monitor/util/* | common/*) ;;
		*) room=core ;; esac ;;
	monitor/history/*)
		case $to in monitor/history/* | monitor/core/* | monitor/util/* | \
		    common/*) ;;
		*) room=history ;; esac ;;
	monitor/screen/*)
		case $to in monitor/cmd/*) room=screen ;; esac ;;
	monitor/cmd/*)
		case $to in monitor/cmd/cmd.h) ;; monitor/cmd/*) room=cmd ;; esac ;;
	esac
	if [ -n "$room" ]; then
		say "FAIL: $from includes $to: $room/ may not"
		fail=1
	fi
done <<EOF
$edges
EOF

# ---- cycles between modules ------------------------------------------------------
# Module edges, then what each module reaches; two modules are in one
# cycle when each reaches the other.
cycles=$(echo "$edges" | awk '
	function mod(f) { sub(/\.[ch]$/, "", f); return f }
	{ a = mod($1); b = mod($2); if (a != b) { e[a, b] = 1; out[a] = out[a] " " b }
	  m[a] = 1; m[b] = 1 }
	function reach(s,    q, n, i, k, v, w, j) {
		delete seen
		n = split(out[s], q, " "); i = 1
		while (i <= n) {
			v = q[i++]
			if (v == "" || (v in seen)) continue
			seen[v] = 1
			k = split(out[v], w, " ")
			for (j = 1; j <= k; j++) if (!(w[j] in seen)) q[++n] = w[j]
		}
		for (v in seen) r[s, v] = 1
	}
	END {
		for (s in m) reach(s)
		for (s in m) {
			if (s in done) continue
			grp = s
			for (t in m) if (t != s && ((s, t) in r) && ((t, s) in r)) {
				grp = grp " " t; done[t] = 1
			}
			done[s] = 1
			if (grp != s) print grp
		}
	}' | while read -r line; do
	echo "$line" | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//'
	echo
done | sort)

while read -r line; do
	[ -n "$line" ] || continue
	n=$(echo "$line" | wc -w)
	case " $line " in
	*" monitor/screen/"*)
		inside=monitor/screen/ ;;
	*" lib/"*)
		inside=lib/ ;;
	*)
		inside= ;;
	esac
	if [ -n "$inside" ] && ! echo "$line" | tr ' ' '\n' | grep -qv "^$inside"; then
		say "cycle of $n modules inside $inside: $line"
	else
		say "FAIL: an include cycle of $n modules outside monitor/screen/ and lib/: $line"
		fail=1
	fi
done <<EOF
$cycles
EOF

# ---- commands' objects: no command uses another's symbols ----------------------
if command -v nm >/dev/null; then
	objs=
	for c in monitor/cmd/*.c; do
		b=$(basename "$c" .c)
		o=
		for cand in "$top_builddir/monitor/cmd/.libs/libmonitor_la-$b.o" \
		    "$top_builddir/monitor/cmd/libmonitor_la-$b.o" \
		    "$top_builddir/monitor/cmd/rbmon-$b.o"; do
			[ -f "$cand" ] && { o=$cand; break; }
		done
		[ -n "$o" ] && objs="$objs $b:$o"
	done
	if [ -n "$objs" ]; then
		tmp=$(mktemp -d) || exit 1
		trap 'rm -rf "$tmp"' EXIT
		for x in $objs; do
			xb=${x%%:*} xo=${x#*:}
			nm -u "$xo" | awk '{ print $NF }' | sort -u >"$tmp/$xb.used"
			nm --defined-only -g "$xo" | awk '{ print $NF }' |
				sort -u >"$tmp/$xb.defd"
		done
		for x in $objs; do
			xb=${x%%:*}
			for y in $objs; do
				yb=${y%%:*}
				[ "$xb" = "$yb" ] && continue
				both=$(comm -12 "$tmp/$xb.used" "$tmp/$yb.defd")
				if [ -n "$both" ]; then
					say "FAIL: monitor/cmd/$xb.c uses" $both "of monitor/cmd/$yb.c"
					fail=1
				fi
			done
		done
	else
		say "the commands' objects are not built: their symbols not checked"
	fi
fi

[ $fail -eq 0 ] && say "PASS"
exit $fail
