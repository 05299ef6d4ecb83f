# Shared by tests/e2e/*.sh (sourced): chroot mounts that are always undone,
# and a clean environment for commands run inside the image.
# shellcheck shell=bash

# Mount points made by e2e_mount, newest last; e2e_umount_all undoes them in
# reverse.  Every script that mounts sets `trap e2e_umount_all EXIT`.
E2E_MOUNTS=()

# e2e_mount ROOT: /proc, /sys, /dev and /dev/pts of the host inside ROOT, for
# package scripts and generators that need them.  Unmount with e2e_umount.
e2e_mount() {
	local root=$1
	mount -t proc proc "$root/proc" && E2E_MOUNTS+=("$root/proc") || return 1
	mount -t sysfs sysfs "$root/sys" && E2E_MOUNTS+=("$root/sys") || return 1
	mount --bind /dev "$root/dev" && E2E_MOUNTS+=("$root/dev") || return 1
	mount --bind /dev/pts "$root/dev/pts" && E2E_MOUNTS+=("$root/dev/pts") || return 1
}

# e2e_bind SRC DST: one more bind mount, undone with the others.
e2e_bind() {
	mkdir -p "$2" && mount --bind "$1" "$2" && E2E_MOUNTS+=("$2")
}

# e2e_umount_all: undo every mount made above (newest first).  Safe to call twice.
e2e_umount_all() {
	local i
	for ((i = ${#E2E_MOUNTS[@]} - 1; i >= 0; i--)); do
		umount "${E2E_MOUNTS[i]}" 2>/dev/null || umount -l "${E2E_MOUNTS[i]}"
	done
	E2E_MOUNTS=()
}

# e2e_assert_unmounted ROOT: fail when anything is still mounted below ROOT
# (mkfs.ext4 -d or rm -rf would otherwise walk into the host's /proc or /dev).
e2e_assert_unmounted() {
	local root
	root=$(realpath "$1")
	if findmnt -rn -o TARGET | grep -q "^$root/"; then
		echo "e2e: still mounted below $root:" >&2
		findmnt -rn -o TARGET | grep "^$root/" >&2
		return 1
	fi
}

# e2e_chroot ROOT CMD...: run CMD inside ROOT with a clean environment.
e2e_chroot() {
	local root=$1
	shift
	chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive DEBCONF_NONINTERACTIVE_SEEN=true "$@"
}

# The fixed file-system UUID of the image's root (mkfs.ext4 -U); /etc/fstab
# and the kernel command line name it.
# shellcheck disable=SC2034 # used by the scripts that source this file
E2E_UUID=5e2d0c7b-4a19-4c7e-9a61-3f1c0e2a8d5b
# The serial-console part of the image's command line (GRUB_CMDLINE_LINUX):
# kernel messages on ttyS0, a log buffer that keeps the whole boot, and any
# kernel WARN or oops ends the VM.
# shellcheck disable=SC2034
E2E_GRUB_CMDLINE="console=ttyS0 log_buf_len=1M panic_on_warn=1 oops=panic panic=-1"
