#!/usr/bin/env bash
# The Debian packages' life cycle (docs/packaging.md):
#   1. `make deb` (a no-op when the tree is unchanged) and lintian on the
#      .changes: any E: or W: line fails;
#   2. a previous version 0.0.9 of both packages (see prev_debs below);
#   3. in a copy of the cached Debian 12 image of tests/e2e/build-image.sh
#      (chroot; /proc, /sys, /dev from the host): a snapshot of the file
#      list and dpkg's state, install 0.0.9 (DKMS builds rdnafix 0.0.9 for
#      the image's kernel), upgrade to the current version (0.0.9 removed
#      from DKMS, the new one built), remove (DKMS and the module gone, the
#      conffiles kept), purge: the file list and dpkg's state equal the
#      snapshot.
#
#   tests/deb/run.sh        (as root; exit 0 pass, 1 fail, 2 could not run)
#
# The cached image is never modified: the chroot is a copy under
# $RDNAFIX_DEB_WORK (default /var/tmp), deleted at the end.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=tests/lib/verdicts.sh
. "$top/tests/lib/verdicts.sh"
# shellcheck source=tests/e2e/lib.sh
. "$top/tests/e2e/lib.sh"

log() { echo "deb-test: $*" >&2; }
skip() { log "cannot run: $*"; exit 2; }
t_start=$(date +%s)

[[ $(id -u) -eq 0 ]] || skip "must run as root (chroot, mounts)"
for t in dpkg-buildpackage dpkg-deb lintian chroot; do
	command -v "$t" >/dev/null || skip "$t missing (make deps-test installs the [package] group)"
done

out=$top/${BUILD:-build}/deb
ver=$(dpkg-parsechangelog -l "$top/debian/changelog" -SVersion)
kver=$(cat "$top/kmod/VERSION")
arch=$(dpkg --print-architecture)
prev=0.0.9 # the previous version's package and module version
[[ $ver != "$prev" && $kver != "$prev" ]] || skip "the current version is $prev; change \$prev in $0"

# --- 1. build and lintian ------------------------------------------------
if make -C "$top" --no-print-directory deb BUILD="${BUILD:-build}"; then
	pass "deb_build (make deb: $ver in $out)"
else
	fail "deb_build (make deb failed; log $out/build.log)"
	exit 1
fi
changes=$out/rdnafix_${ver}_$arch.changes
lint=$(lintian --fail-on none "$changes" 2>&1 | grep -v '^running with root privileges')
echo "lintian $changes:"
[[ -n $lint ]] && sed 's/^/  /' <<<"$lint" || echo "  (no tags)"
if grep -qE '^[EW]: ' <<<"$lint"; then
	fail "deb_lintian ($(grep -cE '^[EW]: ' <<<"$lint") error/warning tags)"
else
	pass "deb_lintian (no E: or W: tags)"
fi

# --- 2. the previous version ---------------------------------------------
# rdnafix-dkms 0.0.9: the exported tree with kmod/VERSION and the changelog
# set to 0.0.9, built arch-indep only (`dpkg-buildpackage -A` compiles
# nothing).  rdnactl 0.0.9: the current rdnactl .deb repacked with dpkg-deb
# under version 0.0.9 (the same files and maintainer scripts; a second
# compile of rdnactl would cost minutes and test nothing more about the
# upgrade: what changes between the versions is the DKMS module).  Cached in
# $out/prev, keyed by the current build's stamp.
prev_dir=$out/prev
prev_debs() {
	local key
	key=$(cat "$out/.stamp")
	if [[ -f $prev_dir/.stamp && $(cat "$prev_dir/.stamp") == "$key" ]]; then
		return 0
	fi
	rm -rf "$prev_dir" && mkdir -p "$prev_dir/src" || return 1
	tar -C "$out/src" --exclude=./obj-* --exclude=./debian/tmp --exclude=./debian/rdnactl \
		--exclude=./debian/rdnafix-dkms -cf - . | tar -C "$prev_dir/src" -xf - || return 1
	echo "$prev" >"$prev_dir/src/kmod/VERSION"
	cat >"$prev_dir/src/debian/changelog" <<EOF
rdnafix ($prev) unstable; urgency=medium

  * Previous version, built by tests/deb/run.sh for the upgrade test.

 -- rdnafix tests <tests@invalid>  Mon, 02 Nov 2026 00:00:00 +0000
EOF
	(cd "$prev_dir/src" && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -A -d) >"$prev_dir/build.log" 2>&1 ||
		{ tail -20 "$prev_dir/build.log" >&2; return 1; }
	local r=$prev_dir/repack
	dpkg-deb -R "$out/rdnactl_${ver}_$arch.deb" "$r" || return 1
	sed -i "s/^Version: .*/Version: $prev/" "$r/DEBIAN/control"
	dpkg-deb --root-owner-group -b "$r" "$prev_dir/rdnactl_${prev}_$arch.deb" >/dev/null || return 1
	rm -rf "$r" "$prev_dir/src"
	echo "$key" >"$prev_dir/.stamp"
}
if prev_debs; then
	pass "deb_previous_version (rdnactl and rdnafix-dkms $prev in $prev_dir)"
else
	fail "deb_previous_version (see $prev_dir/build.log)"
	exit 1
fi

# --- 3. the chroot -------------------------------------------------------
image=$(bash "$top/tests/e2e/build-image.sh" 6.1 | tail -1)
[[ -n $image && -f $image/.rdnafix-e2e-ready ]] || skip "no cached Debian 12 image (tests/e2e/build-image.sh 6.1 failed)"
ikver=$(cat "$image/.rdnafix-e2e-kver")
work=$(mktemp -d "${RDNAFIX_DEB_WORK:-/var/tmp}/rdnafix-deb.XXXXXX")
root=$work/root
cleanup() {
	e2e_umount_all
	if [[ -d $work ]] && e2e_assert_unmounted "$work"; then rm -rf --one-file-system "$work"; fi
}
trap cleanup EXIT
t_copy=$(date +%s)
cp -a --reflink=auto "$image" "$root" || { fail "deb_chroot_copy ($image)"; exit 1; }
log "image copied in $(($(date +%s) - t_copy)) s: $root (kernel $ikver)"
# no service starts inside the chroot (as build-image.sh does while it installs)
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 0755 "$root/usr/sbin/policy-rc.d"
e2e_mount "$root" || { fail "deb_chroot_mount"; exit 1; }
mkdir -p "$root/tmp/debs"
cp "$out"/rdnactl_"${ver}"_"$arch".deb "$out"/rdnafix-dkms_"${ver}"_all.deb \
	"$prev_dir"/rdnactl_"${prev}"_"$arch".deb "$prev_dir"/rdnafix-dkms_"${prev}"_all.deb "$root/tmp/debs/"

in_root() { e2e_chroot "$root" "$@"; }
# check NAME CMD...: PASS when CMD (run on the host) succeeds
check() {
	local name=$1
	shift
	if "$@" >"$work/out" 2>&1; then pass "$name"; else fail "$name ($(tail -3 "$work/out" | tr '\n' ' '))"; fi
}

# The state purge must restore: every path with its type and mode (the
# places that only logs and dpkg's backups change are left out), the
# contents of /etc, and dpkg's view of the packages.
snapshot() {
	(
		cd "$root" || exit 1
		find . -xdev \( -path ./tmp -o -path ./var/tmp -o -path ./var/log -o -path ./var/cache/apt \
			-o -path ./var/cache/debconf -o -path './var/lib/dpkg/*-old' -o -path ./run \) -prune \
			-o -printf '%y %m %p\n' | LC_ALL=C sort
		find ./etc -xdev -type f -exec md5sum {} + | LC_ALL=C sort -k2
	)
	in_root dpkg-query -W -f '${Package} ${Version} ${db:Status-Abbrev}\n' | LC_ALL=C sort
}
snapshot >"$work/before" || { fail "deb_snapshot"; exit 1; }

# dkms status lines of rdnafix ("rdnafix/0.1.0, 6.1.0-56-amd64, x86_64: installed")
dkms_lines() { in_root dkms status -m rdnafix 2>/dev/null; }
installed_for() { # VERSION: rdnafix VERSION is installed for the image's kernel, and its module file is there
	dkms_lines | grep -q "^rdnafix/$1, $ikver, [^:]*: installed" &&
		ls "$root/lib/modules/$ikver/updates/dkms/rdnafix.ko"* >/dev/null 2>&1 &&
		[[ $(in_root sh -c "modinfo -F version /lib/modules/$ikver/updates/dkms/rdnafix.ko*") == "$1" ]]
}

# --- install the previous version
t_inst=$(date +%s)
if in_root dpkg -i "/tmp/debs/rdnactl_${prev}_$arch.deb" "/tmp/debs/rdnafix-dkms_${prev}_all.deb" >"$work/install.log" 2>&1; then
	pass "deb_install_previous ($prev, $(($(date +%s) - t_inst)) s)"
else
	fail "deb_install_previous ($(tail -5 "$work/install.log" | tr '\n' ' '))"
fi
check "deb_dkms_built_previous (dkms: rdnafix/$prev installed for $ikver)" installed_for "$prev"

# --- upgrade to the current version
t_inst=$(date +%s)
if in_root dpkg -i "/tmp/debs/rdnactl_${ver}_$arch.deb" "/tmp/debs/rdnafix-dkms_${ver}_all.deb" >"$work/upgrade.log" 2>&1; then
	pass "deb_upgrade ($prev -> $ver, $(($(date +%s) - t_inst)) s)"
else
	fail "deb_upgrade ($(tail -5 "$work/upgrade.log" | tr '\n' ' '))"
fi
check "deb_upgrade_versions (dpkg: rdnactl and rdnafix-dkms $ver)" sh -c \
	"[ \"\$(chroot '$root' dpkg-query -W -f '\${Version} \${db:Status-Abbrev}|' rdnactl rdnafix-dkms)\" = '$ver ii |$ver ii |' ]"
check "deb_dkms_built_current (dkms: rdnafix/$kver installed for $ikver)" installed_for "$kver"
check "deb_dkms_previous_gone (no rdnafix/$prev in dkms status, /usr/src, /var/lib/dkms)" sh -c \
	"! chroot '$root' dkms status -m rdnafix | grep -q '/$prev' && [ ! -e '$root/usr/src/rdnafix-$prev' ] && [ ! -e '$root/var/lib/dkms/rdnafix/$prev' ]"
check "deb_files_rdnactl (binary runs, man page, completion)" sh -c \
	"chroot '$root' rdnactl --version | grep -q . && [ -f '$root/usr/share/man/man1/rdnactl.1.gz' ] && [ -f '$root/usr/share/bash-completion/completions/rdnactl' ]"
check "deb_rdnactl_stripped (no .debug_info in /usr/bin/rdnactl)" sh -c \
	"! LC_ALL=C readelf -S '$root/usr/bin/rdnactl' | grep -q '\\.debug_info'"
check "deb_files_dkms_source (/usr/src/rdnafix-$kver/dkms.conf says $kver)" \
	grep -qx "PACKAGE_VERSION=\"$kver\"" "$root/usr/src/rdnafix-$kver/dkms.conf"
check "deb_files_softdep (/lib/modprobe.d/rdnafix.conf: softdep amdgpu pre: rdnafix, no options)" sh -c \
	"grep -qx 'softdep amdgpu pre: rdnafix' '$root/lib/modprobe.d/rdnafix.conf' && ! grep -q '^options' '$root/lib/modprobe.d/rdnafix.conf'"
# the postinst dates the softdep at its installation (rdnactl status compares it with the boot time)
check "deb_softdep_dated_install (mtime of /lib/modprobe.d/rdnafix.conf >= the upgrade's start)" \
	test "$(stat -c %Y "$root/lib/modprobe.d/rdnafix.conf")" -ge "$t_inst"
# rdnactl status reads the packaged softdep: its findings about rdnafix with
# the file differ from those with the file moved aside (the module is built
# for the image's kernel, but the kernel running the chroot is the host's)
findings() { in_root rdnactl status --json 2>/dev/null | python3 -c '
import json, sys
for f in json.load(sys.stdin).get("findings", []):
    print(f.get("id"), f.get("subject", ""), sep="\t")' | grep -i 'rdnafix\|RDNA-CFG\|RDNA-MOD' | LC_ALL=C sort; }
with=$(findings)
mv "$root/lib/modprobe.d/rdnafix.conf" "$work/softdep.conf"
without=$(findings)
mv "$work/softdep.conf" "$root/lib/modprobe.d/rdnafix.conf"
if [[ -n $with && $with != "$without" ]]; then
	pass "deb_status_reads_softdep (findings with the packaged file: $(tr '\n\t' '; ' <<<"$with"); without: ${without:-none})"
else
	fail "deb_status_reads_softdep (the same findings with and without /lib/modprobe.d/rdnafix.conf: ${with:-none})"
fi

# state rdnactl keeps (/var/lib/rdnafix: the validation history): purge must remove it
in_root timeout 120 rdnactl validate --quick --timeout 20 >"$work/validate.log" 2>&1
if [[ -d $root/var/lib/rdnafix ]]; then
	pass "deb_state_written (rdnactl validate left: $(cd "$root/var/lib/rdnafix" && find . -type f | tr '\n' ' '))"
else
	# a validation without a GPU runtime that records nothing: stand-in state
	mkdir -p "$root/var/lib/rdnafix/config" && echo "stand-in" >"$root/var/lib/rdnafix/history.db"
	log "rdnactl validate left no /var/lib/rdnafix ($(tail -1 "$work/validate.log")); a stand-in history.db is used"
fi

# --- remove: DKMS, the source and the module go; conffiles stay
if in_root dpkg -r rdnactl rdnafix-dkms >"$work/remove.log" 2>&1; then
	pass "deb_remove"
else
	fail "deb_remove ($(tail -5 "$work/remove.log" | tr '\n' ' '))"
fi
check "deb_remove_dkms_gone (dkms status, /usr/src/rdnafix-*, /var/lib/dkms/rdnafix, updates/dkms/rdnafix.ko*)" sh -c \
	"[ -z \"\$(chroot '$root' dkms status -m rdnafix)\" ] && ! ls -d '$root'/usr/src/rdnafix-* '$root/var/lib/dkms/rdnafix' '$root'/lib/modules/*/updates/dkms/rdnafix.ko* >/dev/null 2>&1"
check "deb_remove_files_gone (/usr/bin/rdnactl, /lib/modprobe.d/rdnafix.conf)" sh -c \
	"[ ! -e '$root/usr/bin/rdnactl' ] && [ ! -e '$root/lib/modprobe.d/rdnafix.conf' ]"

# --- purge: nothing left
if in_root dpkg -P rdnactl rdnafix-dkms >"$work/purge.log" 2>&1; then
	pass "deb_purge"
else
	fail "deb_purge ($(tail -5 "$work/purge.log" | tr '\n' ' '))"
fi
snapshot >"$work/after"
# dkms makes a module signing key on its first build (/var/lib/dkms/mok.*):
# dkms's own state, kept for every later module (and possibly enrolled in
# the firmware), not the package's; allowed here.
mok='^> f [0-9]+ \./var/lib/dkms/mok\.(key|pub)$'
diffs=$(diff "$work/before" "$work/after" | grep '^[<>]')
allowed=$(grep -E "$mok" <<<"$diffs")
left=$(grep -vE "$mok" <<<"$diffs")
[[ -n $allowed ]] && log "allowed (dkms's signing key): $(tr '\n' ' ' <<<"$allowed")"
if [[ -z $left ]]; then
	pass "deb_purge_nothing_left (file list, /etc contents and dpkg state equal the snapshot before install)"
else
	fail "deb_purge_nothing_left ($(wc -l <<<"$left") differences)"
	sed 's/^/  /' <<<"$left" | head -40
fi
check "deb_purge_state_gone (/var/lib/rdnafix, /var/lib/dpkg/info/rdnactl.*, rdnafix-dkms.*)" sh -c \
	"! ls -d '$root/var/lib/rdnafix' '$root'/var/lib/dpkg/info/rdnactl.* '$root'/var/lib/dpkg/info/rdnafix-dkms.* >/dev/null 2>&1"

log "$npass passed, $nfail failed in $(($(date +%s) - t_start)) s"
[[ $nfail -eq 0 ]]
