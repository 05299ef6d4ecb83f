#!/bin/bash
# `rdnactl explain` against `grep -c 'page fault'` on the same input, in the same run: CPU seconds
# (user + system, of the measured command only) and peak RSS, and explain's CPU as a multiple of
# grep's.  Inputs: a 100 MB dmesg-like log (gen_mixed_log.py: half amdgpu VM fault blocks, half
# unrelated kernel lines) read from a file, and the same log ten times (1 GB) through a pipe.
# A benchmark, not a test: it prints figures and fails only when a command cannot run.
#
# usage: tests/bench/explain-vs-grep.sh RDNACTL [SIZE_BYTES]   (docs/benchmarks.md has the figures)
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ] || [ ! -x "$1" ]; then
	echo "usage: $0 RDNACTL [SIZE_BYTES]   (RDNACTL: the rdnactl binary to measure; SIZE: 100000000)" >&2
	exit 2
fi
rdnactl=$(realpath "$1")
size=${2:-100000000}
top=$(cd "$(dirname "$0")/../.." && pwd)
root="$top/tests/fixtures/rx6750xt-raphael/root"
command -v /usr/bin/time >/dev/null || { echo "$0: needs GNU time (/usr/bin/time, package time)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log="$tmp/mixed.log"
python3 "$top/tests/bench/gen_mixed_log.py" "$size" >"$log"
bytes=$(stat -c %s "$log")
echo "log: $bytes bytes, $(wc -l <"$log") lines, $(grep -c 'page fault' "$log") page-fault lines"

# measure NAME -- COMMAND...: runs COMMAND (stdin as given), records "user sys maxrss_kib"
measure() {
	local name=$1
	shift 2
	local rc=0
	/usr/bin/time -f '%U %S %M' -o "$tmp/$name.time" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
	# grep -c: 0 found / 1 none; explain: 0 nothing found / 1 findings; anything else is a failure
	if [ "$rc" -gt 1 ]; then
		echo "$0: $name exited $rc: $(tail -c 2000 "$tmp/$name.err")" >&2
		exit 1
	fi
}
cpu() { awk 'END{printf "%.3f", $1 + $2}' "$tmp/$1.time"; } # the last line: GNU time says a non-zero exit above it
rss() { awk 'END{printf "%.1f", $3 / 1024}' "$tmp/$1.time"; }

cat "$log" >/dev/null # in the page cache before the first measurement
measure grep-file -- grep -c 'page fault' "$log"
measure explain-file -- "$rdnactl" explain --no-coverage --root "$root" "$log"
measure grep-pipe -- bash -c 'for i in 1 2 3 4 5 6 7 8 9 10; do cat "$0"; done | /usr/bin/time -f "%U %S %M" -o "$1" grep -c "page fault"' "$log" "$tmp/grep-pipe.inner"
measure explain-pipe -- bash -c 'for i in 1 2 3 4 5 6 7 8 9 10; do cat "$0"; done | /usr/bin/time -f "%U %S %M" -o "$1" "$2" explain --no-coverage --root "$3" -' "$log" "$tmp/explain-pipe.inner" "$rdnactl" "$root"
# in the pipe runs the figures are those of the consumer alone (the inner time), not of cat
cp "$tmp/grep-pipe.inner" "$tmp/grep-pipe.time"
cp "$tmp/explain-pipe.inner" "$tmp/explain-pipe.time"

printf '%-28s %-8s %10s %14s %18s\n' input command "CPU s" "peak RSS MiB" "explain / grep CPU"
for input in file pipe; do
	label="$(awk -v b="$bytes" 'BEGIN{printf "%d MB log (file)", b / 1e6}')"
	[ "$input" = pipe ] && label="$(awk -v b="$bytes" 'BEGIN{printf "%d MB (10 x log, pipe)", 10 * b / 1e6}')"
	g=$(cpu "grep-$input")
	e=$(cpu "explain-$input")
	ratio=$(awk -v e="$e" -v g="$g" 'BEGIN{ if (g > 0) printf "%.1fx", e / g; else print "-" }')
	printf '%-28s %-8s %10s %14s %18s\n' "$label" grep "$g" "$(rss "grep-$input")" ""
	printf '%-28s %-8s %10s %14s %18s\n' "$label" explain "$e" "$(rss "explain-$input")" "$ratio"
done
echo "explain (file): $(head -1 "$tmp/explain-file.out")"
echo "explain (pipe): $(head -1 "$tmp/explain-pipe.out")"
