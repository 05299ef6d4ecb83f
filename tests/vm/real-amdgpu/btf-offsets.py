#!/usr/bin/env python3
"""Struct offsets and prototypes for the realcall test module, from BTF.

btf-offsets.py KROOT KVER OUT.h

Reads the .BTF section of KROOT's amdgpu.ko (split BTF) with the .BTF of the
vmlinux inside KROOT/vmlinuz as its base, and writes a C header with the size
of struct amdgpu_device, the byte offsets of the members the real
amdgpu_gmc_noretry_set / amdgpu_vm_adjust_size / gmc_v10_0_get_vm_pte read or
write, the sizes of the structs they dereference, the value of
AMDGPU_VM_PDB2, the three prototypes as BTF prints them, and amdgpu.ko's GNU build id (so the module can refuse to run
against another amdgpu).  Test-only: nothing here is installed.

The vmlinux is found like the kernel's scripts/extract-vmlinux: look for an xz
or zstd stream in the image and decompress it until the result is an ELF file.
The BTF format: Documentation/bpf/btf.rst (type section, string section, split
BTF numbering its types after the base's and its strings after the base's).
"""
import lzma
import os
import struct
import subprocess
import sys

KIND = {1: "INT", 2: "PTR", 3: "ARRAY", 4: "STRUCT", 5: "UNION", 6: "ENUM", 7: "FWD",
        8: "TYPEDEF", 9: "VOLATILE", 10: "CONST", 11: "RESTRICT", 12: "FUNC",
        13: "FUNC_PROTO", 14: "VAR", 15: "DATASEC", 16: "FLOAT", 17: "DECL_TAG",
        18: "TYPE_TAG", 19: "ENUM64"}


def die(msg):
    sys.stderr.write(f"btf-offsets: ERROR: {msg}\n")
    sys.exit(2)


def elf_section(data, want):
    """Bytes of section `want` of a little-endian ELF64 file, or None."""
    if data[:4] != b"\x7fELF" or data[4] != 2:
        return None
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    def sh(i):
        return struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
    stroff = sh(shstrndx)[4]
    for i in range(shnum):
        name, _, _, _, off, size, *_ = sh(i)
        end = data.index(b"\0", stroff + name)
        if data[stroff + name:end].decode() == want:
            return data[off:off + size]
    return None


def vmlinux_from(image):
    for magic, how in ((b"\xfd7zXZ\x00", "xz"), (b"\x28\xb5\x2f\xfd", "zstd")):
        pos = image.find(magic)
        while pos >= 0:
            try:
                if how == "xz":
                    out = lzma.LZMADecompressor().decompress(image[pos:])
                else:
                    out = subprocess.run(["zstd", "-dcq"], input=image[pos:], capture_output=True).stdout
            except lzma.LZMAError:
                out = b""
            if out[:4] == b"\x7fELF":
                return out
            pos = image.find(magic, pos + 1)
    die("no xz or zstd compressed ELF found in the kernel image")


class BTF:
    def __init__(self, raw, base=None):
        magic, ver, flags, hlen, toff, tlen, soff, slen = struct.unpack_from("<HBBIIIII", raw, 0)
        if magic != 0xEB9F:
            die("not BTF (bad magic)")
        self.strs = raw[hlen + soff:hlen + soff + slen]
        self.base = base
        self.first = len(base.types) if base else 1
        self.str_base = len(base.strs) if base else 0
        self.types = list(base.types) if base else [None]
        p, end = hlen + toff, hlen + toff + tlen
        while p < end:
            name, info, sz = struct.unpack_from("<III", raw, p)
            p += 12
            kind, vlen, kflag = (info >> 24) & 0x1f, info & 0xffff, info >> 31
            t = {"name": self.name_of(name), "kind": KIND.get(kind, kind), "size": sz, "type": sz}
            if kind == 1:
                p += 4
            elif kind == 3:
                t["elem"], _, t["n"] = struct.unpack_from("<III", raw, p)
                p += 12
            elif kind in (4, 5):
                t["members"] = []
                for _ in range(vlen):
                    mn, mt, mo = struct.unpack_from("<III", raw, p)
                    p += 12
                    t["members"].append((self.name_of(mn), mt, (mo & 0xffffff) if kflag else mo))
            elif kind == 6:
                t["values"] = {}
                for _ in range(vlen):
                    vn, vv = struct.unpack_from("<Ii", raw, p)
                    p += 8
                    t["values"][self.name_of(vn)] = vv
            elif kind == 13:
                t["params"] = []
                for _ in range(vlen):
                    pn, pt = struct.unpack_from("<II", raw, p)
                    p += 8
                    t["params"].append((self.name_of(pn), pt))
            elif kind in (14, 17):
                p += 4
            elif kind == 15:
                p += 12 * vlen
            elif kind == 19:
                p += 12 * vlen
            self.types.append(t)

    def name_of(self, off):
        if self.base and off >= self.str_base:
            s, off = self.strs, off - self.str_base
        elif self.base:
            s = self.base.strs
        else:
            s = self.strs
        return s[off:s.index(b"\0", off)].decode()

    def find(self, name, kind):
        hits = [i for i in range(self.first, len(self.types)) if self.types[i]["name"] == name
                and self.types[i]["kind"] == kind]
        if not hits and self.base:
            hits = [i for i in range(1, len(self.base.types)) if self.base.types[i]["name"] == name
                    and self.base.types[i]["kind"] == kind]
        if not hits:
            die(f"no {kind} {name} in BTF")
        return hits[0]

    def strip(self, tid):
        while self.types[tid]["kind"] in ("TYPEDEF", "VOLATILE", "CONST", "RESTRICT", "TYPE_TAG"):
            tid = self.types[tid]["type"]
        return tid

    def sizeof(self, tid):
        tid = self.strip(tid)
        t = self.types[tid]
        if t["kind"] == "ARRAY":
            return t["n"] * self.sizeof(t["elem"])
        if t["kind"] == "PTR":
            return 8
        return t["size"]

    def member(self, sid, path):
        """(byte offset, type id) of member path "a.b.c" in struct sid."""
        off = 0
        tid = sid
        for part in path.split("."):
            t = self.types[self.strip(tid)]
            for mname, mtype, moff in t.get("members", []):
                if mname == part:
                    if moff % 8:
                        die(f"{path}: bit field")
                    off += moff // 8
                    tid = mtype
                    break
            else:
                die(f"no member {part} of {path} in {t['name']}")
        return off, tid

    def cname(self, tid):
        if tid == 0:
            return "void"
        t = self.types[tid]
        k = t["kind"]
        if k == "PTR":
            return self.cname(t["type"]) + " *"
        if k == "CONST":
            return "const " + self.cname(t["type"])
        if k in ("STRUCT", "UNION", "ENUM"):
            return f"{k.lower()} {t['name']}"
        return t["name"]

    def proto(self, fname):
        f = self.types[self.find(fname, "FUNC")]
        p = self.types[f["type"]]
        args = ", ".join(self.cname(pt) for _, pt in p["params"])
        return f"{self.cname(p['type'])} ({args})"


def main():
    if len(sys.argv) != 4:
        die("usage: btf-offsets.py KROOT KVER OUT.h")
    kroot, kver, out = sys.argv[1:]
    ko = None
    for d in (f"{kroot}/lib/modules/{kver}", f"{kroot}/usr/lib/modules/{kver}"):
        for ext in ("", ".xz", ".zst"):
            c = f"{d}/kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko{ext}"
            if os.path.exists(c):
                ko = c
    if not ko:
        die(f"no amdgpu.ko for {kver} under {kroot}")
    data = open(ko, "rb").read()
    if ko.endswith(".xz"):
        data = lzma.decompress(data)
    elif ko.endswith(".zst"):
        data = subprocess.run(["zstd", "-dcq", ko], capture_output=True, check=True).stdout
    vmlinux = vmlinux_from(open(f"{kroot}/vmlinuz", "rb").read())
    vb = elf_section(vmlinux, ".BTF")
    mb = elf_section(data, ".BTF")
    if vb is None or mb is None:
        die("no .BTF section in vmlinux or amdgpu.ko")
    bid = elf_section(data, ".note.gnu.build-id")
    build_id = bid[16:].hex() if bid else ""
    b = BTF(mb, BTF(vb))

    adev = b.find("amdgpu_device", "STRUCT")
    hwip = b.types[b.find("amd_hw_ip_block_type", "ENUM")]["values"]
    gc = hwip["GC_HWIP"]
    # u32 ip_versions[MAX_HWIP][HWIP_MAX_INSTANCE]: pahole 1.32 (7.2) encodes
    # an array of arrays, pahole 1.24 (6.1, 6.12) one flat array of
    # MAX_HWIP * HWIP_MAX_INSTANCE elements
    ipv_off, ipv_t = b.member(adev, "ip_versions")
    ipv = b.types[b.strip(ipv_t)]
    inner = b.types[b.strip(ipv["elem"])]
    if inner["kind"] == "ARRAY":
        row, elem = b.sizeof(ipv["elem"]), b.sizeof(inner["elem"])
    else:
        if ipv["n"] % hwip["MAX_HWIP"]:
            die(f"ip_versions has {ipv['n']} elements, not a multiple of MAX_HWIP {hwip['MAX_HWIP']}")
        elem = b.sizeof(ipv["elem"])
        row = elem * (ipv["n"] // hwip["MAX_HWIP"])
    defs = [("SIZEOF_ADEV", b.sizeof(adev)),
            ("OFF_GC_VERSION", ipv_off + gc * row), ("SIZE_GC_VERSION", elem)]
    for macro, path in (("DEV", "dev"), ("PDEV", "pdev"), ("GMC_NORETRY", "gmc.noretry"),
                        ("VM_MAX_PFN", "vm_manager.max_pfn"), ("VM_NUM_LEVEL", "vm_manager.num_level"),
                        ("VM_BLOCK_SIZE", "vm_manager.block_size"),
                        ("VM_FRAGMENT_SIZE", "vm_manager.fragment_size"),
                        ("VM_ROOT_LEVEL", "vm_manager.root_level")):
        o, t = b.member(adev, path)
        defs += [(f"OFF_{macro}", o), (f"SIZE_{macro}", b.sizeof(t))]
    mapping = b.find("amdgpu_bo_va_mapping", "STRUCT")
    bo_va = b.find("amdgpu_bo_va", "STRUCT")
    bo = b.find("amdgpu_bo", "STRUCT")
    vm = b.find("amdgpu_vm", "STRUCT")
    for macro, sid, path in (("MAPPING_FLAGS", mapping, "flags"), ("MAPPING_BO_VA", mapping, "bo_va"),
                             ("BO_VA_BO", bo_va, "base.bo"), ("BO_FLAGS", bo, "flags")):
        o, t = b.member(sid, path)
        defs += [(f"OFF_{macro}", o), (f"SIZE_{macro}", b.sizeof(t))]
    # 7.2 put AMDGPU_VM_PDB3 (5-level tables) in front of PDB2
    defs += [("VM_PDB2", b.types[b.find("amdgpu_vm_level", "ENUM")]["values"]["AMDGPU_VM_PDB2"])]
    defs += [("SIZEOF_MAPPING", b.sizeof(mapping)), ("SIZEOF_BO_VA", b.sizeof(bo_va)),
             ("SIZEOF_BO", b.sizeof(bo)), ("SIZEOF_VM", b.sizeof(vm))]

    with open(out + ".tmp", "w") as f:
        f.write("/* SPDX-License-Identifier: GPL-2.0 */\n")
        f.write(f"/* Generated by tests/vm/real-amdgpu/btf-offsets.py from the BTF of amdgpu.ko {kver}. */\n")
        f.write("#ifndef RC_BTF_H\n#define RC_BTF_H\n\n")
        f.write(f'#define RC_BTF_KVER "{kver}"\n')
        f.write(f'#define RC_BTF_BUILD_ID "{build_id}"\n')
        for name, v in defs:
            f.write(f"#define RC_{name} {v}\n")
        for macro, fn in (("NORETRY_SET", "amdgpu_gmc_noretry_set"), ("ADJUST_SIZE", "amdgpu_vm_adjust_size"),
                          ("GET_VM_PTE", "gmc_v10_0_get_vm_pte")):
            f.write(f'#define RC_PROTO_{macro} "{b.proto(fn)}"\n')
        f.write("\n#endif\n")
    os.replace(out + ".tmp", out)
    print(f"btf-offsets: {out} ({kver}, amdgpu_device {b.sizeof(adev)} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
