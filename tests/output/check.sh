#!/usr/bin/env bash
# The text output of explain, coverage, fix and validate (issue 21, Deliver 1
# and its defects), on real inputs (the fixture machines, the real logs of
# tests/fixtures/logs, real code-object bundles) and under a real
# pseudo-terminal (util-linux `script`) where a TTY matters:
#   - explain: one line per match first, details after, sources only with
#     --verbose; one export line for two GPUs that need the same override
#     (it was printed once per GPU); a tab in a quoted log line as spaces,
#     never a literal "\t";
#   - coverage: an unsafe override reads "no usable code ... do not set it",
#     never "only with HSA_OVERRIDE_GFX_VERSION=10.3.0 (unsafe)"; the places
#     searched are counted (listed with --verbose);
#   - fix --dry-run with no boot loader rdnactl can edit: exit 1 with the
#     hand edit as an instruction (it was exit 2);
#   - validate without a GPU runtime: a few stderr lines, not one per path
#     tried (the list with --verbose);
#   - colour: --color always/never, NO_COLOR, TERM=dumb, a pipe, JSON; the
#     width of a 60-column terminal.
#
#   tests/output/check.sh RDNACTL   (exit 0 pass, 1 fail)
set -uo pipefail
rdnactl=$(realpath "$1")
top=$(cd "$(dirname "$0")/../.." && pwd)
fx=$top/tests/fixtures
logs=$top/tests/fixtures/logs
data=$top/tests/unit/coverage/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=../lib/verdicts.sh
. "$top/tests/lib/verdicts.sh"
export RDNAFIX_KNOWLEDGE_DIRS=
esc=$'\033'

# check DESCRIPTION COMMAND...: PASS when the command succeeds.
check() {
	local what=$1
	shift
	if "$@"; then pass "$what"; else fail "$what"; fi
}
# longest FILE: the longest line in characters (UTF-8), SGR colour codes not counted.
longest() {
	/usr/bin/python3 -c 'import re, sys
print(max([len(re.sub(r"\x1b\[[0-9;]*m", "", l)) for l in open(sys.argv[1], encoding="utf-8").read().split("\n")] + [0]))' "$1"
}

echo "== explain: one line per match first, sources only with --verbose"
rc=0
"$rdnactl" explain --no-coverage "$logs/therock-737-mes-reset.txt" >"$tmp/ex" 2>&1 || rc=$?
check "explain exits 1 on known failures (got $rc)" test "$rc" -eq 1
check "explain prints a Found list of 4 matches before the details" \
	test "$(sed -n '/^Found$/,/^$/p' "$tmp/ex" | grep -c '^  RDNA-LOG-')" -eq 4
check "explain without --verbose prints no source lines" test "$(grep -c '^  source: ' "$tmp/ex")" -eq 0
check "explain says how to see the sources" grep -q 'source(s) not shown: rdnactl explain --verbose' "$tmp/ex"
"$rdnactl" explain --no-coverage --verbose "$logs/therock-737-mes-reset.txt" >"$tmp/exv" 2>&1
check "explain --verbose prints the sources" test "$(grep -c '^  source: ' "$tmp/exv")" -ge 4
echo "   rows: $(wc -l <"$tmp/ex") default, $(wc -l <"$tmp/exv") --verbose"

echo "== explain: one fix line per override for two GPUs"
: >"$tmp/empty.env"
printf 'RuntimeError: HIP error: invalid device function\n' >"$tmp/idf.log"
"$rdnactl" explain --root "$fx/rx6750xt-raphael/root" --env "$tmp/empty.env" "$tmp/idf.log" >"$tmp/idf" 2>&1
n=$(grep -c 'export HSA_OVERRIDE_GFX_VERSION=10.3.0' "$tmp/idf")
check "explain prints the export once for gfx1031 and gfx1036 (got $n)" test "$n" -eq 1
check "the one export names both targets" grep -q 'gfx1031 and gfx1036 run gfx1030 code' "$tmp/idf"
n=$(grep -c 'nstall a build that contains' "$tmp/idf")
check "explain prints the install line once (got $n)" test "$n" -eq 1

echo "== quoted log lines show tabs as spaces"
printf 'RuntimeError: HIP error:\tinvalid device function\n' | "$rdnactl" explain --no-coverage - >"$tmp/tab" 2>&1
check "no literal \\t in the excerpt" bash -c "! grep -qF '\\t' '$tmp/tab'"
check "the tab is expanded to the next tab stop" grep -qF '  | RuntimeError: HIP error:        invalid device function' "$tmp/tab"

echo "== coverage: an unsafe override is a warning, not advice"
rc=0
"$rdnactl" coverage --no-system --gfx gfx1010 "$data/k2_bundle.hipfb" >"$tmp/cov" 2>&1 || rc=$?
check "coverage exits 1 (got $rc)" test "$rc" -eq 1
check "RDNA1 headline says no usable code, do not set it" \
	grep -q '=> gfx1010 (--gfx): no usable code: only gfx1030 code, which HSA_OVERRIDE_GFX_VERSION=10.3.0 would load; unsafe on gfx1010 (another ISA), do not set it' "$tmp/cov"
check "no 'only with ... (unsafe)' wording" bash -c "! grep -q 'only with HSA_OVERRIDE_GFX_VERSION=10.3.0 (unsafe)' '$tmp/cov'"
check "the reason with its sources is left to --verbose" bash -c "! grep -q 'AMDGPUUsage.rst' '$tmp/cov'"
"$rdnactl" coverage --no-system --verbose --gfx gfx1010 "$data/k2_bundle.hipfb" >"$tmp/covv" 2>&1
check "coverage --verbose gives the reason and its source" grep -q 'unsafe: .*AMDGPUUsage.rst' "$tmp/covv"
"$rdnactl" coverage --root "$fx/rx5600xt-k614/root" >"$tmp/cov2" 2>&1
check "the places searched are counted" grep -q '^Searched 10 place(s) (--verbose lists them).$' "$tmp/cov2"
"$rdnactl" coverage --root "$fx/rx5600xt-k614/root" --verbose >"$tmp/cov2v" 2>&1
check "coverage --verbose lists them" grep -q '^  /opt/ollama/lib/ollama$' "$tmp/cov2v"
echo "   rows: $(wc -l <"$tmp/cov2") default, $(wc -l <"$tmp/cov2v") --verbose"

echo "== fix --dry-run without a boot loader rdnactl can edit"
rc=0
"$rdnactl" fix --dry-run --root "$fx/rx5600xt-k614/root" >"$tmp/fix" 2>"$tmp/fix.err" || rc=$?
check "fix --dry-run exits 1, not 2 (got $rc)" test "$rc" -eq 1
check "the kernel command line is an instruction" \
	grep -q '^  \[RDNA-.*\] no boot loader configuration rdnactl can change was found.*add amdgpu.noretry=1' "$tmp/fix"
check "fix says nothing can be changed here" grep -q 'nothing rdnactl can change here' "$tmp/fix"
check "nothing on stderr" test ! -s "$tmp/fix.err"
rc=0
"$rdnactl" fix --dry-run --json --root "$fx/rx5600xt-k614/root" >"$tmp/fix.json" || rc=$?
check "fix --dry-run --json exits 1 and lists the hand edit" bash -c "[[ $rc -eq 1 ]] && grep -q 'kernel_param' '$tmp/fix.json'"
"$rdnactl" fix --dry-run --root "$fx/strix-point-mes83/root" >"$tmp/fix2" 2>&1
check "a change is listed in one line before its diff" \
	bash -c "head -2 '$tmp/fix2' | grep -q '^  set ttm.pages_limit=6029312 (modprobe.d)$'"

echo "== colour"
"$rdnactl" explain --no-coverage --color always "$logs/therock-737-mes-reset.txt" >"$tmp/c1" 2>&1
check "explain --color always colours" grep -q "$esc\\[" "$tmp/c1"
"$rdnactl" explain --no-coverage "$logs/therock-737-mes-reset.txt" | cat >"$tmp/c2"
check "explain into a pipe does not colour" bash -c "! grep -q $'\\033' '$tmp/c2'"
"$rdnactl" coverage --no-system --color always --json --gfx gfx1010 "$data/k2_bundle.hipfb" >"$tmp/c3" 2>&1
check "--color always never colours JSON" bash -c "! grep -q $'\\033' '$tmp/c3'"
"$rdnactl" fix --dry-run --color always --root "$fx/strix-point-mes83/root" >"$tmp/c4" 2>&1
check "fix --color always colours the diff" grep -q "$esc\\[32m+options ttm" "$tmp/c4"
"$rdnactl" coverage --no-system --color always --gfx gfx1010 "$data/k2_bundle.hipfb" >"$tmp/c5" 2>&1
check "coverage --color always colours the unsafe verdict red" grep -q "$esc\\[1;31m  => gfx1010" "$tmp/c5"
mkdir -p "$tmp/cfg"
cp -a "$fx/rx5600xt-k614/root/." "$tmp/cfg/"
"$rdnactl" config set --root "$tmp/cfg" --dry-run --color always amdgpu.vm_fragment_size=9 >"$tmp/c6" 2>&1
check "config set --dry-run --color always colours the diff" grep -q "$esc\\[32m+options amdgpu" "$tmp/c6"
"$rdnactl" config set --root "$tmp/cfg" --dry-run amdgpu.vm_fragment_size=9 >"$tmp/c7" 2>&1
check "config set --dry-run into a file: no colour" bash -c "! grep -q $'\\033' '$tmp/c7'"
# A real terminal (util-linux script gives the command a pseudo-terminal of 60 columns).
tty_run() { script -qec "stty cols 60 rows 40; $1" /dev/null | tr -d '\r'; }
cp "$logs/therock-737-mes-reset.txt" "$tmp/mes.log" # a short path: a word longer than the width stays whole
tty_run "env -u NO_COLOR TERM=xterm '$rdnactl' explain --no-coverage '$tmp/mes.log'" >"$tmp/t1"
check "explain on a terminal colours" grep -q "$esc\\[" "$tmp/t1"
w=$(longest "$tmp/t1")
check "explain on a 60-column terminal wraps (longest line $w)" test "$w" -le 60
tty_run "NO_COLOR=1 TERM=xterm '$rdnactl' explain --no-coverage '$logs/therock-737-mes-reset.txt'" >"$tmp/t2"
check "NO_COLOR=1 on a terminal: no colour" bash -c "! grep -q $'\\033' '$tmp/t2'"
tty_run "env -u NO_COLOR TERM=dumb '$rdnactl' coverage --no-system --gfx gfx1010 '$data/k2_bundle.hipfb'" >"$tmp/t3"
check "TERM=dumb on a terminal: no colour" bash -c "! grep -q $'\\033' '$tmp/t3'"
tty_run "env -u NO_COLOR TERM=xterm '$rdnactl' coverage --color never --no-system --gfx gfx1010 '$data/k2_bundle.hipfb'" >"$tmp/t4"
check "--color never on a terminal: no colour" bash -c "! grep -q $'\\033' '$tmp/t4'"
echo "   longest line: $(longest "$tmp/ex") piped, $w on a 60-column terminal"

echo "== validate without a GPU runtime"
rc=0
HOME=$tmp timeout 120 "$rdnactl" validate --quick --no-history >"$tmp/v.out" 2>"$tmp/v.err" || rc=$?
if [[ $rc -eq 2 ]] && grep -q 'cannot run the GPU cases' "$tmp/v.err"; then
	n=$(wc -l <"$tmp/v.err")
	check "validate: $n stderr lines (at most 12)" test "$n" -le 12
	check "validate counts the paths tried" grep -q 'looked in: [0-9]* library path(s), .*--verbose lists them' "$tmp/v.err"
	HOME=$tmp timeout 120 "$rdnactl" validate --quick --no-history --verbose >/dev/null 2>"$tmp/vv.err"
	check "validate --verbose lists every path ($(wc -l <"$tmp/vv.err") lines)" \
		test "$(grep -c '^    [a-z]* .*: ' "$tmp/vv.err")" -gt 3
else
	echo "SKIP validate: a GPU runtime is here (exit $rc)"
fi

echo "$npass passed, $nfail failed"
[[ $nfail -eq 0 ]]
