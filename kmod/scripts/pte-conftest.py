#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Build-time evidence of the gmc_v10_0_get_vm_pte prototype (a conftest).

  pte-conftest.py --kver KVER [--root DIR] --out rdnafix_conftest.h

Reads the .BTF section of the target kernel's amdgpu.ko
(DIR/lib/modules/KVER/kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko[.xz|.zst|.gz]).
A module's BTF is split BTF: its type ids and string offsets continue those
of vmlinux, so parameter names can only be read with vmlinux's BTF as the
base.  The base is /sys/kernel/btf/vmlinux when KVER is the running kernel
(and DIR is /), else the .BTF section of the vmlinux inside
DIR/boot/vmlinuz-KVER or DIR/lib/modules/KVER/vmlinuz (found by its xz/zstd/gzip stream, as the kernel's
scripts/extract-vmlinux does).  Debian's linux-headers packages carry no
vmlinux, so there is no other source at DKMS build time.

The header always gets written: without evidence it says so
(RDNAFIX_BTF_PTE_FLAGS_ARG -1 and the reason); the module then decides from
its table of tested kernel versions alone (rdnafix_proto.c).
"""
import argparse
import gzip
import lzma
import os
import struct
import subprocess
import sys

FUNC = "gmc_v10_0_get_vm_pte"
AMDGPU = "kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko"
# BTF kinds (include/uapi/linux/btf.h) and the bytes that follow each type
INT, PTR, ARRAY, STRUCT, UNION, ENUM, FWD, TYPEDEF, VOLATILE, CONST, RESTRICT = range(1, 12)
FUNC_K, FUNC_PROTO, VAR, DATASEC, FLOAT, DECL_TAG, TYPE_TAG, ENUM64 = range(12, 20)


class NoEvidence(Exception):
    pass


def extra_bytes(kind, vlen):
    if kind in (INT, VAR, DECL_TAG):
        return 4
    if kind == ARRAY:
        return 12
    if kind in (STRUCT, UNION, DATASEC, ENUM64):
        return 12 * vlen
    if kind in (ENUM, FUNC_PROTO):
        return 8 * vlen
    if kind in (PTR, FWD, TYPEDEF, VOLATILE, CONST, RESTRICT, FUNC_K, FLOAT, TYPE_TAG):
        return 0
    raise NoEvidence(f"unknown BTF kind {kind}")


class Btf:
    """One BTF blob; @base makes it split BTF (ids and strings continue the base's)."""

    def __init__(self, blob, base=None):
        if len(blob) < 24:
            raise NoEvidence("BTF blob too short")
        magic, _ver, _flags, hdr_len = struct.unpack_from("<HBBI", blob, 0)
        if magic != 0xEB9F:
            raise NoEvidence("bad BTF magic (not little-endian BTF)")
        type_off, type_len, str_off, str_len = struct.unpack_from("<IIII", blob, 8)
        self.base = base
        self.strs = blob[hdr_len + str_off:hdr_len + str_off + str_len]
        self.first_id = base.next_id if base else 1
        self.str_base = base.str_end if base else 0
        self.str_end = self.str_base + len(self.strs)
        self.types = []  # (name_off, kind, vlen, size_or_type, extra bytes)
        pos, end = hdr_len + type_off, hdr_len + type_off + type_len
        while pos < end:
            name_off, info, st = struct.unpack_from("<III", blob, pos)
            kind, vlen = (info >> 24) & 0x1F, info & 0xFFFF
            n = extra_bytes(kind, vlen)
            self.types.append((name_off, kind, vlen, st, blob[pos + 12:pos + 12 + n]))
            pos += 12 + n
        self.next_id = self.first_id + len(self.types)

    def name(self, off):
        if off < self.str_base:
            return self.base.name(off)
        s = self.strs[off - self.str_base:]
        return s[:s.index(b"\0")].decode()

    def type(self, tid):
        if tid == 0:
            return (0, 0, 0, 0, b"")
        if tid < self.first_id:
            return self.base.type(tid)
        return self.types[tid - self.first_id]

    def describe(self, tid):
        """'u64 *', 'struct amdgpu_device *', 'uint32_t' ... for a parameter type."""
        name_off, kind, _vlen, st, _x = self.type(tid)
        if kind == PTR:
            return self.describe(st) + " *"
        if kind in (CONST, VOLATILE):
            return self.describe(st)
        if kind in (STRUCT, UNION):
            return ("struct " if kind == STRUCT else "union ") + self.name(name_off)
        return self.name(name_off) if kind else "void"

    def is_u64_ptr(self, tid):
        _n, kind, _v, st, _x = self.type(tid)
        if kind != PTR:
            return False
        while True:
            _n, kind, _v, st2, extra = self.type(st)
            if kind in (TYPEDEF, CONST, VOLATILE):
                st = st2
                continue
            return kind == INT and st2 == 8 and (struct.unpack_from("<I", extra)[0] >> 24) == 0

    def func_params(self, fname):
        for name_off, kind, _vlen, st, _x in self.types:
            if kind == FUNC_K and self.name(name_off) == fname:
                _n, pkind, vlen, _ret, extra = self.type(st)
                if pkind != FUNC_PROTO:
                    raise NoEvidence(f"{fname} has no FUNC_PROTO")
                return [struct.unpack_from("<II", extra, 8 * i) for i in range(vlen)]
        raise NoEvidence(f"no BTF FUNC {fname} in amdgpu.ko (inlined or removed)")


def elf_section(data, want):
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise NoEvidence("not a little-endian ELF64 file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    sec = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    stroff = sec[shstrndx][4]
    for name, _t, _f, _a, off, size in sec:
        n = data[stroff + name:data.index(b"\0", stroff + name)].decode()
        if n == want:
            return data[off:off + size]
    raise NoEvidence(f"no {want} section")


def decompress(path):
    with open(path, "rb") as f:
        raw = f.read()
    if path.endswith(".xz"):
        return lzma.decompress(raw)
    if path.endswith(".gz"):
        return gzip.decompress(raw)
    if path.endswith(".zst"):
        return subprocess.run(["zstd", "-qdc"], input=raw, capture_output=True, check=True).stdout
    return raw


def vmlinux_from_vmlinuz(path):
    """The vmlinux ELF inside a bzImage: try every compressed stream in it."""
    with open(path, "rb") as f:
        img = f.read()
    for magic, how in ((b"\xfd7zXZ\x00", "xz"), (b"\x28\xb5\x2f\xfd", "zstd"), (b"\x1f\x8b\x08", "gz")):
        pos = img.find(magic)
        while pos >= 0:
            try:
                if how == "xz":
                    out = lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(img[pos:])
                elif how == "gz":
                    out = gzip.GzipFile(fileobj=__import__("io").BytesIO(img[pos:])).read()
                else:
                    out = subprocess.run(["zstd", "-qdc"], input=img[pos:], capture_output=True).stdout
                if out[:4] == b"\x7fELF":
                    return out
            except (lzma.LZMAError, OSError, EOFError, FileNotFoundError):
                pass
            pos = img.find(magic, pos + 1)
    raise NoEvidence(f"no vmlinux found inside {path}")


def evidence(kver, root):
    mod = None
    for ext in ("", ".xz", ".zst", ".gz"):
        p = os.path.join(root, "lib/modules", kver, AMDGPU + ext)
        if os.path.isfile(p):
            mod = p
            break
    if not mod:
        raise NoEvidence(f"no amdgpu.ko for {kver} under {root}")
    mod_btf = elf_section(decompress(mod), ".BTF")
    if root == "/" and os.uname().release == kver and os.access("/sys/kernel/btf/vmlinux", os.R_OK):
        with open("/sys/kernel/btf/vmlinux", "rb") as f:
            base_blob, base_src = f.read(), "/sys/kernel/btf/vmlinux"
    else:
        # Debian up to 13: /boot/vmlinuz-KVER; newer: /usr/lib/modules/KVER/vmlinuz
        cands = [os.path.join(root, "boot", "vmlinuz-" + kver),
                 os.path.join(root, "lib/modules", kver, "vmlinuz")]
        z = next((c for c in cands if os.path.isfile(c)), None)
        if not z:
            raise NoEvidence(f"no vmlinux BTF for {kver} (not running, no {cands[0]})")
        base_blob, base_src = elf_section(vmlinux_from_vmlinuz(z), ".BTF"), z
    btf = Btf(mod_btf, Btf(base_blob))
    params = btf.func_params(FUNC)
    names = [btf.name(n) for n, _t in params]
    sig = ", ".join(f"{btf.describe(t)} {btf.name(n)}".replace("* ", "*") for n, t in params)
    flags = [i for i, (n, t) in enumerate(params) if btf.name(n) == "flags" and btf.is_u64_ptr(t)]
    if len(flags) != 1:
        raise NoEvidence(f"{FUNC}({sig}) has no single 'u64 *flags' parameter")
    return flags[0], len(params), f"{FUNC}({', '.join(names)})", mod, base_src


def c_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    ap = argparse.ArgumentParser(description="BTF evidence of the get_vm_pte prototype")
    ap.add_argument("--kver", required=True)
    ap.add_argument("--root", default="/")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    try:
        arg, nargs, proto, mod, base = evidence(a.kver, a.root)
        text = f"btf: {proto}, flags is argument {arg + 1}"
        print(f"pte-conftest: {a.kver}: {text} (from {mod}, base {base})", file=sys.stderr)
    except (NoEvidence, OSError, ValueError, IndexError, struct.error, subprocess.SubprocessError,
            lzma.LZMAError, UnicodeDecodeError) as e:
        arg, nargs, text = -1, 0, f"unknown: {e}"
        print(f"pte-conftest: {a.kver}: {text}", file=sys.stderr)
    text = text[:150]
    with open(a.out + ".tmp", "w", encoding="ascii", errors="replace") as f:
        f.write(f"/* Generated by kmod/scripts/pte-conftest.py for {a.kver}: do not edit. */\n")
        f.write(f"#define RDNAFIX_BTF_PTE_FLAGS_ARG {arg}\n")
        f.write(f"#define RDNAFIX_BTF_PTE_NARGS {nargs}\n")
        f.write(f"#define RDNAFIX_BTF_PTE_TEXT {c_str(text)}\n")
    os.replace(a.out + ".tmp", a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
