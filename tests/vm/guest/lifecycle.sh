# shellcheck shell=sh
# lifecycle: rdnafix and the mock amdgpu coming and going while hooked
# calls are in flight (booted on a PREEMPT_RT kernel where there is one):
#   - the GFX11/GFX12 hub readers of amdgpu's global noretry are probed
#     (leak_readers) and a read inside a GFX10 device's swap window, while
#     two GFX10 probes overlap, is recorded in leaks; a read outside is not
#   - rmmod rdnafix while amdgpu_gmc_noretry_set is held inside (the swap
#     in place): amdgpu's own value is back at once, the held call finishes
#   - a rdnafix test build with one kretprobe instance per hook
#     (/mod/rdnafix-maxactive1.ko): an overlapping call is missed, counted
#   - rmmod/insmod amdgpu five times while every rdnafix file is read in a loop
CTL=/sys/kernel/debug/mock_amdgpu/ctl
MOCK=/mod/mock/amdgpu.ko
MP=/sys/module/amdgpu/parameters
unload_all >/dev/null

mock() {
	if echo "$*" >"$CTL" 2>/dev/null; then cat "$CTL"; else echo "ERR"; fi
}
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
hub() {
	if echo "$1" >$MP/hub_read 2>/dev/null; then cat $MP/hub_read; else echo "ERR"; fi
}
# wait_swap VALUE: until amdgpu's noretry reads VALUE (a swap in place), 10 s at most
wait_swap() {
	_i=0
	while [ "$(rd $MP/noretry)" != "$1" ] && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	[ "$(rd $MP/noretry)" = "$1" ]
}
# reader FUNCTION: its line in leak_readers, without the name
reader() { sed -n "s/^$1 //p" $RF/leak_readers; }

if ! insmod /mod/rdnafix.ko noretry=1 || ! insmod $MOCK noretry=0; then
	result lifecycle_setup FAIL "insmod rdnafix or the mock amdgpu failed"
	return 0
fi
rd $RF/leak_readers | sed 's/^/VM: leak_readers: /'
expect_prefix gfxhub_v3_0 "$(reader gfxhub_v3_0_gart_enable)" "probed: load at +0x"
expect_prefix mmhub_v3_0 "$(reader mmhub_v3_0_gart_enable)" "probed: load at +0x"
expect_eq gfxhub_v12_0 "$(reader gfxhub_v12_0_gart_enable)" "no direct read of noretry"
expect_eq gfxhub_v3_0_3 "$(reader gfxhub_v3_0_3_gart_enable)" absent
expect_eq mmhub_v4_1_0 "$(reader mmhub_v4_1_0_gart_enable)" absent
expect_eq readers "$(wc -l <$RF/leak_readers)" 9
expect_eq leaks "$(rd $RF/leaks)" 0
report lifecycle_leak_readers "$(tr '\n' ';' <$RF/leak_readers | cut -c1-160)"

# a hub read outside any swap: amdgpu's own value, nothing recorded
expect_eq outside "$(hub gfxhub_v3_0_gart_enable)" "gfxhub_v3_0_gart_enable read noretry=0"
expect_eq leaks "$(rd $RF/leaks)" 0
report lifecycle_leak_outside_window "$(rd $RF/leaks | head -1) leaks after a read outside a swap"

# two GFX10 probes whose noretry_set calls overlap and are held 2 s inside;
# a GFX11 hub function reads the global meanwhile
echo 2000 >$MP/noretry_hold_ms
mock probe2 0 1002 731f 0000:03:00.0 1 1002 73bf 0000:04:00.0 >/tmp/probe2.out &
bg=$!
if wait_swap 1; then
	a=$(hub gfxhub_v3_0_gart_enable)
	for i in 1 2 3 4 5 6 7 8; do hub gfxhub_v3_0_gart_enable >/dev/null; done
	b=$(hub mmhub_v3_0_gart_enable)
	c=$(hub gfxhub_v12_0_gart_enable)
	inwin=$(rd $MP/noretry)
else
	FAILS="$FAILS no-swap-seen"
fi
wait $bg
echo 0 >$MP/noretry_hold_ms
p2=$(cat /tmp/probe2.out)
echo "VM: probe2: $p2"
expect_eq in-window "$inwin" 1
expect_eq gfxhub "$a" "gfxhub_v3_0_gart_enable read noretry=1"
expect_eq mmhub "$b" "mmhub_v3_0_gart_enable read noretry=1"
expect_eq v12 "$c" "gfxhub_v12_0_gart_enable read noretry=-7"
expect_eq probe2 "$p2" "a: probe=0 noretry=1 frag=9 b: probe=0 noretry=1 frag=9"
expect_eq restored "$(rd $MP/noretry)" 0
l=$(rd $RF/leaks)
echo "$l" | sed 's/^/VM: leaks: /'
expect_eq count "$(echo "$l" | head -1)" 10
expect_eq lines "$(echo "$l" | wc -l)" 9
expect_eq newest "$(echo "$l" | tail -1)" \
	"mmhub_v3_0_gart_enable read noretry=1 during 0000:03:00.0's swap (amdgpu's own 0)"
expect_eq oldest-kept "$(echo "$l" | sed -n 2p)" \
	"gfxhub_v3_0_gart_enable read noretry=1 during 0000:03:00.0's swap (amdgpu's own 0)"
report lifecycle_leak_in_window "10 reads in 0000:03:00.0's window recorded, 8 kept, v12 not probed"

# after the window: nothing more
hub gfxhub_v3_0_gart_enable >/dev/null
expect_eq after "$(rd $RF/leaks | head -1)" 10
report lifecycle_leak_after_window "a read after the swap: still 10"

# rmmod rdnafix while a noretry_set call is held inside with the swap in place
echo 3000 >$MP/noretry_hold_ms
mock probe 2 1002 73df 0000:05:00.0 >/tmp/probe.out &
bg=$!
wait_swap 1 || FAILS="$FAILS no-swap-seen"
t0=$(cut -d' ' -f1 /proc/uptime)
rmmod rdnafix || FAILS="$FAILS rmmod-rdnafix-held"
t1=$(cut -d' ' -f1 /proc/uptime)
expect_eq restored-at-rmmod "$(rd $MP/noretry)" 0
held=$(kill -0 $bg 2>/dev/null && echo running || echo finished)
wait $bg
echo 0 >$MP/noretry_hold_ms
pr=$(cat /tmp/probe.out)
expect_eq held-during-rmmod "$held" running
expect_eq probe "$(field probe "$pr") $(field noretry_param "$pr")" "0 0"
expect_eq unloaded "$(is_loaded rdnafix && echo loaded || echo gone)" gone
report lifecycle_rmmod_held "rmmod took $t0..$t1 s with the call held; probe then saw amdgpu's own 0: $pr"

# one kretprobe instance per hook (test build): the overlapping call misses
if [ -f /mod/rdnafix-maxactive1.ko ]; then
	if insmod /mod/rdnafix-maxactive1.ko noretry=1; then
		mock probe2 3 1002 731f 0000:0a:00.0 4 1002 73bf 0000:0b:00.0 >/tmp/probe2.out
		nm=$(sed -n 's/^noretry_set //p' $RF/nmissed)
		echo "VM: maxactive=1: $(cat /tmp/probe2.out); nmissed: $(tr '\n' ' ' <$RF/nmissed)"
		[ "${nm:-0}" -ge 1 ] || FAILS="$FAILS nmissed-noretry_set=[$nm]"
		if [ -e $RF/missing ]; then
			mi=$(sed -n 's/^noretry_set instance=\([0-9]*\).*/\1/p' $RF/missing)
			[ "${mi:-0}" -ge 1 ] || FAILS="$FAILS missing-noretry_set=[$(rd $RF/missing)]"
		fi
		expect_eq restored "$(rd $MP/noretry)" 0
		rmmod rdnafix || FAILS="$FAILS rmmod-maxactive1"
	else
		FAILS="$FAILS insmod-maxactive1"
	fi
	report lifecycle_maxactive "one instance: noretry_set missed $nm call(s)"
else
	result lifecycle_maxactive FAIL "no /mod/rdnafix-maxactive1.ko in the initramfs"
fi

# amdgpu unloaded and loaded again while every rdnafix file is read in a loop
insmod /mod/rdnafix.ko noretry=1 || FAILS="$FAILS insmod-rdnafix"
mock probe 5 1002 731f 0000:0c:00.0 >/dev/null
rm -f /tmp/stop
(
	n=0
	while [ ! -e /tmp/stop ]; do
		cat $RF/* $RF/hooks/* $RF/devices/*/* >/dev/null 2>&1
		n=$((n + 1))
	done
	echo $n >/tmp/reads
) &
loop=$!
for i in 1 2 3 4 5; do
	rmmod amdgpu || FAILS="$FAILS rmmod-amdgpu-$i"
	insmod $MOCK noretry=0 || FAILS="$FAILS insmod-amdgpu-$i"
	mock probe 5 1002 731f 0000:0c:00.0 >/dev/null
done
rmmod amdgpu || FAILS="$FAILS rmmod-amdgpu-last"
touch /tmp/stop
wait $loop
expect_eq amdgpu "$(rd $RF/amdgpu)" absent
expect_prefix readers-after "$(reader gfxhub_v3_0_gart_enable)" "not probed: amdgpu is not loaded"
expect_hooks after pending pending pending pending
unload_all || FAILS="$FAILS unload"
report lifecycle_amdgpu_rmmod_reading "6 amdgpu unloads during $(cat /tmp/reads 2>/dev/null) rounds of reads"
dmesg_check lifecycle
