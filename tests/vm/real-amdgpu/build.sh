#!/usr/bin/env bash
# Build the test-only rdnafix_realcall module for one kernel.
#
#   tests/vm/real-amdgpu/build.sh OUTDIR KROOT KVER
#
# 1. btf-offsets.py reads the BTF of KROOT's amdgpu.ko (base: the vmlinux in
#    KROOT/vmlinuz) and writes realcall_btf.h;
# 2. the module is built with W=1 against the same headers as rdnafix: the
#    host's /lib/modules/KVER/build (bookworm kernels) or the sid chroot made
#    by kmod/scripts/sid-chroot.sh (7.2, gcc-16).  Fails on any warning.
# Result: OUTDIR/rdnafix_realcall.ko and OUTDIR/realcall_btf.h.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
CACHE=${RDNAFIX_CACHE:-/var/cache/rdnafix}
CHROOT=$CACHE/sid-kbuild
die() { echo "build-realcall: ERROR: $*" >&2; exit 2; }

[[ $# -eq 3 ]] || die "usage: $0 OUTDIR KROOT KVER"
out=$1 kroot=$2 kver=$3
mkdir -p "$out"
out=$(cd "$out" && pwd)
python3 "$here/btf-offsets.py" "$kroot" "$kver" "$out/realcall_btf.h" || die "BTF offsets for $kver failed"

if [[ -d /lib/modules/$kver/build ]]; then
	src=$(mktemp -d)
	trap 'rm -rf "$src"' EXIT
	run=(make -C "$src" KVER="$kver" W=1)
elif [[ -d $CHROOT/lib/modules/$kver/build ]]; then
	src=$CHROOT/build/realcall
	rm -rf "$src"
	mkdir -p "$src"
	trap 'rm -rf "$src"' EXIT
	# objtool needs /proc: mount it in a private mount namespace (nothing left behind)
	# shellcheck disable=SC2016
	run=(unshare --mount --propagation private sh -c 'mount -t proc proc "$1/proc" &&
		exec chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
		make -C /build/realcall KVER="$2" W=1' sh "$CHROOT" "$kver")
else
	die "no headers for $kver (host /lib/modules/$kver/build or $CHROOT); run kmod/scripts/build-all.sh first"
fi
cp "$here"/{Makefile,realcall.c} "$out/realcall_btf.h" "$src/"
"${run[@]}" >"$out/build.log" 2>&1 || { cat "$out/build.log" >&2; die "realcall build for $kver failed"; }
if grep -nE 'warning:|error:' "$out/build.log" >&2; then
	die "warnings in the realcall build for $kver"
fi
cp "$src/rdnafix_realcall.ko" "$out/"
echo "build-realcall: $out/rdnafix_realcall.ko ($kver)" >&2
