#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Readers of a kernel's build products for rdnafix's build-time checks.

The ELF sections of a (compressed) module, the vmlinux inside a vmlinuz, and
BTF (include/uapi/linux/btf.h; Documentation/bpf/btf.rst): a module's BTF is
split BTF whose type ids and string offsets continue those of vmlinux, so it
is read with vmlinux's BTF as its base.  Used by pte-conftest.py (at DKMS
build time) and by the host-side audit of amdgpu.ko.  Every input is treated
as hostile: anything unexpected raises NoEvidence.
"""
import bz2
import gzip
import io
import lzma
import struct
import subprocess
import zlib

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
        if end > len(blob) or hdr_len + str_off + str_len > len(blob):
            raise NoEvidence("BTF blob truncated (its header points past its end)")
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

    def ptr_struct(self, tid):
        """The struct name @tid points to ("pci_dev" for 'const struct pci_dev *'), else None."""
        _n, kind, _v, st, _x = self.type(tid)
        if kind != PTR:
            return None
        for _hop in range(16):
            name_off, kind, _v, st, _x = self.type(st)
            if kind in (TYPEDEF, CONST, VOLATILE, RESTRICT, TYPE_TAG):
                continue
            return self.name(name_off) if kind in (STRUCT, FWD) else None
        return None

    def func_params(self, fname):
        for name_off, kind, _vlen, st, _x in self.types:
            if kind == FUNC_K and self.name(name_off) == fname:
                _n, pkind, vlen, _ret, extra = self.type(st)
                if pkind != FUNC_PROTO:
                    raise NoEvidence(f"{fname} has no FUNC_PROTO")
                return [struct.unpack_from("<II", extra, 8 * i) for i in range(vlen)]
        raise NoEvidence(f"no BTF FUNC {fname} in amdgpu.ko (inlined or removed)")


def elf_section(data, want):
    if data[:4] != b"\x7fELF" or data[4:5] != b"\x02" or data[5:6] != b"\x01":
        raise NoEvidence("not a little-endian ELF64 file")
    try:
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
        sec = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
        stroff = sec[shstrndx][4]
        for name, _t, _f, _a, off, size in sec:
            n = data[stroff + name:data.index(b"\0", stroff + name)].decode()
            if n == want:
                if off + size > len(data):
                    raise NoEvidence(f"{want} section runs past the end of the file (truncated)")
                return data[off:off + size]
    except (struct.error, IndexError, ValueError) as e:
        raise NoEvidence(f"malformed ELF section table ({e})") from e
    raise NoEvidence(f"no {want} section")


def decompress(path):
    """The bytes of a module file (.ko, .ko.xz, .ko.zst, .ko.gz: what kmod loads)."""
    with open(path, "rb") as f:
        raw = f.read()
    try:
        if path.endswith(".xz"):
            return lzma.decompress(raw)
        if path.endswith(".gz"):
            return gzip.decompress(raw)
        if path.endswith(".zst"):
            return subprocess.run(["zstd", "-qdc"], input=raw, capture_output=True, check=True).stdout
    except FileNotFoundError as e:
        raise NoEvidence(f"cannot unpack {path}: zstd is not installed") from e
    except (lzma.LZMAError, zlib.error, OSError, EOFError, subprocess.CalledProcessError) as e:
        raise NoEvidence(f"cannot unpack {path} (truncated or corrupt: {e})") from e
    return raw


# The compressed payloads a bzImage can carry (arch/x86/boot/compressed/Makefile,
# scripts/Makefile.lib: cmd_gzip, cmd_bzip2, cmd_xzkern, cmd_zstd22, cmd_lz4 with
# `lz4 -l`, the legacy frame).  Debian: xz (6.1), zstd (6.12, 7.2); Ubuntu: LZ4.
# Each is followed by 4 bytes of size (size_append), so the external tools may
# exit non-zero after a complete stream: the output counts when it is an ELF.
VMLINUZ_STREAMS = (
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"\x1f\x8b\x08", "gz"),
    (b"\x02\x21\x4c\x18", "lz4"),  # LZ4 legacy frame magic 0x184C2102
    (b"BZh", "bzip2"),  # + block size digit + the block magic 0x314159265359
)


def _unpack(how, data):
    """The decompressed prefix of @data (a stream of kind @how); b"" if none."""
    if how == "xz":
        return lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(data)
    if how == "gz":
        return gzip.GzipFile(fileobj=io.BytesIO(data)).read()
    if how == "bzip2":
        if data[3:4] not in b"123456789" or data[4:10] != b"\x31\x41\x59\x26\x53\x59":
            return b""
        return bz2.BZ2Decompressor().decompress(data)
    tool = {"zstd": ["zstd", "-qdc"], "lz4": ["lz4", "-qdc"]}[how]
    return subprocess.run(tool, input=data, capture_output=True, check=False).stdout


def vmlinux_from_vmlinuz(path):
    """The vmlinux ELF inside a bzImage: try every compressed stream in it."""
    with open(path, "rb") as f:
        img = f.read()
    missing = set()
    for magic, how in VMLINUZ_STREAMS:
        pos = img.find(magic)
        while pos >= 0:
            try:
                out = _unpack(how, img[pos:])
                if out[:4] == b"\x7fELF":
                    return out
            except FileNotFoundError:
                missing.add("zstd" if how == "zstd" else "lz4")
                break
            except (lzma.LZMAError, zlib.error, OSError, EOFError, ValueError):
                pass  # a false match of the magic inside another stream
            pos = img.find(magic, pos + 1)
    if missing:
        raise NoEvidence(f"no vmlinux found inside {path}: {', '.join(sorted(missing))} not installed "
                         "(the image may need it)")
    raise NoEvidence(f"no vmlinux found inside {path} (xz, zstd, gzip, LZ4 legacy, bzip2 tried)")


def struct_member(btf, struct_name, member):
    """(byte offset, type id) of member of the named struct, looked up in @btf and its base.

    Anonymous struct/union members are searched too.  Bitfields are skipped
    (a byte offset of one means nothing to a load); so are members past 2 MiB
    (without the struct's kind_flag such an offset cannot be told from a bitfield).
    """
    for b in (btf, btf.base):
        for i, (name_off, kind, vlen, _st, _x) in enumerate(b.types if b else ()):
            if kind == STRUCT and vlen and b.name(name_off) == struct_name:
                found = _member_in(btf, b.first_id + i, member, 0)
                if found:
                    return found
                raise NoEvidence(f"struct {struct_name} has no member {member}")
    raise NoEvidence(f"no BTF struct {struct_name}")


def _member_in(btf, tid, member, base_bits):
    _n, kind, vlen, _st, extra = btf.type(tid)
    for k in range(vlen):
        mname, mtype, moff = struct.unpack_from("<III", extra, 12 * k)
        if moff >> 24 or moff % 8:
            continue  # a bitfield (kind_flag: its size in bits 24-31), or past 2 MiB
        if btf.name(mname) == member:
            return (base_bits + moff) // 8, mtype
        if mname == 0 and btf.type(mtype)[1] in (STRUCT, UNION):
            found = _member_in(btf, mtype, member, base_bits + moff)
            if found:
                return found
    return None
