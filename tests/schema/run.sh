#!/bin/bash
# Every --json document of rdnactl validated against its published JSON Schema
# (docs/schema/<name>.json, draft 2020-12) with Debian's python3-jsonschema:
# status, env, coverage, fix --dry-run, config show, set, unset and undo (--dry-run) on
# every fixture machine; explain on every real log of tests/fixtures/logs and
# every catalogue entry, explain --list; validate (hidden CPU self-test cases
# and a not-run run), validate --list, validate --if-stack-changed, and history
# on a real SQLite database made here; kernel-check on every fixture's kernel
# and on a tree with an installed kernel without rdnafix.  check.py also checks
# each schema against the meta-schema and that every schema was used.
# usage: run.sh RDNACTL   exit 0 pass, 1 fail, 77 cannot run (no jsonschema; ctest's skip)
set -u
RDNACTL=$(realpath "${1:?usage: run.sh RDNACTL}")
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
PY=/usr/bin/python3 # Debian's, with python3-jsonschema (never a pyenv one)
"$PY" -c 'import jsonschema' 2>/dev/null || {
	echo "run.sh: $PY lacks jsonschema: apt-get install python3-jsonschema" >&2
	exit 77
}
export RDNAFIX_KNOWLEDGE_DIRS= # the built-in knowledge only
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
LIST=$T/list
n=0
fail=0
# doc SCHEMA EXPECTED_EXITS CMD...: runs CMD, keeps stdout as a document of SCHEMA.
doc() {
	local schema=$1 exits=$2
	shift 2
	n=$((n + 1))
	local out=$T/doc.$n.$schema.json
	"$@" >"$out" 2>"$T/err"
	local rc=$?
	case " $exits " in
	*" $rc "*) ;;
	*)
		echo "FAIL: exit $rc (expected $exits): $*"
		head -5 "$T/err"
		fail=1
		;;
	esac
	echo "$schema $out" >>"$LIST"
}

for fx in "$TOP"/tests/fixtures/*/; do
	[ -d "$fx/root" ] || continue
	read -r -a args <"$fx/args" 2>/dev/null || args=()
	m=(--root "$fx/root" --env "$fx/env" "${args[@]}")
	doc status "0 1" "$RDNACTL" status "${m[@]}" --json
	doc env "0" "$RDNACTL" env "${m[@]}" --json
	doc coverage "0 1" "$RDNACTL" coverage "${m[@]}" --json
	doc fix "0 1 2" "$RDNACTL" fix "${m[@]}" --dry-run --json
	doc config-show "0 1" "$RDNACTL" config show --root "$fx/root" --json
	doc config-result "0 1 2" "$RDNACTL" config set --root "$fx/root" --dry-run --json amdgpu.noretry=1
	doc config-result "0 1 2" "$RDNACTL" config unset --root "$fx/root" --dry-run --json amdgpu.noretry
	doc config-result "0 1 2" "$RDNACTL" config undo --root "$fx/root" --dry-run --json
	doc explain "0 1" "$RDNACTL" explain "${m[@]}" --json "$TOP/tests/fixtures/logs/therock-2707-invalid-argument.txt"
	rel=$(cat "$fx/root/proc/sys/kernel/osrelease" 2>/dev/null)
	[ -n "$rel" ] && doc kernel-check "0 1 2" "$RDNACTL" kernel-check --root "$fx/root" --json "$rel"
done

# Every real log, judged on one machine.
fx=$TOP/tests/fixtures/rx6750xt-raphael
for log in "$TOP"/tests/fixtures/logs/*.txt; do
	doc explain "0 1" "$RDNACTL" explain --root "$fx/root" --env "$fx/env" --user alice --json "$log"
done
doc explain-list "0" "$RDNACTL" explain --list --json
for id in $("$RDNACTL" explain --list | grep -o '^RDNA-LOG-[0-9]*'); do
	doc explain-entry "0" "$RDNACTL" explain "$id" --json
done

# kernel-check on a kernel that is installed (modules.dep, kernel/) without rdnafix built for it.
cp -a "$TOP/tests/fixtures/rdnafix-loaded/root" "$T/kc"
rel=$(cat "$T/kc/proc/sys/kernel/osrelease")
mkdir -p "$T/kc/lib/modules/$rel/kernel" && : >"$T/kc/lib/modules/$rel/modules.dep"
doc kernel-check "0 1" "$RDNACTL" kernel-check --root "$T/kc" --json "$rel"

# validate and history on a real SQLite database: the hidden CPU self-test cases
# (a pass, a failing case, then the first case failing: a regression), one GPU case (a
# not-run run without a GPU runtime, a run with one), the unchanged stack, then history.
db=$T/history.db
doc validate-list "0" "$RDNACTL" validate --list --json
doc status-list-checks "0" "$RDNACTL" status --list-checks --json
doc validate "0" "$RDNACTL" validate --case selftest.pass --json --history-db "$db"
doc validate "1" "$RDNACTL" validate --case selftest.fail --json --history-db "$db"
doc validate "1" "$RDNACTL" validate --case selftest.pass --inject-error --json --history-db "$db"
first=$("$RDNACTL" validate --list | awk 'NR == 1 { print $1 }')
doc validate "0 1 2" "$RDNACTL" validate --case "$first" --json --history-db "$db" --timeout 60
doc validate "0" "$RDNACTL" validate --case selftest.pass --if-stack-changed --json --history-db "$db"
grep -q '"stack_unchanged"' "$T/doc.$n.validate.json" || {
	echo "FAIL: validate --if-stack-changed --json on an unchanged stack printed no stack_unchanged"
	fail=1
}
doc history "1" "$RDNACTL" history --json --history-db "$db"
doc history "0" env XDG_STATE_HOME="$T/none" HOME="$T/none" "$RDNACTL" history --json

"$PY" "$HERE/check.py" "$TOP/docs/schema" "$LIST" || fail=1
exit $fail
