#!/usr/bin/env bash
# rdnactl's own words for every command line CLI11 refuses (issue 21): each
# error names the option or argument and what is valid, in place of CLI11's
# texts ("--root: 1 required DIR missing", "Value 99 not in range 0 to 63",
# "xml not in {text,json,prometheus}", "RELEASE is required"); every usage
# error ends with the one trailer "See 'rdnactl VERB --help'." (never CLI11's
# "Run with --help for more information."); status of an unreadable root says
# so once, on stderr; `help help` and `help config unset` describe themselves;
# `env --shell` takes sh, bash, zsh and fish.
#   tests/unit/app/cli_errors.sh RDNACTL   (exit 0 pass, 1 fail)
set -uo pipefail
rdnactl=$(realpath "$1")
top=$(cd "$(dirname "$0")/../../.." && pwd)
fx=$top/tests/fixtures/rx6750xt-torch-gfx1030
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=../../lib/verdicts.sh
. "$top/tests/lib/verdicts.sh"

# usage VERB-PATH 'EXPECTED START OF THE FIRST LINE' ARGS...: exit 2, stderr's
# first line, the trailer for VERB-PATH as its last line, nothing on stdout, no
# CLI11 text.
usage() {
	local path=$1 want=$2 rc=0
	shift 2
	"$rdnactl" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	local first last
	first=$(head -1 "$tmp/err")
	last=$(tail -1 "$tmp/err")
	if [[ $rc -eq 2 && $first == "$want"* && $last == "See '$path --help'." && ! -s $tmp/out ]] &&
		! grep -q "Run with --help\|not in range\|required .* missing\|is required$\|not in {" "$tmp/err"; then
		pass "rdnactl $* -> $first"
	else
		fail "rdnactl $* -> rc $rc, stdout $(wc -c <"$tmp/out") bytes, stderr: $(cat "$tmp/err") (want '$want' ... 'See '$path --help'.')"
	fi
}

echo "== a missing value names the option, its form and what it is"
usage "rdnactl status" "rdnactl status: --root needs a value: DIR" status --root
usage "rdnactl explain" "rdnactl explain: --pid needs a value: PID (INT in [1 - 4194304])" explain --pid
usage "rdnactl validate" "rdnactl validate: --timeout needs a value: FLOAT in [0.1 - 86400]" validate --timeout
usage "rdnactl status" "rdnactl status: --format needs a value: FORMAT (one of text, json, prometheus)" status --format
"$rdnactl" status --root >"$tmp/out" 2>&1
grep -q "^  --root: Read sys/, proc/" "$tmp/out" && pass "the option's description follows" ||
	fail "status --root: no description line: $(cat "$tmp/out")"

# Every option that takes a value, of every verb, given none.
while read -r verb; do
	# shellcheck disable=SC2086
	for opt in $("$rdnactl" $verb --help | awk '/^Options:/ { on = 1; next } /^[^ ]/ { on = 0 }
		on && match($0, /^  (-[a-z],)?--[a-z0-9-]+ [A-Z]/) && substr($0, RSTART + RLENGTH - 1, 8) != "Excludes" { s = substr($0, RSTART, RLENGTH - 2); sub(/^ *(-[a-z],)?/, "", s); print s }'); do
		# shellcheck disable=SC2086
		usage "rdnactl $verb" "rdnactl $verb: $opt needs a value: " $verb "$opt"
	done
done <<<"status
env
coverage
explain
fix
validate
history
kernel-check
config show
config set
config unset
config undo"
if grep -rnE 'CLI::(Range|IsMember|ExistingFile|ExistingDirectory|Bound)\(' "$top/userspace/src"; then
	fail "a CLI11 validator with CLI11's own error text is used (above): use option_checks.hpp"
else
	pass "no CLI11 validator with CLI11's texts in userspace/src"
fi

echo "== an invalid value names the value and the valid ones"
usage "rdnactl validate" "rdnactl validate: --device '99' is not a device index: give a whole number from 0 to 63" validate --device 99
usage "rdnactl validate" "rdnactl validate: --device 'abc' is not a device index: give a whole number from 0 to 63" validate --device abc
usage "rdnactl explain" "rdnactl explain: --pid '0' is not a process id: give a whole number from 1 to 4194304" explain --pid 0
usage "rdnactl status" "rdnactl status: --format 'xml' is not valid; give one of: text, json, prometheus" status --format xml
usage "rdnactl status" "rdnactl status: --color 'sometimes' is not valid; give one of: auto, always, never" status --color sometimes
usage "rdnactl validate" "rdnactl validate: --api 'rocm' is not valid; give one of: hip, cuda" validate --api rocm
usage "rdnactl history" "rdnactl history: --threshold '200' is not a finite number: give one from 0 to 1" history --threshold 200
usage "rdnactl env" "rdnactl env: --shell 'csh' is not valid; give one of: sh, bash, zsh, fish" env --shell csh
usage "rdnactl status" "rdnactl status: --root must not be empty: give a directory, or leave the option out for the default" status --root ""

echo "== a missing argument names it"
usage "rdnactl kernel-check" "rdnactl kernel-check: RELEASE is missing" kernel-check
usage "rdnactl config set" "rdnactl config set: SETTING is missing" config set
usage "rdnactl config unset" "rdnactl config unset: KEY is missing" config unset

echo "== one trailer for every usage error"
usage "rdnactl" "rdnactl: unknown subcommand 'stauts'; did you mean 'status'?" stauts
usage "rdnactl" "rdnactl: a subcommand is required: status, env, validate, history, config, fix, explain, coverage, kernel-check, report, help"
usage "rdnactl config" "rdnactl config: a subcommand is required: show, set, unset, undo" config
usage "rdnactl status" "rdnactl status: unknown option '--jsn'; did you mean '--json'?" status --jsn
usage "rdnactl status" "rdnactl status: unexpected argument 'extra'" status --root "$fx/root" extra
usage "rdnactl status" "rdnactl status: --format excludes --json" status --json --format text
usage "rdnactl config set" "rdnactl config: error: unknown key 'nosuchkey'" config set --dry-run --root "$top/tests/unit/config/roots/debian-grub" nosuchkey=1

echo "== status of an unreadable root: the reason once, on stderr"
rc=0
"$rdnactl" status --root /nonexistent/rdnafix-cli-errors >"$tmp/out" 2>"$tmp/err" || rc=$?
if [[ $rc -eq 2 && ! -s $tmp/out && $(cat "$tmp/err") == "rdnactl status: root '/nonexistent/rdnafix-cli-errors': no such file or directory (ENOENT)" ]]; then
	pass "status --root /nonexistent: exit 2, one line on stderr, nothing on stdout"
else
	fail "status --root /nonexistent: rc $rc, stdout '$(cat "$tmp/out")', stderr '$(cat "$tmp/err")'"
fi
rc=0
"$rdnactl" status --root /nonexistent/rdnafix-cli-errors --json >"$tmp/out" 2>/dev/null || rc=$?
[[ $rc -eq 2 ]] && grep -q '"exit_code": 2' "$tmp/out" && pass "status --json of it still writes its object (exit_code 2)" ||
	fail "status --json --root /nonexistent: rc $rc, $(head -c 300 "$tmp/out")"

echo "== help help, help config unset"
"$rdnactl" help help >"$tmp/out" 2>&1
if grep -q "^Exit codes: 0 the help was shown, 2 no such subcommand\.$" "$tmp/out" && ! grep -qi "warning" "$tmp/out"; then
	pass "help help: its own exit codes"
else
	fail "help help: $(cat "$tmp/out")"
fi
"$rdnactl" help config unset >"$tmp/out" 2>&1
if ! grep -q "KEY=VALUE" "$tmp/out" && grep -q "unset takes each KEY alone" "$tmp/out"; then
	pass "help config unset: KEY, never KEY=VALUE"
else
	fail "help config unset: $(grep -n "KEY=VALUE" "$tmp/out")"
fi
"$rdnactl" help config set | grep -q "KEY=VALUE are kernel command-line parameters" &&
	pass "help config set still says KEY=VALUE" || fail "help config set lost KEY=VALUE"

echo "== env --shell sh, bash, zsh: the same POSIX lines; fish its own"
machine=(--root "$fx/root" --env "$fx/env")
"$rdnactl" env "${machine[@]}" --shell sh >"$tmp/sh" 2>&1
grep -q "^export HSA_OVERRIDE_GFX_VERSION=" "$tmp/sh" || fail "env --shell sh prints no export: $(cat "$tmp/sh")"
for sh in bash zsh; do
	rc=0
	"$rdnactl" env "${machine[@]}" --shell "$sh" >"$tmp/$sh" 2>&1 || rc=$?
	[[ $rc -eq 0 ]] && cmp -s "$tmp/sh" "$tmp/$sh" && pass "env --shell $sh == --shell sh" ||
		fail "env --shell $sh: rc $rc, $(diff "$tmp/sh" "$tmp/$sh" | head -3)"
	if ! command -v "$sh" >/dev/null; then
		fail "$sh missing (package $sh, make deps-test): cannot source env --shell $sh"
	elif [[ $rc -eq 0 ]]; then
		out=$("$sh" -c ". '$tmp/$sh'; printf %s \"\$HSA_OVERRIDE_GFX_VERSION\"")
		[[ $out == 10.3.0 ]] && pass "$sh sources it: HSA_OVERRIDE_GFX_VERSION=$out" ||
			fail "$sh sourcing env's output: '$out'"
	fi
done
rc=0
"$rdnactl" env "${machine[@]}" --shell fish >"$tmp/fish" 2>&1 || rc=$?
grep -q "^set -gx HSA_OVERRIDE_GFX_VERSION " "$tmp/fish" && pass "env --shell fish: set -gx" ||
	fail "env --shell fish: no set -gx: $(cat "$tmp/fish")"
if ! command -v fish >/dev/null; then
	fail "fish missing (package fish, make deps-test): cannot source env --shell fish"
elif [[ $rc -eq 0 ]]; then
	out=$(HOME=$tmp XDG_CONFIG_HOME=$tmp fish --no-config -c "source '$tmp/fish'; printf %s \$HSA_OVERRIDE_GFX_VERSION" 2>&1)
	[[ $out == 10.3.0 ]] && pass "fish sources it: HSA_OVERRIDE_GFX_VERSION=$out" || fail "fish sourcing env's output: '$out'"
fi
[[ $nfail -eq 0 ]] && echo "all passed" || echo "$nfail failed"
[[ $nfail -eq 0 ]]
