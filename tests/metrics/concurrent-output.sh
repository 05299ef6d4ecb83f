#!/usr/bin/env bash
# Several `rdnactl status --format prometheus --output FILE` runs on one FILE
# at once (the metrics timer and a user, two timers of a misconfigured host):
# with 2 and then 4 writers, ROUNDS rounds each (default 40),
#   * every writer exits as status does (0 or 1), none with a write error;
#   * while they write, every read of FILE is a whole exposition, equal to a
#     run's output (the collect timestamp normalised); never half a file;
#   * after each round no temporary file is left beside FILE;
#   * promtool check metrics passes on the file (when promtool is installed).
# Each writer has its own temporary file, locked until its rename; a writer's
# sweep of leftovers never removes another's (io/temp_file.hpp).
#   concurrent-output.sh RDNACTL [ROUNDS]
set -u
rdnactl=$(realpath "$1")
rounds=${2:-40}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
source "$top/tests/lib/verdicts.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fx=$top/tests/fixtures/rdnafix-loaded
# shellcheck disable=SC2207
args=(--root "$fx/root" --env "$fx/env" $(cat "$fx/args") --format prometheus --no-coverage)
normalise() { sed -E 's/^(rdnafix_status_collect_timestamp_seconds) [0-9]+$/\1 @NOW@/'; }
"$rdnactl" status "${args[@]}" >"$tmp/ref.prom"
rc=$?
[[ $rc -le 1 && -s $tmp/ref.prom ]] || {
	fail "reference run (exit $rc)"
	exit 1
}
normalise <"$tmp/ref.prom" >"$tmp/ref.norm"
mkdir "$tmp/textfile"
out=$tmp/textfile/rdnafix.prom

start=$SECONDS
for writers in 2 4; do
	failed=0 torn=0 reads=0 left=0
	rm -f "$out"
	for ((round = 1; round <= rounds; round++)); do
		pids=()
		for ((w = 1; w <= writers; w++)); do
			"$rdnactl" status "${args[@]}" --output "$out" >"$tmp/w$w.log" 2>&1 &
			pids+=($!)
		done
		# Read while they write: absent before the first rename, else whole.
		while kill -0 "${pids[@]}" 2>/dev/null; do
			if [[ -e $out ]]; then
				reads=$((reads + 1))
				normalise <"$out" | cmp -s - "$tmp/ref.norm" || torn=$((torn + 1))
			fi
		done
		for ((w = 1; w <= writers; w++)); do
			wait "${pids[w - 1]}"
			rc=$?
			if [[ $rc -gt 1 ]]; then
				failed=$((failed + 1))
				echo "    round $round writer $w: exit $rc: $(head -c 300 "$tmp/w$w.log")"
			fi
		done
		normalise <"$out" | cmp -s - "$tmp/ref.norm" || torn=$((torn + 1))
		[[ -z $(find "$tmp/textfile" -mindepth 1 ! -name rdnafix.prom) ]] || left=$((left + 1))
	done
	runs=$((writers * rounds))
	[[ $failed -eq 0 ]] && pass "$writers writers x $rounds rounds: 0 of $runs runs failed" ||
		fail "$writers writers x $rounds rounds: $failed of $runs runs failed"
	[[ $torn -eq 0 ]] && pass "$writers writers: the file was whole at each of $reads reads and after each round" ||
		fail "$writers writers: $torn of $((reads + rounds)) reads were not a whole exposition"
	[[ $left -eq 0 ]] && pass "$writers writers: no temporary file left after any round" ||
		fail "$writers writers: temporary files left after $left rounds: $(ls -A "$tmp/textfile")"
	if command -v promtool >/dev/null; then
		if o=$(promtool check metrics <"$out" 2>&1); then pass "$writers writers: promtool check metrics"; else
			fail "$writers writers: promtool check metrics: $o"
		fi
	fi
done
echo "concurrent-output: $npass passed, $nfail failed ($((SECONDS - start)) s)"
[[ $nfail -eq 0 ]]
