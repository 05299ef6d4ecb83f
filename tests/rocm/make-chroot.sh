#!/usr/bin/env bash
# Create (once) the Debian sid chroot with Debian's real HIP runtime, hiprtc
# and comgr used by tests/rocm/run.sh.  Cached under /var/cache/rdnafix/ so a
# fresh machine rebuilds it with this script alone.  Needs root + debootstrap.
#
# Usage: tests/rocm/make-chroot.sh [ROOT]   (default /var/cache/rdnafix/rocm-sid)
set -euo pipefail

ROOT=${1:-${RDNAFIX_ROCM_CHROOT:-/var/cache/rdnafix/rocm-sid}}
MIRROR=${RDNAFIX_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# Packages under test (docs/rocm-facts.md §1): HIP 6.4.3 runtime, the
# separate hiprtc library, its builtin headers, and comgr (which libhiprtc6
# does not depend on although it needs it).  For tests/coverage/run.sh: hipcc
# and the device libraries (real fat binaries, plain and compressed),
# clang-offload-bundler (clang-tools-21) and llvm-readelf (llvm-21) as the
# reference readers, and rocBLAS (a 1 GB .hip_fatbin) as a large real input.
PKGS="libamdhip64-6 libhiprtc6 libhiprtc-builtins6 libamd-comgr3"
PKGS="$PKGS hipcc rocm-device-libs-21 clang-tools-21 llvm-21 librocblas4"
STAMP="$ROOT/.rdnafix-ready"
# bump when PKGS changes: a warm cache gets the missing packages with apt,
# a cold one is built from scratch
STAMP_CONTENT="v2 $PKGS"

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$STAMP_CONTENT" ]; then
	echo "make-chroot: using cached $ROOT"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "make-chroot: must run as root to create $ROOT" >&2
	exit 2
fi
apt_install() { # ROOT: install $PKGS (quietly), then drop the .deb cache
	chroot "$1" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get -q -o Dpkg::Use-Pty=0 install -y \
		--no-install-recommends $PKGS >/dev/null
	chroot "$1" apt-get clean
}
# Warm: an older stamp of ours on a working chroot -> add the packages in place.
if [ -f "$STAMP" ] && [ -x "$ROOT/usr/bin/apt-get" ]; then
	t0=$(date +%s)
	# (Valid-Until off: a mirror snapshot older than the machine's clock must still do)
	if chroot "$ROOT" apt-get -q -o Acquire::Check-Valid-Until=false update >/dev/null && apt_install "$ROOT"; then
		echo "$STAMP_CONTENT" >"$STAMP"
		echo "make-chroot: updated $ROOT ($(($(date +%s) - t0)) s)"
		exit 0
	fi
	echo "make-chroot: updating $ROOT failed; rebuilding it" >&2
fi
command -v debootstrap >/dev/null || { echo "make-chroot: debootstrap missing (make deps)" >&2; exit 2; }

TMP="$ROOT.tmp.$$"
cleanup() { rm -rf --one-file-system "$TMP"; }
trap cleanup EXIT
mkdir -p "$(dirname "$ROOT")"
t0=$(date +%s)
debootstrap --variant=minbase sid "$TMP" "$MIRROR" >"$TMP.log" 2>&1 || {
	tail -20 "$TMP.log" >&2; rm -f "$TMP.log"; exit 1; }
rm -f "$TMP.log"
t1=$(date +%s)
apt_install "$TMP"
t2=$(date +%s)
echo "$STAMP_CONTENT" >"$TMP/.rdnafix-ready"
rm -rf --one-file-system "$ROOT"
mv "$TMP" "$ROOT"
trap - EXIT
echo "make-chroot: created $ROOT (debootstrap $((t1 - t0)) s, packages $((t2 - t1)) s)"
