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
set -uo pipefail

[[ $# -ge 4 ]] || { echo "usage: $0 KROOT INITRD SUITES OUTPREFIX [kernel args]" >&2; exit 2; }
kroot=$1 initrd=$2 suites=$3 out=$4
shift 4
timeout_s=${RDNAFIX_VM_TIMEOUT:-1200}
# thread=single: the two vCPUs take turns on one host thread.  With
# multi-threaded TCG a 7.2 guest died once in this suite with "Oops: int3" at
# ktime_get_update_offsets_now+0x3b, a kernel text-patching site not touched by
# rdnafix (no rdnafix kprobe was armed: amdgpu was still in its signature
# check), while the bytes there already showed the finished patch; the guest
# still has 2 CPUs, interrupts and preemption.  docs/testing-kernel.md.
accel=${RDNAFIX_VM_ACCEL:-tcg,thread=single}
: >"$out.results"
timeout --kill-after=10 "$timeout_s" qemu-system-x86_64 \
	-accel "$accel" -cpu max -m 2048 -smp 2 -nographic -no-reboot \
	-serial mon:stdio -serial "file:$out.results" \
	-kernel "$kroot/vmlinuz" -initrd "$initrd" \
	-append "console=ttyS0 quiet panic_on_warn=1 oops=panic panic=-1 rdnafix_vm=$suites $*" \
	</dev/null >"$out.console" 2>&1
