#!/usr/bin/env bash
# Self-test of the emulator-fault retry in tests/vm/boot.sh (run by
# tests/kernel/run.sh before the series boots; three short boots).
#
#   tests/vm/test-boot-retry.sh KROOT WORKDIR
#
# A tiny initramfs holds busybox, the real guest init and lib.sh, and a suite
# "die" that crashes the kernel (sysrq c) after the guest's first line.
#   boot_retry_early_death      rdinit=/nonexistent: the kernel panics before
#                               init runs; boot.sh must boot exactly twice and
#                               print one RETRY line naming the emulator fault
#   boot_retry_not_after_start  suite "die": the guest printed its first line
#                               and then died; boot.sh must boot exactly once
# Prints "PASS|FAIL [setup] <name> <detail>" lines; exits 1 on a failure.
set -uo pipefail

[[ $# -eq 2 ]] || { echo "usage: $0 KROOT WORKDIR" >&2; exit 2; }
kroot=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
nfail=0
res() {
	[[ $1 == PASS ]] || nfail=$((nfail + 1))
	echo "$1 [setup] $2 ${*:3}"
}

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,tmp,tests}
cp "$(command -v busybox)" "$stage/bin/busybox"
cp "$here/guest/init" "$stage/init"
cp "$here/guest/lib.sh" "$stage/tests/lib.sh"
printf '%s\n' '# shellcheck shell=sh' 'result die_started PASS "crashing the kernel now"' \
	'echo c >/proc/sysrq-trigger' >"$stage/tests/die.sh"
chmod 0755 "$stage/init"
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) >"$work/retry.cpio"

export RDNAFIX_VM_TIMEOUT=${RDNAFIX_VM_RETRY_TIMEOUT:-300}

# 1. death before the first line
t=$(date +%s)
out=$(RDNAFIX_VM_LABEL=selftest "$here/boot.sh" "$kroot" "$work/retry.cpio" none "$work/early" rdinit=/nonexistent)
rc=$?
n=$(cat "$work/early.attempts" 2>/dev/null || echo 0)
nretry=$(grep -c '^RETRY \[selftest\] boot: .*(emulator fault before the guest.s first line: ' <<<"$out")
if [[ $n -eq 2 && $nretry -eq 1 && -f $work/early.console.attempt1 ]] &&
	! grep -q '^RDNAFIX-VM-START' "$work/early.results"; then
	res PASS boot_retry_early_death "2 boots, 1 RETRY line, qemu rc=$rc, $(($(date +%s) - t)) s: $(cut -c1-200 <<<"$out")"
else
	res FAIL boot_retry_early_death "boots=$n RETRY lines=$nretry rc=$rc (want 2 boots, 1 RETRY): $out"
fi

# 2. death after the first line
t=$(date +%s)
out=$(RDNAFIX_VM_LABEL=selftest "$here/boot.sh" "$kroot" "$work/retry.cpio" die "$work/late")
rc=$?
n=$(cat "$work/late.attempts" 2>/dev/null || echo 0)
if [[ $n -eq 1 && -z $out && ! -e $work/late.retry ]] &&
	grep -q '^RDNAFIX-VM-START' "$work/late.results" &&
	grep -q '^RESULT die_started PASS' "$work/late.results" &&
	grep -q 'sysrq triggered crash' "$work/late.console"; then
	res PASS boot_retry_not_after_start "1 boot, no RETRY after the guest's first line and a panic, $(($(date +%s) - t)) s"
else
	res FAIL boot_retry_not_after_start "boots=$n rc=$rc output=[$out] (want 1 boot, no RETRY, a sysrq panic after RDNAFIX-VM-START)"
fi
[[ $nfail -eq 0 ]]
