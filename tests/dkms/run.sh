#!/usr/bin/env bash
# DKMS life cycle test of rdnafix on this host, for every kernel whose
# headers are installed (/lib/modules/<release>/build):
#   make dkms-install (add), dkms build, install, status, uninstall, remove,
#   plus the BUILD_EXCLUSIVE_CONFIG skip on a kernel config without kprobes,
# and checks that nothing is left behind afterwards:
#   dkms status, find /var/lib/dkms /lib/modules /usr/src -name 'rdnafix*'.
#
#   tests/dkms/run.sh            (as root; exit 0 pass, 1 fail, 2 could not run)
#
# It refuses to run when rdnafix is already registered with DKMS, so that a
# real installation is never touched.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
ver=$(cat "$top/kmod/VERSION")
arch=$(uname -m)
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

log() { echo "dkms-test: $*"; }
pass() { echo "RESULT $1 PASS ${2:-}"; }
fail() { echo "RESULT $1 FAIL ${2:-}"; fails=$((fails + 1)); }
check() { # name, command...
	local name=$1; shift
	if "$@" >"$tmp/out" 2>&1; then pass "$name"; else fail "$name" "$(tail -5 "$tmp/out" | tr '\n' ' ')"; fi
}
leftovers() {
	find /var/lib/dkms /lib/modules /usr/src -name 'rdnafix*' 2>/dev/null
}

[[ $(id -u) -eq 0 ]] || { log "must run as root"; exit 2; }
command -v dkms >/dev/null || { log "dkms missing (make deps-module)"; exit 2; }
if dkms status -m rdnafix 2>/dev/null | grep -q . || [[ -n $(leftovers) ]]; then
	log "rdnafix is already known to DKMS or installed; not touching it:"
	dkms status -m rdnafix; leftovers
	exit 2
fi

kernels=()
for b in /lib/modules/*/build; do
	[[ -f $b/Makefile && -f $b/.config ]] && kernels+=("$(basename "$(dirname "$b")")")
done
[[ ${#kernels[@]} -gt 0 ]] || { log "no kernel headers installed (/lib/modules/*/build)"; exit 2; }
log "rdnafix $ver, kernels with headers: ${kernels[*]}"
mok_before=$(ls /var/lib/dkms/mok.* 2>/dev/null)

# add (through the Makefile target users run; KVER without headers: add only)
check dkms_add make -C "$top" --no-print-directory dkms-install KVER=none
check dkms_conf_version grep -qx "PACKAGE_VERSION=\"$ver\"" "/usr/src/rdnafix-$ver/dkms.conf"
check dkms_status_added sh -c "dkms status -m rdnafix -v $ver | grep -q 'added'"

for k in "${kernels[@]}"; do
	ko=/lib/modules/$k/updates/dkms/rdnafix.ko
	check "dkms_build_$k" dkms build -m rdnafix -v "$ver" -k "$k"
	check "dkms_built_module_$k" sh -c "ls '/var/lib/dkms/rdnafix/$ver/$k/$arch/module/rdnafix.ko'*"
	check "dkms_install_$k" dkms install -m rdnafix -v "$ver" -k "$k"
	# Debian's dkms may compress the installed module (.ko.xz/.ko.zst)
	found=$(ls "$ko"* 2>/dev/null | head -1)
	check "dkms_installed_file_$k" test -n "$found"
	if [[ -n $found ]]; then
		check "dkms_modinfo_version_$k" sh -c "[ \"\$(modinfo -F version '$found')\" = '$ver' ]"
		check "dkms_modinfo_vermagic_$k" sh -c "modinfo -F vermagic '$found' | grep -q '^$k '"
		check "dkms_modinfo_params_$k" sh -c "modinfo -F parm '$found' | grep -q '^mtype_sysmem:'"
		check "dkms_depmod_$k" grep -q 'updates/dkms/rdnafix.ko' "/lib/modules/$k/modules.dep"
	fi
	check "dkms_status_installed_$k" sh -c "dkms status -m rdnafix -v $ver -k $k | grep -q 'installed'"
	check "dkms_uninstall_$k" dkms uninstall -m rdnafix -v "$ver" -k "$k"
	check "dkms_uninstalled_file_$k" sh -c "! ls '$ko'* >/dev/null 2>&1"
	check "dkms_depmod_clean_$k" sh -c "! grep -q rdnafix '/lib/modules/$k/modules.dep'"
	check "dkms_status_built_$k" sh -c "dkms status -m rdnafix -v $ver -k $k | grep -q 'built'"
done

# BUILD_EXCLUSIVE_CONFIG: a kernel config without kprobes must be skipped, not built
k=${kernels[0]}
fake=$tmp/fake-kdir
mkdir -p "$fake"
grep -v -E '^CONFIG_(KPROBES|KRETPROBES)=' "/lib/modules/$k/build/.config" >"$fake/.config"
dkms build -m rdnafix -v "$ver" -k "$k" --kernelsourcedir "$fake" --force >"$tmp/excl" 2>&1
if grep -q 'BUILD_EXCLUSIVE' "$tmp/excl"; then
	pass dkms_build_exclusive_skip
else
	fail dkms_build_exclusive_skip "$(tail -3 "$tmp/excl" | tr '\n' ' ')"
fi

check dkms_remove make -C "$top" --no-print-directory dkms-remove
check dkms_status_empty sh -c "! dkms status -m rdnafix | grep -q ."
left=$(leftovers)
if [[ -z $left ]]; then pass dkms_nothing_left; else fail dkms_nothing_left "$left"; fi
# dkms may create a MOK signing key on first install; remove it if we caused it
if [[ -z $mok_before ]]; then
	rm -f /var/lib/dkms/mok.key /var/lib/dkms/mok.pub
fi

log "$fails failure(s)"
[[ $fails -eq 0 ]]
