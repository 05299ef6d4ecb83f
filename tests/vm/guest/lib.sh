# shellcheck shell=sh
# Helpers for the guest test scripts (busybox sh).
# Result lines: "RESULT <name> PASS|FAIL|SKIP <detail>" -- the host runner
# parses them; every name it expects must appear exactly once.

# Result lines go to the console and to ttyS1 (a clean channel without
# kernel messages, read by the host runner).
result() {
	_n=$1 _s=$2
	shift 2
	echo "RESULT $_n $_s $*"
	[ -c /dev/ttyS1 ] && echo "RESULT $_n $_s $*" >/dev/ttyS1
}

# expect_eq NAME ACTUAL EXPECTED: collect mismatches into $FAILS
FAILS=
expect_eq() {
	if [ "$2" != "$3" ]; then FAILS="$FAILS $1=[$2]!=[$3]"; fi
}
# expect_prefix NAME ACTUAL PREFIX
expect_prefix() {
	case "$2" in
	"$3"*) ;;
	*) FAILS="$FAILS $1=[$2]!~[$3*]" ;;
	esac
}
# report NAME PASS-DETAIL: PASS if no mismatch was collected since the last report
report() {
	if [ -z "$FAILS" ]; then result "$1" PASS "$2"; else result "$1" FAIL "$FAILS"; fi
	FAILS=
}

# wait_for PATH [tenths]: poll until PATH exists (sysfs dirs made from work items)
wait_for() {
	_i=0
	while [ ! -e "$1" ] && [ $_i -lt "${2:-200}" ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	[ -e "$1" ]
}

unload_all() {
	rmmod rdnafix 2>/dev/null
	rmmod amdgpu 2>/dev/null
	! is_loaded rdnafix && ! is_loaded amdgpu
}

# check NAME DETAIL-ON-FAIL command...
check() {
	_n=$1 _d=$2
	shift 2
	if "$@"; then result "$_n" PASS; else result "$_n" FAIL "$_d"; fi
}

# read a sysfs file ("<missing>" if absent)
rd() {
	if [ -e "$1" ]; then cat "$1" 2>/dev/null || echo "<unreadable>"; else echo "<missing>"; fi
}

is_loaded() { [ -d "/sys/module/$1" ] && [ "$(rd "/sys/module/$1/initstate")" = live ]; }

load_deps() {
	for _f in $(cat /mod/deps.list); do
		_m=${_f#??-}
		_m=${_m%.ko}
		_m=$(echo "$_m" | tr - _)
		[ -d "/sys/module/$_m" ] && continue
		insmod "/mod/deps/$_f" || { echo "VM: insmod $_f failed"; return 1; }
	done
}

# Patterns that must never appear in the kernel log.
BAD_RE='BUG:|WARNING:|Oops|Call Trace|general protection|Kernel panic|refcount_t|UBSAN|kmemleak'

dmesg_check() {
	_bad=$(dmesg | grep -E "$BAD_RE" | head -3 | tr '\n' '|')
	if [ -z "$_bad" ]; then result "dmesg_clean_$1" PASS; else result "dmesg_clean_$1" FAIL "$_bad"; fi
}

RF=/sys/kernel/rdnafix
# shellcheck disable=SC2034
RP=/sys/module/rdnafix/parameters
HOOKS="pci_probe noretry_set vm_adjust_size get_vm_pte"

# every hook file's value, one line
hooks_summary() {
	_o=
	for _h in $HOOKS; do _o="$_o $_h=[$(rd "$RF/hooks/$_h")]"; done
	echo "$_o"
}

# expect_hooks LABEL STATE-PREFIX-FOR pci_probe noretry_set vm_adjust_size get_vm_pte
expect_hooks() {
	_l=$1
	shift
	for _h in $HOOKS; do
		expect_prefix "$_l:hooks/$_h" "$(rd "$RF/hooks/$_h")" "$1"
		shift
	done
}
