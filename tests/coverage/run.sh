#!/usr/bin/env bash
# The code-object reader against the real toolchain, in the Debian sid chroot
# of tests/rocm/make-chroot.sh (no GPU needed):
#   (a) hipcc compiles a small kernel for gfx1010 gfx1030 gfx1031 gfx1100
#       gfx1151 gfx90a:xnack- gfx90a:xnack+ gfx10-3-generic, plain,
#       --offload-compress (CCOB v2) and COMPRESSED_BUNDLE_FORMAT_VERSION=3;
#   (b) for each, the entries read_fatbin lists must be exactly those that
#       clang-offload-bundler --list prints for the .hip_fatbin section
#       (written out with objcopy --dump-section: the bundler's --type=o on
#       an ELF looks for __CLANG_OFFLOAD_BUNDLE__<id> sections, which hipcc
#       does not write, so it is given the section's bytes), and every
#       entry's e_flags must be what llvm-readelf -h prints for the code
#       object clang-offload-bundler --unbundle extracts;
#   (c) Debian's librocblas.so.4.4 (a 1 GB .hip_fatbin of many bundles):
#       the bundle offsets must be where grep finds the bundle magic in the
#       section, and each bundle's entries what clang-offload-bundler --list
#       prints for that bundle's bytes.
#   (d) rdnactl coverage itself (given as $2) on the same files: its
#       verdicts per target (native, generic, only with an override,
#       missing) and the entry ids its JSON lists.
# The reader's JSON comes from the test tool fatbin_json
# (tests/coverage/fatbin_json.cpp), given as $1: it prints what read_fatbin
# holds (xnack/sramecc, generic version) in full.
#
# Usage: tests/coverage/run.sh FATBIN_JSON_BINARY [RDNACTL]
#   env RDNAFIX_ROCM_TESTS=0 skips; RDNAFIX_ROCM_CHROOT overrides the chroot.
# Exit: 0 all PASS, 1 a FAIL, 77 skipped (not root).
set -uo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
ROOT=${RDNAFIX_ROCM_CHROOT:-${RDNAFIX_CACHE:-/var/cache/rdnafix}/rocm-sid}
JSON_TOOL=${1:?usage: run.sh FATBIN_JSON_BINARY [RDNACTL]}
RDNACTL=${2:-}
ARCHS="gfx1010 gfx1030 gfx1031 gfx1100 gfx1151 gfx90a:xnack- gfx90a:xnack+ gfx10-3-generic"
ROCBLAS=usr/lib/x86_64-linux-gnu/librocblas.so.4.4
# shellcheck source=../rocm/lib.sh
. "$TOP/tests/rocm/lib.sh"
require_chroot_tests
"$TOP/tests/rocm/make-chroot.sh" "$ROOT" || { fail "create the sid chroot $ROOT"; exit 1; }

REL=tmp/rdnafix-coverage.$$
W=$ROOT/$REL
C=/$REL
mkdir -p "$W"
trap 'rm -rf "$W"' EXIT
# In the chroot with its own /proc (hipcc reads /proc/self/exe), in a private
# mount namespace so that nothing stays mounted.
in_chroot() {
	unshare --mount --fork sh -c 'mount -t proc proc "$0/proc" && exec chroot "$0" /usr/bin/env -i \
		PATH=/usr/bin:/bin HOME=/root ${1:+COMPRESSED_BUNDLE_FORMAT_VERSION=$1} sh -c "$2"' \
		"$ROOT" "${CBFV:-}" "$1"
}
# Sorted entry ids of bundle N (default 0) of FILE, from our reader.
ours_ids() { "$JSON_TOOL" --root "$ROOT" "$1" | python3 -c '
import json, sys
j = json.load(sys.stdin); n = int(sys.argv[1])
print("\n".join(sorted(e["id"] for e in j["bundles"][n]["entries"])))' "${2:-0}"; }

cp "$TOP/tests/unit/coverage/data/k.hip" "$W/k.hip"
offload=""
for a in $ARCHS; do offload="$offload --offload-arch=$a"; done
DL=--rocm-device-lib-path=/usr/lib/llvm-21/lib/clang/21/amdgcn/bitcode

# --- (a) compile
t0=$(date +%s)
for v in plain ccob2 ccob3; do
	flags="-O2 $DL -fPIC -shared $offload"
	CBFV=""
	[ $v != plain ] && flags="$flags --offload-compress"
	[ $v = ccob3 ] && CBFV=3
	if CBFV=$CBFV in_chroot "cd $C && hipcc $flags k.hip -o libfat_$v.so" >"$W/hipcc.$v.log" 2>&1; then
		pass "hipcc ($v) for $ARCHS"
	else
		tail -5 "$W/hipcc.$v.log"
		fail "hipcc ($v)"
	fi
done
t1=$(date +%s)

# --- (b) compare with clang-offload-bundler and llvm-readelf
for v in plain ccob2 ccob3; do
	f=libfat_$v.so
	[ -f "$W/$f" ] || continue
	in_chroot "cd $C && objcopy --dump-section .hip_fatbin=$f.fatbin $f && \
		clang-offload-bundler-21 --list --type=o --input=$f.fatbin | sort >$f.bundler" 2>"$W/bundler.err" ||
		{ cat "$W/bundler.err"; fail "$f: clang-offload-bundler --list"; continue; }
	ours_ids "$REL/$f" >"$W/$f.ours" 2>&1
	if [ -s "$W/$f.ours" ] && diff -u "$W/$f.bundler" "$W/$f.ours"; then
		pass "$f: read_fatbin lists the $(wc -l <"$W/$f.ours") entries clang-offload-bundler --list lists"
	else
		fail "$f: entries differ from clang-offload-bundler --list (diff above)"
	fi
	magic=$(head -c 6 "$W/$f.fatbin" | od -An -c | tr -d ' ')
	want=$(case $v in plain) echo "plain:" ;; ccob2) echo "ccob:2" ;; ccob3) echo "ccob:3" ;; esac)
	got=$("$JSON_TOOL" --root "$ROOT" "$REL/$f" | python3 -c '
import json, sys
b = json.load(sys.stdin)["bundles"][0]; print(b["format"] + ":" + str(b.get("ccob_version", "")))')
	[ "$got" = "$want" ] && pass "$f: format $got (section starts with $magic)" ||
		fail "$f: format $got, expected $want (section starts with $magic)"
	# Every AMDGPU entry as llvm-readelf -h sees the object that
	# clang-offload-bundler --unbundle extracts: e_flags, processor, xnack /
	# sramecc settings, generic version, ABI version (code object v = ABI + 2).
	bad=0
	while read -r id mine; do
		[ -n "$id" ] || continue
		ref=$(in_chroot "cd $C && clang-offload-bundler-21 --unbundle --type=o --input=$f.fatbin \
			--targets=$id --output=one.co && llvm-readelf-21 -h one.co" 2>&1 | python3 -c '
import re, sys
t = sys.stdin.read()
abi = int(re.search(r"ABI Version:\s*(\d+)", t).group(1))
f = [x.strip() for x in re.search(r"Flags:\s*(.*)", t).group(1).split(",")]
feat = {x[:-1]: x[-1] for x in f[2:] if x[-1] in "+-"}
name = f[1] + "".join(":%s%s" % (k, feat[k]) for k in sorted(feat))
gv = [x[len("generic_v"):] for x in f[2:] if x.startswith("generic_v")]
print("%s/%s/v%d/g%s" % (hex(int(f[0], 16)), name, abi + 2, gv[0] if gv else "-"))')
		if [ "$ref" != "$mine" ]; then
			echo "  $id: llvm-readelf $ref, read_fatbin $mine"
			bad=1
		fi
	done < <("$JSON_TOOL" --root "$ROOT" "$REL/$f" | python3 -c '
import json, sys
for e in json.load(sys.stdin)["bundles"][0]["entries"]:
    if "elf" in e:
        x = e["elf"]
        print(e["id"], "%s/%s/v%d/g%s" % (hex(x["e_flags"]), x["target"], x["code_object_version"],
                                         x.get("generic_version", "-")))')
	[ $bad = 0 ] && pass "$f: every entry's e_flags, target id, generic and code-object version equal llvm-readelf -h" ||
		fail "$f: e_flags decode differs from llvm-readelf -h"
done
t2=$(date +%s)

# --- (c) Debian's rocBLAS
if [ -f "$ROOT/$ROCBLAS" ]; then
	read -r soff ssize < <(LC_ALL=C readelf -SW "$ROOT/$ROCBLAS" | sed 's/^ *\[ *[0-9]*\]//' |
		awk '$1 == ".hip_fatbin" { print $4, $5 }')
	soff=$((16#$soff))
	ssize=$((16#$ssize))
	# Independent of read_fatbin: every magic grep finds inside the section.
	LC_ALL=C grep -obaF __CLANG_OFFLOAD_BUNDLE__ "$ROOT/$ROCBLAS" | cut -d: -f1 |
		awk -v s="$soff" -v z="$ssize" '$1 >= s && $1 < s + z' >"$W/rocblas.grep"
	"$JSON_TOOL" --root "$ROOT" "$ROCBLAS" >"$W/rocblas.json"
	python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
bad = [b for b in j["bundles"] if b.get("unreadable")]
print("\n".join(str(b["file_offset"]) for b in j["bundles"]))
sys.exit(1 if bad or j.get("unreadable") else 0)' "$W/rocblas.json" >"$W/rocblas.ours" ||
		fail "rocBLAS: a bundle is unreadable"
	n=$(wc -l <"$W/rocblas.ours")
	if diff -q "$W/rocblas.grep" "$W/rocblas.ours" >/dev/null; then
		pass "rocBLAS: $n bundles at the $n offsets grep finds the magic in .hip_fatbin ($ssize bytes)"
	else
		fail "rocBLAS: bundle offsets differ from grep's ($(wc -l <"$W/rocblas.grep") vs $n)"
	fi
	# Each bundle's bytes to clang-offload-bundler --list.
	i=0
	mism=0
	mapfile -t offs <"$W/rocblas.grep"
	offs+=($((soff + ssize)))
	for ((i = 0; i + 1 < ${#offs[@]}; i++)); do
		tail -c +$((offs[i] + 1)) "$ROOT/$ROCBLAS" | head -c $((offs[i + 1] - offs[i])) >"$W/b.fatbin"
		in_chroot "clang-offload-bundler-21 --list --type=o --input=$C/b.fatbin" | sort >"$W/b.bundler"
		ours_ids "$ROCBLAS" "$i" >"$W/b.ours"
		diff -q "$W/b.bundler" "$W/b.ours" >/dev/null || { mism=$((mism + 1)); diff "$W/b.bundler" "$W/b.ours" | head -5; }
	done
	rm -f "$W/b.fatbin"
	[ $mism = 0 ] && pass "rocBLAS: every bundle's entries equal clang-offload-bundler --list ($i bundles, $(wc -l <"$W/b.ours") entries each)" ||
		fail "rocBLAS: $mism bundles differ from clang-offload-bundler --list"
	python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
print("rocBLAS: read %d bytes of %d for %d bundles" % (j["bytes_read"], j["size"], len(j["bundles"])))' "$W/rocblas.json"
else
	fail "rocBLAS: $ROOT/$ROCBLAS missing (librocblas4 in make-chroot.sh)"
fi
t3=$(date +%s)

# --- (d) the verb users run, on the same files
# "gfx=verdict:via ..." per library, and the sorted entry ids of the first
# library's first bundle, from rdnactl coverage --json.
GFX="--gfx gfx1031 --gfx gfx1032 --gfx gfx90a --gfx gfx90a:xnack+ --gfx gfx1101 --gfx gfx1012 --gfx gfx1200"
cov_json() { "$RDNACTL" coverage --root "$ROOT" --env "$TOP/tests/fixtures/no-amd-gpu/env" --json $GFX "$1"; }
cov_verdicts() { cov_json "$1" | python3 -c '
import json, sys
for l in (l for i in json.load(sys.stdin)["installs"] for l in i["libraries"]):
    print(" ".join("%s=%s:%s" % (v["gfx_target"], v["verdict"], v.get("via") or "") for v in l["verdicts"]))'; }
if [ -n "$RDNACTL" ]; then
	# All 8 targets compiled: gfx1032 runs the generic object, an xnack-on
	# gfx90a the xnack+ one, gfx1101 only gfx1100 code (override), gfx1012
	# only gfx1010 code (override), no gfx12 code at all.
	want="gfx1031=native:gfx1031 gfx1032=generic:gfx10-3-generic gfx90a=native:gfx90a:xnack- gfx90a=native:gfx90a:xnack+ gfx1101=override_only:gfx1100 gfx1012=override_only:gfx1010 gfx1200=missing:"
	for v in plain ccob2 ccob3; do
		f=libfat_$v.so
		[ -f "$W/$f" ] || continue
		got=$(cov_verdicts "/$REL/$f")
		[ "$got" = "$want" ] && pass "rdnactl coverage $f: $got" || fail "rdnactl coverage $f: got '$got', want '$want'"
		cov_json "/$REL/$f" | python3 -c '
import json, sys
f = json.load(sys.stdin)["installs"][0]["libraries"][0]["file"]
print("\n".join(sorted(e["id"] for e in f["bundles"][0]["entries"])))' >"$W/$f.rdnactl"
		diff -q "$W/$f.bundler" "$W/$f.rdnactl" >/dev/null &&
			pass "rdnactl coverage --json $f: the entries clang-offload-bundler --list lists" ||
			fail "rdnactl coverage --json $f: entries differ from clang-offload-bundler --list"
	done
	# rocBLAS: gfx803 gfx900 gfx906 gfx908 gfx90a gfx1010 gfx1030 gfx1100
	# gfx1101 gfx1102 (Debian's target list), no generic objects.
	want="gfx1031=override_only:gfx1030 gfx1032=override_only:gfx1030 gfx90a=native:gfx90a gfx90a=native:gfx90a gfx1101=native:gfx1101 gfx1012=override_only:gfx1010 gfx1200=missing:"
	got=$(cov_verdicts "/$ROCBLAS" | head -1)
	[ "$got" = "$want" ] && pass "rdnactl coverage rocBLAS: $got" || fail "rdnactl coverage rocBLAS: got '$got', want '$want'"
else
	echo "SKIP (d): no rdnactl given"
fi
t4=$(date +%s)
echo "rdnactl coverage: $((t4 - t3)) s"
echo "coverage toolchain tests: compile $((t1 - t0)) s, fat binaries $((t2 - t1)) s, rocBLAS $((t3 - t2)) s, $nfail failure(s)"
[ $nfail = 0 ]
