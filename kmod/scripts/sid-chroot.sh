#!/usr/bin/env bash
# Create (once) and refresh a debootstrap sid chroot with the toolchain and
# headers of the Debian 7.2 kernel (gcc-16), for building rdnafix.ko
# without installing anything from sid on the host.
#
#   kmod/scripts/sid-chroot.sh [amd64|rt-amd64]   -> RDNAFIX_CACHE/sid-kbuild (default /var/cache/rdnafix)
#
# The flavour (default amd64; rt-amd64 is the PREEMPT_RT kernel) picks the
# headers package.  Writes the kernel release it installed headers for into
# <chroot>/.rdnafix-kver (amd64) or <chroot>/.rdnafix-kver-rt-amd64.  Set
# RDNAFIX_KVER_7_2 (amd64) or RDNAFIX_KVER_7_2_rt (rt-amd64) to pin a
# release, and RDNAFIX_MIRROR to use another Debian mirror.
set -euo pipefail

CACHE=${RDNAFIX_CACHE:-/var/cache/rdnafix}
CHROOT=$CACHE/sid-kbuild
FLAVOUR=${1:-amd64}
MIRROR=${RDNAFIX_MIRROR:-http://deb.debian.org/debian}

log() { echo "sid-chroot: $*" >&2; }
die() { log "ERROR: $*"; exit 2; }

case $FLAVOUR in
amd64) stamp=$CHROOT/.rdnafix-kver; pin=${RDNAFIX_KVER_7_2:-} ;;
rt-amd64) stamp=$CHROOT/.rdnafix-kver-rt-amd64; pin=${RDNAFIX_KVER_7_2_rt:-} ;;
*) die "unknown flavour '$FLAVOUR' (valid: amd64, rt-amd64)" ;;
esac
command -v debootstrap >/dev/null || die "debootstrap missing (make deps-test installs it)"
mkdir -p "$CACHE"

if [[ ! -f $CHROOT/.rdnafix-ready ]]; then
	rm -rf "$CHROOT"
	log "debootstrap sid into $CHROOT (minbase, a few minutes)"
	debootstrap --variant=minbase --include=make,ca-certificates sid "$CHROOT" "$MIRROR" \
		>"$CACHE/sid-kbuild.debootstrap.log" 2>&1 ||
		die "debootstrap failed, see $CACHE/sid-kbuild.debootstrap.log"
	touch "$CHROOT/.rdnafix-ready"
fi

in_chroot() {
	chroot "$CHROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive "$@"
}

kver=$pin
if [[ -z $kver && -f $stamp ]]; then
	kver=$(cat "$stamp")
fi
if [[ -n $kver && -d $CHROOT/lib/modules/$kver/build ]]; then
	log "headers for $kver present"
	exit 0
fi

# The chroot needs working DNS for apt.  The archive this machine sees may be a
# snapshot whose Release file has expired, so Valid-Until is not enforced.
cp /etc/resolv.conf "$CHROOT/etc/resolv.conf"
in_chroot apt-get -q -o Acquire::Check-Valid-Until=false update >&2 || die "apt-get update in chroot failed"
if [[ -z $kver ]]; then
	kver=$(in_chroot apt-cache pkgnames linux-headers-7.2 |
		grep -E "^linux-headers-7\\.2\\.[0-9]+\\+deb[0-9]+-$FLAVOUR\$" | sort -V | tail -1 |
		sed 's/^linux-headers-//')
	[[ -n $kver ]] || die "no linux-headers-7.2.*-$FLAVOUR in sid"
fi
log "installing linux-headers-$kver (and its gcc) in the chroot"
in_chroot apt-get install -y -q --no-install-recommends "linux-headers-$kver" >&2 ||
	die "apt-get install linux-headers-$kver failed in chroot"
in_chroot apt-get clean
echo "$kver" >"$stamp"
log "ready: $kver"
