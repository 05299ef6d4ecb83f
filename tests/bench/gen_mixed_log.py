#!/usr/bin/env python3
"""Writes a dmesg-like kernel log of about SIZE bytes (stdout) for
explain-vs-grep.sh: half of its bytes amdgpu VM fault blocks (the block()
of tests/unit/explain/gen_faults.py, one distinct fault each), half kernel
lines that no signature is about (USB enumeration, r8169 link changes,
EXT4 mounts, AppArmor audit records), interleaved block by block.

usage: gen_mixed_log.py SIZE_BYTES
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "unit", "explain"))
from gen_faults import block  # noqa: E402


def unrelated(n, t):
    """Kernel lines of the kinds a desktop's dmesg is mostly made of."""
    port = 1 + n % 8
    dev = 2 + n % 40
    return [
        f"[{t:12.6f}] usb 1-{port}: new high-speed USB device number {dev} using xhci_hcd",
        f"[{t:12.6f}] usb 1-{port}: New USB device found, idVendor=0bda, idProduct=8153, bcdDevice=30.00",
        f"[{t:12.6f}] usb 1-{port}: New USB device strings: Mfr=1, Product=2, SerialNumber=6",
        f"[{t:12.6f}] r8169 0000:04:00.0 enp4s0: Link is Down",
        f"[{t:12.6f}] r8169 0000:04:00.0 enp4s0: Link is Up - 1Gbps/Full - flow control rx/tx",
        f"[{t:12.6f}] EXT4-fs (nvme0n1p{1 + n % 4}): mounted filesystem with ordered data mode. Quota mode: none.",
        f"[{t:12.6f}] audit: type=1400 audit({1700000000 + n}.{n % 1000:03d}:{100 + n}): apparmor=\"DENIED\" "
        f"operation=\"open\" class=\"file\" profile=\"snap.firefox.firefox\" name=\"/proc/{1000 + n}/cgroup\" "
        f"pid={1000 + n} comm=\"firefox\" requested_mask=\"r\" denied_mask=\"r\" fsuid=1000 ouid=1000",
        f"[{t:12.6f}] audit: type=1400 audit({1700000000 + n}.{n % 1000:03d}:{101 + n}): apparmor=\"STATUS\" "
        f"operation=\"profile_replace\" profile=\"unconfined\" name=\"/usr/bin/man\" pid={2000 + n} "
        f"comm=\"apparmor_parser\"",
    ]


def main():
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        sys.exit("usage: gen_mixed_log.py SIZE_BYTES   (a log of about that many bytes to stdout)")
    size = int(sys.argv[1])
    out = sys.stdout
    written = faults = other = n = 0
    buf = []
    while written < size:
        b = block(n, False)
        buf.append(b)
        faults += len(b)
        # unrelated lines until they weigh as much as the fault lines so far
        while other < faults:
            for line in unrelated(n, 1000.0 + n * 0.000013):
                buf.append(line + "\n")
                other += len(line) + 1
        written = faults + other
        n += 1
        if len(buf) >= 4000:
            out.write("".join(buf))
            buf.clear()
    out.write("".join(buf))


if __name__ == "__main__":
    main()
