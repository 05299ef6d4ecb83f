#!/usr/bin/env bash
# userspace/deps/install.sh against fake systems: an os-release file
# (RDNAFIX_OS_RELEASE), a scratch apt directory (RDNAFIX_APT_ETC) and
# dpkg-query/apt-get/id stand-ins first on PATH, so nothing is installed and
# /etc/apt is never touched.
#   - Debian 12: only the named groups; backports source and pin only when a
#     backports package is missing and only for it; none for the build group;
#   - Debian 13: no backports source ever, the package from the release;
#   - Ubuntu, Fedora, no os-release: nothing run, the package names printed;
#   - not root: the missing names and exit 2; an unknown group: exit 2.
#   - the Makefile: build/status/install use the build group only, test every group.
#   tests/deps/check.sh   (exit 0 pass, 1 fail)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
install_sh=$top/userspace/deps/install.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 rc=0 out=""
pass() { echo "PASS $*"; }
fail() {
	echo "FAIL $*"
	fails=$((fails + 1))
}

mkdir -p "$tmp/bin"
cat >"$tmp/bin/dpkg-query" <<'SH'
#!/bin/sh
# Installed when named in $FAKE_INSTALLED (one per line).
pkg=$(eval echo "\${$#}")
grep -qx "$pkg" "$FAKE_INSTALLED" && echo "install ok installed" && exit 0
exit 1
SH
cat >"$tmp/bin/apt-get" <<'SH'
#!/bin/sh
echo "apt-get $*" >>"$FAKE_LOG"
SH
cat >"$tmp/bin/id" <<'SH'
#!/bin/sh
echo "${FAKE_UID:-0}"
SH
chmod +x "$tmp/bin/"*

pkgs() { # GROUP...: the packages of these groups in packages.txt
	awk -v want=" $* " '/^\[.*\]$/ { g = substr($0, 2, length($0) - 2); next }
		!/^[[:space:]]*(#|$)/ && index(want, " " g " ") { print $1 }' "$top/userspace/deps/packages.txt"
}

# sys NAME OS-RELEASE-TEXT INSTALLED-PACKAGES...: a fresh fake system
sys() {
	local d=$tmp/$1
	shift
	rm -rf "$d"
	mkdir -p "$d/apt/sources.list.d" "$d/apt/preferences.d"
	printf '%s\n' "$1" >"$d/os-release"
	shift
	printf '%s\n' "$@" >"$d/installed"
	: >"$d/log"
}
# inst NAME GROUP...: run install.sh on system NAME; sets rc, out
inst() {
	local d=$tmp/$1
	shift
	rc=0
	out=$(PATH="$tmp/bin:$PATH" FAKE_INSTALLED=$d/installed FAKE_LOG=$d/log RDNAFIX_OS_RELEASE=$d/os-release \
		RDNAFIX_APT_ETC=$d/apt bash "$install_sh" "$@" 2>&1) || rc=$?
}
check() { # DESCRIPTION CONDITION...
	local what=$1
	shift
	if "$@"; then pass "$what"; else fail "$what (rc=$rc; output: ${out:0:300})"; fi
}

deb12='PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
ID=debian
VERSION_ID="12"'
deb13='PRETTY_NAME="Debian GNU/Linux 13 (trixie)"
ID=debian
VERSION_ID="13"'
ubuntu='PRETTY_NAME="Ubuntu 24.04 LTS"
ID=ubuntu
ID_LIKE=debian
VERSION_ID="24.04"'
fedora='PRETTY_NAME="Fedora Linux 41 (Workstation Edition)"
ID=fedora
VERSION_ID=41'

mapfile -t build < <(pkgs build)
mapfile -t every < <(pkgs build module test)
check "packages.txt: a build group of at least 10 packages" test "${#build[@]}" -ge 10
check "packages.txt: QEMU, debootstrap and Catch2 are not in the build group" \
	bash -c '! printf "%s\n" "$@" | grep -qxE "qemu-system-x86|debootstrap|libcatch2-dev|busybox-static"' _ "${build[@]}"
check "packages.txt: every package once" test "$(printf '%s\n' "${every[@]}" | sort | uniq -d | wc -l)" -eq 0

echo "== Debian 12"
sys d12 "$deb12" "${build[@]}"
inst d12 build
check "build group installed: nothing run" test "$rc" -eq 0 -a ! -s "$tmp/d12/log"
check "build group installed: says so" grep -q "already installed" <<<"$out"
inst d12 build module test
check "test group missing: apt-get installs it" grep -q "install .*libcatch2-dev.*qemu-system-x86\|install .*qemu-system-x86.*libcatch2-dev" "$tmp/d12/log"
check "test group: Debian's own bookworm-backports source added" \
	grep -q "Suites: bookworm-backports" "$tmp/d12/apt/sources.list.d/rdnafix-bookworm-backports.sources"
check "test group: only libcatch2-dev pinned to backports" \
	grep -qx "Package: libcatch2-dev" "$tmp/d12/apt/preferences.d/rdnafix-bookworm-backports"
check "test group: the source names deb.debian.org only" \
	bash -c '! grep -h "URIs" "$1"/apt/sources.list.d/* | grep -qv "http://deb.debian.org/debian$"' _ "$tmp/d12"
sys d12b "$deb12" "${build[@]:1}"
inst d12b build
check "build group, one missing: apt-get installs just that one" grep -qx "apt-get install -y -qq --no-install-recommends ${build[0]}" "$tmp/d12b/log"
check "build group: no backports source" test -z "$(ls "$tmp/d12b/apt/sources.list.d")"
printf 'deb http://deb.debian.org/debian bookworm-backports main\n' >"$tmp/d12/apt/sources.list"
rm -f "$tmp/d12/apt/sources.list.d/"*
inst d12 test
check "backports already configured: no second source" test -z "$(ls "$tmp/d12/apt/sources.list.d")"
FAKE_UID=1000 inst d12 build module test
check "not root: exit 2 and the missing names" test "$rc" -eq 2
check "not root: names libcatch2-dev and the apt-get command" grep -q "sudo apt-get install.*libcatch2-dev" <<<"$out"
inst d12 build nosuchgroup
check "unknown group: exit 2 naming it and the valid ones" grep -q "unknown group 'nosuchgroup' (valid: build module test)" <<<"$out"

echo "== Debian 13"
sys d13 "$deb13" "${build[@]}"
inst d13 build module test
check "Debian 13: no backports source or pin" test -z "$(find "$tmp/d13/apt" -type f)"
check "Debian 13: libcatch2-dev from the release" grep -q "install .*libcatch2-dev" "$tmp/d13/log"

echo "== other distributions"
for os in ubuntu fedora; do
	sys "$os" "${!os}"
	inst "$os" build
	check "$os: nothing run, no repository added" test ! -s "$tmp/$os/log" -a -z "$(ls "$tmp/$os/apt/sources.list.d")"
	check "$os: says it is not Debian and lists the packages" \
		grep -q "not Debian: nothing is installed automatically" <<<"$out"
	check "$os: names libdrm-dev and libcli11-dev" grep -q "libcli11-dev.*libdrm-dev" <<<"$out"
	check "$os: does not list test packages for the build group" bash -c '! grep -q qemu-system <<<"$1"' _ "$out"
done
check "ubuntu: the apt-get line to run" grep -q "sudo apt-get install build-essential" <<<"$(sys u "$ubuntu"; inst u build; echo "$out")"
sys none ""
rm -f "$tmp/none/os-release"
inst none build
check "no os-release: treated as unknown, nothing run" grep -q "unknown (no $tmp/none/os-release)" <<<"$out"

echo "== Makefile"
mk() { make -C "$top" -n --no-print-directory "$@" 2>/dev/null; }
check "make build installs the build group only" grep -q "install.sh build$" <<<"$(mk build)"
check "make status installs the build group only" bash -c '! grep -q "install.sh.*test" <<<"$1"' _ "$(mk status)"
check "make test installs every group" grep -q "install.sh build module test$" <<<"$(mk test)"
check "make install strips" grep -q "cmake --install .* --strip" <<<"$(mk install)"
check "make uninstall exists" bash -c 'make -C "$1" -n uninstall >/dev/null 2>&1' _ "$top"

[[ $fails -eq 0 ]] && echo "all passed" || echo "$fails failed"
[[ $fails -eq 0 ]]
