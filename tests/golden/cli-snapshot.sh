#!/usr/bin/env bash
# Byte-exact snapshot of rdnactl's user-visible output, used to prove that a
# refactor changed no behaviour (tests/golden/README.md).
#
#   tests/golden/cli-snapshot.sh RDNACTL OUTDIR
#
# For every fixture machine: status --json, status --color never, env (sh and
# fish), each with its exit code; then validate --list (text and JSON) and the
# --help of every verb and of config's subcommands.  Paths to the checkout are
# replaced by @TOP@ so two checkouts give the same bytes.
set -euo pipefail
rdnactl=$(realpath "$1")
out=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
# Only the built-in knowledge of rdnactl explain: knowledge.d overlays of this machine must not change the bytes.
export RDNAFIX_KNOWLEDGE_DIRS=

run() { # name, args...
	local name=$1
	shift
	local rc=0
	(cd "$top" && "$rdnactl" "$@") >"$out/$name.out" 2>"$out/$name.err" || rc=$?
	echo "$rc" >"$out/$name.rc"
	sed -i -e "s|$rdnactl|rdnactl|g" -e "s|$top|@TOP@|g" "$out/$name.out" "$out/$name.err"
}

for fx in "$top"/tests/fixtures/*/; do
	[ -d "$fx/root" ] || continue
	n=$(basename "$fx")
	common=(--root "$fx/root")
	[ -f "$fx/env" ] && common+=(--env "$fx/env")
	# shellcheck disable=SC2207
	[ -f "$fx/args" ] && common+=($(cat "$fx/args"))
	run "$n.status-json" status "${common[@]}" --json
	run "$n.status-text" status "${common[@]}" --color never
	run "$n.env-sh" env "${common[@]}"
	run "$n.env-fish" env "${common[@]}" --shell fish
	run "$n.coverage-text" coverage "${common[@]}"
	run "$n.coverage-json" coverage "${common[@]}" --json
done
# A shell start-up file with copied variables (RDNA-ENV-014..016) on one fixture machine.
copied=(--root "$top/tests/fixtures/rx6750xt-raphael/root" --env "$top/tests/golden/copied-env.bashrc"
	--user "$(sed 's/--user //' "$top/tests/fixtures/rx6750xt-raphael/args")")
run copied-env.status-text status "${copied[@]}" --color never
run copied-env.env-sh env "${copied[@]}"
# The variables guides tell RDNA users to copy, judged by the variables table (RDNA-ENV-008, 014, 016, 019..022).
guide=(--root "$top/tests/fixtures/rx6750xt-torch-gfx1030/root" --env "$top/tests/golden/guide-vars.bashrc")
run guide-vars.status-text status "${guide[@]}" --no-coverage --color never
run guide-vars.status-json status "${guide[@]}" --no-coverage --json
run guide-vars.env-sh env "${guide[@]}"
run validate-list validate --list
run validate-list-json validate --list --json
run help --help
for verb in status env validate history fix coverage explain kernel-check report; do
	run "help-$verb" "$verb" --help
done
run help-config config --help
for sub in show set unset undo; do
	run "help-config-$sub" config "$sub" --help
done
run no-verb
run typo stauts
run bad-root status --root /nonexistent/rdnafix-snapshot
run coverage-bad-gfx coverage --root tests/fixtures/no-amd-gpu/root --env tests/fixtures/no-amd-gpu/env --gfx gfx10-3-generic
run coverage-gfx-paths coverage --root tests/fixtures/strix-halo-torch-native/root --env tests/fixtures/no-amd-gpu/env --gfx gfx1031 --gfx gfx90a:xnack+ /home/dave/miniforge3/envs/comfy/lib/python3.12/site-packages/torch/lib
# explain: real logs (tests/fixtures/logs/SOURCE.md) judged on a captured machine
for log in rocm-rocm-2429-no-binary rocm-legacy-rocm-build-5051-journal therock-737-mes-reset; do
	run "explain-$log" explain "tests/fixtures/logs/$log.txt" --root tests/fixtures/rx6750xt-raphael/root \
		--env tests/fixtures/rx6750xt-raphael/env
done
run explain-json explain tests/fixtures/logs/rocm-rocm-2429-no-binary.txt --json --root tests/fixtures/rx5600xt-k614/root
run explain-coverage explain tests/fixtures/logs/open-oasis-27-traceback.txt \
	--root tests/fixtures/rx6750xt-torch-gfx1030/root --env tests/fixtures/rx6750xt-torch-gfx1030/env
run explain-id explain RDNA-LOG-007
run explain-bad-id explain RDNA-LOG-999
run explain-missing explain /nonexistent/rdnafix.log
