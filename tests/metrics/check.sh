#!/usr/bin/env bash
# `rdnactl status --format prometheus` and `--output` on the fixture machines
# (docs/metrics.md), with the real binary:
#   * promtool check metrics (Debian package prometheus) passes on the real
#     output of every fixture machine, and on a machine with hostile names;
#   * the output of tests/metrics/golden/<machine>.prom is byte-identical
#     (the collect timestamp normalised to @NOW@);
#   * --output writes the same bytes atomically (mode 0644, no temporary file
#     left), refuses a missing or unwritable directory with exit 2;
#   * --json equals --format json; --json with --format is refused;
#   * the example alert rules pass promtool check rules and promtool test
#     rules (tests/metrics/alerts-test.yml), and the Grafana example is JSON
#     whose queries name only metrics the output has.
#   check.sh RDNACTL          UPDATE=1 check.sh RDNACTL rewrites the goldens
set -u
rdnactl=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
source "$top/tests/lib/verdicts.sh"
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
golden_machines=(rdnafix-loaded rx6750xt-raphael no-amd-gpu)

have_promtool=1
if ! command -v promtool >/dev/null; then
	have_promtool=0
	echo "SKIP promtool checks: promtool not found (Debian: apt-get install prometheus, group [test] of userspace/deps/packages.txt)"
fi

# args MACHINE: the status arguments of a fixture machine (as the golden tests build them).
args() { args_of "$top/tests/fixtures/$1"; }
args_of() { # the arguments of the fixture machine in directory $1
	local fx=$1 a
	a=(--root "$fx/root")
	[[ -f $fx/env ]] && a+=(--env "$fx/env")
	# shellcheck disable=SC2207
	[[ -f $fx/args ]] && a+=($(cat "$fx/args"))
	printf '%s\n' "${a[@]}"
}
normalise() { sed -E 's/^(rdnafix_status_collect_timestamp_seconds) [0-9]+$/\1 @NOW@/'; }
promcheck() { # FILE LABEL
	[[ $have_promtool = 1 ]] || return 0
	local out
	if out=$(promtool check metrics <"$1" 2>&1); then
		pass "promtool check metrics: $2"
	else
		fail "promtool check metrics: $2"
		printf '%s\n' "$out" | sed 's/^/    /'
	fi
}

for fx in "$top"/tests/fixtures/*/; do
	[[ -d $fx/root ]] || continue
	m=$(basename "$fx")
	mapfile -t a < <(args "$m")
	"$rdnactl" status "${a[@]}" --format prometheus >"$tmp/$m.prom" 2>"$tmp/$m.err"
	rc=$?
	if [[ $rc -le 1 && -s $tmp/$m.prom ]]; then
		pass "$m: status --format prometheus (exit $rc)"
	else
		fail "$m: status --format prometheus (exit $rc)"
		sed 's/^/    /' "$tmp/$m.err"
	fi
	promcheck "$tmp/$m.prom" "$m"
done

for m in "${golden_machines[@]}"; do
	g=$here/golden/$m.prom
	normalise <"$tmp/$m.prom" >"$tmp/$m.norm"
	if [[ ${UPDATE:-0} = 1 ]]; then
		mkdir -p "$here/golden" && cp "$tmp/$m.norm" "$g"
		echo "rewrote $g"
	elif diff -u "$g" "$tmp/$m.norm"; then
		pass "$m: output equals golden/$m.prom"
	else
		fail "$m: output differs from golden/$m.prom (intended? UPDATE=1 $0 RDNACTL)"
	fi
done

# Hostile names: a hook whose sysfs file name holds a quote, a backslash, a
# line feed and bytes that are not UTF-8; two hooks whose names differ only in
# an invalid byte (one series each, not the same series twice); one with a raw
# ESC and BEL; a product name with quotes and a backslash in amdgpu.ids.  Label
# values are spelt as the text report spells them (core::terminal_safe).
cp -a "$top/tests/fixtures/rdnafix-loaded" "$tmp/evil"
evil_hook=$'ev"il\\hook\nline2\xff\xfe'
printf 'active\n' >"$tmp/evil/root/sys/kernel/rdnafix/hooks/$evil_hook"
printf 'active\n' >"$tmp/evil/root/sys/kernel/rdnafix/hooks/dup"$'\xff'
printf 'inactive\n' >"$tmp/evil/root/sys/kernel/rdnafix/hooks/dup"$'\xfe'
printf 'active\n' >"$tmp/evil/root/sys/kernel/rdnafix/hooks/"$'bell\a\e[2J'
sed -i -E 's/^(73FF,\s*C7,\s*).*/\1AMD "Radeon" \\RX 6600\\/' "$tmp/evil/root/usr/share/libdrm/amdgpu.ids"
# shellcheck disable=SC2046
"$rdnactl" status --root "$tmp/evil/root" --env "$tmp/evil/env" $(cat "$tmp/evil/args") --format prometheus \
	>"$tmp/evil.prom" 2>"$tmp/evil.err"
rc=$?
[[ $rc -le 1 ]] && pass "hostile names: exit $rc" || fail "hostile names: exit $rc"
promcheck "$tmp/evil.prom" "hostile names"
if grep -qF 'rdnafix_hook_active{hook="ev\"il\\\\hook\\nline2\\xff\\xfe"} 1' "$tmp/evil.prom"; then
	pass "hostile hook name spelt (\\\", \\\\, \\n, \\xff) and escaped"
else
	fail "hostile hook name not escaped as expected"
	grep -a 'rdnafix_hook_active' "$tmp/evil.prom" | sed 's/^/    /'
fi
if grep -qF 'rdnafix_hook_active{hook="dup\\xff"} 1' "$tmp/evil.prom" &&
	grep -qF 'rdnafix_hook_active{hook="dup\\xfe"} 0' "$tmp/evil.prom"; then
	pass "hook names that differ only in an invalid byte are two series"
else
	fail "hook names that differ only in an invalid byte"
	grep -a 'rdnafix_hook_active' "$tmp/evil.prom" | sed 's/^/    /'
fi
if grep -qF 'rdnafix_hook_active{hook="bell\\x07\\e[2J"} 1' "$tmp/evil.prom" && ! grep -q $'[\a\e]' "$tmp/evil.prom"; then
	pass "ESC and BEL in a label value are escaped, none raw in the output"
else
	fail "ESC/BEL in a label value"
	grep -a 'rdnafix_hook_active' "$tmp/evil.prom" | cat -A | sed 's/^/    /'
fi
if grep -qF 'name="AMD \"Radeon\" \\\\RX 6600\\\\"' "$tmp/evil.prom"; then
	pass "hostile product name escaped"
else
	fail "hostile product name not escaped as expected"
	grep -a 'rdnafix_gpu_info' "$tmp/evil.prom" | sed 's/^/    /'
fi

# --output: the same bytes, atomically, 0644; a missing or unwritable directory is exit 2.
mapfile -t a < <(args rdnafix-loaded)
mkdir "$tmp/textfile"
"$rdnactl" status "${a[@]}" --format prometheus --output "$tmp/textfile/rdnafix.prom" >"$tmp/out.stdout" 2>&1
rc=$?
mode=$(stat -c %a "$tmp/textfile/rdnafix.prom" 2>/dev/null)
if [[ $rc -le 1 && ! -s $tmp/out.stdout && $mode = 644 ]] &&
	diff -q <(normalise <"$tmp/textfile/rdnafix.prom") <(normalise <"$tmp/rdnafix-loaded.prom") >/dev/null; then
	pass "--output wrote the metrics (mode 0644, nothing on stdout)"
else
	fail "--output (exit $rc, mode $mode)"
	sed 's/^/    /' "$tmp/out.stdout"
fi
left=$(find "$tmp/textfile" -mindepth 1 ! -name rdnafix.prom)
[[ -z $left ]] && pass "--output leaves no temporary file" || fail "--output left: $left"
echo stale >"$tmp/textfile/rdnafix.prom"
chmod 600 "$tmp/textfile/rdnafix.prom"
"$rdnactl" status "${a[@]}" --format prometheus --output "$tmp/textfile/rdnafix.prom" >/dev/null 2>&1
if grep -q '^rdnafix_status_success 1$' "$tmp/textfile/rdnafix.prom" && [[ $(stat -c %a "$tmp/textfile/rdnafix.prom") = 644 ]]; then
	pass "--output replaces an existing file and sets mode 0644"
else
	fail "--output did not replace the existing file"
fi
"$rdnactl" status "${a[@]}" --format json --output "$tmp/textfile/status.json" >/dev/null 2>&1
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/textfile/status.json" 2>/dev/null &&
	pass "--output with --format json writes JSON" || fail "--output with --format json"
out=$("$rdnactl" status "${a[@]}" --format prometheus --output "$tmp/no/such/dir/rdnafix.prom" 2>&1)
rc=$?
if [[ $rc -eq 2 && $out == *"$tmp/no/such/dir"*"does not exist"* && ! -e $tmp/no ]]; then
	pass "--output into a missing directory: exit 2, named, nothing created"
else
	fail "--output into a missing directory (exit $rc): $out"
fi
out=$("$rdnactl" status "${a[@]}" --output "$tmp/textfile/" 2>&1)
rc=$?
[[ $rc -eq 2 && $out == *"give a file name"* ]] && pass "--output naming a directory: exit 2" ||
	fail "--output naming a directory (exit $rc): $out"
# Unwritable: as an unprivileged user when this runs as root (root writes anywhere).
mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
runner=()
if [[ $(id -u) -eq 0 ]]; then
	if command -v setpriv >/dev/null; then
		runner=(setpriv --reuid=65534 --regid=65534 --clear-groups)
		chmod o+rx "$tmp"
	else
		runner=(skip)
	fi
fi
if [[ ${runner[0]:-} = skip ]]; then
	echo "SKIP --output into an unwritable directory: running as root without setpriv"
else
	# The unprivileged user reads the fixture from $tmp (o+rx): the checkout may be private to root
	# (a clone in `mktemp -d` is mode 0700), and a refusal to read --env is not what is tested here.
	cp -a "$top/tests/fixtures/rdnafix-loaded" "$tmp/fx-nobody"
	chmod -R o+rX "$tmp/fx-nobody"
	mapfile -t a_nobody < <(args_of "$tmp/fx-nobody")
	out=$("${runner[@]}" "$rdnactl" status "${a_nobody[@]}" --format prometheus --output "$tmp/ro/rdnafix.prom" 2>&1)
	rc=$?
	# The path as given (absolute), never the writer's root-relative "tmp/..." spelling.
	if [[ $rc -eq 2 && $out == *"--output $tmp/ro/rdnafix.prom: "* && $out != *" ${tmp#/}/ro"* &&
		$out == *"(EACCES)"* && -z $(ls -A "$tmp/ro") ]]; then
		pass "--output into an unwritable directory: exit 2, path as given, reason named, nothing left"
	else
		fail "--output into an unwritable directory (exit $rc): $out"
	fi
fi

# --json is --format json; both together are refused.
if cmp -s <("$rdnactl" status "${a[@]}" --json 2>/dev/null) <("$rdnactl" status "${a[@]}" --format json 2>/dev/null); then
	pass "--json equals --format json"
else
	fail "--json differs from --format json"
fi
"$rdnactl" status "${a[@]}" --json --format text >/dev/null 2>&1
rc=$?
[[ $rc -ne 0 && $rc -ne 1 ]] && pass "--json with --format is refused (exit $rc)" || fail "--json --format text accepted"
"$rdnactl" status "${a[@]}" --format yaml >/dev/null 2>"$tmp/yaml.err"
rc=$?
[[ $rc -ne 0 && $rc -ne 1 ]] && grep -q "prometheus" "$tmp/yaml.err" && pass "--format yaml refused, valid formats named" ||
	fail "--format yaml (exit $rc)"

# The examples in docs/examples.
rules=$top/docs/examples/rdnafix-alerts.yml
if [[ $have_promtool = 1 ]]; then
	if out=$(promtool check rules "$rules" 2>&1); then pass "promtool check rules $(basename "$rules")"; else
		fail "promtool check rules"
		printf '%s\n' "$out" | sed 's/^/    /'
	fi
	if out=$(cd "$here" && promtool test rules alerts-test.yml 2>&1); then pass "promtool test rules alerts-test.yml"; else
		fail "promtool test rules alerts-test.yml"
		printf '%s\n' "$out" | sed 's/^/    /'
	fi
fi
known=$(cat "$tmp"/*.prom | sed -n 's/^# TYPE \([a-z_:]*\) .*/\1/p' | sort -u)
for f in "$top/docs/examples/grafana-rdnafix.json" "$rules"; do
	used=$(grep -o 'rdnafix_[a-z_]*' "$f" | sort -u)
	missing=$(comm -23 <(printf '%s\n' "$used") <(printf '%s\n' "$known"))
	if [[ -z $missing ]]; then pass "$(basename "$f") names only metrics rdnactl writes"; else
		fail "$(basename "$f") names metrics rdnactl does not write: $missing"
	fi
done
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["panels"]' "$top/docs/examples/grafana-rdnafix.json" &&
	pass "grafana-rdnafix.json is a dashboard" || fail "grafana-rdnafix.json is not valid JSON"

echo "metrics: $npass passed, $nfail failed"
[[ $nfail -eq 0 ]]
