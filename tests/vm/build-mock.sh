#!/usr/bin/env bash
# Build the test-only mock amdgpu (tests/vm/mock-amdgpu) for one kernel.
#
#   tests/vm/build-mock.sh OUTDIR KVER
#
# Result: OUTDIR/amdgpu.ko.  Host headers (/lib/modules/KVER/build, as used
# by kmod/scripts/build-all.sh) for bookworm kernels; for kernels whose
# headers live in the sid chroot made by kmod/scripts/sid-chroot.sh (7.2,
# gcc-16) the build runs inside that chroot.  Fails on any compiler warning.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
CACHE=${RDNAFIX_CACHE:-/var/cache/rdnafix}
CHROOT=$CACHE/sid-kbuild
die() { echo "build-mock: ERROR: $*" >&2; exit 2; }

[[ $# -eq 2 ]] || die "usage: $0 OUTDIR KVER"
out=$1 kver=$2
mkdir -p "$out"
out=$(cd "$out" && pwd)

if [[ -d /lib/modules/$kver/build ]]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	cp "$here"/mock-amdgpu/{Makefile,mock_amdgpu.c} "$tmp/"
	make -C "$tmp" KVER="$kver" W=1 >"$out/build.log" 2>&1 ||
		{ cat "$out/build.log" >&2; die "mock build for $kver failed"; }
	cp "$tmp/amdgpu.ko" "$out/amdgpu.ko"
elif [[ -d $CHROOT/lib/modules/$kver/build ]]; then
	rm -rf "$CHROOT/build/mock-amdgpu"
	mkdir -p "$CHROOT/build/mock-amdgpu"
	cp "$here"/mock-amdgpu/{Makefile,mock_amdgpu.c} "$CHROOT/build/mock-amdgpu/"
	# objtool needs /proc: mount it in a private mount namespace (nothing left behind)
	unshare --mount --propagation private sh -c 'mount -t proc proc "$1/proc" &&
		exec chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
		make -C /build/mock-amdgpu KVER="$2" W=1' sh "$CHROOT" "$kver" >"$out/build.log" 2>&1 ||
		{ cat "$out/build.log" >&2; die "mock build for $kver (sid chroot) failed"; }
	cp "$CHROOT/build/mock-amdgpu/amdgpu.ko" "$out/amdgpu.ko"
	rm -rf "$CHROOT/build/mock-amdgpu"
else
	die "no headers for $kver (host /lib/modules/$kver/build or $CHROOT); run kmod/scripts/build-all.sh first"
fi
if grep -nE 'warning:|error:' "$out/build.log" >&2; then
	die "warnings in the mock build for $kver"
fi
echo "build-mock: $out/amdgpu.ko ($kver)" >&2
