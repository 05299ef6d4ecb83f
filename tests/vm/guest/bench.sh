# shellcheck shell=sh
# Benchmark (not a test): ns per gmc_v10_0_get_vm_pte call through the mock,
# without rdnafix (baseline), with rdnafix on a targeted device (rewrite to
# UC) and on an untargeted one.  N from rdnafix_bench_n= (default 200000).
CTL=/sys/kernel/debug/mock_amdgpu/ctl
N=$(sed -n 's/.*rdnafix_bench_n=\([0-9]*\).*/\1/p' /proc/cmdline)
N=${N:-200000}
ROUNDS=3
unload_all >/dev/null
mock() {
	if echo "$*" >"$CTL" 2>/dev/null; then cat "$CTL"; else echo "ERR"; fi
}
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
bench() {	# label slot
	for r in $(seq 1 $ROUNDS); do
		a=$(mock bench "$2" "$N")
		echo "BENCH $1 round=$r calls=$(field calls "$a") ns=$(field ns "$a")"
		[ -c /dev/ttyS1 ] && echo "BENCH $1 round=$r calls=$(field calls "$a") ns=$(field ns "$a")" >/dev/ttyS1
	done
}
insmod /mod/mock/amdgpu.ko || { result bench_setup FAIL "insmod mock"; return 0; }
mock probe 0 1002 73df 0000:04:00.0 >/dev/null
mock probe 1 1002 744c 0000:05:00.0 >/dev/null
bench baseline_no_rdnafix 0
insmod /mod/rdnafix.ko mtype_sysmem=uc || { result bench_setup FAIL "insmod rdnafix"; return 0; }
# devices probed before rdnafix: get_vm_pte still finds them by their pci_dev
bench rdnafix_targeted_uc 0
bench rdnafix_untargeted 1
echo keep >$RP/mtype_sysmem
bench rdnafix_targeted_keep 0
rmmod rdnafix
bench baseline_after_unload 0
rmmod amdgpu
result bench_done PASS "N=$N rounds=$ROUNDS"
