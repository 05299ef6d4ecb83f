#!/usr/bin/env bash
# Create (once) the Debian sid chroot with Debian's real HIP runtime, hiprtc
# and comgr used by tests/rocm/run.sh.  Cached under /var/cache/rdnafix/ so a
# fresh machine rebuilds it with this script alone.  Needs root + debootstrap.
#
# Usage: tests/rocm/make-chroot.sh [ROOT]   (default /var/cache/rdnafix/rocm-sid)
set -euo pipefail

ROOT=${1:-${RDNAFIX_ROCM_CHROOT:-${RDNAFIX_CACHE:-/var/cache/rdnafix}/rocm-sid}}
MIRROR=${RDNAFIX_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# Packages under test (docs/rocm-facts.md §1): HIP 6.4.3 runtime, the
# separate hiprtc library, its builtin headers, and comgr (which libhiprtc6
# does not depend on although it needs it).
PKGS="libamdhip64-6 libhiprtc6 libhiprtc-builtins6 libamd-comgr3"
STAMP="$ROOT/.rdnafix-ready"
# bump when PKGS changes so an old cache is rebuilt
STAMP_CONTENT="v1 $PKGS"
# For tests/coverage/run.sh: hipcc and the device libraries (real fat
# binaries, plain and compressed), clang-offload-bundler (clang-tools-21) and
# llvm-readelf (llvm-21) as the reference readers, roc-obj-ls (hip-utils and
# the Perl modules it uses but does not depend on) for the benchmark, and
# rocBLAS (a 1 GB .hip_fatbin) as a large real input.  A stamp of their own, so that a cache
# made for PKGS alone is completed in place with apt (warm) instead of being
# rebuilt, and an older copy of this script still accepts the cache.
EXTRA="hipcc rocm-device-libs-21 clang-tools-21 llvm-21 librocblas4 hip-utils liburi-perl libfile-which-perl"
EXTRA_STAMP="$ROOT/.rdnafix-ready-extra"
EXTRA_CONTENT="v3 $EXTRA"

stamp_ok() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }
if stamp_ok "$STAMP" "$STAMP_CONTENT" && stamp_ok "$EXTRA_STAMP" "$EXTRA_CONTENT"; then
	echo "make-chroot: using cached $ROOT"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "make-chroot: must run as root to create $ROOT" >&2
	exit 2
fi
apt_install() { # ROOT PACKAGES...: install quietly, then drop the .deb cache
	local r=$1
	shift
	chroot "$r" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get -q -o Dpkg::Use-Pty=0 install -y \
		--no-install-recommends "$@" >/dev/null && chroot "$r" apt-get clean
}
# Warm: the base packages are there -> add the extra ones in place.  (Valid-
# Until off: a mirror snapshot older than the machine's clock must still do.)
if stamp_ok "$STAMP" "$STAMP_CONTENT"; then
	t0=$(date +%s)
	if chroot "$ROOT" apt-get -q -o Acquire::Check-Valid-Until=false update >/dev/null &&
		apt_install "$ROOT" $EXTRA; then
		echo "$EXTRA_CONTENT" >"$EXTRA_STAMP"
		echo "make-chroot: added $EXTRA to $ROOT ($(($(date +%s) - t0)) s)"
		exit 0
	fi
	echo "make-chroot: adding packages to $ROOT failed; rebuilding it" >&2
fi
command -v debootstrap >/dev/null || { echo "make-chroot: debootstrap missing (make deps-test)" >&2; exit 2; }

TMP="$ROOT.tmp.$$"
cleanup() { rm -rf --one-file-system "$TMP"; }
trap cleanup EXIT
mkdir -p "$(dirname "$ROOT")"
t0=$(date +%s)
debootstrap --variant=minbase sid "$TMP" "$MIRROR" >"$TMP.log" 2>&1 || {
	tail -20 "$TMP.log" >&2; rm -f "$TMP.log"; exit 1; }
rm -f "$TMP.log"
t1=$(date +%s)
apt_install "$TMP" $PKGS $EXTRA
t2=$(date +%s)
echo "$STAMP_CONTENT" >"$TMP/.rdnafix-ready"
echo "$EXTRA_CONTENT" >"$TMP/.rdnafix-ready-extra"
rm -rf --one-file-system "$ROOT"
mv "$TMP" "$ROOT"
trap - EXIT
echo "make-chroot: created $ROOT (debootstrap $((t1 - t0)) s, packages $((t2 - t1)) s)"
