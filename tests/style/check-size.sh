#!/usr/bin/env bash
# Fails when a hand-written source file is longer than the limit (500 lines).
# Checked: tracked *.c *.h *.cpp *.hpp *.cu *.py *.sh under userspace/src, kmod,
# tests/unit, tests/fuzz, tests/vm, tests/kernel, tests/rocm and tests/style.
#
# usage: check-size.sh [--root DIR] [--max N]
# Exit 0 clean, 1 files over the limit (one "path: N lines" per line), 2 cannot run.
#
# Generated files are exempt when their first 5 lines carry the marker: the word
# "generated" and then, on the same or a later of those lines, "do not edit"
# (any case), e.g.
#   /* Generated from userspace/data/gpu-database.tsv by <script>; do not edit. */
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
max=500
while [ $# -gt 0 ]; do
	case $1 in
	--root) root=${2:?}; shift 2 ;;
	--max) max=${2:?}; shift 2 ;;
	*) echo "usage: check-size.sh [--root DIR] [--max N]" >&2; exit 2 ;;
	esac
done
case $max in '' | *[!0-9]*) echo "check-size: --max needs a number" >&2; exit 2 ;; esac
command -v git >/dev/null || { echo "check-size: git not installed" >&2; exit 2; }
if ! list=$(git -C "$root" ls-files -- userspace/src kmod tests/unit tests/fuzz tests/vm tests/kernel tests/rocm tests/style); then
	echo "check-size: cannot list the tracked files of $root" >&2
	exit 2
fi
checked=0 over=0 generated=0
while IFS= read -r f; do
	case $f in *.c | *.h | *.cpp | *.hpp | *.cu | *.py | *.sh) ;; *) continue ;; esac
	p=$root/$f
	[ -f "$p" ] && [ ! -L "$p" ] || continue
	checked=$((checked + 1))
	if head -n 5 "$p" | tr '\n' ' ' | grep -qiE 'generated.*do not edit'; then
		generated=$((generated + 1))
		continue
	fi
	n=$(awk 'END { print NR }' "$p")
	if [ "$n" -gt "$max" ]; then
		echo "check-size: $f: $n lines (limit $max)"
		over=$((over + 1))
	fi
done <<<"$list"
echo "check-size: $checked files, $over over $max lines, $generated generated (exempt)"
[ "$over" -eq 0 ]
