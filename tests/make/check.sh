#!/usr/bin/env bash
# The top-level Makefile's user-facing targets, run for real (README.md,
# "make status" and "Other make targets"):
# - `make status` fails with rdnactl's exit code in make's error line when
#   rdnactl status has warnings (1) or cannot run (2), and passes when it has
#   nothing to warn about (0): fixture machines through STATUS_ARGS;
# - `make install DESTDIR=` with the default PREFIX=/usr/local installs exactly
#   the files README.md names, the kernel hook, udev and systemd files where
#   the system reads them (/etc), whatever PREFIX is; the hook and the units
#   name the installed rdnactl; `make uninstall` removes every one.
# `make -o build` skips the build and deps steps (the ctest tree is built).
#   tests/make/check.sh BUILD_DIR     (BUILD_DIR: the CMake tree, .../userspace;
#   exit 0 pass, 1 fail, 77 cannot run here)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bdir=$(realpath "$1")
[[ $(basename "$bdir") == userspace && -x $bdir/rdnactl ]] ||
	{ echo "SKIP $bdir is not a built .../userspace tree"; exit 77; }
build=$(dirname "$bdir")
# The tree's own prefix (default /usr/local), so that make install does not reconfigure it.
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$bdir/CMakeCache.txt")
fails=0
tmp=$(mktemp -d)
# The installs below rewrite the tree's install manifest (make uninstall reads it): put back
# the one there was, so that a later `make uninstall` never removes files of this test's lists.
manifest=$bdir/install_manifest.txt
[[ -f $manifest ]] && cp -p "$manifest" "$tmp/manifest.orig"
restore() {
	if [[ -f $tmp/manifest.orig ]]; then cp -p "$tmp/manifest.orig" "$manifest"; else rm -f "$manifest"; fi
	rm -rf "$tmp"
}
trap restore EXIT
check() { # name, command...
	local name=$1
	shift
	if "$@"; then echo "PASS $name"; else echo "FAIL $name"; fails=$((fails + 1)); fi
}
mk() { make -C "$top" --no-print-directory -o build BUILD="$build" "$@"; }

fx=$top/tests/fixtures
args_of() { # the status arguments of a fixture machine
	local a=(--root "$fx/$1/root" --no-coverage --color never)
	[[ -f $fx/$1/env ]] && a+=(--env "$fx/$1/env")
	[[ -f $fx/$1/args ]] && a+=($(cat "$fx/$1/args"))
	echo "${a[*]}"
}
status_case() { # fixture (or a root path), rdnactl's expected exit code
	local name=$1 want=$2 args rc got make_rc
	args=$([[ -d $fx/$name ]] && args_of "$name" || echo "--root $name")
	"$bdir/rdnactl" status $args >/dev/null 2>&1
	got=$?
	mk status STATUS_ARGS="$args" >"$tmp/status.out" 2>&1
	make_rc=$?
	if [[ $got -ne $want ]]; then
		echo "FAIL rdnactl status $name: exit $got, expected $want"
		fails=$((fails + 1))
		return
	fi
	if [[ $want -eq 0 ]]; then
		check "make status on $name: rdnactl 0 -> make 0 (got $make_rc)" test "$make_rc" -eq 0
	else
		check "make status on $name: rdnactl $want -> make fails (got $make_rc) naming 'Error $want'" \
			bash -c '[[ $1 -ne 0 ]] && tail -1 "$2" | grep -q "status\] Error $3\$"' _ "$make_rc" "$tmp/status.out" "$want"
	fi
}
status_case no-amd-gpu 0
status_case docker-gid-mismatch 1
status_case /nonexistent/rdnafix-make-check 2

# make install: every file, where it goes.
dest=$tmp/dest
if ! mk install DESTDIR="$dest" PREFIX="$prefix" >"$tmp/install.out" 2>&1; then
	sed 's/^/    /' "$tmp/install.out"
	echo "FAIL make install DESTDIR=$dest"
	exit 1
fi
want="/etc/kernel/header_postinst.d/zz-rdnafix
/etc/kernel/postinst.d/zz-rdnafix
/etc/systemd/system/rdnafix-metrics.service
/etc/systemd/system/rdnafix-metrics.timer
/etc/systemd/system/rdnafix-validate.path
/etc/systemd/system/rdnafix-validate.service
/etc/udev/hwdb.d/60-rdnafix.hwdb
/etc/udev/rules.d/70-rdnafix.rules
$prefix/bin/rdnactl
$prefix/share/bash-completion/completions/rdnactl
$prefix/share/man/man1/rdnactl.1"
# The JSON Schemas of every --json (docs/json.md), one file each: README.md names them as one row.
for sch in "$top"/docs/schema/*.json; do want+=$'\n'"$prefix/share/rdnafix/schema/$(basename "$sch")"; done
want=$(sort <<<"$want")
nwant=$(wc -l <<<"$want")
got=$(cd "$dest" && find . -type f -o -type l | sed 's/^\.//' | sort)
echo "installed ($(wc -l <<<"$got") files):"
sed 's/^/    /' <<<"$got"
check "make install: exactly the $nwant files, hook/udev/units in /etc" test "$got" == "$want"
grep -q "cmake: configuring" "$tmp/install.out" && { echo "FAIL make install reconfigured the tree"; fails=$((fails + 1)); }
for f in $want; do
	f=${f/#$prefix\//\/usr\/local\/} # README.md lists the default PREFIX
	[[ $f == /usr/local/share/rdnafix/schema/*.json ]] && f=/usr/local/share/rdnafix/schema/*.json
	check "README.md names $f" grep -qF "\`$f\`" "$top/README.md"
done
check "the kernel hooks are executable" test -x "$dest/etc/kernel/postinst.d/zz-rdnafix" -a \
	-x "$dest/etc/kernel/header_postinst.d/zz-rdnafix"
check "the hook names $prefix/bin/rdnactl" grep -q "$prefix/bin/rdnactl" "$dest/etc/kernel/postinst.d/zz-rdnafix"
for u in rdnafix-validate.service rdnafix-metrics.service; do
	check "$u runs $prefix/bin/rdnactl" grep -q "^ExecStart=.*$prefix/bin/rdnactl " "$dest/etc/systemd/system/$u"
done
mk uninstall DESTDIR="$dest" >"$tmp/uninstall.out" 2>&1
left=$(cd "$dest" && find . -type f -o -type l)
check "make uninstall removes every installed file (left: '${left//$'\n'/ }')" test -z "$left"
# Another prefix moves only the program and its documentation (cmake --install --prefix, what make
# install runs after configuring PREFIX): the hook, udev and systemd files stay in /etc.
dest2=$tmp/dest-opt
DESTDIR=$dest2 cmake --install "$bdir" --prefix /opt/rdnafix >"$tmp/install2.out" 2>&1 ||
	{ echo "FAIL cmake --install --prefix /opt/rdnafix: $(tail -3 "$tmp/install2.out")"; fails=$((fails + 1)); }
got2=$(cd "$dest2" && find . -type f -o -type l | sed 's/^\.//' | sort)
want2=$(sed "s|^$prefix/|/opt/rdnafix/|" <<<"$want" | sort)
check "--prefix /opt/rdnafix: program and docs below it, the 8 system files still in /etc" test "$got2" == "$want2"
[[ $fails -eq 0 ]] && echo "all passed" || echo "$fails failed"
[[ $fails -eq 0 ]]
