#!/usr/bin/env bash
# The command rdnafix-metrics.service runs works: its ExecStart, taken from
# the configured unit, run with the built rdnactl on a fixture machine and
# with the textfile directory moved into a temporary one, writes metrics that
# promtool accepts; the unit's ConditionPathIsDirectory is the directory it
# writes into (Debian's node_exporter default), and the timer starts it.
#   unit-command.sh BUILT_RDNACTL INSTALLED_RDNACTL_PATH SERVICE TIMER
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
source "$top/tests/lib/verdicts.sh"
rdnactl=$1 bin_path=$2 service=$3 timer=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
textfile_dir=/var/lib/prometheus/node-exporter

exec_start=$(sed -n 's/^ExecStart=//p' "$service")
cond=$(sed -n 's/^ConditionPathIsDirectory=//p' "$service")
read -r -a argv <<<"$exec_start"
[[ ${argv[0]} = "$bin_path" ]] && pass "ExecStart runs $bin_path" || fail "ExecStart runs ${argv[0]}, not $bin_path"
out=""
for ((i = 1; i < ${#argv[@]}; i++)); do [[ ${argv[i]} = --output ]] && out=${argv[i + 1]}; done
[[ $out = "$textfile_dir/rdnafix.prom" ]] && pass "ExecStart writes $out" || fail "ExecStart --output is '$out'"
[[ $cond = "$textfile_dir" ]] && pass "ConditionPathIsDirectory=$cond" || fail "ConditionPathIsDirectory is '$cond'"
[[ " ${argv[*]} " = *" --format prometheus "* ]] && pass "ExecStart asks for --format prometheus" ||
	fail "ExecStart lacks --format prometheus"
grep -q '^OnCalendar=\*:0/5$' "$timer" && grep -q '^WantedBy=timers.target$' "$timer" &&
	pass "the timer fires every 5 minutes and is wanted by timers.target" || fail "timer schedule"
[[ $(basename "$timer" .timer) = $(basename "$service" .service) ]] && ! grep -q '^Unit=' "$timer" &&
	pass "the timer starts $(basename "$service")" || fail "the timer does not start $(basename "$service")"

# Run it: built binary, a fixture machine, the textfile directory in $tmp.
fx=$top/tests/fixtures/rdnafix-loaded
mkdir -p "$tmp$textfile_dir"
argv[0]=$rdnactl
for ((i = 1; i < ${#argv[@]}; i++)); do [[ ${argv[i]} = "$out" ]] && argv[i]=$tmp$out; done
# shellcheck disable=SC2046
"${argv[@]}" --root "$fx/root" --env "$fx/env" $(cat "$fx/args") >"$tmp/stdout" 2>&1
rc=$?
if [[ $rc -le 1 && -s $tmp$out && ! -s $tmp/stdout ]]; then
	pass "ExecStart's command wrote $(basename "$out") (exit $rc; SuccessExitStatus=1 covers 1)"
else
	fail "ExecStart's command (exit $rc)"
	sed 's/^/    /' "$tmp/stdout"
fi
grep -q '^SuccessExitStatus=1$' "$service" && pass "SuccessExitStatus=1 (warnings are not a unit failure)" ||
	fail "SuccessExitStatus=1 missing"
if command -v promtool >/dev/null; then
	if promtool check metrics <"$tmp$out" >"$tmp/promtool" 2>&1; then pass "promtool check metrics on the unit's file"; else
		fail "promtool check metrics on the unit's file"
		sed 's/^/    /' "$tmp/promtool"
	fi
else
	echo "SKIP promtool not found (Debian: apt-get install prometheus)"
fi
echo "metrics units: $npass passed, $nfail failed"
[[ $nfail -eq 0 ]]
