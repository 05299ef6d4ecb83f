#!/usr/bin/env bash
# Build what the refusal matrix (tests/vm/guest/matrix.sh) loads, for one
# kernel with host headers (bookworm: 6.1, 6.12):
#
#   tests/vm/matrix/build.sh OUTDIR KVER [KMODSRC]
#
#   OUTDIR/<case>/rdnafix.ko   rdnafix built (W=1, RDNAFIX_CONFTEST=keep) with
#   OUTDIR/<case>/conftest.h   the crafted header tests/vm/matrix/<case>.h
#                              in place of the one pte-conftest.py writes
#   OUTDIR/mock-5map/amdgpu.ko   the mock with the 5-argument get_vm_pte AND
#                                gmc_v10_0_map_mtype (no real amdgpu has both)
#   OUTDIR/mock-3nomap/amdgpu.ko the 3-argument get_vm_pte WITHOUT map_mtype
#
# KMODSRC: the rdnafix source (default <repo>/kmod).  Fails on any compiler
# or modpost warning.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
die() { echo "matrix-build: ERROR: $*" >&2; exit 2; }

[[ $# -eq 2 || $# -eq 3 ]] || die "usage: $0 OUTDIR KVER [KMODSRC]"
out=$1 kver=$2 kmod=${3:-$top/kmod}
[[ -d /lib/modules/$kver/build ]] ||
	die "no host headers for $kver (/lib/modules/$kver/build): the matrix builds for 6.1 and 6.12 only"
[[ -f $kmod/Makefile ]] || die "$kmod: no rdnafix source (kmod/Makefile missing)"
mkdir -p "$out"
out=$(cd "$out" && pwd)

n=0
for h in "$here"/*.h; do
	c=$(basename "$h" .h)
	dst=$out/$c
	rm -rf "$dst"
	mkdir -p "$dst"
	tmp=$(mktemp -d)
	cp -a "$kmod"/. "$tmp"/
	rm -f "$tmp"/*.o "$tmp"/*.ko
	cp "$h" "$tmp/rdnafix_conftest.h"
	if ! make -C "$tmp" KVER="$kver" RDNAFIX_CONFTEST=keep W=1 >"$dst/build.log" 2>&1; then
		cat "$dst/build.log" >&2
		rm -rf "$tmp"
		die "rdnafix build with $c.h for $kver failed"
	fi
	cp "$tmp/rdnafix.ko" "$dst/rdnafix.ko"
	cp "$h" "$dst/conftest.h"
	rm -rf "$tmp"
	if grep -nE 'warning:|[Ww]arning: |error:|undefined!|objtool:' "$dst/build.log" >&2; then
		die "warnings in the rdnafix build with $c.h (see $dst/build.log)"
	fi
	n=$((n + 1))
done
"$top/tests/vm/build-mock.sh" "$out/mock-5map" "$kver" "-DMOCK_FORCE_PTE_V2=1 -DMOCK_MAP_MTYPE=1"
"$top/tests/vm/build-mock.sh" "$out/mock-3nomap" "$kver" "-DMOCK_FORCE_PTE_V2=0 -DMOCK_MAP_MTYPE=0"
echo "matrix-build: $n rdnafix builds and 2 mock variants for $kver in $out" >&2
