#!/usr/bin/env bash
# rdnafix end-to-end test (make test-e2e): a real Debian bookworm system,
# built with debootstrap (build-image.sh, cached), the project installed in it
# by its own install targets (`make install DESTDIR=`, `make dkms-install` in
# the image), configured with `rdnactl config` and booted under QEMU/TCG:
# its own kernel and the initramfs update-initramfs made, virtio disk,
# systemd as init, panic_on_warn=1.  Phases (one fresh boot each):
#   config    `rdnactl config set noretry=1 targets=rdna1,rdna2 mtype_sysmem=nc`
#             in the image: rdnafix loads from the initramfs before amdgpu with
#             the configured parameters, status says configured == in effect
#   undo      `rdnactl config undo`: rdnafix not loaded, status says so
#   stale     `config set --no-initramfs`: status names the stale initramfs
#             (RDNA-CFG-002), rdnafix not loaded
#   cmdline   amdgpu.noretry=0 in GRUB_CMDLINE_LINUX_DEFAULT and
#             `config set amdgpu.noretry=1`: status shows RDNA-DRV-006, the
#             guest runs `rdnactl fix` (GRUB drop-in + the image's update-grub);
#             the next boot uses the `linux` line of the grub.cfg it generated:
#             amdgpu.noretry=1 on the command line and in amdgpu
#   6.12      (on request, not in the default) the config phase again on the 6.12 kernel of bookworm-security
#   upgrade   a fresh copy of the 6.1 image with the project installed from
#             its own .debs (`make deb`, the image's apt-get in a chroot), a
#             user for GPU work (gpuuser, groups render,video), `rdnactl config
#             set noretry=1 targets=rdna1,rdna2` and `validate.user=gpuuser`;
#             boot 6.1: rdnafix-validate.service records a not-run run (no GPU
#             runtime) for this stack, history and status say so; then, on
#             the host, `apt-get install -t bookworm-backports linux-image-amd64
#             linux-headers-amd64` in the image (6.12: DKMS builds rdnafix
#             through the package's hooks, /etc/kernel/postinst.d/zz-rdnafix
#             checks it); boot 6.12: the service records the new stack, history
#             names the kernel change, status shows rdnafix built for both
#             kernels; the guest removes the 6.12 build with dkms and asserts
#             that the hook and status report it.  Two boots.
# Prints "PASS|FAIL|SKIP [phase] name detail" lines, "RETRY" lines for boots
# retried after an emulator fault, timings, and "N passed, N failed".
# Exit: 0 all passed, 1 a failure, 2 cannot run here (SKIP: not root, a tool
# missing) -- which fails `make test` like any failure.
#
# Environment:
#   RDNAFIX_E2E_PHASES   phases in order (default "config undo stale cmdline upgrade"; "6.12" on request)
#   RDNAFIX_E2E_WORK     work dir (default <repo>/build/e2e)
#   RDNAFIX_E2E_TIMEOUT  seconds per boot (default 600)
#   RDNAFIX_CACHE        cache dir (default /var/cache/rdnafix; images in e2e/)
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/e2e
# shellcheck source=tests/e2e/lib.sh
. "$here/lib.sh"
WORK=${RDNAFIX_E2E_WORK:-$top/build/e2e}
TIMEOUT=${RDNAFIX_E2E_TIMEOUT:-600}
read -r -a PHASES <<<"${RDNAFIX_E2E_PHASES:-config undo stale cmdline upgrade}"
CONFIG_PARAMS="noretry=1 targets=rdna1,rdna2 mtype_sysmem=nc"

t_start=$(date +%s)
# shellcheck source=../lib/verdicts.sh
. "$top/tests/lib/verdicts.sh"
finish() {
	echo "e2e: $(($(date +%s) - t_start)) s in total"
	echo "$npass passed, $nfail failed"
	[[ $nfail -eq 0 ]]
	exit $?
}
skip_all() {
	echo "SKIP [setup] $*"
	echo "$npass passed, $nfail failed (e2e could not run here)"
	exit 2
}
since() { echo "$(($(date +%s) - $1)) s"; }
trap e2e_umount_all EXIT

[[ $(id -u) -eq 0 ]] || skip_all "not root: the e2e test needs root (debootstrap, chroot, mkfs.ext4 -d)"
missing=
for c in debootstrap qemu-system-x86_64 mkfs.ext4 debugfs lsinitramfs python3 chroot make timeout dpkg-parsechangelog; do
	command -v "$c" >/dev/null || missing="$missing $c"
done
[[ -z $missing ]] || skip_all "tools missing:$missing (run 'make deps-test')"
for p in "${PHASES[@]}"; do
	case $p in
	config | undo | stale | cmdline | 6.12 | upgrade) ;;
	*) skip_all "RDNAFIX_E2E_PHASES: unknown phase '$p' (valid: config undo stale cmdline 6.12 upgrade)" ;;
	esac
done
mkdir -p "$WORK"
# the previous run's outputs (the image trees are replaced by prepare)
rm -f "$WORK"/*.console "$WORK"/*.console.attempt1 "$WORK"/*.results "$WORK"/*.log \
	"$WORK"/cmdline-grub.* "$WORK"/kver-* "$WORK"/timings.txt "$WORK"/upgrade-*.txt

# --- helpers ---------------------------------------------------------------

# in_image ROOT CMD...: CMD inside the image with /proc /sys /dev mounted
in_image() {
	local root=$1 rc
	shift
	e2e_mount "$root" || { e2e_umount_all; return 125; }
	e2e_chroot "$root" "$@"
	rc=$?
	e2e_umount_all
	return $rc
}

# prepare ROOT SERIES: a fresh copy of the cached image with the project
# installed by its own install targets and the guest test unit.
prepare() {
	local root=$1 series=$2 base t kver log=$WORK/prepare-$2.log
	t=$(date +%s)
	if ! base=$("$here/build-image.sh" "$series" 2>"$WORK/build-image-$series.log" | tail -1) || [[ ! -d $base ]]; then
		tail -5 "$WORK/build-image-$series.log"
		fail "[$series] build_image: see $WORK/build-image-$series.log"
		return 1
	fi
	local how=cached
	grep -q 'cached:' "$WORK/build-image-$series.log" ||
		how=$(sed -n 's/.*(kernel [^;]*; \(.*\))$/built: \1/p' "$WORK/build-image-$series.log")
	pass "[$series] build_image $base ($how, $(since "$t"))"
	kver=$(cat "$base/.rdnafix-e2e-kver")

	t=$(date +%s)
	e2e_assert_unmounted "$root" || return 1
	rm -rf --one-file-system "$root"
	cp -a --reflink=auto "$base" "$root" || { fail "[$series] copy_image $base -> $root"; return 1; }
	{
		# rdnactl, man page, completion: the host build (bookworm, like the image)
		make -C "$top" --no-print-directory install DESTDIR="$root" PREFIX=/usr/local &&
			# the source tree (tracked and untracked files, no build output)
			mkdir -p "$root/root/rdnafix-src" &&
			(cd "$top" && git ls-files -z -co --exclude-standard | xargs -0 -r ls -d 2>/dev/null |
				tar -c -T - -f - | tar -x -C "$root/root/rdnafix-src") &&
			in_image "$root" make -C /root/rdnafix-src --no-print-directory dkms-install KVER="$kver"
	} >"$log" 2>&1
	local rc=$? ko
	ko=$(find "$root/lib/modules/$kver/updates/dkms" -name 'rdnafix.ko*' 2>/dev/null | head -1)
	if [[ $rc -ne 0 || -z $ko || ! -x $root/usr/local/bin/rdnactl ]]; then
		tail -15 "$log"
		fail "[$series] install: make install + dkms-install (rc=$rc, module '${ko#"$root"}'), see $log"
		return 1
	fi
	rm -rf "$root/root/rdnafix-src"
	install -D -m 0755 "$here/guest/e2e-guest.sh" "$root/usr/local/libexec/rdnafix-e2e/e2e-guest.sh"
	install -D -m 0644 "$here/guest/rdnafix-e2e.service" "$root/etc/systemd/system/rdnafix-e2e.service"
	mkdir -p "$root/etc/systemd/system/multi-user.target.wants" "$root/etc/rdnafix-e2e"
	ln -sf ../rdnafix-e2e.service "$root/etc/systemd/system/multi-user.target.wants/rdnafix-e2e.service"
	echo "$kver" >"$WORK/kver-$series"
	pass "[$series] install make install DESTDIR + make dkms-install KVER=$kver in the image: ${ko#"$root"}, /usr/local/bin/rdnactl ($(since "$t"))"
}

# rdnactl_in ROOT LABEL NAME ARGS...: `rdnactl ARGS` in the image; PASS when it
# exits 0 or 1 (done, or done and a reboot is needed)
rdnactl_in() {
	local root=$1 label=$2 name=$3 rc t
	shift 3
	t=$(date +%s)
	in_image "$root" rdnactl "$@" >"$WORK/$label-$name.log" 2>&1
	rc=$?
	if [[ $rc -le 1 ]]; then
		pass "[$label] $name rdnactl $* (rc=$rc, $(since "$t"))"
	else
		sed 's/^/    /' "$WORK/$label-$name.log" | tail -20
		fail "[$label] $name rdnactl $* exited $rc"
	fi
}

# initrd_has ROOT KVER LABEL NAME yes|no: lsinitramfs of the image's initramfs
# lists (or does not list) rdnafix.ko and etc/modprobe.d/rdnafix.conf
initrd_has() {
	local root=$1 kver=$2 label=$3 name=$4 want=$5 img list ko conf
	img=$root/boot/initrd.img-$kver
	list=$(lsinitramfs "$img" 2>&1) || { fail "[$label] $name lsinitramfs $img: $list"; return; }
	ko=$(grep -E '/updates/dkms/rdnafix\.ko' <<<"$list" | head -1)
	conf=$(grep -xE 'etc/modprobe\.d/rdnafix\.conf' <<<"$list")
	if [[ $want == yes && -n $ko && -n $conf ]]; then
		pass "[$label] $name /boot/initrd.img-$kver has $ko and $conf"
	elif [[ $want == no && -z $ko && -z $conf ]]; then
		pass "[$label] $name /boot/initrd.img-$kver has neither rdnafix.ko nor etc/modprobe.d/rdnafix.conf"
	else
		fail "[$label] $name /boot/initrd.img-$kver: rdnafix.ko '${ko:-absent}', rdnafix.conf '${conf:-absent}' (wanted: $want)"
	fi
}

# grub_cmdline ROOT: the arguments GRUB's 10_linux puts on the linux line,
# from the image's /etc/default/grub and /etc/default/grub.d/*.cfg (sourced
# in that order, as grub-mkconfig does), for a boot before any grub.cfg exists
grub_cmdline() {
	(
		# shellcheck disable=SC1090,SC1091
		. "$1/etc/default/grub"
		for f in "$1"/etc/default/grub.d/*.cfg; do
			# shellcheck disable=SC1090
			[[ -f $f ]] && . "$f"
		done
		echo "root=UUID=$E2E_UUID ro ${GRUB_CMDLINE_LINUX:-} ${GRUB_CMDLINE_LINUX_DEFAULT:-}"
	)
}

# make_disk ROOT DISK: a 4 GiB sparse ext4 image of ROOT (no loop device)
make_disk() {
	e2e_assert_unmounted "$1" || return 1
	rm -f "$2"
	truncate -s 4G "$2" && mkfs.ext4 -q -F -U "$E2E_UUID" -L rdnafix-e2e -d "$1" "$2"
}

# boot LABEL DISK KERNEL INITRD CMDLINE: one boot; a boot that dies before the
# guest's first line (E2E START on the result channel) is retried once and
# reported as RETRY; a failure after it is never retried.  Writes
# $WORK/LABEL.{console,results}; sets boot_rc and boot_s.
boot() {
	local label=$1 disk=$2 kernel=$3 initrd=$4 cmdline=$5 out=$WORK/$1 attempt t reason
	for attempt in 1 2; do
		: >"$out.results"
		t=$(date +%s)
		timeout --kill-after=10 "$TIMEOUT" qemu-system-x86_64 \
			-accel "${RDNAFIX_VM_ACCEL:-tcg,thread=single}" -cpu max -m 2048 -smp 2 -nographic -no-reboot \
			-serial mon:stdio -serial "file:$out.results" \
			-drive "file=$disk,format=raw,if=virtio" \
			-kernel "$kernel" -initrd "$initrd" -append "$cmdline" \
			</dev/null >"$out.console" 2>&1
		boot_rc=$?
		boot_s=$(($(date +%s) - t))
		grep -q '^E2E START' "$out.results" && return 0
		[[ $attempt -eq 2 ]] && return 0
		if [[ $boot_rc -eq 124 || $boot_rc -eq 137 ]]; then
			reason="timeout after $TIMEOUT s"
		else
			reason="qemu rc=$boot_rc after $boot_s s"
		fi
		reason="$reason; last console line: $(tr -d '\r' <"$out.console" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g' |
			grep -v -e '^\s*$' -e '^qemu-system' | tail -1 | cut -c1-160)"
		cp "$out.console" "$out.console.attempt1"
		echo "RETRY [$label] boot: the guest never started ($reason); booting once more (console: $out.console.attempt1)"
	done
}

# judge LABEL PHASE: the checker's verdict on the last boot of LABEL
judge() {
	local label=$1 phase=$2 out nf
	out=$(python3 "$here/check-e2e.py" --console "$WORK/$label.console" --results "$WORK/$label.results" \
		--label "$label" --phase "$phase" --qemu-rc "$boot_rc" "${@:3}")
	echo "$out"
	nf=$(grep -c '^FAIL' <<<"$out")
	count_verdicts "$out"
	if [[ $nf -gt 0 ]]; then
		echo "[$label] console: $WORK/$label.console, results: $WORK/$label.results (last console lines follow)"
		tr -d '\r' <"$WORK/$label.console" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g' | grep -v '^\s*$' |
			tail -15 | sed 's/^/    /'
	fi
	local done_at
	done_at=$(sed -n 's/^E2E DONE [^ ]* \([0-9.]*\).*/\1/p' "$WORK/$label.results" | tail -1)
	echo "TIME [$label] boot: qemu ${boot_s} s (rc=$boot_rc), guest assertions done at uptime ${done_at:-?} s"
	echo "$label boot=${boot_s}s assert_uptime=${done_at:-?}s" >>"$WORK/timings.txt"
}

# boot_phase ROOT KVER LABEL PHASE [CHECK-ARGS...]: write the phase for the
# guest, make the disk, boot with GRUB's command line from /etc/default/grub,
# judge (CHECK-ARGS go to check-e2e.py).  One disk file per tree ($ROOT.img,
# 4 GiB sparse), made anew for every phase.  The guest checks the rdnafix
# parameters of $CONFIG_PARAMS (phase_upgrade sets its own).
boot_phase() {
	local root=$1 kver=$2 label=$3 phase=$4 disk=$1.img
	echo "$phase" >"$root/etc/rdnafix-e2e/phase"
	echo "$CONFIG_PARAMS" >"$root/etc/rdnafix-e2e/params"
	if ! make_disk "$root" "$disk" >"$WORK/$label-mkfs.log" 2>&1; then
		fail "[$label] disk: mkfs.ext4 -d failed, see $WORK/$label-mkfs.log"
		return 1
	fi
	local cmdline
	cmdline=$(grub_cmdline "$root")
	echo "[$label] booting $kver under QEMU/TCG: $cmdline"
	boot "$label" "$disk" "$root/boot/vmlinuz-$kver" "$root/boot/initrd.img-$kver" "$cmdline"
	judge "$label" "$phase" --initrd "/boot/initrd.img-$kver" "${@:5}"
}

# --- phases ----------------------------------------------------------------

state=none # what the last phase left in the 6.1 image: none configured undone stale

phase_config() { # ROOT KVER LABEL
	local root=$1 kver=$2 label=$3
	# shellcheck disable=SC2086
	rdnactl_in "$root" "$label" config_set config set $CONFIG_PARAMS
	initrd_has "$root" "$kver" "$label" initramfs_has_rdnafix yes
	boot_phase "$root" "$kver" "$label" config
}

phase_undo() {
	local root=$1 kver=$2
	rdnactl_in "$root" undo config_undo config undo
	initrd_has "$root" "$kver" undo initramfs_without_rdnafix no
	boot_phase "$root" "$kver" undo undo
}

phase_stale() {
	local root=$1 kver=$2
	# the initramfs must not hold rdnafix before the config is written
	initrd_has "$root" "$kver" stale initramfs_before_without_rdnafix no
	# shellcheck disable=SC2086
	rdnactl_in "$root" stale config_set_no_initramfs config set --no-initramfs $CONFIG_PARAMS
	initrd_has "$root" "$kver" stale initramfs_still_without_rdnafix no
	boot_phase "$root" "$kver" stale stale
}

phase_cmdline() {
	local root=$1 kver=$2 grubcfg=$WORK/cmdline-grub.cfg
	# back to no configuration (the initramfs already lacks rdnafix after stale)
	case $state in
	configured) rdnactl_in "$root" cmdline config_undo_before config undo ;;
	stale) rdnactl_in "$root" cmdline config_undo_before config undo --no-initramfs ;;
	esac
	sed -i 's/^GRUB_CMDLINE_LINUX_DEFAULT="\(.*\)"$/GRUB_CMDLINE_LINUX_DEFAULT="\1 amdgpu.noretry=0"/' \
		"$root/etc/default/grub"
	if grep -q '^GRUB_CMDLINE_LINUX_DEFAULT=".*amdgpu.noretry=0"$' "$root/etc/default/grub"; then
		pass "[cmdline] grub_default /etc/default/grub: $(grep '^GRUB_CMDLINE_LINUX_DEFAULT=' "$root/etc/default/grub")"
	else
		fail "[cmdline] grub_default could not put amdgpu.noretry=0 into GRUB_CMDLINE_LINUX_DEFAULT"
		return
	fi
	rdnactl_in "$root" cmdline config_set_amdgpu config set amdgpu.noretry=1
	boot_phase "$root" "$kver" cmdline-fix cmdline-fix || return
	# the guest ran `rdnactl fix` and the image's update-grub: boot GRUB's
	# first menu entry exactly (kernel, initrd and arguments of grub.cfg)
	local disk=$root.img entry kpath ipath args
	if ! debugfs -R 'dump /boot/grub/grub.cfg '"$grubcfg" "$disk" >/dev/null 2>&1 || [[ ! -s $grubcfg ]]; then
		fail "[cmdline] grub_cfg no /boot/grub/grub.cfg on the disk after the guest's rdnactl fix"
		return
	fi
	entry=$(awk '/^menuentry /{m=1} m&&/^[ \t]*linux[ \t]/{print; n++} m&&/^[ \t]*initrd[ \t]/{print; exit}' "$grubcfg")
	kpath=$(awk '$1=="linux"{print $2}' <<<"$entry")
	args=$(awk '$1=="linux"{$1=""; $2=""; sub(/^  /, ""); print}' <<<"$entry")
	ipath=$(awk '$1=="initrd"{print $2}' <<<"$entry")
	if [[ -z $kpath || -z $ipath ]] || grep -q "[\"'\\\\]" <<<"$args"; then
		fail "[cmdline] grub_cfg first menuentry not understood: $entry"
		return
	fi
	rm -f "$WORK/cmdline-grub.kernel" "$WORK/cmdline-grub.initrd"
	debugfs -R "dump $kpath $WORK/cmdline-grub.kernel" "$disk" >/dev/null 2>&1
	debugfs -R "dump $ipath $WORK/cmdline-grub.initrd" "$disk" >/dev/null 2>&1
	if [[ ! -s $WORK/cmdline-grub.kernel || ! -s $WORK/cmdline-grub.initrd ]]; then
		fail "[cmdline] grub_cfg could not read $kpath and $ipath back from the disk"
		return
	fi
	pass "[cmdline] grub_cfg first menuentry: linux $kpath $args; initrd $ipath"
	echo "[cmdline-grub] booting GRUB's first entry under QEMU/TCG: $args"
	boot cmdline-grub "$disk" "$WORK/cmdline-grub.kernel" "$WORK/cmdline-grub.initrd" "$args"
	judge cmdline-grub cmdline-grub
}

# shellcheck source=tests/e2e/phase-upgrade.sh
. "$here/phase-upgrade.sh"

# --- run ---------------------------------------------------------------------

root61=$WORK/root-6.1
if [[ " ${PHASES[*]} " == *" config "* || " ${PHASES[*]} " == *" undo "* ||
	" ${PHASES[*]} " == *" stale "* || " ${PHASES[*]} " == *" cmdline "* ]]; then
	prepare "$root61" 6.1 || finish
	kver61=$(cat "$WORK/kver-6.1")
fi
: >"$WORK/timings.txt"
for p in "${PHASES[@]}"; do
	t=$(date +%s)
	case $p in
	config)
		phase_config "$root61" "$kver61" config
		state=configured ;;
	undo)
		if [[ $state != configured ]]; then
			fail "[undo] order: the undo phase needs the config phase right before it"
			continue
		fi
		phase_undo "$root61" "$kver61"
		state=undone ;;
	stale)
		if [[ $state == configured ]]; then rdnactl_in "$root61" stale config_undo_before config undo; fi
		phase_stale "$root61" "$kver61"
		state=stale ;;
	cmdline)
		phase_cmdline "$root61" "$kver61"
		state=cmdline ;;
	6.12)
		if prepare "$WORK/root-6.12" 6.12; then
			phase_config "$WORK/root-6.12" "$(cat "$WORK/kver-6.12")" config-6.12
		fi ;;
	upgrade)
		phase_upgrade ;;
	esac
	echo "TIME [$p] phase: $(since "$t")"
done
finish
