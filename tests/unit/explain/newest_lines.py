#!/usr/bin/env python3
"""`rdnactl explain` judges the newest lines of a log longer than any cap:
about 300 MiB of unrelated kernel lines, then one KFD "HW Exception by GPU
node-1 ... GPU Hang" line, piped into `explain --json -`.  The last line
must be found (RDNA-LOG-012 on the input's last line number), every byte
counted, and rdnactl's peak RSS must stay under the bound.  (Until the cap
was dropped, explain read the first 256 MiB and never saw that line.)

usage: newest_lines.py RDNACTL TOP MIB MAX_RSS_MIB
"""
import json
import os
import subprocess
import sys
import threading

# Unrelated lines of a desktop's kernel log; none is about the GPU.
LINES = [
    "[  12.345678] usb 1-4: new high-speed USB device number 7 using xhci_hcd\n",
    "[  12.345679] r8169 0000:04:00.0 enp4s0: Link is Up - 1Gbps/Full - flow control rx/tx\n",
    "[  12.345680] EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode. Quota mode: none.\n",
    '[  12.345681] audit: type=1400 audit(1700000000.123:456): apparmor="STATUS" operation="profile_load" '
    'profile="unconfined" name="/usr/bin/man" pid=812 comm="apparmor_parser"\n',
]
# The KFD's message for a GPU hang (amdkfd kfd_events.c; tests/fixtures/logs/rocm-legacy-rocm-build-5259-gpu-hang.txt).
LAST = "HW Exception by GPU node-1 (Agent handle: 0x1) reason :GPU Hang\n"


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: newest_lines.py RDNACTL TOP MIB MAX_RSS_MIB")
    rdnactl, top, mib, max_rss = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    root = os.path.join(top, "tests/fixtures/rx6750xt-raphael/root")
    block = "".join(LINES)
    reps = (1 << 20) // len(block)
    chunk = (block * reps).encode()  # about 1 MiB, 4 * reps lines
    lines = 4 * reps * mib + 1
    size = len(chunk) * mib + len(LAST)
    p = subprocess.Popen([rdnactl, "explain", "--json", "--no-coverage", "--root", root, "-"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def feed():
        try:
            for _ in range(mib):
                p.stdin.write(chunk)
            p.stdin.write(LAST.encode())
        except BrokenPipeError:
            pass
        p.stdin.close()

    out = {}
    readers = [threading.Thread(target=feed),
               threading.Thread(target=lambda: out.__setitem__("stdout", p.stdout.read())),
               threading.Thread(target=lambda: out.__setitem__("stderr", p.stderr.read()))]
    for t in readers:
        t.start()
    _, status, ru = os.wait4(p.pid, 0)
    for t in readers:
        t.join()
    rc = os.waitstatus_to_exitcode(status)
    rss = ru.ru_maxrss / 1024.0
    cpu = ru.ru_utime + ru.ru_stime
    print(f"{size / 2**20:.0f} MiB, {lines} lines piped: exit {rc}, {cpu:.2f} s CPU, "
          f"{rss:.1f} MiB peak RSS (bound {max_rss})")
    fail = []
    if rc != 1:
        fail.append(f"exit {rc}, expected 1 (a known failure found); stderr: {out['stderr'][-2000:]!r}")
    else:
        doc = json.loads(out["stdout"])
        found = [(e["id"], e["first_line"], e["last_line"]) for e in doc["explanations"]]
        if found != [("RDNA-LOG-012", lines, lines)]:
            fail.append(f"explanations {found}, expected RDNA-LOG-012 on line {lines} (the last)")
        if doc["bytes"] != size or doc["lines"] != lines or doc["problems"]:
            fail.append(f"{doc['bytes']} bytes, {doc['lines']} lines, problems {doc['problems']}; expected "
                        f"{size} bytes, {lines} lines, no problem")
    if rss > max_rss:
        fail.append(f"{rss:.1f} MiB peak RSS > {max_rss} MiB")
    for f in fail:
        print("FAIL:", f)
    sys.exit(1 if fail else 0)


if __name__ == "__main__":
    main()
