# shellcheck shell=sh
# (c) rdnafix against the test-only mock amdgpu (module named "amdgpu"):
# fake probes of RDNA1/RDNA2/RDNA3/excluded/bad-layout devices and
# get_vm_pte calls; asserts what "amdgpu" saw.  Leaves rdnafix and the mock
# loaded with devices for the rdnactl suite.
CTL=/sys/kernel/debug/mock_amdgpu/ctl
MOCK=/mod/mock/amdgpu.ko
unload_all >/dev/null

# mock CMD...: run one mock command, print its answer ("ERR" on failure)
mock() {
	if echo "$*" >"$CTL" 2>/dev/null; then cat "$CTL"; else echo "ERR"; fi
}
# field NAME "k=v k=v": value of k
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
D=$RF/devices
SYS=0x3		# VALID | SYSTEM
VRAM=0x1	# VALID
PRT=0x8000000000003	# PRT | VALID | SYSTEM
UC=0x3000000000003 WC=0x1000000000003 CCV=0x2000000000001

if ! insmod /mod/rdnafix.ko noretry=1 vm_fragment_size=6 mtype_sysmem=uc \
	exclude=gfx1032,0000:08:00.0; then
	result mock_setup FAIL "insmod rdnafix failed"
	return 0
fi
expect_eq amdgpu "$(rd $RF/amdgpu)" absent
expect_hooks before-amdgpu "pending" "pending" "pending" "pending"
report mock_hooks_without_amdgpu "$(hooks_summary)"

if ! insmod $MOCK noretry=0; then
	result mock_setup FAIL "insmod mock amdgpu failed"
	return 0
fi
expect_eq amdgpu "$(rd $RF/amdgpu)" live
expect_hooks rdnafix-first active active active active
report mock_hooks_rdnafix_first "$(hooks_summary)"

# --- fake probes: what amdgpu saw for noretry / vm_fragment_size
# slot vendor device bdf [badlayout] | expected "noretry_param noretry frag_param frag"
probe_expect() {
	_a=$(mock probe "$1" "$2" "$3" "$4" $6)
	_got="$(field noretry_param "$_a") $(field noretry "$_a") $(field frag_param "$_a") $(field frag "$_a")"
	expect_eq "probe$1:$3@$4" "$_got" "$5"
}
probe_expect 0 1002 731f 0000:03:00.0 "1 1 6 6"	# RDNA1 Navi10: targeted
probe_expect 1 1002 73df 0000:04:00.0 "1 1 6 6"	# RDNA2 Navi22: targeted
probe_expect 2 1002 744c 0000:05:00.0 "0 0 -1 9"	# RDNA3 Navi31: never
probe_expect 3 1002 73ff 0000:06:00.0 "0 0 -1 9"	# Navi23, excluded by gfx1032
probe_expect 4 1002 7340 0000:08:00.0 "0 0 -1 9"	# Navi14, excluded by address
probe_expect 5 1002 73bf 0000:07:00.0 "0 0 -1 9" badlayout
expect_eq amdgpu.noretry-restored "$(rd /sys/module/amdgpu/parameters/noretry)" 0
expect_eq amdgpu.vm_fragment_size-restored "$(rd /sys/module/amdgpu/parameters/vm_fragment_size)" -1
report mock_probe_policy "rdna1/rdna2 got noretry=1 frag=6, others amdgpu's own"

# --- sysfs per device
for b in 03 04 05 06 07 08; do wait_for "$D/0000:$b:00.0/reason"; done
dev() { rd "$D/$1/$2"; }
expect_eq 03:targeted "$(dev 0000:03:00.0 targeted)" 1
expect_eq 03:pci_id "$(dev 0000:03:00.0 pci_id)" 1002:731f
expect_eq 03:gfx "$(dev 0000:03:00.0 gfx_target)" gfx1010
expect_eq 03:gen "$(dev 0000:03:00.0 generation)" rdna1
expect_eq 03:noretry_req "$(dev 0000:03:00.0 noretry_requested)" 1
expect_eq 03:noretry_app "$(dev 0000:03:00.0 noretry_applied)" 1
expect_eq 03:frag_req "$(dev 0000:03:00.0 fragment_size_requested)" 6
expect_eq 03:frag_app "$(dev 0000:03:00.0 fragment_size_applied)" 6
expect_eq 03:mtype_sysmem "$(dev 0000:03:00.0 mtype_sysmem)" uc
expect_eq 03:mtype_vram "$(dev 0000:03:00.0 mtype_vram)" keep
expect_eq 04:targeted "$(dev 0000:04:00.0 targeted)" 1
expect_eq 04:gfx "$(dev 0000:04:00.0 gfx_target)" gfx1031
expect_eq 04:gen "$(dev 0000:04:00.0 generation)" rdna2
expect_eq 05:targeted "$(dev 0000:05:00.0 targeted)" 0
expect_eq 05:gen "$(dev 0000:05:00.0 generation)" other
expect_eq 05:gfx "$(dev 0000:05:00.0 gfx_target)" unknown
expect_eq 05:noretry_app "$(dev 0000:05:00.0 noretry_applied)" -1
expect_eq 06:targeted "$(dev 0000:06:00.0 targeted)" 0
expect_prefix 06:reason "$(dev 0000:06:00.0 reason)" "not targeted: excluded by 'gfx1032'"
expect_eq 08:targeted "$(dev 0000:08:00.0 targeted)" 0
expect_prefix 08:reason "$(dev 0000:08:00.0 reason)" "not targeted: excluded by '0000:08:00.0'"
expect_eq 07:targeted "$(dev 0000:07:00.0 targeted)" 0
expect_prefix 07:reason "$(dev 0000:07:00.0 reason)" "refused: layout check failed"
expect_eq 07:noretry_app "$(dev 0000:07:00.0 noretry_applied)" -1
# calls: six probes since amdgpu was armed; the bad-layout one refused by the init-time hooks
expect_eq calls:pci_probe "$(grep '^pci_probe ' $RF/calls)" "pci_probe seen=6 refused=0"
expect_eq calls:noretry_set "$(grep '^noretry_set ' $RF/calls)" "noretry_set seen=6 refused=1"
expect_eq calls:vm_adjust_size "$(grep '^vm_adjust_size ' $RF/calls)" "vm_adjust_size seen=6 refused=1"
expect_eq hooks/noretry_set-some-refused "$(rd $RF/hooks/noretry_set)" active
report mock_sysfs_devices "6 devices: targeted, excluded (gfx, address), rdna3, refused"

# --- MTYPE rewrite (mtype_sysmem=uc, mtype_vram=keep)
pte_expect() {	# slot pte mtype expected-final [expected-amdgpu]
	_a=$(mock pte "$1" "$2" "$3")
	expect_eq "pte$1:$2:$3" "$(field final "$_a")" "$4"
	[ -z "$5" ] || expect_eq "pte$1:$2:$3:amdgpu" "$(field amdgpu "$_a")" "$5"
}
pte_expect 0 $SYS nc $UC $SYS		# RDNA1 sysmem: NC -> UC
pte_expect 0 $VRAM nc $VRAM $VRAM	# VRAM: keep
pte_expect 0 $SYS uc $UC $UC		# already UC: nothing to do
pte_expect 0 $PRT nc $PRT		# PRT entries are left alone
pte_expect 1 $SYS wc $WC $WC		# RDNA2 sysmem: WC asked for, kept (mtype_override=nc)
pte_expect 2 $SYS nc $SYS		# RDNA3: never
pte_expect 3 $SYS nc $SYS		# excluded
pte_expect 4 $SYS nc $SYS		# excluded by address
pte_expect 5 $SYS nc $SYS		# refused (layout)
expect_eq 03:pte_calls "$(dev 0000:03:00.0 pte_calls)" 4
expect_eq 03:pte_rewrites "$(dev 0000:03:00.0 pte_rewrites)" 1
expect_eq 03:pte_would "$(dev 0000:03:00.0 pte_would_rewrite)" 1
expect_eq 04:pte_rewrites "$(dev 0000:04:00.0 pte_rewrites)" 0
expect_eq 05:pte_rewrites "$(dev 0000:05:00.0 pte_rewrites)" 0
expect_eq 06:pte_rewrites "$(dev 0000:06:00.0 pte_rewrites)" 0
expect_eq 06:pte_would "$(dev 0000:06:00.0 pte_would_rewrite)" 0
expect_eq 07:pte_rewrites "$(dev 0000:07:00.0 pte_rewrites)" 0
report mock_pte_mtype "sysmem NC rewritten to UC only on targeted devices, VRAM/PRT/WC kept"

# --- runtime changes apply to the next call
echo wc >$RP/mtype_sysmem
pte_expect 0 $SYS nc $WC
expect_eq 03:mtype_sysmem-after-write "$(dev 0000:03:00.0 mtype_sysmem)" wc
echo keep >$RP/mtype_sysmem
pte_expect 0 $SYS nc $SYS
echo cc >$RP/mtype_vram
pte_expect 0 $VRAM nc $CCV
pte_expect 0 $SYS nc $SYS		# sysmem still keep
echo keep >$RP/mtype_vram
pte_expect 0 $VRAM nc $VRAM
report mock_pte_runtime_change "mtype_sysmem uc->wc->keep, mtype_vram keep->cc->keep took effect on the next call"

# --- dry_run: decide and count, change nothing
echo uc >$RP/mtype_sysmem
echo 1 >$RP/dry_run
expect_eq dry_run "$(rd $RF/dry_run)" 1
rw0=$(dev 0000:03:00.0 pte_rewrites)
wo0=$(dev 0000:03:00.0 pte_would_rewrite)
pte_expect 0 $SYS nc $SYS $SYS
expect_eq dry:03:pte_rewrites "$(dev 0000:03:00.0 pte_rewrites)" "$rw0"
expect_eq dry:03:pte_would "$(dev 0000:03:00.0 pte_would_rewrite)" $((wo0 + 1))
probe_expect 6 1002 73a1 0000:09:00.0 "0 0 -1 9"	# Navi21, targeted, dry run
wait_for "$D/0000:09:00.0/targeted"
expect_eq dry:09:targeted "$(dev 0000:09:00.0 targeted)" 1
expect_eq dry:09:noretry_app "$(dev 0000:09:00.0 noretry_applied)" -1
expect_eq dry:09:frag_app "$(dev 0000:09:00.0 fragment_size_applied)" -1
echo 0 >$RP/dry_run
pte_expect 0 $SYS nc $UC
report mock_dry_run "dry_run=1 counted a would-rewrite and changed no PTE and no noretry/fragment"

# --- amdgpu's deliberate UC and invalid entries are kept unless mtype_override=any
echo wc >$RP/mtype_sysmem
expect_eq mtype_override-default "$(rd $RP/mtype_override)" nc
pte_expect 0 $SYS uc $UC $UC		# amdgpu chose UC (coherent): kept
pte_expect 0 0x2 nc 0x2 0x2		# SYSTEM without VALID: not a mapping, kept
pte_expect 0 $SYS nc $WC $SYS		# amdgpu's default NC: rewritten
echo any >$RP/mtype_override
pte_expect 0 $SYS uc $WC $UC		# opt-in: UC overridden
pte_expect 0 0x2 nc 0x2 0x2		# still not a mapping
echo nc >$RP/mtype_override
pte_expect 0 $SYS uc $UC $UC
echo uc >$RP/mtype_sysmem
report mock_pte_respect_uc "UC and invalid entries kept by default; UC overridden only with mtype_override=any"

# --- never write through an unproven pointer (issue 10 item 1)
expect_prefix pte_prototype "$(rd $RF/pte_prototype)" "flags=argument"
# an entry value with bits no PTE flag word holds (an address) is refused
ev0=$(rd $RF/pte_refused_entry_value)
rw0=$(dev 0000:03:00.0 pte_rewrites)
pte_expect 0 0x1000000003 nc 0x1000000003 0x1000000003
expect_eq refused_entry_value "$(rd $RF/pte_refused_entry_value)" $((ev0 + 1))
expect_eq refused_entry:03:pte_rewrites "$(dev 0000:03:00.0 pte_rewrites)" "$rw0"
report mock_pte_refuse_value "a flags word with address bits was refused and left as amdgpu wrote it"

# a mock whose get_vm_pte takes the flags BY VALUE where the kernel's takes
# the pointer (and the pointer one argument later): every call is refused
if [ -f /mod/mock-variant/amdgpu.ko ] && rmmod amdgpu &&
	expect_prefix proto-after-rmmod "$(rd $RF/pte_prototype)" "not decided" &&
	insmod /mod/mock-variant/amdgpu.ko; then
	expect_hooks variant active active active active
	p0=$(rd $RF/pte_refused_pointer)
	probe_expect 0 1002 73df 0000:0a:00.0 "1 1 6 6"
	wait_for "$D/0000:0a:00.0/targeted"
	pte_expect 0 $SYS nc $SYS $SYS		# would be UC through a proven pointer
	pte_expect 0 $SYS wc $WC $WC
	expect_eq variant:refused_pointer "$(rd $RF/pte_refused_pointer)" $((p0 + 2))
	expect_eq variant:0a:pte_calls "$(dev 0000:0a:00.0 pte_calls)" 2
	expect_eq variant:0a:pte_rewrites "$(dev 0000:0a:00.0 pte_rewrites)" 0
	# a hook that saw calls and refused them all says so (issue 22 item 3)
	expect_eq variant:hooks/get_vm_pte "$(rd $RF/hooks/get_vm_pte)" \
		"refusing: 2 call(s) seen, all refused (flags pointer not on the caller's stack)"
	expect_eq variant:calls "$(grep '^get_vm_pte ' $RF/calls)" "get_vm_pte seen=2 refused=2"
	expect_prefix variant:hooks/pci_remove "$(rd $RF/hooks/pci_remove)" \
		"inactive: register_kretprobe(amdgpu:amdgpu_pci_remove) failed"
	rmmod amdgpu || FAILS="$FAILS rmmod-variant"
	# back to the normal mock for the suites that follow
	insmod $MOCK noretry=0 || FAILS="$FAILS insmod-mock-again"
	probe_expect 0 1002 731f 0000:03:00.0 "1 1 6 6"
else
	FAILS="$FAILS no-variant-or-swap-failed"
fi
report mock_pte_prototype_variant "get_vm_pte with another prototype: refused at the pointer check, hook 'refusing', PTE flags unchanged"

# --- the PTE paths the hook does not see (issue 10 item 3)
nc=$RF/not_covered
expect_eq not_covered:lines "$(grep -c . $nc)" 4
expect_eq not_covered:paths "$(cut -d: -f1 $nc | tr '\n' ' ')" "gart retry-fault svm existing "
case "$(cat /etc/kver)" in
6.1.*|6.12.*) expect_prefix not_covered:svm "$(grep '^svm:' $nc)" "svm: KFD SVM is not built" ;;
7.2.*) expect_prefix not_covered:svm "$(grep '^svm:' $nc)" "svm: covered:" ;;
esac
report mock_not_covered "$(tr '\n' '|' <$nc | cut -c1-80)..."

# --- two devices initialising at the same time (kthreads in the mock): what each
# really received must be what sysfs reports
a=$(mock probe2 1 1002 73df 0000:0d:00.0 2 1002 744c 0000:0e:00.0)
wait_for "$D/0000:0e:00.0/reason"
na=$(echo "$a" | sed -n 's/^a: .*noretry=\([-0-9]*\) .*b:.*/\1/p')
nb=$(echo "$a" | sed -n 's/.* b: .*noretry=\([-0-9]*\) .*/\1/p')
fb=$(echo "$a" | sed -n 's/.* b: .*frag=\([0-9]*\).*/\1/p')
expect_eq par:answer "$(echo "$a" | grep -c 'a: probe=0 .* b: probe=0 ')" 1
expect_eq par:0d:noretry_applied "$(dev 0000:0d:00.0 noretry_applied)" "$na"
expect_eq par:0d:noretry "$na" 1
# the RDNA3 device overlapped the RDNA2 device's swap: it received 1, and says so
expect_eq par:0e:noretry "$nb" 1
expect_eq par:0e:noretry_applied "$(dev 0000:0e:00.0 noretry_applied)" "$nb"
case "$(dev 0000:0e:00.0 reason)" in
"not targeted: 1002:744c is not an RDNA1/RDNA2 (GMC v10) GPU;"*"noretry 1 received from another device"*) ;;
*) FAILS="$FAILS par:0e:reason=[$(dev 0000:0e:00.0 reason)]" ;;
esac
fa=$(dev 0000:0e:00.0 fragment_size_applied)
if [ "$fa" = -1 ]; then expect_eq par:0e:frag-own "$fb" 9; else expect_eq par:0e:frag "$fb" "$fa"; fi
expect_eq par:noretry-restored "$(rd /sys/module/amdgpu/parameters/noretry)" 0
report mock_parallel_probe "two overlapping device inits: each device's sysfs values are what amdgpu gave it"

# --- PCI domains above 0xffff keep all their digits
probe_expect 3 1002 73df 10000:0c:00.0 "1 1 6 6"
wait_for "$D/10000:0c:00.0/targeted"
expect_eq dom:10000:targeted "$(dev 10000:0c:00.0 targeted)" 1
expect_eq dom:no-truncated "$(ls -d $D/0000:0c:00.0 2>/dev/null)" ""
# per-hook missed calls, readable while running
expect_eq nmissed "$(grep -c '^[a-z_]* [0-9][0-9]*$' $RF/nmissed)" 5
expect_eq nmissed:get_vm_pte "$(sed -n 's/^get_vm_pte //p' $RF/nmissed)" 0
report mock_domain_nmissed "domain 10000 kept whole; nmissed lists every hook"

# --- missing (instance and recursion misses), calls, evidence (issue 22 items 2-4)
expect_eq missing:lines "$(grep -c '^[a-z_]* instance=[0-9][0-9]* recursion=[0-9][0-9]*$' $RF/missing)" 5
expect_eq missing:get_vm_pte "$(grep '^get_vm_pte ' $RF/missing)" "get_vm_pte instance=0 recursion=0"
expect_eq calls:lines "$(grep -c '^[a-z_]* seen=[0-9][0-9]* refused=[0-9][0-9]*$' $RF/calls)" 5
expect_eq calls:pte-accepted "$(grep '^get_vm_pte ' $RF/calls | grep -c 'refused=0$')" 1
expect_eq evidence:keys "$(cut -d: -f1 $RF/evidence | tr '\n' ' ')" "amdgpu_origin amdgpu_path prototypes pte_audit "
case "$(grep '^pte_audit: ' $RF/evidence)" in
"pte_audit: -1"* | "pte_audit: 0"* | "pte_audit: 1"*) ;;
*) FAILS="$FAILS evidence:pte_audit=[$(grep pte_audit $RF/evidence)]" ;;
esac
# built by the conftest against Debian's in-tree amdgpu: its audit proved the callers
if [ "$(grep '^amdgpu_origin: ' $RF/evidence)" = "amdgpu_origin: in-tree" ]; then
	expect_prefix evidence:audit "$(grep '^pte_audit: ' $RF/evidence)" "pte_audit: 1 "
	expect_prefix evidence:prototypes "$(grep '^prototypes: ' $RF/evidence)" "prototypes: ok"
fi
report mock_missing_calls_evidence "$(tr '\n' '|' <$RF/evidence | cut -c1-100)"

# --- amdgpu_pci_remove frees the slot and removes the directory (issue 22 item 6):
# 11 addresses are in use; 8 more probe/remove cycles fit in 16 slots only if freed
rm0=$(sed -n 's/^pci_remove seen=\([0-9]*\) .*/\1/p' $RF/calls)
for b in 20 21 22 23 24 25 26 27; do
	probe_expect 7 1002 73df 0000:$b:00.0 "1 1 6 6"
	wait_for "$D/0000:$b:00.0/targeted" || FAILS="$FAILS remove:$b-no-dir"
	[ $b = 20 ] && pte_expect 7 $SYS nc $UC && expect_eq remove:20:pte_calls "$(dev 0000:20:00.0 pte_calls)" 1
	mock remove 7 >/dev/null
	_i=0
	while [ -e "$D/0000:$b:00.0" ] && [ $_i -lt 100 ]; do sleep 0.1; _i=$((_i + 1)); done
	[ -e "$D/0000:$b:00.0" ] && FAILS="$FAILS remove:$b-dir-left"
done
expect_eq remove:seen "$(sed -n 's/^pci_remove seen=\([0-9]*\) .*/\1/p' $RF/calls)" $((rm0 + 8))
probe_expect 7 1002 73df 0000:20:00.0 "1 1 6 6"		# the same address again: a fresh slot
wait_for "$D/0000:20:00.0/pte_calls"
expect_eq remove:20:pte_calls-fresh "$(dev 0000:20:00.0 pte_calls)" 0
expect_eq remove:hooks/pci_remove "$(rd $RF/hooks/pci_remove)" active
report mock_remove_frees_slot "8 probe/remove cycles beyond 11 used slots; each directory removed"

# --- amdgpu still initialising when rdnafix loads: armed at LIVE, strict=1 enforced there
init_then() {	# MOCK-KO RDNAFIX-ARGS...: rdnafix loaded while the mock's init sleeps
	_ko=$1
	shift
	unload_all >/dev/null
	insmod "$_ko" init_ms=2500 &
	_i=0
	while [ "$(rd /sys/module/amdgpu/initstate)" != coming ] && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
	expect_eq initstate-coming "$(rd /sys/module/amdgpu/initstate)" coming
	insmod /mod/rdnafix.ko "$@" || FAILS="$FAILS insmod-rdnafix-$*"
	wait
	expect_eq amdgpu-live "$(rd $RF/amdgpu)" live
}
init_then $MOCK noretry=1
expect_hooks live-arm active pending pending active
expect_eq live-arm:pci_remove "$(rd $RF/hooks/pci_remove)" active
init_then /mod/mock-variant/amdgpu.ko strict=1 noretry=0
expect_hooks strict-live "inactive: strict=1" "inactive: strict=1" "inactive: strict=1" "inactive: strict=1"
expect_prefix strict-live:pci_remove "$(rd $RF/hooks/pci_remove)" "inactive: strict=1"
a=$(mock probe 0 1002 73df 0000:04:00.0)	# rdnafix would swap in noretry=0
expect_eq strict-live:noretry-untouched "$(field noretry_param "$a") $(field noretry "$a")" "-1 1"
report mock_strict_live "armed at LIVE; strict=1 with a hook that cannot be placed disarmed all: $(hooks_summary | cut -c1-60)"

# back to the state the rdnactl suite reads
unload_all >/dev/null
insmod /mod/rdnafix.ko noretry=1 vm_fragment_size=6 mtype_sysmem=uc exclude=gfx1032,0000:08:00.0 &&
	insmod $MOCK noretry=0 && probe_expect 0 1002 731f 0000:03:00.0 "1 1 6 6" &&
	probe_expect 1 1002 744c 0000:05:00.0 "0 0 -1 9" && wait_for "$D/0000:05:00.0/reason"
report mock_restore "rdnafix and the mock loaded again with two devices"
dmesg_check mock
