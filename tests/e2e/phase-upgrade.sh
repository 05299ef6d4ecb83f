# rdnafix end-to-end test, the upgrade phase (sourced by tests/e2e/run.sh,
# which provides pass/fail, since, in_image, rdnactl_in, initrd_has,
# boot_phase, $top, $here, $WORK).  See run.sh's header for what it proves.
# shellcheck shell=bash

UPGRADE_PARAMS="noretry=1 targets=rdna1,rdna2"
GPU_USER=gpuuser
E2E_DEBS=${RDNAFIX_CACHE:-/var/cache/rdnafix}/e2e/debs

# apt_in ROOT LISTS LOG [NAME=VALUE...] ARGS...: `apt-get ARGS` inside the
# image (with the variables NAME=VALUE in its environment) with the apt lists
# build-image.sh kept (LISTS), the e2e .deb cache on /var/cache/apt/archives
# (downloads stay there for the next run) and no service started by a
# maintainer script (policy-rc.d, as in build-image.sh).  The lists are
# removed again afterwards, so the disk does not carry them.
apt_in() {
	local root=$1 lists=$2 log=$3 rc vars=()
	shift 3
	while [[ $1 =~ ^[A-Z_]+= ]]; do
		vars+=("$1")
		shift
	done
	mkdir -p "$E2E_DEBS/partial" &&
		cp -a "$lists/." "$root/var/lib/apt/lists/" &&
		printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d" && chmod 0755 "$root/usr/sbin/policy-rc.d" &&
		cp /etc/resolv.conf "$root/etc/resolv.conf" || return 125
	if e2e_mount "$root" && e2e_bind "$E2E_DEBS" "$root/var/cache/apt/archives"; then
		e2e_chroot "$root" "${vars[@]}" apt-get -q -o Dpkg::Use-Pty=0 -o APT::Sandbox::User=root "$@" >>"$log" 2>&1
		rc=$?
	else
		rc=125
	fi
	e2e_umount_all
	rm -rf --one-file-system "${root:?}/var/lib/apt/lists/"*
	rm -f "$root/usr/sbin/policy-rc.d" "$root/etc/resolv.conf"
	return $rc
}

# hook_lines LOG: what /etc/kernel/postinst.d/zz-rdnafix printed inside an
# apt log (run-parts --report names a script before its first output line)
hook_lines() {
	awk '/^\/etc\/kernel\/postinst\.d\/zz-rdnafix:/ { on = 1; sub(/^[^:]*: ?/, ""); if ($0 != "") print; next }
		on && (/^\/etc\/kernel\/(postinst|header_postinst)\.d\// || /^(Setting up|Processing|Preparing|Unpacking|Selecting) /) { on = 0 }
		on { print }' "$1"
}

# phase_upgrade: the whole phase; PASS/FAIL lines, two boots.
phase_upgrade() {
	local root=$WORK/root-upgrade label=upgrade t base lists ver debs kver61 kver612 modver ko rc log
	# boot_phase writes $CONFIG_PARAMS for the guest to check: this phase's
	local CONFIG_PARAMS=$UPGRADE_PARAMS

	# 1. the project's own packages
	t=$(date +%s)
	log=$WORK/upgrade-deb.log
	ver=$(dpkg-parsechangelog -l "$top/debian/changelog" -SVersion 2>"$log")
	if [[ -z $ver ]]; then
		fail "[$label] deb_built no version in $top/debian/changelog: $(head -c 300 "$log")"
		return 1
	fi
	debs=("$top/build/deb/rdnactl_${ver}_amd64.deb" "$top/build/deb/rdnafix-dkms_${ver}_all.deb")
	make -C "$top" --no-print-directory deb >>"$log" 2>&1
	rc=$?
	if [[ $rc -ne 0 || ! -f ${debs[0]} || ! -f ${debs[1]} ]]; then
		tail -15 "$log" | sed 's/^/    /'
		fail "[$label] deb_built make deb (rc=$rc) left no ${debs[*]##*/}, see $log"
		return 1
	fi
	pass "[$label] deb_built make deb: ${debs[*]##*/} ($(since "$t"))"

	# 2. a fresh copy of the cached 6.1 image (and the apt lists kept with it)
	t=$(date +%s)
	if ! base=$("$here/build-image.sh" 6.1 2>"$WORK/build-image-upgrade.log" | tail -1) || [[ ! -d $base ]]; then
		tail -5 "$WORK/build-image-upgrade.log"
		fail "[$label] build_image: see $WORK/build-image-upgrade.log"
		return 1
	fi
	lists=$base.lists
	if [[ ! -d $lists ]]; then
		fail "[$label] build_image $base has no apt lists beside it ($lists)"
		return 1
	fi
	kver61=$(cat "$base/.rdnafix-e2e-kver")
	e2e_assert_unmounted "$root" || return 1
	rm -rf --one-file-system "$root"
	cp -a --reflink=auto "$base" "$root" || { fail "[$label] copy_image $base -> $root"; return 1; }
	pass "[$label] copy_image $base ($(since "$t"))"

	# 3. apt-get install ./rdnactl_*.deb ./rdnafix-dkms_*.deb in the image
	t=$(date +%s)
	log=$WORK/upgrade-install.log
	: >"$log"
	mkdir -p "$root/root/debs" && cp "${debs[@]}" "$root/root/debs/"
	# as a user installs them: with Recommends (rdnafix-dkms recommends python3,
	# which the module's build-time conftest runs)
	apt_in "$root" "$lists" "$log" install -y "/root/debs/${debs[0]##*/}" "/root/debs/${debs[1]##*/}"
	rc=$?
	rm -rf "$root/root/debs"
	ko=$(find "$root/lib/modules/$kver61/updates/dkms" -name 'rdnafix.ko*' 2>/dev/null | head -1)
	if [[ $rc -ne 0 || -z $ko || ! -x $root/usr/bin/rdnactl ]]; then
		tail -20 "$log" | sed 's/^/    /'
		fail "[$label] deb_install apt-get install ${debs[*]##*/} (rc=$rc, module '${ko#"$root"}'), see $log"
		return 1
	fi
	pass "[$label] deb_install apt-get install ${debs[*]##*/} in the image: DKMS built ${ko#"$root"}," \
		"/usr/bin/rdnactl ($(since "$t"))"
	echo "$kver61" >"$WORK/kver-upgrade-old"

	# 4. the user for GPU work, rdnafix configured, the validation user
	if in_image "$root" useradd --create-home --groups render,video --shell /bin/bash "$GPU_USER" >>"$log" 2>&1; then
		pass "[$label] gpu_user useradd $GPU_USER: $(grep "^$GPU_USER:" "$root/etc/passwd"), groups" \
			"$(grep -E "^(render|video):" "$root/etc/group" | grep -w "$GPU_USER" | cut -d: -f1 | tr '\n' ' ')"
	else
		fail "[$label] gpu_user useradd $GPU_USER failed, see $log"
	fi
	# shellcheck disable=SC2086
	rdnactl_in "$root" "$label" config_set config set $UPGRADE_PARAMS
	rdnactl_in "$root" "$label" config_validate_user config set "validate.user=$GPU_USER"
	initrd_has "$root" "$kver61" "$label" initramfs_has_rdnafix yes

	# 5. boot 6.1
	modver=$(cat "$top/kmod/VERSION")
	install -D -m 0755 "$here/guest/e2e-guest.sh" "$root/usr/local/libexec/rdnafix-e2e/e2e-guest.sh"
	install -D -m 0644 "$here/guest/rdnafix-e2e.service" "$root/etc/systemd/system/rdnafix-e2e.service"
	mkdir -p "$root/etc/systemd/system/multi-user.target.wants" "$root/etc/rdnafix-e2e"
	ln -sf ../rdnafix-e2e.service "$root/etc/systemd/system/multi-user.target.wants/rdnafix-e2e.service"
	echo "$kver61" >"$root/etc/rdnafix-e2e/kver"
	echo "$modver" >"$root/etc/rdnafix-e2e/modver"
	boot_phase "$root" "$kver61" upgrade-6.1 upgrade-6.1 --kver "$kver61" || return 1

	# 6. what the guest wrote that the next boot needs: the history database
	t=$(date +%s)
	rm -rf --one-file-system "$root/var/lib/rdnafix"
	debugfs -R "rdump /var/lib/rdnafix $root/var/lib" "$root.img" >"$WORK/upgrade-rdump.log" 2>&1
	local dbs
	dbs=$(cd "$root/var/lib" 2>/dev/null && find rdnafix -name 'history.db*' -printf '/var/lib/%p uid %U, %s B; ')
	if [[ -n $dbs ]]; then
		pass "[$label] carry_history /var/lib/rdnafix read back from the 6.1 disk: $dbs"
	else
		fail "[$label] carry_history no history.db below /var/lib/rdnafix on the disk after the 6.1 boot" \
			"($(tr '\n' ' ' <"$WORK/upgrade-rdump.log"))"
	fi

	# 7. the 6.12 kernel of bookworm-backports, installed as a user would
	t=$(date +%s)
	log=$WORK/upgrade-kernel.log
	: >"$log"
	local upkgs
	upkgs=$(awk '!/^[[:space:]]*(#|$)/ && $2 == "upgrade" { print $1 }' "$here/packages.txt" | tr '\n' ' ')
	# the kernel hook's rdnactl calls are traced (guest/rdnactl-trace): the
	# hook discards the verdict of a kernel that has rdnafix
	local trace=/usr/local/libexec/rdnafix-e2e/rdnactl-trace
	install -D -m 0755 "$here/guest/rdnactl-trace" "$root$trace"
	rm -f "$root/var/log/rdnafix-e2e-hook.log"
	# (without Recommends: firmware and apparmor would change nothing here but the boot)
	# shellcheck disable=SC2086
	apt_in "$root" "$lists" "$log" RDNAFIX_RDNACTL=$trace install -y --no-install-recommends -t bookworm-backports $upkgs
	rc=$?
	mv -f "$root/var/log/rdnafix-e2e-hook.log" "$WORK/upgrade-hook-trace.txt" 2>/dev/null || : >"$WORK/upgrade-hook-trace.txt"
	rm -f "$root$trace"
	kver612=$(find "$root/lib/modules" -mindepth 1 -maxdepth 1 -printf '%f\n' | grep -vxF "$kver61" | sort -V | tail -1)
	if [[ $rc -ne 0 || $kver612 != 6.12.* || ! -f $root/boot/vmlinuz-$kver612 ]]; then
		tail -20 "$log" | sed 's/^/    /'
		fail "[$label] kernel_install apt-get install -t bookworm-backports $upkgs (rc=$rc, new kernel '$kver612'), see $log"
		return 1
	fi
	pass "[$label] kernel_install apt-get install -t bookworm-backports $upkgs: $kver612" \
		"($(grep -F "Setting up linux-image-$kver612 (" "$log" | head -1 | sed 's/^Setting up //; s/ \.\.\.$//'), $(since "$t"))"
	ko=$(find "$root/lib/modules/$kver612/updates/dkms" -name 'rdnafix.ko*' 2>/dev/null | head -1)
	if [[ -n $ko ]]; then
		pass "[$label] dkms_built_new_kernel the package's DKMS hooks built ${ko#"$root"}:" \
			"$(grep -F ", $kver612, " <<<"$(in_image "$root" dkms status rdnafix 2>&1)")"
	else
		fail "[$label] dkms_built_new_kernel no rdnafix.ko below /lib/modules/$kver612/updates/dkms, see $log"
	fi
	# the hook ran for the new kernel during the install; its last verdict
	# (after DKMS built the module) passes; what it printed in the apt log
	local calls last said
	hook_lines "$log" >"$WORK/upgrade-hook-apt.txt"
	calls=$(grep -c -F -- "-- $kver612 ->" "$WORK/upgrade-hook-trace.txt")
	last=$(grep -F -- "-- $kver612 ->" "$WORK/upgrade-hook-trace.txt" | tail -1)
	said=$(tr '\n' '|' <"$WORK/upgrade-hook-apt.txt" | cut -c1-400)
	if [[ $calls -gt 0 && $last == *"-> rc=0:"* ]]; then
		pass "[$label] hook_during_install zz-rdnafix ran $calls time(s) for $kver612 in the kernel packages'" \
			"postinst; the last: ${last#rdnactl }; printed in the apt log: ${said:-nothing}"
	else
		fail "[$label] hook_during_install zz-rdnafix calls for $kver612: $calls; the last: '${last:-none}';" \
			"printed in the apt log: ${said:-nothing} (trace $WORK/upgrade-hook-trace.txt)"
	fi
	in_image "$root" /etc/kernel/postinst.d/zz-rdnafix "$kver612" "/boot/vmlinuz-$kver612" >"$WORK/upgrade-hook.txt" 2>&1
	rc=$?
	if [[ $rc -eq 0 ]]; then
		pass "[$label] hook_check zz-rdnafix $kver612 by hand (rc=0): printed" \
			"$(if [[ -s $WORK/upgrade-hook.txt ]]; then tr '\n' '|' <"$WORK/upgrade-hook.txt" | cut -c1-600; else echo "nothing (quiet: rdnafix is built)"; fi)"
	else
		fail "[$label] hook_check zz-rdnafix $kver612 by hand exited $rc: $(tr '\n' '|' <"$WORK/upgrade-hook.txt" | cut -c1-600)"
	fi
	initrd_has "$root" "$kver612" "$label" initramfs_new_kernel_has_rdnafix yes

	# 8. boot 6.12 (its vmlinuz and initrd, GRUB's command line)
	echo "$kver612" >"$root/etc/rdnafix-e2e/kver"
	echo "$kver61" >"$root/etc/rdnafix-e2e/kver-old"
	boot_phase "$root" "$kver612" upgrade-6.12 upgrade-6.12 --kver "$kver612" --kver-old "$kver61"
}
