# shellcheck shell=sh
# (5) The REAL amdgpu functions, called by the test-only rdnafix_realcall
# module on two zeroed fake amdgpu_devices (navi21 GC 10.3.0, navi10 GC
# 10.1.10) built from the BTF offsets of this kernel's amdgpu.ko: what
# amdgpu_gmc_noretry_set, amdgpu_vm_adjust_size and gmc_v10_0_get_vm_pte
# compute with rdnafix loaded (noretry=0 vm_fragment_size=6 mtype_sysmem=uc;
# then mtype_sysmem=wc, rdnafix loaded after amdgpu) and without it.  The module refuses (skip) a foreign amdgpu build.
RC=/sys/kernel/debug/rdnafix_realcall/result
unload_all >/dev/null
if ! load_deps; then
	result realcall_setup FAIL "loading amdgpu's dependencies failed"
	return 0
fi
kv=$(uname -r)
case $kv in
6.1.*) nr10=0 coh=0x67 proto=v1 nleak=5 ;;
6.*) nr10=0 coh=0x3000000000067 proto=v1 nleak=9 ;;
*) nr10=1 coh=0x3000000000067 proto=v2 nleak=0 ;;
esac
# field VALUE of the line "DEV WHAT ..." in result text $1
rcv() { echo "$1" | sed -n "s/^$2 $3 .*$4=\([^ ]*\).*/\1/p"; }
rcnr() { echo "$1" | sed -n "s/^$2 noretry \(-\{0,1\}[0-9]*\)$/\1/p"; }

insmod /mod/rdnafix.ko noretry=0 vm_fragment_size=6 mtype_sysmem=uc || FAILS="$FAILS insmod-rdnafix"
insmod /mod/amdgpu.ko || FAILS="$FAILS insmod-amdgpu"
expect_hooks rdnafix-first active active active active
# the GFX11/GFX12 hub functions that read amdgpu_noretry directly (objdump -dr
# of amdgpu.ko: 5 on 6.1, 9 on 6.12, none on 7.2) each get a probe; the load
# offsets are printed (they match objdump -dr of the same amdgpu.ko)
setup_fails=$FAILS
FAILS=
rd $RF/leak_readers | sed 's/^/VM: leak_readers: /'
expect_eq probed "$(grep -c ' probed: load at +0x[0-9a-f]*$' $RF/leak_readers)" $nleak
expect_eq failed "$(grep -c ' failed\| not probed: [a-z]' $RF/leak_readers)" 0
expect_eq leaks "$(rd $RF/leaks)" 0
report realcall_leak_readers "$nleak hub readers of amdgpu_noretry probed in the real amdgpu"
FAILS=$setup_fails
bid=$(od -An -v -tx1 /sys/module/amdgpu/notes/.note.gnu.build-id | tr -d ' \n' | cut -c33-)
insmod /mod/rdnafix_realcall.ko amdgpu_build_id="$bid" || FAILS="$FAILS insmod-realcall"
with=$(rd $RC)
# rdnafix keeps pointers to the devices it saw: it goes first
rmmod rdnafix || FAILS="$FAILS rmmod-rdnafix"
rmmod rdnafix_realcall || FAILS="$FAILS rmmod-realcall"
# mtype_sysmem=wc, rdnafix armed on the loaded amdgpu
insmod /mod/rdnafix.ko mtype_sysmem=wc || FAILS="$FAILS insmod-rdnafix-wc"
insmod /mod/rdnafix_realcall.ko amdgpu_build_id="$bid" || FAILS="$FAILS insmod-realcall-wc"
with_wc=$(rd $RC)
rmmod rdnafix || FAILS="$FAILS rmmod-rdnafix-wc"
rmmod rdnafix_realcall || FAILS="$FAILS rmmod-realcall-wc"
insmod /mod/rdnafix_realcall.ko amdgpu_build_id="$bid" || FAILS="$FAILS insmod-realcall-2"
without=$(rd $RC)
rmmod rdnafix_realcall || FAILS="$FAILS rmmod-realcall-2"
echo "$with" | sed 's/^/VM: realcall with rdnafix: /'
echo "$with_wc" | sed 's/^/VM: realcall with rdnafix mtype_sysmem=wc: /'
echo "$without" | sed 's/^/VM: realcall without rdnafix: /'
report realcall_setup "amdgpu build id $bid, $(echo "$without" | head -1)"

expect_eq proto "$(echo "$without" | sed -n 's/.*pte_prototype=\([a-z0-9]*\).*/\1/p')" $proto
expect_eq skipped "$(echo "$without$with" | grep -c ' skip ')" 0
report realcall_prototype "gmc_v10_0_get_vm_pte prototype $proto, nothing skipped"

expect_eq navi21 "$(rcnr "$without" navi21)" 1
expect_eq navi10 "$(rcnr "$without" navi10)" $nr10
report realcall_noretry_amdgpu "amdgpu's own gmc.noretry: GC 10.3.0 -> 1, GC 10.1.10 -> $nr10"
expect_eq navi21 "$(rcnr "$with" navi21)" 0
expect_eq navi10 "$(rcnr "$with" navi10)" 0
report realcall_noretry_rdnafix "gmc.noretry with rdnafix noretry=0: 0 on both"

for d in navi21 navi10; do
	expect_eq $d.frag "$(rcv "$without" $d vm fragment_size)" 9
	expect_eq $d.max_pfn "$(rcv "$without" $d vm max_pfn)" 68719476736
	expect_eq $d.num_level "$(rcv "$without" $d vm num_level)" 3
	expect_eq $d.block_size "$(rcv "$without" $d vm block_size)" 9
	# a 4-level table is rooted at AMDGPU_VM_PDB2 (1 on 7.2, which added PDB3)
	expect_eq $d.root_level "$(rcv "$without" $d vm root_level)" "$(rcv "$without" $d vm pdb2)"
done
report realcall_vm_amdgpu "$(echo "$without" | grep '^navi21 vm')"
for d in navi21 navi10; do
	expect_eq $d.frag "$(rcv "$with" $d vm fragment_size)" 6
	for f in max_pfn num_level block_size root_level; do
		expect_eq $d.$f "$(rcv "$with" $d vm $f)" "$(rcv "$without" $d vm $f)"
	done
done
report realcall_vm_rdnafix "vm_manager.fragment_size 6 with rdnafix, the rest as amdgpu's"

for d in navi21 navi10; do
	expect_eq $d.default "$(rcv "$without" $d pte default)" 0x67
	expect_eq $d.uc "$(rcv "$without" $d pte uc)" 0x3000000000067
	expect_eq $d.coherent "$(rcv "$without" $d pte coherent)" $coh
done
report realcall_pte_amdgpu "$(echo "$without" | grep '^navi21 pte')"
for d in navi21 navi10; do
	for c in default uc coherent; do
		expect_eq $d.$c "$(rcv "$with" $d pte $c)" 0x3000000000067
	done
done
report realcall_pte_rdnafix "$(echo "$with" | grep '^navi21 pte')"
# wc: amdgpu's NC becomes WC (1 << 48); its deliberate UC stays (mtype_override=nc)
for d in navi21 navi10; do
	expect_eq $d.default "$(rcv "$with_wc" $d pte default)" 0x1000000000067
	expect_eq $d.uc "$(rcv "$with_wc" $d pte uc)" 0x3000000000067
	if [ "$coh" = 0x67 ]; then
		expect_eq $d.coherent "$(rcv "$with_wc" $d pte coherent)" 0x1000000000067
	else
		expect_eq $d.coherent "$(rcv "$with_wc" $d pte coherent)" "$coh"
	fi
done
report realcall_pte_rdnafix_wc "$(echo "$with_wc" | grep '^navi21 pte')"

# a foreign amdgpu build: every call refused with a reason, nothing called
insmod /mod/rdnafix_realcall.ko amdgpu_build_id=0123456789abcdef || FAILS="$FAILS insmod-realcall-foreign"
foreign=$(rd $RC)
rmmod rdnafix_realcall || FAILS="$FAILS rmmod-realcall-foreign"
expect_eq skips "$(echo "$foreign" | grep -c ' skip running amdgpu is not the amdgpu.ko whose BTF gave the offsets')" 6
report realcall_refuses_foreign "$(echo "$foreign" | sed -n 2p)"
# a get_vm_pte prototype the module was not written for: that call refused
# with the reason, the other two still made
insmod /mod/rdnafix_realcall.ko amdgpu_build_id="$bid" \
	btf_pte_proto="void (struct amdgpu_device *, uint64_t *)" || FAILS="$FAILS insmod-realcall-proto"
other=$(rd $RC)
rmmod rdnafix_realcall || FAILS="$FAILS rmmod-realcall-proto"
expect_eq pte-skips "$(echo "$other" | grep -c ' pte skip BTF prototype is not one this module can call')" 2
expect_eq navi21 "$(rcnr "$other" navi21)" 1
report realcall_refuses_prototype "$(echo "$other" | grep -m1 ' pte ')"
rmmod amdgpu || FAILS="$FAILS rmmod-amdgpu"
report realcall_unload "nothing left loaded"
dmesg_check realcall
