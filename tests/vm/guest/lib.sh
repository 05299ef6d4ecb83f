# shellcheck shell=sh
# Helpers for the guest test scripts (busybox sh).
# Result lines: "RESULT <name> PASS|FAIL|SKIP <detail>" -- the host runner
# parses them; every name it expects must appear exactly once.

result() {
	_n=$1 _s=$2
	shift 2
	echo "RESULT $_n $_s $*"
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
RP=/sys/module/rdnafix/parameters
HOOKS="pci_probe noretry_set vm_adjust_size get_vm_pte"

# all_hooks_state PREFIX: true when every hook file starts with PREFIX
hooks_summary() {
	_o=
	for _h in $HOOKS; do _o="$_o $_h=[$(rd "$RF/hooks/$_h")]"; done
	echo "$_o"
}
