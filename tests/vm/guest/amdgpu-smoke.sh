# shellcheck shell=sh
# Real amdgpu without rdnafix: the stock driver and its deps load and unload.
if load_deps && insmod /mod/amdgpu.ko && is_loaded amdgpu; then
	result amdgpu_load PASS "$(rd /sys/module/amdgpu/parameters/noretry) $(rd /sys/module/amdgpu/parameters/vm_fragment_size)"
else
	result amdgpu_load FAIL "insmod amdgpu or a dependency failed"
fi
t0=$(cut -d' ' -f1 /proc/uptime)
ok=1
for _ in 1 2 3; do
	rmmod amdgpu || ok=0
	insmod /mod/amdgpu.ko || ok=0
done
t1=$(cut -d' ' -f1 /proc/uptime)
check amdgpu_reload "reload failed" [ $ok = 1 ]
echo "VM: 3 amdgpu reloads took $t0 -> $t1"
