#!/usr/bin/env bash
# rdnactl status's output options on the fixture machines (docs/rdnactl.md, status):
# --list-checks (text and JSON: every catalogue id once), --only/--skip (ids and areas; the JSON
# findings and the exit code follow them; an unknown name is exit 2 naming the valid areas),
# --quiet (the summary only, one line per finding), --verbose (every parameter, the citations,
# pass lines) against the default (none of those), and no paragraph printed twice.
#   tests/status/check-options.sh RDNACTL        exit 0 pass, 1 a failure, 2 cannot run
set -uo pipefail
rdnactl=$(realpath "${1:?usage: check-options.sh RDNACTL}")
[ -x "$rdnactl" ] || { echo "check-options.sh: $rdnactl is not executable" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cd "$top"
export RDNAFIX_KNOWLEDGE_DIRS=
unset COLUMNS
py=/usr/bin/python3
fail=0
bad() { echo "FAIL: $*"; fail=1; }
fx() { # name -> the status arguments of a fixture
	# shellcheck disable=SC2046
	echo --root "tests/fixtures/$1/root" --env "tests/fixtures/$1/env" $(cat "tests/fixtures/$1/args")
}
# shellcheck disable=SC2046
run() { "$rdnactl" status "$@"; }

# --list-checks: one line per check (after the heading), the same ids as the JSON, each once.
text_ids=$(run --list-checks | awk 'NR > 1 { print $1 }')
json_ids=$(run --list-checks --json | $py -c 'import json,sys; [print(c["id"]) for c in json.load(sys.stdin)["checks"]]')
[ -n "$text_ids" ] && [ "$text_ids" = "$json_ids" ] || bad "--list-checks text and JSON ids differ"
[ "$(sort <<<"$text_ids" | uniq -d)" = "" ] || bad "--list-checks lists an id twice"
grep -q '^RDNA-ENV-001 *ENV *error ' <<<"$(run --list-checks)" || bad "--list-checks lacks 'RDNA-ENV-001 ENV error'"
for id in $(grep -o '^### RDNA-[A-Z]*-[0-9]*' docs/checks.md | sed 's/^### //'); do
	grep -qx "$id" <<<"$text_ids" || bad "--list-checks lacks $id (docs/checks.md has it)"
done

# Unknown names: exit 2, the name and the valid areas on stderr, nothing on stdout.
for opt in --only --skip; do
	rc=0
	out=$(run $(fx rx5600xt-k614) $opt ENV,NOPE 2>/tmp/check-options.$$) || rc=$?
	err=$(cat /tmp/check-options.$$)
	rm -f /tmp/check-options.$$
	[ "$rc" = 2 ] || bad "$opt ENV,NOPE: exit $rc, expected 2"
	[ -z "$out" ] || bad "$opt ENV,NOPE printed on stdout"
	grep -q -e "$opt: 'NOPE' is neither a check id nor an area (valid areas: ACC, CFG, COV" <<<"$err" ||
		bad "$opt ENV,NOPE: error was: $err"
done

# rx5600xt-k614 has RDNA-ENV-002 (error), RDNA-GPU-002, RDNA-DRV-003 (warn), RDNA-DRV-004 (info).
ids() { $py -c 'import json,sys; print(",".join(f["id"] for f in json.load(sys.stdin)["findings"]))'; }
got=$(run $(fx rx5600xt-k614) --json --only env | ids)
[ "$got" = "RDNA-ENV-002" ] || bad "--only env: findings $got"
got=$(run $(fx rx5600xt-k614) --json --only RDNA-DRV-004,GPU | ids)
[ "$got" = "RDNA-GPU-002,RDNA-DRV-004" ] || bad "--only RDNA-DRV-004,GPU: findings $got"
got=$(run $(fx rx5600xt-k614) --json --skip ENV,DRV | ids)
[ "$got" = "RDNA-GPU-002" ] || bad "--skip ENV,DRV: findings $got"
rc=0
run $(fx rx5600xt-k614) --skip ENV,GPU,DRV >/dev/null || rc=$?
[ "$rc" = 0 ] || bad "--skip ENV,GPU,DRV (every finding left out): exit $rc, expected 0"
rc=0
run $(fx rx5600xt-k614) --only RDNA-DRV-004 >/dev/null || rc=$?
[ "$rc" = 0 ] || bad "--only RDNA-DRV-004 (an info finding): exit $rc, expected 0"

# --quiet: the header, a blank line, the count line and one line per finding; nothing else.
q=$(run $(fx rx5600xt-k614) --quiet)
[ "$(wc -l <<<"$q")" = 7 ] || bad "--quiet printed $(wc -l <<<"$q") lines, expected 3 + 4 findings: $q"
grep -q '^  \[error\] RDNA-ENV-002 .* → unset HSA_OVERRIDE_GFX_VERSION$' <<<"$q" || bad "--quiet: no ENV-002 line with its fix: $q"
grep -q '^Devices' <<<"$q" && bad "--quiet printed the Devices section"

# Default against --verbose.
d=$(run $(fx rx5600xt-k614))
v=$(run $(fx rx5600xt-k614) --verbose)
grep -q 'amdgpu.mtype_local' <<<"$d" && bad "default lists a parameter at its default (amdgpu.mtype_local)"
grep -q 'amdgpu.mtype_local' <<<"$v" || bad "--verbose lacks the parameter table"
grep -q 'amdgpu_gmc.c' <<<"$d" && bad "default prints the noretry rule's kernel-source citation"
grep -q 'amdgpu_gmc.c' <<<"$v" || bad "--verbose lacks the noretry rule's citation"
grep -q '^  \[pass\] RDNA-ACC-001 ' <<<"$v" || bad "--verbose has no pass line for RDNA-ACC-001"
grep -q '\[pass\]' <<<"$d" && bad "default prints pass lines"
grep -q '\[pass\] RDNA-ENV-002' <<<"$v" && bad "--verbose says RDNA-ENV-002 passed, it fired"
grep -q '\[pass\] RDNA-ENV' <<<"$(run $(fx rx5600xt-k614) --verbose --skip ENV)" &&
	bad "--verbose --skip ENV prints pass lines for ENV checks"
# The summary comes first: the count line before the first section.
[ "$(sed -n 3p <<<"$d")" = "Findings: 1 error(s), 2 warning(s), 1 info — exit code 1" ] || bad "line 3 is not the count: $d"

# No paragraph twice in the default report: each clause (60 characters or more, between ": ",
# "; " and " (") of a finding's text or why appears at most as often as findings carry it.
# (--verbose prints every fact, some of which a finding quotes.)  (Before
# this layout the Environment section repeated RDNA-ENV-001's and -002's text: twice for one finding.)
for f in tests/fixtures/*/ tests/golden/copied-env.bashrc tests/golden/guide-vars.bashrc; do
	if [ -d "$f" ]; then
		[ -d "$f/root" ] || continue
		n=$(basename "$f")
		args=$(fx "$n")
	else
		n=$(basename "$f")
		args="--root tests/fixtures/rx6750xt-raphael/root --env $f --user alice"
	fi
	json=$(run $args --json 2>/dev/null)
	for mode in ""; do
		# shellcheck disable=SC2086
		dup=$(run $args $mode 2>/dev/null | JSON=$json $py -c '
import json, os, re, sys
text = sys.stdin.read()
findings = json.loads(os.environ["JSON"])["findings"]
clauses = set()
for f in findings:
    for part in (f["finding"], f["why"]):
        # a NAME=VALUE is the variable as set: a fact of the Environment section, not a paragraph
        clauses.update(c for c in re.split(r": |; | \(|\) ", part)
                       if len(c) >= 60 and not re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S+", c))
for c in sorted(clauses):
    allowed = sum(1 for f in findings if c in f["finding"] or c in f["why"])
    if text.count(c) > allowed:
        print(f"{text.count(c)} times, {allowed} finding(s): {c!r}")
        break
')
		[ -z "$dup" ] || bad "$n ${mode:-default}: printed twice: $dup"
	done
done
[ "$fail" = 0 ] && echo "check-options: all passed"
exit "$fail"
