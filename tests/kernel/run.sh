#!/usr/bin/env bash
# rdnafix kernel test suite (called by `make test`): for each Debian kernel
# series (6.1, 6.12, 7.2) fetch the kernel image, audit its amdgpu.ko on the
# host (kmod/scripts/amdgpu_audit.py: no VM, seconds), build rdnafix.ko and the
# test-only mock amdgpu for it, build an initramfs and boot it ONCE under
# QEMU/TCG, running the guest suites
#   params  (b) invalid/valid parameter values at load and at runtime
#   mock    (c) rdnafix against the mock amdgpu (policy, MTYPE, dry_run, layout)
#   rdnactl (d) `rdnactl status --json` against /sys/kernel/rdnafix
#   cycles  (a) 20 load/unload cycles in every order (mock amdgpu)
#   real    (a) the real Debian amdgpu in both load orders, 20 rdnafix cycles
#   realcall (5) the REAL amdgpu_gmc_noretry_set / amdgpu_vm_adjust_size /
#           gmc_v10_0_get_vm_pte called on fake devices built from the BTF
#           offsets (tests/vm/real-amdgpu), with and without rdnafix
#   matrix  (7) the refusal matrix (tests/vm/guest/matrix.sh): rdnafix built with
#           crafted conftest headers (tests/vm/matrix) against mock amdgpu variants;
#           joins the boot of one series (RDNAFIX_VM_MATRIX)
# and, for one series, a second short boot with lockdown=integrity:
#   lockdown (5) unsigned rdnafix.ko refused cleanly, Debian-signed amdgpu
#           loads, `rdnactl status --json` reports the lockdown state
# and, for one series (a PREEMPT_RT kernel), a boot of its own:
#   lifecycle (7) leaks of the swapped noretry to GFX11/GFX12 hub readers,
#           rmmod rdnafix while a hooked call is held, a test build with one
#           kretprobe instance per hook, amdgpu rmmod while sysfs is read
# Prints "PASS|FAIL|SKIP [series] name detail" lines and a final
# "N passed, N failed" line; exits 1 on any failure.
#
# Environment:
#   RDNAFIX_VM_SERIES   series to test (default "6.1 6.12 7.2"; "none": no build, no boot)
#   RDNAFIX_AUDIT_SERIES series whose amdgpu.ko the host-side audit checks (default
#                       "6.1 6.12 7.2 6.1-rt 6.12-rt 7.2-rt sid"; the RDNAFIX_VM_SERIES when
#                       that is set); fetched too, booted only if also in RDNAFIX_VM_SERIES;
#                       "none" skips the audit; an early-warning series (sid) only WARNs
#   RDNAFIX_VM_SUITES   guest suites (default params,mock,rdnactl,cycles,real,realcall)
#   RDNAFIX_VM_WORK     work dir (default <repo>/build/vm)
#   RDNAFIX_VM_TIMEOUT  seconds per boot (default 1200)
#   RDNAFIX_VM_KMOD     "tree" (default): build kmod/ as it is; "head": the committed kmod/
#   RDNACTL             rdnactl binary to test in the VM (default: <repo>/build/userspace/rdnactl
#                       when it reports rdnafix state; check (d) is SKIPped without one)
#   RDNAFIX_CACHE       cache dir (default /var/cache/rdnafix)
#   RDNAFIX_VM_LOCKDOWN series that gets one more short boot with lockdown=integrity
#                       (suite "lockdown"; default 6.12 with the default suites,
#                       none when RDNAFIX_VM_SUITES is set; "none" skips it)
#   RDNAFIX_VM_LIFECYCLE series that gets one more boot with the suite "lifecycle"
#                       (default 6.12-rt with the default suites, none when
#                       RDNAFIX_VM_SUITES is set; "none" skips it); a series
#                       not in RDNAFIX_VM_SERIES is added for that boot alone.
#                       The suite "lifecycle" may also be named in RDNAFIX_VM_SUITES
#   RDNAFIX_VM_SELFTEST 0: skip the boot-retry self-test (tests/vm/test-boot-retry.sh)
#   RDNAFIX_VM_MATRIX   series whose boot also runs the suite "matrix" (default 6.12 with
#                       the default suites, none when RDNAFIX_VM_SUITES is set; "none" skips
#                       it); a series with host headers (6.1, 6.12).  RDNAFIX_VM_SUITES
#                       naming "matrix" runs it on every series.
#
# A boot that dies before the guest's first line is an emulator fault: boot.sh
# boots it once more and prints "RETRY [series] boot: ..."; the retry is also
# noted in timings.txt.  A boot that started is never retried.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$top/tests/vm
CACHE=${RDNAFIX_CACHE:-/var/cache/rdnafix}
WORK=${RDNAFIX_VM_WORK:-$top/build/vm}
read -r -a SERIES <<<"${RDNAFIX_VM_SERIES:-6.1 6.12 7.2}"
[[ ${SERIES[*]} == none ]] && SERIES=()
# the audit covers every kernel the suite knows with the default series, the
# booted ones when RDNAFIX_VM_SERIES picks a subset
if [[ -n ${RDNAFIX_VM_SERIES:-} ]]; then
	read -r -a AUDIT <<<"${RDNAFIX_AUDIT_SERIES:-${SERIES[*]}}"
else
	read -r -a AUDIT <<<"${RDNAFIX_AUDIT_SERIES:-6.1 6.12 7.2 6.1-rt 6.12-rt 7.2-rt sid}"
fi
[[ ${AUDIT[*]} == none ]] && AUDIT=()
# the kernels to fetch: the booted series, then the audited ones not among them
FETCH=("${SERIES[@]}")
for s in "${AUDIT[@]}"; do
	[[ " ${FETCH[*]} " == *" $s "* ]] || FETCH+=("$s")
done
SUITES=${RDNAFIX_VM_SUITES:-params,mock,rdnactl,cycles,real,realcall}
# the lockdown boot comes with the default suites; with a chosen subset only
# when RDNAFIX_VM_LOCKDOWN names a series
if [[ -n ${RDNAFIX_VM_SUITES:-} ]]; then
	LOCKDOWN=${RDNAFIX_VM_LOCKDOWN:-none}
	LIFECYCLE=${RDNAFIX_VM_LIFECYCLE:-none}
else
	LOCKDOWN=${RDNAFIX_VM_LOCKDOWN:-6.12}
	LIFECYCLE=${RDNAFIX_VM_LIFECYCLE:-6.12-rt}
fi
# the lifecycle series joins the list when it is not there, for that boot alone
LIFECYCLE_ONLY=
if [[ $LIFECYCLE != none && " ${SERIES[*]} " != *" $LIFECYCLE "* ]]; then
	SERIES+=("$LIFECYCLE")
	LIFECYCLE_ONLY=$LIFECYCLE
fi
if [[ -n ${RDNAFIX_VM_SUITES:-} ]]; then
	MATRIX=${RDNAFIX_VM_MATRIX:-none}
else
	MATRIX=${RDNAFIX_VM_MATRIX:-6.12}
fi
export RDNAFIX_CACHE=$CACHE

t_start=$(date +%s)
# shellcheck source=../lib/verdicts.sh
. "$top/tests/lib/verdicts.sh"
finish() {
	echo "kernel tests: $(( $(date +%s) - t_start )) s in total"
	echo "$npass passed, $nfail failed"
	[[ $nfail -eq 0 ]]
	exit $?
}
elapsed() { echo "$(( $(date +%s) - $1 )) s"; }

mkdir -p "$WORK"
if [[ $(id -u) -ne 0 ]]; then
	fail "[setup] root: the kernel suite needs root (apt, dpkg -x, chroot builds)"
	finish
fi
missing=
for c in qemu-system-x86_64 busybox cpio modprobe depmod xz zstd python3 apt-get dpkg; do
	command -v "$c" >/dev/null || missing="$missing $c"
done
if [[ -n $missing ]]; then
	fail "[setup] tools: missing$missing (run 'make deps-test')"
	finish
fi

# expected guest results per suite (the host fails on any that is missing);
# $1: the suites (default $SUITES)
expect_for() {
	local s p suites=${1:-$SUITES}
	for s in ${suites//,/ }; do
		case $s in
		params)
			for p in noretry vm_fragment_size mtype_sysmem mtype_vram mtype_override targets exclude \
				dry_run strict; do
				echo "param_load_invalid_$p param_load_valid_$p param_runtime_invalid_$p param_runtime_valid_$p"
			done
			echo param_unload dmesg_clean_params ;;
		mock) echo mock_hooks_without_amdgpu mock_hooks_rdnafix_first mock_probe_policy \
			mock_sysfs_devices mock_pte_mtype mock_pte_runtime_change mock_dry_run \
			mock_pte_respect_uc mock_pte_refuse_value mock_pte_prototype_variant \
			mock_not_covered mock_parallel_probe mock_domain_nmissed mock_missing_calls_evidence \
			mock_remove_frees_slot mock_strict_live mock_restore dmesg_clean_mock ;;
		rdnactl) echo rdnactl_status_json ;;
		cycles) echo cycles_mock_20 dmesg_clean_cycles ;;
		real) echo real_hooks_without_amdgpu real_rdnafix_first real_unload_rdnafix_first \
			real_amdgpu_first real_rdnafix_cycles_20 real_unload_amdgpu_first \
			real_amdgpu_reload_rearms real_unload_all dmesg_clean_real ;;
		matrix) echo matrix_untested_audit1_arms matrix_pte_5args_map_mtype \
			matrix_pte_3args_no_map_mtype matrix_untested_audit0 matrix_untested_audit_unknown \
			matrix_proto_mismatch matrix_untested_proto_unknown matrix_flags_heap \
			matrix_flags_uapi matrix_noretry_not_adev matrix_unload dmesg_clean_matrix ;;
		lockdown) echo lockdown_state lockdown_rdnafix_refused lockdown_amdgpu_loads \
			lockdown_rdnactl_status dmesg_clean_lockdown ;;
		realcall) echo realcall_setup realcall_leak_readers realcall_prototype realcall_noretry_amdgpu \
			realcall_noretry_rdnafix realcall_vm_amdgpu realcall_vm_rdnafix realcall_pte_amdgpu \
			realcall_pte_rdnafix realcall_pte_rdnafix_wc realcall_refuses_foreign \
			realcall_refuses_prototype realcall_unload dmesg_clean_realcall ;;
		lifecycle) echo lifecycle_leak_readers lifecycle_leak_outside_window \
			lifecycle_leak_in_window lifecycle_leak_after_window lifecycle_rmmod_held \
			lifecycle_maxactive lifecycle_amdgpu_rmmod_reading dmesg_clean_lifecycle ;;
		*) echo "suite_$s" ;;
		esac
	done
	echo dmesg_clean_final
}

# vm_boot SERIES LABEL SUITES [kernel args]: boot $WORK/initrd-SERIES.cpio
# (kernel $kver, $kroot) once (plus the one emulator-fault retry), judge it
# and record the time in timings.txt
vm_boot() {
	local s=$1 label=$2 suites=$3 rc bt out nf t retry=
	shift 3
	t=$(date +%s)
	echo "[$label] booting $kver under QEMU/TCG (suites: $suites${*:+; kernel args: $*}) ..."
	RDNAFIX_VM_LABEL=$label "$vm/boot.sh" "$kroot" "$WORK/initrd-$s.cpio" "$suites" "$WORK/boot-$label" "$@"
	rc=$?
	[[ -f $WORK/boot-$label.retry ]] &&
		retry=" retried=1 ($(sed 's/.*(emulator fault/emulator fault/; s/)$//' "$WORK/boot-$label.retry"))"
	bt=$(elapsed "$t")
	[[ $rc -eq 124 || $rc -eq 137 ]] && fail "[$label] boot: timeout after ${RDNAFIX_VM_TIMEOUT:-1200} s"
	# shellcheck disable=SC2046
	out=$(python3 "$vm/check-boot.py" --console "$WORK/boot-$label.console" \
		--results "$WORK/boot-$label.results" --label "$label" \
		--expect $(expect_for "$suites") --allow-skip rdnactl_status_json lockdown_rdnactl_status)
	echo "$out"
	nf=$(grep -c '^FAIL' <<<"$out")
	count_verdicts "$out"
	if [[ $nf -gt 0 ]]; then
		echo "[$label] console log: $WORK/boot-$label.console (last lines follow)"
		grep -v '^DMESG: ' "$WORK/boot-$label.console" | tail -15
	fi
	echo "[$label] boot took $bt (qemu rc=$rc, boots: $(cat "$WORK/boot-$label.attempts" 2>/dev/null || echo '?')), kernel $kver"
	echo "$label $kver boot=$bt$retry" >>"$WORK/timings.txt"
}

# --- rdnactl for check (d).  RDNACTL may be relative (the top Makefile sets
# it to build/userspace/rdnactl); default: <repo>/build/userspace/rdnactl.
# It is used only if it is the real status command (its JSON has an
# "rdnafix" object), not the skeleton's placeholder; otherwise (d) SKIPs.
rdnactl=${RDNACTL:-$top/build/userspace/rdnactl}
[[ $rdnactl == /* ]] || rdnactl=$top/$rdnactl
if [[ ! -x $rdnactl ]]; then
	echo "NOTE: no rdnactl at $rdnactl; check (d) will SKIP (set RDNACTL=/path/to/rdnactl)"
	rdnactl=
elif ! grep -q '"rdnafix"' <<<"$("$rdnactl" status --json 2>/dev/null)"; then
	# (not a pipe into grep -q: under pipefail, rdnactl's SIGPIPE when grep
	# stops reading early made this SKIP a real rdnactl at random)
	echo "NOTE: $rdnactl status --json has no \"rdnafix\" object (placeholder build?); check (d) will SKIP"
	rdnactl=
else
	echo "rdnactl for check (d): $rdnactl"
fi

# --- 1. kernels
t=$(date +%s)
if ! "$vm/fetch-kernels.sh" "${FETCH[@]}" >"$WORK/fetch.log" 2>&1; then
	tail -5 "$WORK/fetch.log"
	fail "[setup] fetch_kernels: see $WORK/fetch.log"
	finish
fi
grep -E '^([0-9.]+(-rt)?|sid) ' "$WORK/fetch.log" >"$WORK/kernels.txt"
pass "[setup] fetch_kernels $(awk '{printf "%s=%s(%s) ", $1, $2, $3}' "$WORK/kernels.txt")($(elapsed "$t"))"

# --- 1a. the host-side audit of each kernel's amdgpu.ko (no VM): BTF
# prototypes of the hooked functions, the readers of the globals rdnafix swaps
# against the series' allow-list, the get_vm_pte callers' flags register.
# One PASS/FAIL line per kernel; the findings are printed, the whole output
# is in $WORK/audit-<series>.log.  An early-warning series passes with WARN lines.
for s in "${AUDIT[@]}"; do
	t=$(date +%s)
	kv=$(cat "$CACHE/kernels/$s.kver" 2>/dev/null)
	if [[ -z $kv ]]; then
		fail "[$s] audit_amdgpu: no $CACHE/kernels/$s.kver (series not fetched)"
		continue
	fi
	python3 "$top/kmod/scripts/amdgpu_audit.py" --kroot "$CACHE/kernels/$kv" --kver "$kv" --series "$s" \
		>"$WORK/audit-$s.log" 2>&1
	rc=$?
	grep -E '^  (FAIL|WARN) ' "$WORK/audit-$s.log"
	# "audit: PASS|WARN|FAIL SERIES KVER: DETAIL" -> "[WARN ]DETAIL"
	sum=$(tail -1 "$WORK/audit-$s.log")
	word=$(awk '{print $2}' <<<"$sum")
	sum=${sum#audit: * * * }
	[[ $word == WARN ]] && sum="WARN $sum"
	if [[ $rc -eq 0 ]]; then
		pass "[$s] audit_amdgpu $kv: $sum ($(elapsed "$t"))"
	else
		fail "[$s] audit_amdgpu $kv: $sum (exit $rc, $(elapsed "$t")); see $WORK/audit-$s.log"
	fi
	echo "audit $s $kv $(elapsed "$t")" >>"$WORK/timings.txt"
done
[[ ${#SERIES[@]} -eq 0 ]] && finish

# --- 1b. the emulator-fault retry itself: an early death is booted exactly
# twice, a death after the guest's first line once (three short boots)
if [[ ${RDNAFIX_VM_SELFTEST:-1} != 0 ]]; then
	t=$(date +%s)
	st=$("$vm/test-boot-retry.sh" "$CACHE/kernels/$(cat "$CACHE/kernels/${SERIES[0]}.kver")" "$WORK/selftest")
	echo "$st"
	count_verdicts "$st"
	echo "selftest boot_retry $(elapsed "$t")" >>"$WORK/timings.txt"
fi

# --- 2. rdnafix.ko for every series (the kernel engineer's W=1 build), pinned
# to the fetched releases
t=$(date +%s)
for s in "${SERIES[@]}"; do
	v=$(cat "$CACHE/kernels/$s.kver")
	s_=${s//./_}
	export "RDNAFIX_KVER_${s_//-/_}=$v"
done
rm -rf "$WORK/kmod"
kmodsrc=$top/kmod
if [[ ${RDNAFIX_VM_KMOD:-tree} == head ]]; then
	# the committed kmod/ (a worktree shared with someone editing kmod/)
	rm -rf "$WORK/kmod-head"
	mkdir -p "$WORK/kmod-head"
	git -C "$top" archive HEAD kmod | tar -x -C "$WORK/kmod-head"
	kmodsrc=$WORK/kmod-head/kmod
	echo "rdnafix source: kmod/ at $(git -C "$top" rev-parse --short HEAD)"
fi
if "$kmodsrc/scripts/build-all.sh" "$WORK/kmod" "${SERIES[@]}" >"$WORK/kmod-build.log" 2>&1; then
	pass "[setup] build_rdnafix W=1 for ${SERIES[*]} ($(elapsed "$t"))"
else
	tail -15 "$WORK/kmod-build.log"
	fail "[setup] build_rdnafix: see $WORK/kmod-build.log"
fi

# --- 3. per series: mock, initramfs, one boot
for s in "${SERIES[@]}"; do
	kver=$(cat "$CACHE/kernels/$s.kver")
	kroot=$CACHE/kernels/$kver
	ko=$WORK/kmod/$kver/rdnafix.ko
	if [[ ! -f $ko ]]; then
		fail "[$s] build: no rdnafix.ko for $kver"
		continue
	fi
	t=$(date +%s)
	if ! "$vm/build-mock.sh" "$WORK/mock/$kver" "$kver" >"$WORK/mock-$s.log" 2>&1; then
		tail -10 "$WORK/mock-$s.log"
		fail "[$s] build_mock: see $WORK/mock-$s.log"
		continue
	fi
	pass "[$s] build_mock W=1 $kver ($(elapsed "$t"))"
	args=(--rdnafix "$ko" --mock "$WORK/mock/$kver/amdgpu.ko")
	suites=$SUITES
	[[ $s == "$LIFECYCLE_ONLY" ]] && suites=lifecycle
	if [[ ,$suites, == *,realcall,* ]]; then
		t=$(date +%s)
		if "$vm/real-amdgpu/build.sh" "$WORK/realcall/$kver" "$kroot" "$kver" >"$WORK/realcall-$s.log" 2>&1; then
			pass "[$s] build_realcall W=1 $kver, offsets from amdgpu.ko BTF ($(elapsed "$t"))"
			args+=(--realcall "$WORK/realcall/$kver/rdnafix_realcall.ko")
		else
			tail -10 "$WORK/realcall-$s.log"
			fail "[$s] build_realcall: see $WORK/realcall-$s.log"
		fi
	fi
	[[ $s == "$MATRIX" && ,$suites, != *,matrix,* ]] && suites=$suites,matrix
	if [[ ,$suites, == *,matrix,* ]]; then
		t=$(date +%s)
		if "$top/tests/vm/matrix/build.sh" "$WORK/matrix/$kver" "$kver" "$kmodsrc" \
			>"$WORK/matrix-$s.log" 2>&1; then
			pass "[$s] build_matrix W=1 $kver: $(find "$WORK/matrix/$kver" -name rdnafix.ko | wc -l) crafted-header builds + 2 mock variants ($(elapsed "$t"))"
			args+=(--matrix "$WORK/matrix/$kver")
		else
			tail -10 "$WORK/matrix-$s.log"
			fail "[$s] build_matrix: see $WORK/matrix-$s.log"
		fi
	fi
	[[ -n $rdnactl ]] && args+=(--rdnactl "$rdnactl")
	if [[ ,$suites, == *,lifecycle,* || $s == "$LIFECYCLE" ]]; then
		# the test build with one kretprobe instance per hook: a copy of
		# kmod/ with the file test-maxactive (kmod/Kbuild)
		t=$(date +%s)
		rm -rf "$WORK/kmod-maxactive1-src"
		mkdir -p "$WORK/kmod-maxactive1-src"
		cp -a "$kmodsrc" "$WORK/kmod-maxactive1-src/kmod"
		echo 1 >"$WORK/kmod-maxactive1-src/kmod/test-maxactive"
		if "$WORK/kmod-maxactive1-src/kmod/scripts/build-all.sh" "$WORK/kmod-maxactive1" "$s" \
			>"$WORK/kmod-maxactive1-$s.log" 2>&1 && [[ -f $WORK/kmod-maxactive1/$kver/rdnafix.ko ]]; then
			pass "[$s] build_rdnafix_maxactive1 W=1 $kver ($(elapsed "$t"))"
			args+=(--rdnafix-maxactive1 "$WORK/kmod-maxactive1/$kver/rdnafix.ko")
		else
			tail -10 "$WORK/kmod-maxactive1-$s.log"
			fail "[$s] build_rdnafix_maxactive1: see $WORK/kmod-maxactive1-$s.log"
		fi
	fi
	if ! "$vm/build-initramfs.sh" "$WORK/initrd-$s.cpio" "$kroot" "$kver" "${args[@]}" \
		>"$WORK/initrd-$s.log" 2>&1; then
		cat "$WORK/initrd-$s.log"
		fail "[$s] initramfs: see $WORK/initrd-$s.log"
		continue
	fi
	vm_boot "$s" "$s" "$suites"
	if [[ $s == "$LOCKDOWN" ]]; then
		vm_boot "$s" "$s-lockdown" lockdown lockdown=integrity
	fi
	if [[ $s == "$LIFECYCLE" && ,$suites, != *,lifecycle,* ]]; then
		vm_boot "$s" "$s-lifecycle" lifecycle
	fi
done
finish
