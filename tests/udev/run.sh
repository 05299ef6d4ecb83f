#!/bin/bash
# Tests of udev/: the generated hwdb and 70-rdnafix.rules, with Debian's own
# systemd-hwdb and udevadm (systemd 252).
#
# Usage: tests/udev/run.sh BUILT.hwdb [RDNACTL]   (ctest udev_hwdb_rules)
#
#  1. generator: gen_hwdb.py rejects every malformed TSV of
#     tests/unit/core/data/bad-gpudb/ naming file and line (exit 1), and
#     regenerating from the TSV gives BUILT.hwdb byte for byte.
#  2. hwdb: `systemd-hwdb --strict --root=R update` on a root holding only
#     BUILT.hwdb, then `systemd-hwdb --root=R query MODALIAS` for an RDNA1, an
#     RDNA2 dGPU and an APU (their values), an unlisted AMD id and an NVIDIA id
#     (nothing), and every row of the TSV (its own values).
#  3. rules + hwdb through udev itself: in a private mount namespace (unshare
#     -m; tmpfs over /sys, /run, /dev and the rules/hwdb directories, so the
#     host is untouched), a fake sysfs with AMD and non-AMD PCI devices and
#     DRM nodes; `udevadm test` runs only 70-rdnafix.rules against the hwdb of
#     step 2 and prints the properties it would store.  Any rules-parser
#     complaint about 70-rdnafix.rules fails (bookworm's udevadm has no
#     `verify`, which came with systemd 254); a deliberately broken copy of the
#     rules must be caught by the same check.  With RDNACTL, `rdnactl status`
#     (the live path: libudev) then runs on that fake machine and must show the
#     properties, and name where a revision-specific row disagrees with its
#     own database.  Needs root (or user namespaces); without them this part
#     is reported as skipped (exit 77).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=../lib/verdicts.sh
. "$top/tests/lib/verdicts.sh"
gen="$top/udev/gen_hwdb.py"
python=${PYTHON:-python3}
tsv="$top/userspace/data/gpu-database.tsv"
rules="$top/udev/70-rdnafix.rules"
# Modalias of a PCI function (drivers/pci/pci-driver.c: pci_uevent).
modalias() { printf 'pci:v0000%sd0000%ssv00001DA2sd0000E445bc%ssc%si00' "$1" "$2" "${3:0:2}" "${3:2:2}"; }

if [ "${1:-}" = --inner ]; then
	. "$here/namespace.sh"
	exit
fi
built=${1:?usage: run.sh BUILT.hwdb [RDNACTL]}
rdnactl=${2:-}
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

# 1. generator
for bad in "$top"/tests/unit/core/data/bad-gpudb/*.tsv; do
	out=$("$python" "$gen" "$bad" "$work/bad.hwdb" 2>&1)
	rc=$?
	if [ $rc -eq 1 ] && grep -q "^$bad:[0-9]*: " <<<"$out" && [ ! -e "$work/bad.hwdb" ]; then
		pass "generator rejects $(basename "$bad"): $out"
	else
		fail "generator on $(basename "$bad"): rc=$rc output: $out"
	fi
done
if "$python" "$gen" "$tsv" "$work/60-rdnafix.hwdb" && cmp -s "$work/60-rdnafix.hwdb" "$built"; then
	pass "the build's hwdb is what the generator makes of the TSV"
else
	fail "regenerated hwdb differs from $built (or the generator failed)"
fi

# 2. hwdb through systemd-hwdb
root="$work/root"
mkdir -p "$root/etc/udev/hwdb.d"
cp "$built" "$root/etc/udev/hwdb.d/60-rdnafix.hwdb"
if out=$(systemd-hwdb --strict --root="$root" update 2>&1) && [ -s "$root/etc/udev/hwdb.bin" ]; then
	pass "systemd-hwdb --strict update compiles the hwdb"
else
	fail "systemd-hwdb --strict update: $out"
fi
query() { systemd-hwdb --root="$root" query "$(modalias "$1" "$2" 0300)" | grep '^ID_RDNAFIX_' | tr '\n' ' '; }
expect_query() { # vendor device expected-properties label
	got=$(query "$1" "$2")
	if [ "$got" = "$3" ]; then pass "hwdb $1:$2 ($4): ${got:-nothing}"; else fail "hwdb $1:$2 ($4): got '${got}', want '$3'"; fi
}
expect_query 1002 7310 "ID_RDNAFIX_APU=0 ID_RDNAFIX_GENERATION=rdna1 ID_RDNAFIX_GFX_TARGET=gfx1010 " "RDNA1 Navi10"
expect_query 1002 73DF "ID_RDNAFIX_APU=0 ID_RDNAFIX_GENERATION=rdna2 ID_RDNAFIX_GFX_TARGET=gfx1031 " "RDNA2 Navi22"
expect_query 1002 163F "ID_RDNAFIX_APU=1 ID_RDNAFIX_GENERATION=rdna2 ID_RDNAFIX_GFX_TARGET=gfx1033 " "APU Van Gogh"
expect_query 1002 150E "ID_RDNAFIX_APU=1 ID_RDNAFIX_GENERATION=rdna3.5 ID_RDNAFIX_GFX_TARGET=gfx1150 " "APU Strix Point"
expect_query 1002 6798 "" "Tahiti, not listed"
expect_query 10DE 73DF "" "NVIDIA vendor, AMD device number"
# Every row of the TSV answers with its own columns.
bad_rows=0 rows=0
while IFS=$'\t' read -r dev rev _gc gfx _code generation apu _src; do
	case $dev in '#'* | pci_device | '') continue ;; esac
	[ "$rev" = '*' ] || continue
	rows=$((rows + 1))
	want="ID_RDNAFIX_APU=$apu ID_RDNAFIX_GENERATION=$generation ID_RDNAFIX_GFX_TARGET=$gfx "
	[ "$(query 1002 "${dev^^}")" = "$want" ] || { bad_rows=$((bad_rows + 1)); echo "  row $dev: want $want"; }
done <"$tsv"
if [ $rows -gt 50 ] && [ $bad_rows -eq 0 ]; then pass "all $rows TSV rows query back to their values"; else fail "$bad_rows of $rows TSV rows differ"; fi

# 3. rules + hwdb through udevadm test, in a private mount namespace
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	ns=(unshare -m --propagation private)
elif unshare -rm true 2>/dev/null; then
	ns=(unshare -rm --propagation private)
else
	echo "SKIP rules through udevadm test: needs root or user namespaces (unshare -m)"
	echo "udev: $npass passed, $nfail failed, rules part skipped"
	[ $nfail -eq 0 ] && exit 77
	exit 1
fi
# A second TSV with one revision-specific row: its key must override.
{ cat "$tsv"; printf '73DF\tC3\t10.3.1\tgfx1036\tTest\trdna2\t1\ttest row\n'; } >"$work/rev.tsv"
mkdir -p "$work/rev/etc/udev/hwdb.d"
"$python" "$gen" "$work/rev.tsv" "$work/rev/etc/udev/hwdb.d/60-rdnafix.hwdb" &&
	systemd-hwdb --strict --root="$work/rev" update || fail "hwdb with a revision row"
sed 's/ATTR{vendor}=="0x1002", ATTR{class}/ATTR{vendor}=="0x1002", ATTR{class}=/' "$rules" >"$work/broken.rules"
out=$(WORK=$work RULES=$rules RDNACTL=$rdnactl PYTHON=$python "${ns[@]}" "$0" --inner 2>&1)
echo "$out"
count_verdicts "$out"
echo "udev: $npass passed, $nfail failed"
[ $nfail -eq 0 ] && [ $npass -gt 20 ]
