#!/usr/bin/env python3
"""Writes a kernel log of N distinct amdgpu VM fault blocks (stdout).

Each block has the shape Linux 6.5+ prints (gmc_v10_0.c / gmc_v11_0.c:
*_process_interrupt, then gfxhub_v2_1.c: *_print_l2_protection_fault_status),
as in tests/unit/validate/data/amdgpu-faults/rocm-therock-1271.log: the
"[gfxhub] page fault (src_id ring vmid pasid)" line, the Process line, the
address line, the GCVM_L2_PROTECTION_FAULT_STATUS word and its decoded
fields.  Faults differ in PASID, pid and status word, so none folds into
another: N blocks are N distinct matches for `rdnactl explain`.

usage: gen_faults.py N [--short]   (--short: page fault line with the process
inside, as kernels before 6.5 print it, address and status: 3 lines a block)
"""
import sys

# UTCL2 client ids of the gfxhub table (gfxhub_v2_1.c) with the names the kernel prints
CLIENTS = [(0x0, "CB/DB"), (0x8, "TCP"), (0x3, "SQC (data)"), (0xa, "SQC (inst)"), (0x1b, "UTCL2")]


def block(n, short):
    vmid = 1 + n % 15
    pasid = 32768 + n % 30000
    pid = 1000 + n
    cid, client = CLIENTS[n % len(CLIENTS)]
    perm = (1, 3, 5)[n % 3]
    rw = (n >> 3) & 1
    status = (vmid << 20) | (rw << 18) | (cid << 9) | (perm << 4) | 1
    t = 1000.0 + n * 0.000013
    dev = "amdgpu 0000:c2:00.0: amdgpu:"
    addr = 0x7F5E85F94000 + (n << 12)
    if short:
        return (f"[{t:12.6f}] {dev} [gfxhub] page fault (src_id:0 ring:24 vmid:{vmid} pasid:{pasid}, "
                f"for process python pid {pid} thread python pid {pid})\n"
                f"[{t:12.6f}] {dev}   in page starting at address 0x{addr:016x} from client 0x1b (UTCL2)\n"
                f"[{t:12.6f}] {dev} GCVM_L2_PROTECTION_FAULT_STATUS:0x{status:08X}\n")
    return (f"[{t:12.6f}] {dev} [gfxhub] page fault (src_id:0 ring:24 vmid:{vmid} pasid:{pasid})\n"
            f"[{t:12.6f}] {dev}  Process python pid {pid} thread python pid {pid}\n"
            f"[{t:12.6f}] {dev}   in page starting at address 0x{addr:016x} from client 10\n"
            f"[{t:12.6f}] {dev} GCVM_L2_PROTECTION_FAULT_STATUS:0x{status:08X}\n"
            f"[{t:12.6f}] {dev} \t Faulty UTCL2 client ID: {client} (0x{cid:x})\n"
            f"[{t:12.6f}] {dev} \t MORE_FAULTS: 0x1\n"
            f"[{t:12.6f}] {dev} \t WALKER_ERROR: 0x0\n"
            f"[{t:12.6f}] {dev} \t PERMISSION_FAULTS: 0x{perm:x}\n"
            f"[{t:12.6f}] {dev} \t MAPPING_ERROR: 0x0\n"
            f"[{t:12.6f}] {dev} \t RW: 0x{rw:x}\n")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 1 or not args[0].isdigit() or set(sys.argv[1:]) - {args[0], "--short"}:
        sys.exit("usage: gen_faults.py N [--short]   (N distinct fault blocks to stdout)")
    n, short = int(args[0]), "--short" in sys.argv
    out = sys.stdout
    buf = []
    for i in range(n):
        buf.append(block(i, short))
        if len(buf) == 1000:
            out.write("".join(buf))
            buf.clear()
    out.write("".join(buf))


if __name__ == "__main__":
    main()
