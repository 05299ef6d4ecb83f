#!/usr/bin/env bash
# Build rdnafix.ko for every supported Debian kernel series, W=1, and fail
# on any compiler/modpost warning.
#
#   kmod/scripts/build-all.sh OUTDIR [series...]     series: 6.1 6.12 7.2 (default), and the
#                                                    PREEMPT_RT flavours 6.1-rt 6.12-rt 7.2-rt
#
# Result: OUTDIR/<kernel release>/rdnafix.ko and OUTDIR/<kernel release>/build.log,
# plus OUTDIR/<series>.kver holding the release that was built.
#
# Headers: 6.1 and 6.12 are bookworm packages (installed on the host with
# apt-get).  7.2 is a sid kernel built with gcc-16, so it is built inside a
# debootstrap sid chroot (RDNAFIX_CACHE/sid-kbuild, made by sid-chroot.sh);
# nothing from sid is ever installed on the host.
#
# Environment: RDNAFIX_CACHE (default /var/cache/rdnafix),
#              RDNAFIX_KVER_6_1 / RDNAFIX_KVER_6_12 / RDNAFIX_KVER_7_2 (and _rt after
#              each for the -rt flavour, e.g. RDNAFIX_KVER_6_12_rt) to pin a release,
#              RDNAFIX_NO_INSTALL=1 to only use what is already installed.
#
#   kmod/scripts/build-all.sh --prepare [series...]
# installs the headers (6.1, 6.12 on the host; 7.2 in the sid chroot) and
# builds nothing: `make test` runs it early, beside the compile of rdnactl, so
# that the downloads overlap with work and the tests that need headers find
# them.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
kmod=$(cd "$here/.." && pwd)
CACHE=${RDNAFIX_CACHE:-/var/cache/rdnafix}
CHROOT=$CACHE/sid-kbuild

log() { echo "build-all: $*" >&2; }
die() { log "ERROR: $*"; exit 2; }

[[ $# -ge 1 ]] || die "usage: $0 OUTDIR|--prepare [6.1 6.12 7.2]"
prepare=0
if [[ $1 == --prepare ]]; then
	prepare=1
	shift
else
	out=$1; shift
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
fi
series=("$@")
[[ ${#series[@]} -gt 0 ]] || series=(6.1 6.12 7.2)

# Newest installable bookworm headers package for a release pattern.
host_release() {
	local re=$1
	apt-cache pkgnames linux-headers- | grep -E "^linux-headers-${re}\$" | sort -V | tail -1 |
		sed 's/^linux-headers-//'
}

host_headers() {
	local kver=$1
	if [[ -d /lib/modules/$kver/build ]]; then
		return 0
	fi
	[[ ${RDNAFIX_NO_INSTALL:-0} = 1 ]] && die "headers for $kver not installed"
	log "installing linux-headers-$kver on the host (bookworm)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"linux-headers-$kver" >&2 || die "apt-get install linux-headers-$kver failed"
}

# Warnings that make the build fail (compiler, modpost, objtool, Kbuild).
check_log() {
	local logf=$1
	if grep -nE 'warning:|[Ww]arning: |error:|undefined!|objtool:' "$logf" >&2; then
		die "warnings in $(basename "$(dirname "$logf")") build (see $logf)"
	fi
}

# Where the target kernel's image is unpacked (amdgpu.ko, vmlinuz), else /.
kroot() {
	if [[ -d $CACHE/kernels/$1/lib/modules/$1 ]]; then echo "$CACHE/kernels/$1"; else echo /; fi
}

build_host() {
	local kver=$1 dst=$out/$1
	local tmp
	mkdir -p "$dst"
	tmp=$(mktemp -d)
	cp -a "$kmod"/. "$tmp"/
	log "building for $kver (host, W=1)"
	# the kernel image tree (fetch-kernels.sh) holds amdgpu.ko and vmlinuz for the conftest
	if ! make -C "$tmp" KVER="$kver" KROOT="$(kroot "$kver")" W=1 >"$dst/build.log" 2>&1; then
		cat "$dst/build.log" >&2
		rm -rf "$tmp"
		die "build for $kver failed"
	fi
	cp "$tmp/rdnafix.ko" "$dst/"
	rm -rf "$tmp"
	check_log "$dst/build.log"
}

build_chroot() {
	local kver=$1 dst=$out/$1
	mkdir -p "$dst"
	rm -rf "$CHROOT/build/rdnafix"
	mkdir -p "$CHROOT/build/rdnafix"
	cp -a "$kmod"/. "$CHROOT/build/rdnafix/"
	# the conftest needs python3 and the kernel image tree: run it here, not in the chroot
	python3 "$kmod/scripts/pte-conftest.py" --kver "$kver" --root "$(kroot "$kver")" \
		--out "$CHROOT/build/rdnafix/rdnafix_conftest.h" 2>"$dst/conftest.log" ||
		die "pte-conftest.py failed for $kver"
	log "building for $kver (sid chroot, W=1)"
	# objtool needs /proc; a private mount namespace leaves nothing mounted behind.
	if ! unshare --mount --propagation private sh -c 'mount -t proc proc "$1/proc" &&
		exec chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
		make -C /build/rdnafix KVER="$2" RDNAFIX_CONFTEST=keep W=1' sh "$CHROOT" "$kver" >"$dst/build.log" 2>&1; then
		cat "$dst/build.log" >&2
		die "build for $kver failed"
	fi
	cp "$CHROOT/build/rdnafix/rdnafix.ko" "$dst/"
	rm -rf "$CHROOT/build/rdnafix"
	check_log "$dst/build.log"
}

for s in "${series[@]}"; do
	case $s in
	6.1)
		kver=${RDNAFIX_KVER_6_1:-$(host_release '6\.1\.0-[0-9]+-amd64')}
		[[ -n $kver ]] || die "no linux-headers-6.1.0-*-amd64 in apt (run apt-get update)"
		host_headers "$kver"
		[[ $prepare == 1 ]] && { log "headers ready: $kver"; continue; }
		build_host "$kver" ;;
	6.12)
		kver=${RDNAFIX_KVER_6_12:-$(host_release '6\.12\.[0-9]+\+deb12-amd64')}
		[[ -n $kver ]] || die "no linux-headers-6.12.*+deb12-amd64 in apt (bookworm-security)"
		host_headers "$kver"
		[[ $prepare == 1 ]] && { log "headers ready: $kver"; continue; }
		build_host "$kver" ;;
	6.1-rt)
		kver=${RDNAFIX_KVER_6_1_rt:-$(host_release '6\.1\.0-[0-9]+-rt-amd64')}
		[[ -n $kver ]] || die "no linux-headers-6.1.0-*-rt-amd64 in apt (run apt-get update)"
		host_headers "$kver"
		[[ $prepare == 1 ]] && { log "headers ready: $kver"; continue; }
		build_host "$kver" ;;
	6.12-rt)
		kver=${RDNAFIX_KVER_6_12_rt:-$(host_release '6\.12\.[0-9]+\+deb12-rt-amd64')}
		[[ -n $kver ]] || die "no linux-headers-6.12.*+deb12-rt-amd64 in apt (bookworm-security)"
		host_headers "$kver"
		[[ $prepare == 1 ]] && { log "headers ready: $kver"; continue; }
		build_host "$kver" ;;
	7.2 | 7.2-rt)
		flavour=amd64 stamp=.rdnafix-kver pin=${RDNAFIX_KVER_7_2:-}
		[[ $s == 7.2-rt ]] && flavour=rt-amd64 stamp=.rdnafix-kver-rt-amd64 pin=${RDNAFIX_KVER_7_2_rt:-}
		"$here/sid-chroot.sh" "$flavour" >&2 || die "sid chroot set-up failed ($flavour)"
		kver=${pin:-$(cat "$CHROOT/$stamp")}
		[[ $prepare == 1 ]] && { log "headers ready: $kver (sid chroot)"; continue; }
		build_chroot "$kver" ;;
	*)
		die "unknown series '$s' (valid: 6.1 6.12 7.2 6.1-rt 6.12-rt 7.2-rt)" ;;
	esac
	echo "$kver" >"$out/$s.kver"
	log "OK $s: $out/$kver/rdnafix.ko"
done
