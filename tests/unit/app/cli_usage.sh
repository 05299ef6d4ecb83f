#!/usr/bin/env bash
# rdnactl's answers to command lines a newcomer gets wrong, and to output that
# cannot be written (issue 10, items 7 and 9):
#   - a mistyped subcommand or option is named, with the closest valid one;
#     `rdnactl help VERB` is `rdnactl VERB --help`;
#   - every command exits 2 with a message on stderr when standard output
#     cannot be written (/dev/full);
#   - --root "", --env "", --user "" are errors naming the option; a missing
#     --env FILE and an unknown --user are exit 2;
#   - every positional and --long name is one CLI11 2.4 and later accept;
#   - no colour under TERM=dumb (nor with NO_COLOR), colour on a TTY otherwise.
#
#   tests/unit/app/cli_usage.sh RDNACTL   (exit 0 pass, 1 fail)
set -uo pipefail
rdnactl=$(realpath "$1")
top=$(cd "$(dirname "$0")/../../.." && pwd)
fx=$top/tests/fixtures/rx6750xt-raphael
machine=(--root "$fx/root" --env "$fx/env" --user alice)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=../../lib/verdicts.sh
. "$top/tests/lib/verdicts.sh"

# expect RC STDERR-SUBSTRING ARGS...: exit code and a piece of stderr.
expect() {
	local want_rc=$1 want_err=$2 rc=0
	shift 2
	"$rdnactl" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	if [[ $rc -eq $want_rc && $(cat "$tmp/err") == *"$want_err"* ]]; then
		pass "rdnactl $* -> $rc"
	else
		fail "rdnactl $* -> rc $rc (want $want_rc), stderr: $(head -c 400 "$tmp/err") (want '$want_err')"
	fi
}

# same_out A -- B: both command lines print the same stdout with exit 0.
same_out() {
	local a=() b=() ra=0 rb=0
	while [[ $1 != -- ]]; do a+=("$1"); shift; done
	shift
	b=("$@")
	"$rdnactl" "${a[@]}" >"$tmp/a" 2>&1 || ra=$?
	"$rdnactl" "${b[@]}" >"$tmp/b" 2>&1 || rb=$?
	if [[ $ra -eq 0 && $rb -eq 0 && -s $tmp/a ]] && cmp -s "$tmp/a" "$tmp/b"; then
		pass "rdnactl ${a[*]} == rdnactl ${b[*]}"
	else
		fail "rdnactl ${a[*]} (rc $ra) != rdnactl ${b[*]} (rc $rb): $(diff "$tmp/a" "$tmp/b" | head -5)"
	fi
}

echo "== mistyped subcommands and options"
expect 2 "unknown subcommand 'stauts'; did you mean 'status'?" stauts
expect 2 "unknown subcommand 'covrage'; did you mean 'coverage'?" covrage --json
expect 2 "unknown subcommand 'shwo'; did you mean 'show'?" config shwo
expect 2 "unknown subcommand 'frobnicate'"$'\n'"Valid subcommands of 'rdnactl': status, env" frobnicate
expect 2 "unknown subcommand 'stauts'; did you mean 'status'?" help stauts
expect 2 "rdnactl: a subcommand is required: status, env" 
expect 2 "rdnactl config: a subcommand is required: show, set, unset, undo" config
expect 2 "rdnactl status: unknown option '--jsn'; did you mean '--json'?" status --jsn
expect 2 "Valid options of 'rdnactl status': --help (-h), --root, --env, --user, --pid, --format, --json, --output, --no-coverage, --color" status --frob
expect 2 "rdnactl config show: unknown option '--jason'; did you mean '--json'?" config show --jason
expect 2 "rdnactl: unknown option '--verison'; did you mean '--version'?" --verison
expect 2 "rdnactl status: unexpected argument 'extra'" status --root "$fx/root" extra
same_out help status -- status --help
same_out help -- --help
same_out help config set -- config set --help
same_out help validate -- validate --help

echo "== write errors on standard output"
full() { # ARGS...: stdout is /dev/full -> exit 2 and a message on stderr
	local rc=0
	"$rdnactl" "$@" >/dev/full 2>"$tmp/err" || rc=$?
	if [[ $rc -eq 2 && $(cat "$tmp/err") == *"error writing to standard output"* ]]; then
		pass "rdnactl $* >/dev/full -> 2"
	else
		fail "rdnactl $* >/dev/full -> rc $rc, stderr: $(head -c 300 "$tmp/err")"
	fi
}
full status "${machine[@]}" --no-coverage
full status "${machine[@]}" --json --no-coverage
full env "${machine[@]}"
full env "${machine[@]}" --shell fish
full coverage "${machine[@]}"
full coverage "${machine[@]}" --json
full explain --list
full explain --list --json
full explain RDNA-LOG-007
full validate --list
full validate --list --json
full config show --root "$fx/root"
full --help
full status --help
full help config set
full --version
# Nothing to write is no error: status of a machine that cannot be read still says so on stderr (exit 2),
# and a closed stdout is a write error too.
rc=0
"$rdnactl" explain --list >&- 2>"$tmp/err" || rc=$?
[[ $rc -eq 2 && $(cat "$tmp/err") == *"error writing to standard output"* ]] &&
	pass "rdnactl explain --list >&- -> 2" || fail "rdnactl explain --list >&- -> rc $rc: $(cat "$tmp/err")"

echo "== empty and missing values"
expect 2 "--root must not be empty: give a directory" status --root ""
expect 2 "--env must not be empty: give a file" status --root "$fx/root" --env ""
expect 2 "--user must not be empty: give a user" status --root "$fx/root" --user ""
expect 2 "rdnactl env: --root needs a value: DIR" env --root=
expect 2 "--root must not be empty: give a directory" config show --root ""
expect 2 "--root must not be empty: give a directory" coverage --root ""
expect 2 "--env '$tmp/MISSING': no such file or directory (ENOENT)" env --root "$fx/root" --env "$tmp/MISSING"
expect 2 "--env '$tmp/MISSING': no such file or directory (ENOENT)" status --root "$fx/root" --env "$tmp/MISSING"
expect 2 "--env '$tmp': is a directory" env --root "$fx/root" --env "$tmp"
expect 2 "--user 'nosuchuser': no such user in $fx/root/etc/passwd" status --root "$fx/root" --user nosuchuser
expect 2 "--user 'nosuchuser': no such user in $fx/root/etc/passwd" env --root "$fx/root" --user nosuchuser
expect 2 "--user 'nosuchuser': no such user in $fx/root/etc/passwd" fix --dry-run --root "$fx/root" --user nosuchuser
expect 2 "--user 4242: no user has uid 4242 in $fx/root/etc/passwd" coverage --root "$fx/root" --user 4242
expect 2 "--user 'nosuchuser': no such user in /etc/passwd" env --user nosuchuser
# Known users (by name or uid) still work.
for u in alice 1000; do
	rc=0
	"$rdnactl" env --root "$fx/root" --env "$fx/env" --user "$u" >"$tmp/out" 2>"$tmp/err" || rc=$?
	[[ $rc -eq 0 && -s $tmp/out ]] && pass "env --user $u -> 0" || fail "env --user $u -> rc $rc: $(cat "$tmp/err")"
done

echo "== names newer CLI11 accepts"
# CLI11 2.4 and later refuse, when the command line is built (so every command,
# --version included, aborts), a positional or --long name with '=', ':', '{',
# a blank or a control character, or one starting with '-' or '!' (issue 18
# item 0; tests/distro/run.sh builds against those releases).  This CLI11 may
# be older: the names are read from each verb's --help and checked here.
while read -r verb; do
	# shellcheck disable=SC2086
	"$rdnactl" $verb --help >"$tmp/help" 2>&1
	bad=$(awk '/^Positionals:/ { p = 1; next } /^[^ ]/ { p = 0 } p && /^  [^ ]/ { print $1 }
		/^  -/ { n = split($1, o, ","); for (i = 1; i <= n; i++) if (o[i] ~ /^--/) print substr(o[i], 3) }' "$tmp/help" |
		LC_ALL=C grep -v '^[^-! [:cntrl:]][^=:{ [:cntrl:]]*$')
	if [[ -z $bad && -s $tmp/help ]]; then pass "rdnactl ${verb:+$verb }--help: every name valid for CLI11 2.4+"; else
		fail "rdnactl ${verb:+$verb }--help: names CLI11 2.4+ refuses: $(echo $bad)"; fi
done < <(sed -n 's/^Usage: rdnactl \(\([a-z-]* \)*\)\[OPTIONS\].*/\1/p' "$top"/tests/golden/cli/help*.out)

echo "== colour"
# colour WANT 'ENV...' [ARGS...]: status on a pseudo-terminal (script(1)) with these variables.
colour() {
	local want=$1 vars=$2 got
	shift 2
	script -qec "env $vars '$rdnactl' status ${machine[*]} --no-coverage $*" /dev/null >"$tmp/tty" 2>&1
	if grep -q $'\033\\[' "$tmp/tty"; then got=yes; else got=no; fi
	if [[ $got == "$want" ]]; then pass "status $* on a TTY with $vars -> colour $got"; else
		fail "status $* on a TTY with $vars -> colour $got (want $want)"; fi
}
if command -v script >/dev/null; then
	colour yes "-u NO_COLOR TERM=xterm-256color"
	colour no "-u NO_COLOR TERM=dumb"
	colour no "TERM=xterm NO_COLOR=1"
	colour yes "-u NO_COLOR TERM=dumb" --color always
	colour no "-u NO_COLOR TERM=xterm-256color" --color never
else
	fail "script(1) missing (package bsdutils): the colour checks need a pseudo-terminal"
fi
[[ $nfail -eq 0 ]] && echo "all passed" || echo "$nfail failed"
[[ $nfail -eq 0 ]]
