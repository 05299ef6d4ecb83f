#!/usr/bin/env bash
# Build the test-only mock amdgpu (tests/vm/mock-amdgpu) for one kernel.
#
#   tests/vm/build-mock.sh OUTDIR KVER
#
# Result: OUTDIR/amdgpu.ko, and OUTDIR/variant/amdgpu.ko whose get_vm_pte
# takes the flags by value where the kernel's takes a pointer.  Host headers (/lib/modules/KVER/build, as used
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

# build_one DEST CFLAGS: one mock module (CFLAGS selects a variant)
build_one() {
	local dst=$1 cflags=$2 log=$1/build.log
	mkdir -p "$dst"
	if [[ -d /lib/modules/$kver/build ]]; then
		tmp=$(mktemp -d)
		cp "$here"/mock-amdgpu/{Makefile,*.c,*.h} "$tmp/"
		make -C "$tmp" KVER="$kver" MOCK_CFLAGS="$cflags" W=1 >"$log" 2>&1 ||
			{ cat "$log" >&2; rm -rf "$tmp"; die "mock build for $kver failed ($cflags)"; }
		cp "$tmp/amdgpu.ko" "$dst/amdgpu.ko"
		rm -rf "$tmp"
	elif [[ -d $CHROOT/lib/modules/$kver/build ]]; then
		rm -rf "$CHROOT/build/mock-amdgpu"
		mkdir -p "$CHROOT/build/mock-amdgpu"
		cp "$here"/mock-amdgpu/{Makefile,*.c,*.h} "$CHROOT/build/mock-amdgpu/"
		# objtool needs /proc: mount it in a private mount namespace (nothing left behind)
		unshare --mount --propagation private sh -c 'mount -t proc proc "$1/proc" &&
			exec chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
			make -C /build/mock-amdgpu KVER="$2" MOCK_CFLAGS="$3" W=1' sh "$CHROOT" "$kver" "$cflags" \
			>"$log" 2>&1 ||
			{ cat "$log" >&2; die "mock build for $kver (sid chroot) failed ($cflags)"; }
		cp "$CHROOT/build/mock-amdgpu/amdgpu.ko" "$dst/amdgpu.ko"
		rm -rf "$CHROOT/build/mock-amdgpu"
	else
		die "no headers for $kver (host /lib/modules/$kver/build or $CHROOT); run kmod/scripts/build-all.sh first"
	fi
	if grep -nE 'warning:|error:' "$log" >&2; then
		die "warnings in the mock build for $kver ($cflags)"
	fi
}

build_one "$out" ""
# the variant whose get_vm_pte prototype differs from the kernel's (mock.sh)
build_one "$out/variant" "-DMOCK_PTE_VALUE_VARIANT=1"
echo "build-mock: $out/variant/amdgpu.ko ($kver, get_vm_pte prototype variant)" >&2
echo "build-mock: $out/amdgpu.ko ($kver)" >&2
