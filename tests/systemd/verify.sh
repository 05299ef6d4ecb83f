#!/usr/bin/env bash
# systemd-analyze verify on the configured rdnafix units (userspace/systemd/),
# in a temporary root that holds them, the binary at the path they name and
# the host's own units (sysinit.target and the rest): with --root, verify
# resolves every unit and executable inside the root.  Verify's warnings
# (an unknown key, a bad value) exit 0, so any output is a failure too.
# --man=no: the man page is not installed where the test runs.
#   verify.sh BUILT_RDNACTL INSTALLED_RDNACTL_PATH UNIT...
# Exit 77 (skipped) without systemd-analyze.
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/verdicts.sh"
rdnactl=$1 bin_path=$2
shift 2
units=("$@")
if ! command -v systemd-analyze >/dev/null; then
	echo "SKIP systemd-analyze not found (Debian: apt-get install systemd)"
	exit 77
fi
host_units=$(readlink -f /lib/systemd/system)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# make_root DIR: units under etc/systemd/system, a copy of the host's under usr/lib/systemd/system, rdnactl
# at bin_path.
make_root() {
	mkdir -p "$1/etc/systemd/system" "$1/usr/lib/systemd" "$1$(dirname "$bin_path")"
	cp -a "$host_units" "$1/usr/lib/systemd/system" # a link to it would resolve inside the root
	ln -s usr/lib "$1/lib"                           # its symlinks name /lib/systemd/system/...
	cp "${units[@]}" "$1/etc/systemd/system/"
	cp "$rdnactl" "$1$bin_path"
}
names=()
for u in "${units[@]}"; do names+=("$(basename "$u")"); done
# verify_root DIR LABEL: passes when verify exits 0 and prints nothing.
verify_root() {
	local out rc
	out=$(systemd-analyze verify --man=no --root="$1" "${names[@]}" 2>&1)
	rc=$?
	if [[ $rc -eq 0 && -z $out ]]; then
		pass "$2"
	else
		fail "$2 (exit $rc)"
		printf '%s\n' "$out" | sed 's/^/    /'
	fi
}

make_root "$tmp/plain"
verify_root "$tmp/plain" "verify ${names[*]} (no user configured)"

# The drop-in rdnactl config writes, through rdnactl itself (root only: config
# set refuses other users), else as docs/service.md documents it.
make_root "$tmp/user"
printf 'root:x:0:0::/root:/bin/sh\ngpuuser:x:1000:1000::/home/gpuuser:/bin/sh\n' >"$tmp/user/etc/passwd"
printf 'root:x:0:\nvideo:x:44:gpuuser\nrender:x:109:\ngpuuser:x:1000:\n' >"$tmp/user/etc/group"
dropin="$tmp/user/etc/systemd/system/rdnafix-validate.service.d/50-rdnactl.conf"
if [[ $(id -u) -eq 0 ]]; then
	out=$("$rdnactl" config set --root "$tmp/user" validate.user=gpuuser 2>&1)
	rc=$?
	if [[ $rc -eq 0 && -f $dropin ]] && grep -qx 'User=gpuuser' "$dropin"; then
		pass "rdnactl config set validate.user=gpuuser wrote the drop-in"
	else
		fail "rdnactl config set validate.user=gpuuser (exit $rc)"
		printf '%s\n' "$out" | sed 's/^/    /'
	fi
else
	mkdir -p "$(dirname "$dropin")"
	printf '[Service]\nUser=gpuuser\nSupplementaryGroups=render video\n' >"$dropin"
fi
verify_root "$tmp/user" "verify ${names[*]} with the validate.user drop-in"

# The check catches what it is for: the binary the unit names is missing.
make_root "$tmp/nobin"
rm "$tmp/nobin$bin_path"
if systemd-analyze verify --man=no --root="$tmp/nobin" "${names[@]}" >/dev/null 2>&1; then
	fail "verify accepts a unit whose rdnactl is missing (the check is blind)"
else
	pass "verify refuses a unit whose rdnactl is missing"
fi
# Every oneshot that runs rdnactl has a start timeout: rdnafix-metrics.service
# runs every 5 minutes as root and must not pile up behind a read that hangs.
for u in "${units[@]}"; do
	if grep -qx 'Type=oneshot' "$u" && ! grep -q '^TimeoutStartSec=[1-9]' "$u"; then
		fail "$(basename "$u") is a oneshot without TimeoutStartSec="
	elif grep -qx 'Type=oneshot' "$u"; then
		pass "$(basename "$u") has $(grep '^TimeoutStartSec=' "$u")"
	fi
done
echo "systemd units: $npass passed, $nfail failed"
[[ $nfail -eq 0 ]]
