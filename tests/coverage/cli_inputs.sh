#!/usr/bin/env bash
# rdnactl coverage on inputs it used to pass over in silence (issue 18):
#   - a PATH that does not exist, or that is a FIFO, is exit 2 naming it (not
#     "nothing with GPU code", exit 0); an empty PATH or --python "" is a
#     usage error, not a C++ exception's text;
#   - FIFOs, device nodes, symlink loops and dangling symlinks among the
#     files of a scanned directory are listed as skipped with the reason,
#     and never opened (a FIFO would block the read: the run is under
#     `timeout`);
#   - a bundle that cannot be read is "unreadable" with exit 1, never "no
#     device code" with exit 0 (a truncated copy of a real bundle).
#
#   tests/coverage/cli_inputs.sh RDNACTL   (exit 0 pass, 1 fail)
set -uo pipefail
rdnactl=$(realpath "$1")
top=$(cd "$(dirname "$0")/../.." && pwd)
data=$top/tests/unit/coverage/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=../lib/verdicts.sh
. "$top/tests/lib/verdicts.sh"

# run ARGS...: rdnactl coverage (bounded by timeout), stdout in $tmp/out,
# stderr in $tmp/err, exit code in $rc.
run() {
	rc=0
	timeout 60 "$rdnactl" coverage --no-system --gfx gfx1030 "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
}
# expect RC FILE TEXT DESCRIPTION: after run, exit code RC and TEXT in FILE (out or err).
expect() {
	if [[ $rc -eq $1 && $(cat "$tmp/$2") == *"$3"* ]]; then
		pass "$4 -> $rc"
	else
		fail "$4 -> rc $rc (want $1), $2: $(head -c 600 "$tmp/$2") (want '$3')"
	fi
}

echo "== PATH arguments that name nothing"
run /no/such/path
expect 2 err "rdnactl coverage: /no/such/path: no such file or directory" "coverage /no/such/path"
[[ ! -s $tmp/out ]] && pass "nothing on stdout" || fail "stdout: $(head -c 200 "$tmp/out")"
mkfifo "$tmp/fifo"
run "$tmp/fifo"
expect 2 err "$tmp/fifo: a FIFO, not a regular file or a directory (not opened)" "coverage FIFO"
mkdir -p "$tmp/r/etc"
run --root "$tmp/r" /missing.so
expect 2 err "/missing.so: no such file or directory" "coverage --root DIR /missing.so"
expect 2 err "(PATH is read inside --root $tmp/r)" "coverage --root DIR /missing.so names the root"
run ""
expect 2 err "rdnactl coverage: an empty PATH argument; give a file or directory" "coverage ''"
run --python ""
expect 2 err "rdnactl coverage: --python: an empty path; give an interpreter" "coverage --python ''"
if grep -q "filesystem error" "$tmp/err"; then fail "--python '': $(cat "$tmp/err")"; fi

echo "== special files inside a scanned directory"
d=$tmp/dir
mkdir "$d"
cp "$data/k2_bundle.hipfb" "$d/good.hipfb"
mkfifo "$d/pipe.co"
ln -s /dev/null "$d/null.hsaco" # live root: a character device node
ln -s loop2.co "$d/loop1.co"
ln -s loop1.co "$d/loop2.co"
ln -s nowhere.so "$d/librocblas.so"
mkfifo "$d/librccl.so"
run "$d"
expect 0 out "good.hipfb" "the regular bundle is read"
expect 0 out "$d/pipe.co: skipped: a FIFO, not a regular file (not opened)" "FIFO listed"
expect 0 out "$d/null.hsaco: skipped: a character device node, not a regular file (not opened)" "device node listed"
expect 0 out "$d/loop1.co: skipped: a symlink loop (ELOOP)" "symlink loop listed"
expect 0 out "$d/loop2.co: skipped: a symlink loop (ELOOP)" "second link of the loop listed"
expect 0 out "$d/librocblas.so: skipped: a dangling symlink" "dangling library link listed"
expect 0 out "$d/librccl.so: skipped: a FIFO" "FIFO with a library name listed"

echo "== a bundle that cannot be read"
head -c 3000 "$data/kmany_bundle.hipfb" >"$tmp/cut.hipfb"
run "$tmp/cut.hipfb"
expect 1 out "cut.hipfb                unreadable" "truncated bundle: unreadable, exit 1"
expect 1 out "could not be read: bundle at offset 0: unreadable" "the reason is given"
if grep -q "no device code" "$tmp/out"; then fail "truncated bundle called 'no device code'"; fi
run "$data/kmany_bundle.hipfb"
expect 0 out "=> gfx1030 (--gfx): native" "78-target bundle (4835-byte entry table): native"

[[ $nfail -eq 0 ]] && echo "all passed" || echo "$nfail failed"
[[ $nfail -eq 0 ]]
