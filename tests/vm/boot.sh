#!/usr/bin/env bash
# Boot one test initramfs under QEMU (TCG) and keep both serial channels.
#
#   tests/vm/boot.sh KROOT INITRD SUITES OUTPREFIX [extra kernel args...]
#
# KROOT/vmlinuz is booted with panic_on_warn=1 oops=panic panic=-1 and
# -no-reboot, so a WARN/oops ends the VM at once.  ttyS0 (console, kernel
# messages) goes to OUTPREFIX.console, ttyS1 (clean result channel written
# by the guest scripts) to OUTPREFIX.results.  Exit status: qemu's, or 124
# on timeout (RDNAFIX_VM_TIMEOUT seconds, default 1200).
#
# Emulator faults: the guest's first line is "RDNAFIX-VM-START" on ttyS1,
# the first thing tests/vm/guest/init does.  A boot that ends without it
# died before any test ran (seen once: Debian 7.2 "Oops: int3" in
# enqueue_task_fair at 1.3 s under TCG), so it is booted exactly once more
# and reported on stdout:
#   RETRY [LABEL] boot: ... (emulator fault before the guest's first line: <last console line>)
# LABEL is $RDNAFIX_VM_LABEL (default: the OUTPREFIX file name).  The first
# attempt's console is kept as OUTPREFIX.console.attempt1, and the RETRY line
# in OUTPREFIX.retry; OUTPREFIX.attempts holds the number of boots (1 or 2).
# A boot that printed the first line is never retried, whatever happens later.
set -uo pipefail

[[ $# -ge 4 ]] || { echo "usage: $0 KROOT INITRD SUITES OUTPREFIX [kernel args]" >&2; exit 2; }
kroot=$1 initrd=$2 suites=$3 out=$4
shift 4
timeout_s=${RDNAFIX_VM_TIMEOUT:-1200}
label=${RDNAFIX_VM_LABEL:-$(basename "$out")}
# thread=single: the two vCPUs take turns on one host thread.  With
# multi-threaded TCG a 7.2 guest died once in this suite with "Oops: int3" at
# ktime_get_update_offsets_now+0x3b, a kernel text-patching site not touched by
# rdnafix (no rdnafix kprobe was armed: amdgpu was still in its signature
# check), while the bytes there already showed the finished patch; the guest
# still has 2 CPUs, interrupts and preemption.  docs/testing-kernel.md.
accel=${RDNAFIX_VM_ACCEL:-tcg,thread=single}

# the console line that says why the guest died (the last panic/Oops/BUG
# line), else the last non-empty line, without escape sequences
last_line() {
	local l
	l=$(tr -d '\r' <"$1" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g' |
		grep -v -e '^[[:space:]]*$' -e '^qemu-system')
	{ grep -E 'Kernel panic|Oops|BUG:|general protection' <<<"$l" || echo "$l"; } | tail -1 | cut -c1-160
}

rm -f "$out.retry" "$out.console.attempt1"
for attempt in 1 2; do
	: >"$out.results"
	t=$(date +%s)
	timeout --kill-after=10 "$timeout_s" qemu-system-x86_64 \
		-accel "$accel" -cpu max -m 2048 -smp 2 -nographic -no-reboot \
		-serial mon:stdio -serial "file:$out.results" \
		-kernel "$kroot/vmlinuz" -initrd "$initrd" \
		-append "console=ttyS0 quiet panic_on_warn=1 oops=panic panic=-1 rdnafix_vm=$suites $*" \
		</dev/null >"$out.console" 2>&1
	rc=$?
	echo "$attempt" >"$out.attempts"
	grep -q '^RDNAFIX-VM-START' "$out.results" && exit "$rc"
	[[ $attempt -eq 2 ]] && exit "$rc"
	if [[ $rc -eq 124 || $rc -eq 137 ]]; then
		why="timeout after $timeout_s s"
	else
		why="qemu rc=$rc after $(($(date +%s) - t)) s"
	fi
	cp "$out.console" "$out.console.attempt1"
	msg="RETRY [$label] boot: attempt 1 ended ($why) with no RDNAFIX-VM-START on the result channel; booting once more (emulator fault before the guest's first line: $(last_line "$out.console"))"
	echo "$msg" | tee "$out.retry"
done
