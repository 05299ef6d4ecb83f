#!/usr/bin/env bash
# Benchmark: cost of rdnafix's get_vm_pte hook, through the mock amdgpu, in
# ONE QEMU/TCG boot per kernel.  Not a test (not run by `make test`).
#
#   tests/vm/bench-pte.sh [series] [calls]      default: 6.1, 200000 calls
#
# The mock calls gmc_v10_0_get_vm_pte() CALLS times in a loop timed with
# ktime_get_ns() (3 rounds each): without rdnafix (baseline), with rdnafix
# on a targeted device (mtype_sysmem=uc, every PTE rewritten), on an
# untargeted device (counted only), on a targeted device with keep, and again
# after rmmod rdnafix.  Prints ns/call per case and the ratio to the baseline
# (median of the rounds).  Under TCG the absolute numbers are those of an
# emulated CPU: the ratio is the figure to compare.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$top/tests/vm
CACHE=${RDNAFIX_CACHE:-/var/cache/rdnafix}
WORK=${RDNAFIX_VM_WORK:-$top/build/vm}
series=${1:-6.1}
calls=${2:-200000}
die() { echo "bench-pte: ERROR: $*" >&2; exit 2; }

mkdir -p "$WORK"
"$vm/fetch-kernels.sh" "$series" >/dev/null
kver=$(cat "$CACHE/kernels/$series.kver")
kroot=$CACHE/kernels/$kver
ko=$WORK/kmod/$kver/rdnafix.ko
if [[ ! -f $ko ]]; then
	env "RDNAFIX_KVER_${series//./_}=$kver" "$top/kmod/scripts/build-all.sh" "$WORK/kmod" "$series" >&2 ||
		die "rdnafix build failed"
fi
"$vm/build-mock.sh" "$WORK/mock/$kver" "$kver"
"$vm/build-initramfs.sh" "$WORK/bench-$series.cpio" "$kroot" "$kver" --rdnafix "$ko" \
	--mock "$WORK/mock/$kver/amdgpu.ko"
echo "bench-pte: booting $kver (QEMU TCG, -smp 2), $calls calls x 3 rounds per case" >&2
"$vm/boot.sh" "$kroot" "$WORK/bench-$series.cpio" bench "$WORK/bench-$series" \
	"rdnafix_bench_n=$calls" || die "boot failed (see $WORK/bench-$series.console)"
grep -q 'RESULT bench_done PASS' "$WORK/bench-$series.results" ||
	die "benchmark did not complete (see $WORK/bench-$series.console)"
tr -d '\r' <"$WORK/bench-$series.results" | python3 -c '
import re, statistics, sys
kver = sys.argv[1]
r = {}
for l in sys.stdin:
    m = re.match(r"BENCH (\S+) round=\d+ calls=(\d+) ns=(\d+)", l)
    if m:
        r.setdefault(m.group(1), []).append(int(m.group(3)) / int(m.group(2)))
base = statistics.median(r["baseline_no_rdnafix"])
print(f"get_vm_pte cost, kernel {kver}, QEMU TCG (-cpu max, 2 vCPUs), median of 3 rounds")
for k, v in r.items():
    med = statistics.median(v)
    rounds = ", ".join("%.1f" % x for x in v)
    print(f"  {k:24s} {med:9.1f} ns/call  ratio {med / base:5.2f}x  (rounds: {rounds})")
' "$kver"
