#!/usr/bin/env bash
# Build (once) the Debian bookworm system the end-to-end test boots, as a
# directory tree cached under $RDNAFIX_CACHE/e2e/ (default /var/cache/rdnafix).
#
#   tests/e2e/build-image.sh [SERIES]     SERIES: 6.1 (default) or 6.12
#
# debootstrap (minbase) from Debian's archive, then the packages of
# tests/e2e/packages.txt installed inside the tree with the tree's own apt
# (nothing is installed on the host).  Packages marked "upgrade" in the list are
# only downloaded (into the .deb cache) from bookworm-backports when the 6.1
# image is built, and the tree's apt lists are kept beside it (<tree>.lists)
# so that run.sh's upgrade phase installs them later without a network.
# The cache key is a hash of the package
# list, this script, lib.sh and SERIES: the image is rebuilt only when one of
# them changes; images of the same series that no run used for a day are then
# deleted.  The
# downloaded .debs are kept in $RDNAFIX_CACHE/e2e/debs for the next rebuild.
# Prints the path of the ready tree on the last line of stdout; progress on
# stderr, the full log in <tree>.log.  Exit 0 ready, 1 build failed, 2 cannot
# run here (not root, no debootstrap, no keyring, bad SERIES).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/e2e/lib.sh
. "$here/lib.sh"
CACHE=${RDNAFIX_CACHE:-/var/cache/rdnafix}/e2e
MIRROR=${RDNAFIX_MIRROR:-http://deb.debian.org/debian}
SECMIRROR=${RDNAFIX_SECMIRROR:-http://deb.debian.org/debian-security}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
series=${1:-6.1}

log() { echo "build-image: $*" >&2; }
die() { log "ERROR: $*"; exit "${2:-1}"; }

case $series in
6.1 | 6.12) ;;
*) die "unknown kernel series '$series' (valid: 6.1, 6.12)" 2 ;;
esac
[[ $(id -u) -eq 0 ]] || die "must run as root (debootstrap, chroot)" 2
command -v debootstrap >/dev/null || die "debootstrap missing (make deps-test)" 2
[[ -r $KEYRING ]] || die "$KEYRING missing (install debian-archive-keyring)" 2

# the packages of this series, one a line
pkgs=$(awk -v s="$series" '!/^[[:space:]]*(#|$)/ && (NF == 1 || $2 == s) { print $1 }' "$here/packages.txt")
# the packages the upgrade phase installs from bookworm-backports (6.1 image only)
upkgs=
[[ $series == 6.1 ]] && upkgs=$(awk '!/^[[:space:]]*(#|$)/ && $2 == "upgrade" { print $1 }' "$here/packages.txt")
key=$(cat "$here/packages.txt" "$here/build-image.sh" "$here/lib.sh" <(echo "$series") | sha256sum | cut -c1-16)
img=$CACHE/bookworm-$series-$key
if [[ -f $img/.rdnafix-e2e-ready && ( -z $upkgs || -d $img.lists ) ]]; then
	log "cached: $img"
	touch "$img/.rdnafix-e2e-used"
	echo "$img"
	exit 0
fi

mkdir -p "$CACHE/debs/partial"
tmp=$img.tmp
logf=$img.log
cleanup() {
	e2e_umount_all
	if [[ -d $tmp ]] && e2e_assert_unmounted "$tmp"; then rm -rf --one-file-system "$tmp"; fi
	rm -rf --one-file-system "$tmp.lists"
}
trap cleanup EXIT
cleanup
: >"$logf"

t0=$(date +%s)
log "debootstrap bookworm (minbase) into $tmp, log $logf"
debootstrap --variant=minbase --keyring="$KEYRING" --cache-dir="$CACHE/debs" \
	bookworm "$tmp" "$MIRROR" >>"$logf" 2>&1 || { tail -20 "$logf" >&2; die "debootstrap failed, see $logf"; }
t1=$(date +%s)

cat >"$tmp/etc/apt/sources.list" <<EOF
deb [signed-by=$KEYRING] $MIRROR bookworm main
deb [signed-by=$KEYRING] $SECMIRROR bookworm-security main
deb [signed-by=$KEYRING] $MIRROR bookworm-updates main
deb [signed-by=$KEYRING] $MIRROR bookworm-backports main
EOF
cp "$KEYRING" "$tmp$KEYRING"
cp /etc/resolv.conf "$tmp/etc/resolv.conf"
# No service starts inside the chroot while packages are configured.
printf '#!/bin/sh\nexit 101\n' >"$tmp/usr/sbin/policy-rc.d"
chmod 0755 "$tmp/usr/sbin/policy-rc.d"
echo rdnafix-e2e >"$tmp/etc/hostname"
# grub-pc: never install a boot sector (there is no disk here); the command
# line of a machine with a serial console (lib.sh), Debian's default "quiet".
e2e_chroot "$tmp" debconf-set-selections <<EOF
grub-pc grub-pc/install_devices multiselect
grub-pc grub-pc/install_devices_empty boolean true
grub-pc grub2/linux_cmdline string $E2E_GRUB_CMDLINE
grub-pc grub2/linux_cmdline_default string quiet
EOF
echo "UUID=$E2E_UUID / ext4 errors=remount-ro 0 1" >"$tmp/etc/fstab"

e2e_mount "$tmp" || die "mounting /proc /sys /dev in $tmp failed"
e2e_bind "$CACHE/debs" "$tmp/var/cache/apt/archives" || die "bind mount of the .deb cache failed"
log "apt-get install in the image: $(echo "$pkgs" | tr '\n' ' ')"
apt_opts=(-q -o Dpkg::Use-Pty=0 -o Acquire::Check-Valid-Until=false -o APT::Sandbox::User=root)
e2e_chroot "$tmp" apt-get "${apt_opts[@]}" update >>"$logf" 2>&1 || die "apt-get update in the image failed, see $logf"
# shellcheck disable=SC2086
e2e_chroot "$tmp" apt-get "${apt_opts[@]}" install -y --no-install-recommends $pkgs >>"$logf" 2>&1 ||
	{ tail -20 "$logf" >&2; die "apt-get install in the image failed, see $logf"; }
if [[ -n $upkgs ]]; then
	log "apt-get install --download-only -t bookworm-backports (for the upgrade phase): $(echo "$upkgs" | tr '\n' ' ')"
	# shellcheck disable=SC2086
	e2e_chroot "$tmp" apt-get "${apt_opts[@]}" install -y --download-only --no-install-recommends \
		-t bookworm-backports $upkgs >>"$logf" 2>&1 ||
		{ tail -20 "$logf" >&2; die "downloading the backports packages failed, see $logf"; }
fi
# amdgpu in the initramfs, as on a machine whose GPU's modalias makes
# initramfs-tools add it (there is no AMD GPU here, so udev never would)
printf '# rdnafix e2e: the GPU driver is loaded from the initramfs\namdgpu\n' >>"$tmp/etc/initramfs-tools/modules"
e2e_chroot "$tmp" update-initramfs -u -k all >>"$logf" 2>&1 || die "update-initramfs in the image failed, see $logf"
e2e_umount_all
e2e_assert_unmounted "$tmp" || die "mounts left below $tmp"
t2=$(date +%s)

rm -f "$tmp/usr/sbin/policy-rc.d" "$tmp/etc/resolv.conf"
rm -rf --one-file-system "$tmp.lists"
if [[ -n $upkgs ]]; then
	mkdir -p "$tmp.lists" && cp -a "$tmp/var/lib/apt/lists/." "$tmp.lists/" || die "keeping the apt lists failed"
	rm -rf "$tmp.lists/partial" "$tmp.lists/lock"
fi
rm -rf "$tmp/var/lib/apt/lists/"*
kver=$(find "$tmp/lib/modules" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -V | tail -1)
[[ -n $kver && -f $tmp/boot/vmlinuz-$kver && -f $tmp/boot/initrd.img-$kver ]] ||
	die "no kernel and initramfs in $tmp/boot ($(ls "$tmp/boot"))"
# build is an absolute link (/usr/src/linux-headers-<kver>): resolve it in the
# image, not on the host (which may have the same headers, or none)
hdr=$tmp/lib/modules/$kver/build
[[ -L $hdr && $(readlink "$hdr") == /* ]] && hdr=$tmp$(readlink "$hdr")
[[ -d $hdr ]] || die "no headers for $kver in the image"
[[ -f $tmp/etc/default/grub && -x $tmp/usr/sbin/update-grub ]] || die "grub-pc left no /etc/default/grub or update-grub"
grep -qx "GRUB_CMDLINE_LINUX=\"$E2E_GRUB_CMDLINE\"" "$tmp/etc/default/grub" ||
	die "the preseeded command line is not in $tmp/etc/default/grub"
grep -q '/amdgpu\.ko' <<<"$(lsinitramfs "$tmp/boot/initrd.img-$kver")" || die "amdgpu is not in the image's initramfs"
echo "$kver" >"$tmp/.rdnafix-e2e-kver"
echo "series=$series key=$key kernel=$kver debootstrap=$((t1 - t0))s packages=$((t2 - t1))s" >"$tmp/.rdnafix-e2e-ready"

# Delete the images of this series with another key that no run used for a
# day (with their logs and lists): two worktrees whose lists differ keep
# their own image instead of rebuilding each other's.
for old in "$CACHE/bookworm-$series-"*; do
	case $old in "$tmp" | "$img" | "$logf" | "$tmp.lists" | "$img.lists" | *.log | *.lists | *.tmp) continue ;; esac
	[[ -d $old ]] || continue
	used=$old/.rdnafix-e2e-used
	[[ -f $used ]] || used=$old/.rdnafix-e2e-ready
	[[ -f $used && -n $(find "$used" -mmin -1440) ]] && continue
	e2e_assert_unmounted "$old" && rm -rf --one-file-system "$old" "$old.lists" && rm -f "$old.log"
done
rm -rf --one-file-system "$img" "$img.lists"
[[ ! -d $tmp.lists ]] || mv "$tmp.lists" "$img.lists"
mv "$tmp" "$img"
log "ready: $img (kernel $kver; debootstrap $((t1 - t0)) s, packages $((t2 - t1)) s, $(du -sh "$img" | cut -f1))"
echo "$img"
