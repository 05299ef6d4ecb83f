# shellcheck shell=sh
# (a) load/unload in every order, 20 cycles, against the mock amdgpu (a
# real amdgpu load takes 6-60 s under TCG; real.sh covers each order once
# with the real driver).  Each cycle checks the hook states and that the
# hooks work (a probe or a PTE goes through them).
CTL=/sys/kernel/debug/mock_amdgpu/ctl
MOCK=/mod/mock/amdgpu.ko
unload_all >/dev/null
mock() {
	if echo "$*" >"$CTL" 2>/dev/null; then cat "$CTL"; else echo "ERR"; fi
}
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

bad='' i=0
# order: <load first><unload first>: R = rdnafix, A = amdgpu
for order in RR RA AR AA RR RA AR AA RR RA AR AA RR RA AR AA RR RA AR AA; do
	i=$((i + 1))
	FAILS=
	case $order in
	R?)
		insmod /mod/rdnafix.ko noretry=1 mtype_sysmem=uc || FAILS="$FAILS insmod-rdnafix"
		insmod $MOCK noretry=0 || FAILS="$FAILS insmod-mock"
		expect_hooks c$i active active active active ;;
	A?)
		insmod $MOCK noretry=0 || FAILS="$FAILS insmod-mock"
		insmod /mod/rdnafix.ko noretry=1 mtype_sysmem=uc || FAILS="$FAILS insmod-rdnafix"
		expect_hooks c$i active pending pending active ;;
	esac
	expect_eq c$i:amdgpu "$(rd $RF/amdgpu)" live
	a=$(mock probe 0 1002 73df 0000:04:00.0)
	expect_eq c$i:noretry-seen "$(field noretry "$a")" 1
	a=$(mock pte 0 0x3 nc)
	expect_eq c$i:pte "$(field final "$a")" 0x3000000000003
	[ "${order#?}" = A ] || expect_hooks c$i-after-probe active active active active
	case $order in
	?R)
		rmmod rdnafix || FAILS="$FAILS rmmod-rdnafix"
		[ -e $RF ] && FAILS="$FAILS $RF-left-behind"
		a=$(mock pte 0 0x3 nc)
		expect_eq c$i:pte-without-rdnafix "$(field final "$a")" 0x3
		expect_eq c$i:noretry-param "$(rd /sys/module/amdgpu/parameters/noretry)" 0
		rmmod amdgpu || FAILS="$FAILS rmmod-mock" ;;
	?A)
		rmmod amdgpu || FAILS="$FAILS rmmod-mock"
		expect_eq c$i:amdgpu-after-rmmod "$(rd $RF/amdgpu)" absent
		expect_hooks c$i-no-amdgpu pending pending pending pending
		rmmod rdnafix || FAILS="$FAILS rmmod-rdnafix" ;;
	esac
	is_loaded rdnafix && FAILS="$FAILS rdnafix-still-loaded"
	is_loaded amdgpu && FAILS="$FAILS mock-still-loaded"
	if [ -n "$FAILS" ]; then bad="$bad cycle$i($order):$FAILS"; fi
	unload_all >/dev/null
done
FAILS=
if [ -z "$bad" ]; then result cycles_mock_20 PASS "20 cycles, orders RR RA AR AA x5 (load first/unload first)"
else result cycles_mock_20 FAIL "$(echo "$bad" | head -c 600)"; fi
dmesg_check cycles
