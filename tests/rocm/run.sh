#!/usr/bin/env bash
# rdnafix GPU backend against Debian's REAL HIP runtime, hiprtc and comgr
# (sid: HIP 6.4.3, comgr 3.0 / LLVM 21) in a debootstrap chroot, no GPU:
#   (a) the probe reports "runtime but no device" (hipErrorNoDevice = 100);
#   (b) every validation kernel compiles with hiprtc for gfx1010 gfx1030
#       gfx1031 gfx1100 gfx1151 into an AMDGPU ELF (magic, e_machine 224 =
#       EM_AMDGPU, checked here with od, independently of the C++ parser);
#   (c) an unknown target is refused before hiprtc runs; with that check off,
#       hiprtc's abort stays inside the forked compile child;
#   (d) a second compile comes from the code-object cache.
# The test program is built on the host with g++ (links only libc,
# libstdc++, libdl) and copied into the chroot.
#
# Usage: tests/rocm/run.sh [RTC_CHECK_BINARY]
#   env RDNAFIX_ROCM_TESTS=0 skips; RDNAFIX_ROCM_CHROOT overrides the chroot.
# Exit: 0 all PASS, 1 a FAIL, 77 skipped (cannot run here: not root / no debootstrap).
set -uo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
ROOT=${RDNAFIX_ROCM_CHROOT:-${RDNAFIX_CACHE:-/var/cache/rdnafix}/rocm-sid}
TARGETS="gfx1010 gfx1030 gfx1031 gfx1100 gfx1151"
# shellcheck source=../rocm/lib.sh
. "$TOP/tests/rocm/lib.sh"
require_chroot_tests
t_start=$(date +%s)

# --- chroot (created once, cached)
if ! "$TOP/tests/rocm/make-chroot.sh" "$ROOT"; then
	fail "create the sid chroot $ROOT (debootstrap + apt)"
	exit 1
fi
t_chroot=$(date +%s)

# --- test program
BIN=${1:-}
WORK=$(mktemp -d /tmp/rdnafix-rocm.XXXXXX)
IN="$ROOT/tmp/rdnafix-rocm-test.$$"
cleanup() { rm -rf "$WORK" "$IN"; }
trap cleanup EXIT
if [ -z "$BIN" ]; then
	if ! "$TOP/userspace/src/validate/gpu/bench/build-standalone.sh" "$WORK/build" >"$WORK/build.log" 2>&1; then
		cat "$WORK/build.log"
		fail "build rtc_check with g++"
		exit 1
	fi
	BIN="$WORK/build/rtc_check"
fi
libs=$(ldd "$BIN" | awk '{print $1}' | grep -v -E '^(linux-vdso|/lib64/ld-linux)' | sed 's/\.so.*//' | sort -u | tr '\n' ' ')
case "$libs" in
*amdhip* | *hiprtc* | *cuda*) fail "rtc_check must not link a GPU library: $libs" ;;
*) pass "rtc_check links only: $libs" ;;
esac
mkdir -p "$IN/out" "$IN/cache"
cp "$BIN" "$IN/rtc_check"
C=/tmp/$(basename "$IN")

run() { # run in the chroot, echo its PASS/FAIL lines, count its failure
	local out rc
	out=$(chroot "$ROOT" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root "$C/rtc_check" "$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed 's/^/  /' | grep -v -E '^  (PASS|FAIL) ' || true
	printf '%s\n' "$out" | grep -E '^(PASS|FAIL) ' || true
	count_verdicts "$out"
	if [ $rc -ne 0 ]; then fail "rtc_check $1 exited $rc"; fi
}

# (a) no device
run probe
# (b) every kernel for every target (two processes: the machine has two cores)
set -- $TARGETS
half=$(( ($# + 1) / 2 ))
run_bg() { chroot "$ROOT" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root "$C/rtc_check" --cache "$C/cache" --out "$C/out" compile "$@" >"$WORK/compile.$1.log" 2>&1; echo $? >"$WORK/compile.$1.rc"; }
run_bg "${@:1:$half}" &
run_bg "${@:$((half + 1))}" &
wait
for f in "$WORK"/compile.*.log; do
	grep -E '^(PASS|FAIL) ' "$f"
	count_verdicts "$(cat "$f")"
	rc=$(cat "${f%.log}.rc")
	[ "$rc" = 0 ] || { fail "compile process exited $rc"; sed 's/^/  /' "$f" | tail -20; }
done
for t in $TARGETS; do
	co="$IN/out/$t.co"
	if [ ! -s "$co" ]; then fail "code object for $t missing"; continue; fi
	magic=$(od -An -tx1 -N4 "$co" | tr -d ' ')
	mach=$(od -An -tu2 -j18 -N2 "$co" | tr -d ' ')
	if [ "$magic" = 7f454c46 ] && [ "$mach" = 224 ]; then
		pass "$t code object: ELF magic 7f454c46, e_machine $mach (EM_AMDGPU), $(stat -c %s "$co") bytes"
	else
		fail "$t code object: magic $magic e_machine $mach (want 7f454c46 / 224)"
	fi
done
# (c) guards
run unknown-target
run crash-isolation
# (d) cache
run cache-hit "$C/cache" gfx1031

t_end=$(date +%s)
echo "rocm chroot tests: chroot $((t_chroot - t_start)) s, tests $((t_end - t_chroot)) s, $nfail failure(s)"
[ $nfail -eq 0 ] || exit 1
exit 0
