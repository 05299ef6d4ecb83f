#!/usr/bin/env bash
# Fails when a tracked C++ file of userspace/ or tests/ is not formatted by
# the top-level .clang-format (clang-format 14, Debian bookworm).
# `make format` rewrites them.
set -euo pipefail
cd "$(dirname "$0")/../.."
cf=${CLANG_FORMAT:-clang-format}
command -v "$cf" >/dev/null || { echo "check-format: $cf not installed (make deps-test)" >&2; exit 2; }
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' | grep -v '^kmod/')
bad=0
for f in "${files[@]}"; do
	[ -f "$f" ] || continue
	if ! "$cf" --dry-run -Werror "$f" >/dev/null 2>&1; then
		echo "check-format: $f is not clang-formatted (run: $cf -i $f)"
		bad=$((bad + 1))
	fi
done
echo "check-format: ${#files[@]} files, $bad not formatted"
[ "$bad" -eq 0 ]
