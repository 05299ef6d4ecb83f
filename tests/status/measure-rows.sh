#!/usr/bin/env bash
# Rows and the longest line of `rdnactl status` per fixture machine, at 80 columns.
#
#   tests/status/measure-rows.sh RDNACTL [BEFORE]
#
# For every tests/fixtures/*/ with a root/: `COLUMNS=80 RDNAFIX_KNOWLEDGE_DIRS= rdnactl status
# --root D/root --env D/env $(cat D/args)` run from the repository root (so the header names the
# fixture's relative path), measured by measure.py: its exit code, lines, rows on an 80-column
# terminal, and the longest line in columns.  BEFORE: an earlier run's output (or the lines
# "NAME rc=N lines=N rows80=N longest=N"); its figures are printed beside the new ones.
# Exit 0; 2 when RDNACTL is not executable.
set -euo pipefail
rdnactl=$(realpath "${1:?usage: measure-rows.sh RDNACTL [BEFORE]}")
before=${2:-}
[ -x "$rdnactl" ] || { echo "measure-rows.sh: $rdnactl is not executable" >&2; exit 2; }
[ -z "$before" ] || before=$(realpath "$before")
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cd "$top"
old() { # name key
	[ -n "$before" ] || return 0
	awk -v n="$1" -v k="$2" '$1 == n { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] } }' "$before"
}
if [ -n "$before" ]; then
	printf '%-28s %4s %12s %15s\n' fixture rc "rows80 b→a" "longest b→a"
else
	printf '%-28s %4s %6s %6s %7s\n' fixture rc lines rows80 longest
fi
for d in tests/fixtures/*/; do
	[ -d "$d/root" ] || continue
	n=$(basename "$d")
	rc=0
	# shellcheck disable=SC2046
	out=$(COLUMNS=80 RDNAFIX_KNOWLEDGE_DIRS= "$rdnactl" status --root "$d/root" --env "$d/env" $(cat "$d/args") 2>/dev/null) || rc=$?
	read -r l r w < <(printf '%s\n' "$out" | /usr/bin/python3 "$here/measure.py" 80 | sed 's/[a-z]*=//g')
	if [ -n "$before" ]; then
		printf '%-28s %4s %12s %15s\n' "$n" "$rc" "$(old "$n" rows80)→$r" "$(old "$n" longest)→$w"
	else
		printf '%-28s rc=%s lines=%s rows80=%s longest=%s\n' "$n" "$rc" "$l" "$r" "$w"
	fi
done
