# shellcheck shell=sh
# (a) rdnafix with the real Debian amdgpu (no GPU in the VM, so no device
# is probed): hook states in both load orders, unload in both orders,
# 20 rdnafix load/unload cycles against the live amdgpu, clean dmesg.
unload_all >/dev/null
if ! load_deps; then
	result real_setup FAIL "loading amdgpu's dependencies failed"
	return 0
fi


insmod /mod/rdnafix.ko || FAILS="$FAILS insmod-rdnafix"
expect_eq amdgpu "$(rd $RF/amdgpu)" absent
expect_hooks no-amdgpu pending pending pending pending
report real_hooks_without_amdgpu "$(hooks_summary)"

t0=$(cut -d' ' -f1 /proc/uptime)
insmod /mod/amdgpu.ko || FAILS="$FAILS insmod-amdgpu"
t1=$(cut -d' ' -f1 /proc/uptime)
expect_eq amdgpu "$(rd $RF/amdgpu)" live
expect_hooks rdnafix-first active active active active
report real_rdnafix_first "$(hooks_summary) (amdgpu load ${t0}s->${t1}s)"

rmmod rdnafix || FAILS="$FAILS rmmod-rdnafix"
[ -e $RF ] && FAILS="$FAILS $RF-left-behind"
is_loaded amdgpu || FAILS="$FAILS amdgpu-gone"
report real_unload_rdnafix_first "amdgpu stays live"

insmod /mod/rdnafix.ko || FAILS="$FAILS insmod-rdnafix"
expect_eq amdgpu "$(rd $RF/amdgpu)" live
expect_hooks amdgpu-first active pending pending active
report real_amdgpu_first "$(hooks_summary)"

bad=
for i in $(seq 1 20); do
	FAILS=
	rmmod rdnafix || FAILS="$FAILS rmmod"
	insmod /mod/rdnafix.ko mtype_sysmem=uc || FAILS="$FAILS insmod"
	expect_hooks c$i active pending pending active
	[ -n "$FAILS" ] && bad="$bad cycle$i:$FAILS"
done
FAILS=
if [ -z "$bad" ]; then result real_rdnafix_cycles_20 PASS "20 rdnafix unload/load cycles with amdgpu live"
else result real_rdnafix_cycles_20 FAIL "$(echo "$bad" | head -c 600)"; fi

rmmod amdgpu || FAILS="$FAILS rmmod-amdgpu"
expect_eq amdgpu "$(rd $RF/amdgpu)" absent
expect_hooks amdgpu-gone pending pending pending pending
report real_unload_amdgpu_first "$(hooks_summary)"

t0=$(cut -d' ' -f1 /proc/uptime)
insmod /mod/amdgpu.ko || FAILS="$FAILS insmod-amdgpu"
t1=$(cut -d' ' -f1 /proc/uptime)
expect_eq amdgpu "$(rd $RF/amdgpu)" live
expect_hooks reload active active active active
report real_amdgpu_reload_rearms "$(hooks_summary) (amdgpu load ${t0}s->${t1}s)"

rmmod amdgpu || FAILS="$FAILS rmmod-amdgpu"
rmmod rdnafix || FAILS="$FAILS rmmod-rdnafix"
[ -e $RF ] && FAILS="$FAILS $RF-left-behind"
insmod /mod/amdgpu.ko || FAILS="$FAILS insmod-amdgpu-alone"
expect_eq amdgpu.noretry "$(rd /sys/module/amdgpu/parameters/noretry)" -1
expect_eq amdgpu.vm_fragment_size "$(rd /sys/module/amdgpu/parameters/vm_fragment_size)" -1
rmmod amdgpu || FAILS="$FAILS rmmod-amdgpu"
report real_unload_all "nothing left behind, amdgpu parameters untouched"
dmesg_check real
