#!/usr/bin/env bash
# `make install` puts a stripped rdnactl, the man page and the completion in
# place; `make uninstall` removes exactly the files of the install manifest
# and nothing else; without a manifest it says so (exit 2).
#   tests/unit/app/install_uninstall.sh CMAKE_BINARY_DIR   (exit 0 pass, 1 fail)
set -uo pipefail
bin=$(realpath "$1")
top=$(cd "$(dirname "$0")/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=../../lib/verdicts.sh
. "$top/tests/lib/verdicts.sh"
d=$tmp/dest
# The install command of the Makefile's install target, run on this build directory.
cmd=$(make -C "$top" -n --no-print-directory install BUILD="$tmp/none" DESTDIR="$d" PREFIX=/usr/local 2>/dev/null |
	grep 'cmake --install')
[[ $cmd == *"--strip"* ]] && pass "make install runs: $cmd" || fail "make install does not strip: '$cmd'"
cmd=${cmd//$tmp\/none\/userspace/$bin}
(cd "$top" && eval "$cmd") >"$tmp/log" 2>&1 || fail "install failed: $(cat "$tmp/log")"
exe=$d/usr/local/bin/rdnactl
if [[ -x $exe ]] && ! readelf -S "$exe" | grep -q '\.symtab\|\.debug_info'; then
	pass "installed rdnactl is stripped ($(stat -c %s "$exe") bytes; build tree: $(stat -c %s "$bin/rdnactl"))"
else
	fail "installed rdnactl missing or not stripped"
fi
[[ -s $d/usr/local/share/man/man1/rdnactl.1 && -s $d/usr/local/share/bash-completion/completions/rdnactl ]] &&
	pass "man page and completion installed" || fail "man page or completion missing"

# make uninstall with that manifest (copied into a build directory of its own).
mkdir -p "$tmp/b/userspace"
cp "$bin/install_manifest.txt" "$tmp/b/userspace/"
echo "not ours" >"$d/usr/local/bin/other-tool"
out=$(make -C "$top" --no-print-directory uninstall BUILD="$tmp/b" DESTDIR="$d" 2>&1) || fail "uninstall failed: $out"
left=$(cd "$d" && find . -type f | sort)
[[ $left == "./usr/local/bin/other-tool" ]] && pass "uninstall removed the $(grep -c . "$bin/install_manifest.txt") manifest files, kept other-tool" ||
	fail "uninstall left: $left"
rc=0
out=$(make -C "$top" --no-print-directory uninstall BUILD="$tmp/nothing" DESTDIR="$d" 2>&1) || rc=$?
[[ $rc -ne 0 && $out == *"install_manifest.txt missing"* ]] && pass "uninstall without a manifest: says so" ||
	fail "uninstall without a manifest: rc $rc, $out"
[[ $nfail -eq 0 ]] && echo "all passed" || echo "$nfail failed"
[[ $nfail -eq 0 ]]
