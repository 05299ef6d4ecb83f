# shellcheck shell=sh
# (K3) The refusal matrix: rdnafix built with crafted rdnafix_conftest.h
# headers (tests/vm/matrix/*.h, in /mod/matrix/<case>/) and the mock amdgpu
# in shapes no tested kernel has (tests/vm/mock-amdgpu/mock_variants.h).
# Every case loads rdnafix with noretry=1 vm_fragment_size=6 mtype_sysmem=uc
# (so it WOULD write), probes one targeted RDNA2 device and makes one
# get_vm_pte call for system memory; the mock answers what amdgpu saw and
# what the flags word held after the hooks.  A refusal must leave all of it
# as amdgpu had it, and say so in hooks/, pte_prototype, calls, evidence.
# Leaves nothing loaded.
CTL=/sys/kernel/debug/mock_amdgpu/ctl
MX=/mod/matrix
MOCK=/mod/mock/amdgpu.ko
SYS=0x3			# VALID | SYSTEM, left at NC by amdgpu
UC=0x3000000000003	# what rdnafix (mtype_sysmem=uc) makes of it
UAPI=0x2007		# mock_variants.h MOCK_UAPI_VALUE
AMDGPU_OWN="0 0 -1 9"	# noretry_param noretry frag_param frag without rdnafix
RDNAFIX_VALUES="1 1 6 6"

mock() {
	if echo "$*" >"$CTL" 2>/dev/null; then cat "$CTL"; else echo "ERR"; fi
}
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
# hdr CASE DEFINE: the value the crafted header gives DEFINE (quotes removed)
hdr() { sed -n "s/^#define $2 //p" "$MX/$1/conftest.h" | sed 's/^"\(.*\)"$/\1/'; }
hook() { rd "$RF/hooks/$1"; }
short() { echo "$1" | cut -c1-"${2:-60}"; }

# mx_load RDNAFIX_KO MOCK_KO [MOCK PARAMS...]: both freshly loaded
mx_load() {
	_ko=$1 _mk=$2 A='' F='' O='' P=''
	shift 2
	unload_all >/dev/null || FAILS="$FAILS unload-before"
	if ! insmod "$_ko" noretry=1 vm_fragment_size=6 mtype_sysmem=uc; then
		FAILS="$FAILS insmod:$_ko"
		return 1
	fi
	if ! insmod "$_mk" noretry=0 "$@"; then
		FAILS="$FAILS insmod:$_mk:$*"
		return 1
	fi
}
# mx_probe: Navi22 (RDNA2, targeted) in slot 0 at 0000:03:00.0;
# P="noretry_param noretry frag_param frag" as amdgpu saw them
mx_probe() {
	_a=$(mock probe 0 1002 73df 0000:03:00.0)
	P="$(field noretry_param "$_a") $(field noretry "$_a") $(field frag_param "$_a") $(field frag "$_a")"
	wait_for "$RF/devices/0000:03:00.0/reason" || FAILS="$FAILS no-sysfs-dir"
}
# mx_pte PTE MTYPE: one get_vm_pte on slot 0; A: what amdgpu wrote,
# F: the flags word after the hooks, O: the other pointer argument's object
mx_pte() {
	_a=$(mock pte 0 "$1" "$2")
	A=$(field amdgpu "$_a") F=$(field final "$_a") O=$(field other "$_a")
}
# expect_untouched LABEL VALUE: amdgpu wrote VALUE and nothing changed it
expect_untouched() {
	expect_eq "$1:amdgpu" "$A" "$2"
	expect_eq "$1:final" "$F" "$2"
	expect_eq "$1:other" "$O" "$2"
	expect_eq "$1:pte_rewrites" "$(rd "$RF/devices/0000:03:00.0/pte_rewrites")" 0
}
# expect_evidence CASE: /sys/kernel/rdnafix/evidence is the header, as built
expect_evidence() {
	_e=$RF/evidence
	expect_eq "$1:evidence:origin" "$(sed -n 's/^amdgpu_origin: //p' "$_e" 2>&1)" \
		"$(hdr "$1" RDNAFIX_AMDGPU_ORIGIN)"
	expect_eq "$1:evidence:path" "$(sed -n 's/^amdgpu_path: //p' "$_e" 2>&1)" \
		"$(hdr "$1" RDNAFIX_AMDGPU_PATH)"
	expect_eq "$1:evidence:prototypes" "$(sed -n 's/^prototypes: //p' "$_e" 2>&1)" \
		"$(hdr "$1" RDNAFIX_BTF_PROTO_TEXT)"
	expect_eq "$1:evidence:pte_audit" "$(sed -n 's/^pte_audit: //p' "$_e" 2>&1)" \
		"$(hdr "$1" RDNAFIX_AUDIT_PTE) $(hdr "$1" RDNAFIX_AUDIT_PTE_TEXT)"
}
# expect_refusing HOOK: calls seen, every one refused (state word and calls line)
expect_refusing() {
	expect_prefix "$1:state" "$(hook "$1")" "refusing: "
	_c=$(grep "^$1 " "$RF/calls" 2>/dev/null)
	_s=$(field seen "$_c")
	_r=$(field refused "$_c")
	case "$_s" in
	'' | *[!0-9]* | 0) FAILS="$FAILS $1:calls=[$_c]" ;;
	*) [ "$_s" = "$_r" ] || FAILS="$FAILS $1:calls=[$_c]" ;;
	esac
}

# --- positive control: an untested series whose audit proved the stack
# local arms the PTE hook and rewrites (so the refusals below are the
# evidence's doing, not a broken build)
c=untested-audit1
if mx_load "$MX/$c/rdnafix.ko" $MOCK; then
	expect_hooks $c active active active active
	mx_probe
	expect_eq $c:probe "$P" "$RDNAFIX_VALUES"
	expect_prefix $c:pte_prototype "$(rd "$RF/pte_prototype")" "flags=argument 3 of 3"
	mx_pte $SYS nc
	expect_eq $c:amdgpu "$A" $SYS
	expect_eq $c:final "$F" $UC
	expect_eq $c:other "$O" $SYS
	expect_evidence $c
fi
report matrix_untested_audit1_arms "audit 1 on 6.99: get_vm_pte=[$(short "$(hook get_vm_pte)")] pte $A->$F"

# --- get_vm_pte with 5 arguments while gmc_v10_0_map_mtype is still there
c=untested-audit1-5args
if mx_load "$MX/$c/rdnafix.ko" $MX/mock-5map/amdgpu.ko; then
	mx_probe
	expect_eq $c:probe "$P" "$RDNAFIX_VALUES"
	expect_hooks $c active active active "inactive: "
	expect_prefix $c:pte_prototype "$(rd "$RF/pte_prototype")" "refused: "
	mx_pte $SYS nc
	expect_untouched $c $SYS
	expect_evidence $c
fi
report matrix_pte_5args_map_mtype "get_vm_pte=[$(short "$(hook get_vm_pte)" 90)] pte $A->$F bo $O"

# --- get_vm_pte with 3 arguments and no gmc_v10_0_map_mtype
c=untested-audit1
if mx_load "$MX/$c/rdnafix.ko" $MX/mock-3nomap/amdgpu.ko; then
	mx_probe
	expect_eq $c:probe "$P" "$RDNAFIX_VALUES"
	expect_hooks $c-3nomap active active active "inactive: "
	expect_prefix $c-3nomap:pte_prototype "$(rd "$RF/pte_prototype")" "refused: "
	mx_pte $SYS nc
	expect_untouched $c-3nomap $SYS
fi
report matrix_pte_3args_no_map_mtype "get_vm_pte=[$(short "$(hook get_vm_pte)" 90)] pte $A->$F"

# --- untested series, the tested shape, the audit DISPROVED the stack local
c=untested-audit0
if mx_load "$MX/$c/rdnafix.ko" $MOCK; then
	mx_probe
	expect_eq $c:probe "$P" "$RDNAFIX_VALUES"
	expect_hooks $c active active active "inactive: "
	expect_prefix $c:pte_prototype "$(rd "$RF/pte_prototype")" "refused: "
	mx_pte $SYS nc
	expect_untouched $c $SYS
	expect_evidence $c
fi
report matrix_untested_audit0 "get_vm_pte=[$(short "$(hook get_vm_pte)" 90)] pte $A->$F"

# --- untested series, the tested shape, no audit result
c=untested-audit-none
if mx_load "$MX/$c/rdnafix.ko" $MOCK; then
	mx_probe
	expect_eq $c:probe "$P" "$RDNAFIX_VALUES"
	expect_hooks $c active active active "inactive: "
	expect_prefix $c:pte_prototype "$(rd "$RF/pte_prototype")" "refused: "
	mx_pte $SYS nc
	expect_untouched $c $SYS
	expect_evidence $c
fi
report matrix_untested_audit_unknown "get_vm_pte=[$(short "$(hook get_vm_pte)" 90)] pte $A->$F"

# --- BTF prototype mismatch (RDNAFIX_BTF_PROTO_*=0) on the tested series:
# noretry_set and get_vm_pte refused, pci_probe and vm_adjust_size armed
c=proto-mismatch
if mx_load "$MX/$c/rdnafix.ko" $MOCK; then
	mx_probe
	expect_eq $c:probe "$P" "0 0 6 6"
	expect_hooks $c active "inactive: " active "inactive: "
	mx_pte $SYS nc
	expect_untouched $c $SYS
	expect_evidence $c
fi
report matrix_proto_mismatch "noretry_set=[$(short "$(hook noretry_set)" 50)] probe $P pte $A->$F"

# --- untested series without BTF evidence (-1) for noretry_set and
# vm_adjust_size: those two refused ("prototype not proven"), the proven two armed
c=untested-proto-unknown
if mx_load "$MX/$c/rdnafix.ko" $MOCK; then
	mx_probe
	expect_eq $c:probe "$P" "$AMDGPU_OWN"
	expect_hooks $c active "inactive: " "inactive: " active
	expect_eq $c:amdgpu.noretry "$(rd /sys/module/amdgpu/parameters/noretry)" 0
	mx_pte $SYS nc
	expect_eq $c:final "$F" $UC	# the proven PTE hook works
	expect_evidence $c
fi
report matrix_untested_proto_unknown "vm_adjust_size=[$(short "$(hook vm_adjust_size)" 50)] probe $P pte $A->$F"

# --- the flags pointer leads to the heap (tested series, the module as built)
if mx_load /mod/rdnafix.ko $MOCK mock_pte_flags=heap; then
	mx_probe
	expect_eq heap:probe "$P" "$RDNAFIX_VALUES"
	expect_hooks heap active active active active
	p0=$(rd "$RF/pte_refused_pointer")
	mx_pte $SYS nc
	expect_untouched heap $SYS
	expect_eq heap:refused_pointer "$(rd "$RF/pte_refused_pointer")" $((p0 + 1))
	expect_refusing get_vm_pte
fi
report matrix_flags_heap "get_vm_pte=[$(short "$(hook get_vm_pte)" 90)] pte $A->$F"

# --- the flags pointer leads to a stack u64 that is no PTE flag word
if mx_load /mod/rdnafix.ko $MOCK mock_pte_flags=uapi; then
	mx_probe
	expect_eq uapi:probe "$P" "$RDNAFIX_VALUES"
	v0=$(rd "$RF/pte_refused_entry_value")
	mx_pte $SYS nc
	expect_untouched uapi $UAPI
	expect_eq uapi:refused_entry_value "$(rd "$RF/pte_refused_entry_value")" $((v0 + 1))
	expect_refusing get_vm_pte
fi
report matrix_flags_uapi "get_vm_pte=[$(short "$(hook get_vm_pte)" 90)] pte $A->$F"

# --- amdgpu_gmc_noretry_set's arg 0 is no amdgpu_device (the layout check)
if mx_load /mod/rdnafix.ko $MOCK mock_noretry_arg=gmc; then
	mx_probe
	expect_eq notadev:probe "$P" "$AMDGPU_OWN"
	expect_prefix notadev:reason "$(rd "$RF/devices/0000:03:00.0/reason")" \
		"refused: layout check failed"
	expect_eq notadev:noretry_applied "$(rd "$RF/devices/0000:03:00.0/noretry_applied")" -1
	expect_eq notadev:amdgpu.noretry "$(rd /sys/module/amdgpu/parameters/noretry)" 0
	expect_refusing noretry_set
	mx_pte $SYS nc
	expect_untouched notadev $SYS
fi
report matrix_noretry_not_adev "noretry_set=[$(short "$(hook noretry_set)" 90)] probe $P"

unload_all >/dev/null || FAILS="$FAILS unload-after"
report matrix_unload "rdnafix and the mock unloaded"
dmesg_check matrix
