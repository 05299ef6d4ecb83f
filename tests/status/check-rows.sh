#!/usr/bin/env bash
# The size of `rdnactl status` (issue 21, Deliver 1), on the fixture machines:
#  - a healthy machine (tests/fixtures/*-healthy) exits 0 and its default report fits one
#    80x24 terminal: at most 24 rows at COLUMNS=80;
#  - with COLUMNS=80 no line of any fixture's report (default and --verbose) is wider than
#    80 columns;
#  - on a terminal of 60 columns (script(1)) without COLUMNS the report wraps at 60;
#  - piped without COLUMNS nothing wraps (a line wider than 80 columns stays one line), and
#    --json is the same bytes with COLUMNS=40 as without.
#   tests/status/check-rows.sh RDNACTL        exit 0 pass, 1 a failure, 2 cannot run
set -uo pipefail
rdnactl=$(realpath "${1:?usage: check-rows.sh RDNACTL}")
[ -x "$rdnactl" ] || { echo "check-rows.sh: $rdnactl is not executable" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cd "$top"
export RDNAFIX_KNOWLEDGE_DIRS=
fail=0
bad() { echo "FAIL: $*"; fail=1; }
measure() { /usr/bin/python3 "$here/measure.py" 80; }
field() { sed -n "s/.*$1=\([0-9]*\).*/\1/p"; }
healthy=0
for d in tests/fixtures/*/; do
	[ -d "$d/root" ] || continue
	n=$(basename "$d")
	# shellcheck disable=SC2207
	args=(status --root "${d}root" --env "${d}env" $(cat "$d/args"))
	for mode in "" --verbose; do
		rc=0
		out=$(COLUMNS=80 "$rdnactl" "${args[@]}" $mode 2>&1) || rc=$?
		[ "$rc" -le 1 ] || bad "$n $mode: exit $rc: $out"
		m=$(printf '%s\n' "$out" | measure)
		w=$(field longest <<<"$m")
		[ "$w" -le 80 ] || bad "$n ${mode:-default}: a line of $w columns at COLUMNS=80"
		if [[ $n == *-healthy && -z $mode ]]; then
			healthy=$((healthy + 1))
			r=$(field rows <<<"$m")
			[ "$rc" = 0 ] || bad "$n: exit $rc, a healthy machine exits 0"
			[ "$r" -le 24 ] || bad "$n: $r rows at 80 columns, more than one 80x24 screen"
			echo "$n: $m rc=$rc"
		fi
	done
	# Piped, COLUMNS unset: never wrapped; JSON never wrapped.
	plain=$(env -u COLUMNS "$rdnactl" "${args[@]}" --verbose 2>/dev/null | measure)
	wide=$(COLUMNS=80 "$rdnactl" "${args[@]}" --verbose 2>/dev/null | measure)
	if [ "$(field longest <<<"$plain")" -gt 80 ] && [ "$(field lines <<<"$plain")" -ge "$(field lines <<<"$wide")" ]; then
		bad "$n: the wrapped report has no more lines than the piped one"
	fi
	j1=$(env -u COLUMNS "$rdnactl" "${args[@]}" --json 2>/dev/null | md5sum)
	j2=$(COLUMNS=40 "$rdnactl" "${args[@]}" --json 2>/dev/null | md5sum)
	[ "$j1" = "$j2" ] || bad "$n: --json differs with COLUMNS=40"
done
[ "$healthy" -gt 0 ] || bad "no tests/fixtures/*-healthy machine"
piped=$(env -u COLUMNS "$rdnactl" status --root tests/fixtures/rx5600xt-k614/root \
	--env tests/fixtures/rx5600xt-k614/env --user carol --verbose 2>/dev/null | measure)
[ "$(field longest <<<"$piped")" -gt 80 ] || bad "piped without COLUMNS the report was wrapped ($piped)"
# On a terminal (util-linux script(1) gives one; stty sets its width) without COLUMNS: wrapped at
# the terminal's own width (TIOCGWINSZ).
if command -v script >/dev/null; then
	tty=$(env -u COLUMNS script -qec "stty cols 60; '$rdnactl' status --root tests/fixtures/rx5600xt-k614/root \
		--env tests/fixtures/rx5600xt-k614/env --user carol --color never" /dev/null | tr -d '\r' | measure)
	[ "$(field longest <<<"$tty")" = 60 ] || bad "on a 60-column terminal the widest line is not 60 columns ($tty)"
else
	echo "note: no script(1): the terminal-width case is not run"
fi
[ "$fail" = 0 ] && echo "check-rows: every fixture within 80 columns; healthy machines within 24 rows"
exit "$fail"
