#!/usr/bin/env bash
# Tests of check-citations.sh, check-size.sh and check-layers.sh: each case builds a small git
# checkout in a temporary directory, plants one violation (or none) and asserts
# the exit code and the reported file:line.
# usage: test-checks.sh      Exit 0 all passed, 1 a case failed, 2 cannot run.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
for t in git python3 mktemp; do
	command -v "$t" >/dev/null || { echo "test-checks: $t not installed" >&2; exit 2; }
done
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

# The names below are assembled so that this file cites nothing itself.
d=docs
note_a="amdgpu""-internals.md"
note_t="team""-interfaces.md"
sh_dir="../sha""red/docs"
raw_dir="raw""/kernel-gfx10-pci-ids.txt"

# new_repo NAME: a clean checkout with two documents and files citing them
new_repo() {
	local r=$tmp/$1
	mkdir -p "$r/docs/sources" "$r/userspace/src/core" "$r/kmod" "$r/tests/unit"
	printf '# Facts\n\n## 1. One\n\n### 2.1 Two one\n' >"$r/docs/facts.md"
	printf 'a capture\n' >"$r/docs/sources/capture.txt"
	printf '# Map\n\n[facts](facts.md), [capture](sources/capture.txt#L1), [web](https://example.org/x.md)\n' \
		>"$r/docs/README.md"
	printf '// see %s/facts.md §1 and `%s/facts.md` §2.1, %s/sources/capture.txt\nint x;\n' "$d" "$d" "$d" \
		>"$r/userspace/src/core/a.cpp"
	printf 'Files: %s/sources/{capture.txt,README.md}\n' "$d" >"$r/kmod/notes.txt"
	printf 'x\n' >"$r/docs/sources/README.md"
	git -C "$r" init -q && git -C "$r" add -A || exit 2
	echo "$r"
}

# expect NAME WANT_RC WANT_TEXT CMD...: run CMD, compare rc, grep output for WANT_TEXT
expect() {
	local name=$1 want=$2 text=$3 out rc
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "test-checks: FAIL $name: exit $rc, expected $want"
		printf '%s\n' "$out" | sed 's/^/    /'
		fail=$((fail + 1))
	elif [ -n "$text" ] && ! grep -qF -- "$text" <<<"$out"; then
		echo "test-checks: FAIL $name: output lacks '$text'"
		printf '%s\n' "$out" | sed 's/^/    /'
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
}

cit=$here/check-citations.sh
size=$here/check-size.sh

# ---- check-citations ---------------------------------------------------------
r=$(new_repo clean)
expect "citations: clean tree passes" 0 "0 bad" bash "$cit" --root "$r"

# plant CASE FILE LINE: a fresh checkout with a new FILE whose line 2 is LINE
plant() {
	local r
	r=$(new_repo "$1")
	mkdir -p "$(dirname "$r/$2")"
	printf 'first line\n%s\n' "$3" >"$r/$2"
	git -C "$r" add -A
	echo "$r"
}
r=$(plant note "$d/guide.md" "see $note_a §4")
expect "citations: retired note name" 1 "$d/guide.md:2:" bash "$cit" --root "$r"
r=$(plant note2 userspace/src/core/b.cpp "// contract: $note_t section 2")
expect "citations: retired note in code" 1 "userspace/src/core/b.cpp:2:" bash "$cit" --root "$r"
r=$(plant shortform "$d/k.md" "as in *internals"" §4*")
expect "citations: short form" 1 "$d/k.md:2:" bash "$cit" --root "$r"
fx=tests/fixtures/m/SOURCE
r=$(plant shared "$fx.md" "| qemu | \`$sh_dir/x.log\` |")
expect "citations: ../shared path" 1 "$fx.md:2:" bash "$cit" --root "$r"
r=$(plant raw userspace/data/db.tsv "7310	source ($raw_dir)")
expect "citations: raw capture" 1 "userspace/data/db.tsv:2:" bash "$cit" --root "$r"
r=$(plant missingdoc kmod/x.c " * see $d/kernel-notes.md")
expect "citations: missing docs/*.md" 1 "kmod/x.c:2: cites $d/kernel-notes.md" bash "$cit" --root "$r"
r=$(plant missingsrc tests/golden/cli/x.out "($d/sources/kernel-old.log)")
expect "citations: missing docs/sources file (golden outputs too)" 1 "tests/golden/cli/x.out:2:" bash "$cit" --root "$r"
r=$(plant braces "$d/b.md" "records: $d/sources/{capture.txt,gone.txt}")
expect "citations: brace group with one missing member" 1 "$d/sources/gone.txt" bash "$cit" --root "$r"
r=$(plant section userspace/src/core/c.cpp "// $d/facts.md §3")
expect "citations: section without heading" 1 "userspace/src/core/c.cpp:2:" bash "$cit" --root "$r"
r=$(plant subsection "$d/c.md" "(\`$d/facts.md\` §2.2)")
expect "citations: subsection without heading" 1 "$d/c.md:2:" bash "$cit" --root "$r"
r=$(plant link "$d/d.md" "[old](../missing/notes.md)")
expect "citations: broken Markdown link" 1 "$d/d.md:2: links to" bash "$cit" --root "$r"
r=$(plant filtered kmod/y.c " * $note_a")
expect "citations: --paths leaves other files out" 0 "0 bad" bash "$cit" --root "$r" --paths docs userspace
expect "citations: --paths still scans what it names" 1 "kmod/y.c:2:" bash "$cit" --root "$r" --paths kmod
mkdir -p "$tmp/not-a-repo"
expect "citations: not a checkout" 2 "" bash "$cit" --root "$tmp/not-a-repo"

# ---- check-size ----------------------------------------------------------------
# lines N: N numbered lines
lines() { seq 1 "$1" | sed 's/^/x/'; }
r=$(new_repo size)
lines 500 >"$r/userspace/src/core/ok.cpp"
lines 900 >"$r/docs/long.cpp"     # not a checked folder
lines 900 >"$r/kmod/table.txt"    # not a checked extension
{ echo "/* Generated from userspace/data/x.tsv by gen.py."; echo " * Do not edit. */"; lines 700; } >"$r/kmod/ids.h"
git -C "$r" add -A
expect "size: 500 lines, other folders, other types, generated file pass" 0 "0 over 500 lines, 1 generated" \
	bash "$size" --root "$r"
lines 501 >"$r/userspace/src/core/big.cpp"
git -C "$r" add -A
expect "size: 501 lines fail" 1 "userspace/src/core/big.cpp: 501 lines" bash "$size" --root "$r"
{ lines 7; echo "// generated, do not edit"; lines 600; } >"$r/tests/unit/late.cpp"
git -C "$r" add -A
expect "size: a marker after line 5 does not exempt" 1 "tests/unit/late.cpp: 608 lines" bash "$size" --root "$r"
printf 'x\nlast line without newline' >"$r/kmod/short.c"
git -C "$r" add -A
expect "size: --max counts a last line without newline" 1 "kmod/short.c: 2 lines (limit 1)" \
	bash "$size" --root "$r" --max 1
expect "size: not a checkout" 2 "" bash "$size" --root "$tmp/not-a-repo"

# ---- check-layers --------------------------------------------------------------
layers=$here/check-layers.sh
r=$tmp/layers
mkdir -p "$r/userspace/src/status" "$r/userspace/src/coverage" "$r/userspace/src/software" "$r/userspace/src/app" \
	"$r/kmod"
printf '#pragma once\n' >"$r/userspace/src/software/scan.hpp"
printf '#pragma once\n' >"$r/userspace/src/coverage/render.hpp"
printf '#pragma once\n' >"$r/kmod/policy.h"
printf '#include "software/scan.hpp"\n#include "model.hpp"\n#include "policy.h"\n' >"$r/userspace/src/status/run.cpp"
printf '#pragma once\n' >"$r/userspace/src/status/model.hpp"
printf '#include "status/model.hpp"\n#include "coverage/render.hpp"\n' >"$r/userspace/src/app/main.cpp"
expect "layers: verbs over software, app over verbs, kmod headers pass" 0 "0 violation(s)" bash "$layers" --root "$r"
printf '#include "software/scan.hpp"\n#include "coverage/render.hpp"\n' >"$r/userspace/src/status/checks.cpp"
expect "layers: a verb including another verb fails" 1 "userspace/src/status/checks.cpp:2: includes coverage/render.hpp" \
	bash "$layers" --root "$r"
rm "$r/userspace/src/status/checks.cpp"
printf '#include "status/model.hpp"\n' >"$r/userspace/src/software/judge.cpp"
expect "layers: a room below the verbs including a verb fails" 1 "userspace/src/software/judge.cpp:1: includes status/model.hpp" \
	bash "$layers" --root "$r"
printf '#include "render.hpp"\n' >"$r/userspace/src/software/judge.cpp"
expect "layers: a bare include of another room's file fails" 1 "(it is in coverage/)" bash "$layers" --root "$r"
rm "$r/userspace/src/software/judge.cpp"
mkdir -p "$r/userspace/src/newroom"
expect "layers: an unknown room fails" 1 "userspace/src/newroom: a room this check does not know" \
	bash "$layers" --root "$r"
expect "layers: no source folder" 2 "" bash "$layers" --root "$tmp/not-a-repo"

echo "test-checks: $((pass + fail)) cases, $fail failed"
[ "$fail" -eq 0 ]
