#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of kmod/scripts/pte-conftest.py (the build-time check of rdnafix) on
crafted module trees.

  test_pte_conftest.py crafted   trees of hand-made files (garbage, truncated,
                                 built-in, depmod's order); needs nothing else
  test_pte_conftest.py kernel    trees made from a cached Debian kernel
                                 (tests/vm/fetch-kernels.sh): LZ4 and bzip2
                                 vmlinuz made from its real vmlinux, amdgpu.ko
                                 with BTF edited (no FUNC record, flags as
                                 'u32 *', arg 0 of another type), an
                                 amdgpu-dkms tree; exit 77 without the cache

Every case runs the script as the build does and reads the header it wrote:
the header is always written and the script never prints a traceback.
"""
import importlib.util
import lzma
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SCRIPTS = os.path.join(TOP, "kmod", "scripts")
CONFTEST = os.path.join(SCRIPTS, "pte-conftest.py")
sys.path.insert(0, SCRIPTS)
import kelf  # noqa: E402

CACHE = os.path.join(os.environ.get("RDNAFIX_CACHE", "/var/cache/rdnafix"), "kernels")
AMDGPU_DIR = "kernel/drivers/gpu/drm/amd/amdgpu"
KEYS = ("RDNAFIX_BTF_PTE_FLAGS_ARG", "RDNAFIX_BTF_PTE_NARGS", "RDNAFIX_BTF_PTE_TEXT",
        "RDNAFIX_BTF_PROTO_PCI_PROBE", "RDNAFIX_BTF_PROTO_NORETRY_SET",
        "RDNAFIX_BTF_PROTO_VM_ADJUST_SIZE", "RDNAFIX_BTF_PROTO_GET_VM_PTE",
        "RDNAFIX_BTF_PROTO_TEXT", "RDNAFIX_AMDGPU_ORIGIN", "RDNAFIX_AMDGPU_PATH",
        "RDNAFIX_AUDIT_PTE", "RDNAFIX_AUDIT_PTE_TEXT")


def parse_header(text):
    out = {}
    for line in text.splitlines():
        if line.startswith("#define "):
            _d, key, val = line.split(" ", 2)
            if val.startswith('"'):
                val = val[1:-1].replace('\\"', '"').replace("\\?", "?").replace("\\\\", "\\")
            else:
                val = int(val)
            out[key] = val
    return out


class ConftestCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rdnafix-conftest-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def tree(self, kver, name="root"):
        root = os.path.join(self.tmp, name)
        os.makedirs(os.path.join(root, "lib/modules", kver), exist_ok=True)
        os.makedirs(os.path.join(root, "boot"), exist_ok=True)
        return root

    def put(self, root, rel, data):
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def conftest(self, kver, root, env=None):
        """Run the script as kmod/Makefile does; the header as a dict (every key present)."""
        out = os.path.join(self.tmp, "rdnafix_conftest.h")
        p = subprocess.run([sys.executable, CONFTEST, "--kver", kver, "--root", root, "--out", out],
                           capture_output=True, text=True, check=False, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("Traceback", p.stderr)
        with open(out, encoding="ascii") as f:
            text = f.read()
        h = parse_header(text)
        self.assertEqual(sorted(h), sorted(KEYS), text)
        for key in KEYS:
            if key.endswith("_TEXT"):
                self.assertLessEqual(len(h[key]), 150)
        self.compile_header(out)
        return h

    def compile_header(self, path):
        """The header must compile as the module's C does (-Wall -Wextra -Werror, trigraphs warned)."""
        cc = shutil.which("gcc") or shutil.which("cc")
        if not cc:
            return
        src = os.path.join(self.tmp, "use.c")
        with open(src, "w", encoding="ascii") as f:
            f.write('#include "rdnafix_conftest.h"\n'
                    "int n[] = { " + ", ".join(k for k in KEYS if not k.endswith(("_TEXT", "_ORIGIN", "_PATH")))
                    + " };\nconst char *s[] = { " + ", ".join(k for k in KEYS if k.endswith(("_TEXT", "_ORIGIN", "_PATH")))
                    + " };\n")
        p = subprocess.run([cc, "-std=gnu11", "-Wall", "-Wextra", "-Wtrigraphs", "-Werror", "-c", "-o",
                            os.devnull, "-I", os.path.dirname(path), src], capture_output=True, text=True,
                           check=False)
        self.assertEqual(p.returncode, 0, p.stderr)


class Crafted(ConftestCase):
    """Hand-made trees: which amdgpu is chosen, and hostile files."""
    KVER = "6.12.0-test-amd64"

    def test_no_amdgpu(self):
        h = self.conftest(self.KVER, self.tree(self.KVER))
        self.assertEqual(h["RDNAFIX_BTF_PTE_FLAGS_ARG"], -1)
        self.assertTrue(h["RDNAFIX_BTF_PTE_TEXT"].startswith("unknown: no amdgpu.ko"))
        self.assertEqual((h["RDNAFIX_AMDGPU_ORIGIN"], h["RDNAFIX_AMDGPU_PATH"]), ("none", ""))
        self.assertEqual(h["RDNAFIX_AUDIT_PTE"], -1)

    def test_builtin(self):
        root = self.tree(self.KVER)
        mod = f"lib/modules/{self.KVER}/"
        self.put(root, mod + "modules.builtin", f"kernel/drivers/gpu/drm/drm.ko\n{AMDGPU_DIR}/amdgpu.ko\n".encode())
        # an amdgpu.ko left on disk changes nothing: the built-in driver owns the devices
        self.put(root, mod + "updates/dkms/amdgpu.ko.xz", b"\xfd7zXZ\x00garbage")
        h = self.conftest(self.KVER, root)
        self.assertEqual((h["RDNAFIX_AMDGPU_ORIGIN"], h["RDNAFIX_AMDGPU_PATH"]), ("built-in", ""))
        self.assertIn("built into", h["RDNAFIX_BTF_PTE_TEXT"])
        self.assertIn("built into", h["RDNAFIX_BTF_PROTO_TEXT"])
        for key in KEYS:
            if key.startswith("RDNAFIX_BTF_PROTO_") and not key.endswith("_TEXT"):
                self.assertEqual(h[key], -1, key)

    def test_depmod_search_order(self):
        root = self.tree(self.KVER)
        mod = f"lib/modules/{self.KVER}/"
        order = ((f"{AMDGPU_DIR}/amdgpu.ko.xz", "in-tree"), ("extra/amd/amdgpu.ko", "extra"),
                 ("updates/amdgpu.ko.zst", "updates"), ("updates/dkms/amdgpu.ko.xz", "dkms"))
        for rel, origin in order:  # each new file outranks the ones before (no modules.dep)
            self.put(root, mod + rel, b"not an ELF file")
            h = self.conftest(self.KVER, root)
            self.assertEqual(h["RDNAFIX_AMDGPU_ORIGIN"], origin)
            self.assertEqual(h["RDNAFIX_AMDGPU_PATH"], f"/lib/modules/{self.KVER}/{rel}")
            self.assertEqual(h["RDNAFIX_BTF_PTE_FLAGS_ARG"], -1)
            self.assertTrue(h["RDNAFIX_BTF_PTE_TEXT"].startswith("unknown: "), h["RDNAFIX_BTF_PTE_TEXT"])

    def test_modules_dep_wins(self):
        root = self.tree(self.KVER)
        mod = f"lib/modules/{self.KVER}/"
        self.put(root, mod + f"{AMDGPU_DIR}/amdgpu.ko.xz", b"x")
        self.put(root, mod + "updates/dkms/amdgpu.ko.xz", b"x")
        self.put(root, mod + "extra/amd/amdgpu/amdgpu.ko", b"x")
        # an "override amdgpu * extra" in /etc/depmod.d: depmod resolved extra/
        dep = (f"kernel/drivers/gpu/drm/drm.ko.xz:\nextra/amd/amdgpu/amdgpu.ko: kernel/drivers/gpu/drm/drm.ko.xz\n")
        self.put(root, mod + "modules.dep", dep.encode())
        h = self.conftest(self.KVER, root)
        self.assertEqual(h["RDNAFIX_AMDGPU_ORIGIN"], "extra")
        self.assertEqual(h["RDNAFIX_AMDGPU_PATH"], f"/lib/modules/{self.KVER}/extra/amd/amdgpu/amdgpu.ko")
        # modules.dep naming a file that is gone: depmod's search order instead
        os.unlink(os.path.join(root, mod, "extra/amd/amdgpu/amdgpu.ko"))
        h = self.conftest(self.KVER, root)
        self.assertEqual(h["RDNAFIX_AMDGPU_ORIGIN"], "dkms")

    def test_merged_usr(self):
        """Debian 14 ships modules in /usr/lib/modules; a root without the /lib link is read there."""
        root = os.path.join(self.tmp, "usr-root")
        self.put(root, f"usr/lib/modules/{self.KVER}/updates/dkms/amdgpu.ko.zst", b"x")
        h = self.conftest(self.KVER, root)
        self.assertEqual(h["RDNAFIX_AMDGPU_ORIGIN"], "dkms")
        self.assertEqual(h["RDNAFIX_AMDGPU_PATH"], f"/lib/modules/{self.KVER}/updates/dkms/amdgpu.ko.zst")
        self.put(root, f"usr/lib/modules/{self.KVER}/extra/amdgpu.ko", b"x")
        self.put(root, f"usr/lib/modules/{self.KVER}/modules.dep", b"extra/amdgpu.ko:\n")
        h = self.conftest(self.KVER, root)
        self.assertEqual(h["RDNAFIX_AMDGPU_PATH"], f"/lib/modules/{self.KVER}/extra/amdgpu.ko")

    def test_hostile_files(self):
        root = self.tree(self.KVER)
        path = os.path.join(root, f"lib/modules/{self.KVER}/{AMDGPU_DIR}/amdgpu.ko")
        elf = bytearray(b"\x7fELF\x02\x01\x01" + bytes(57))
        struct.pack_into("<Q", elf, 0x28, 1 << 40)  # section table far past the end
        struct.pack_into("<HHH", elf, 0x3A, 64, 30, 3)
        real_xz = lzma.compress(b"\x7fELF\x02\x01" + os.urandom(4096))
        cases = (("amdgpu.ko", bytes(elf), "malformed ELF"),
                 ("amdgpu.ko", b"", "not a little-endian ELF64"),
                 ("amdgpu.ko.xz", real_xz[:len(real_xz) // 2], "cannot unpack"),
                 ("amdgpu.ko.xz", os.urandom(2048), "cannot unpack"),
                 ("amdgpu.ko.gz", b"\x1f\x8b\x08" + os.urandom(100), "cannot unpack"))
        for name, data, want in cases:
            for f in os.listdir(os.path.dirname(path)) if os.path.isdir(os.path.dirname(path)) else ():
                os.unlink(os.path.join(os.path.dirname(path), f))
            self.put(root, os.path.join(os.path.dirname(path), name), data)
            h = self.conftest(self.KVER, root)
            self.assertIn(want, h["RDNAFIX_BTF_PTE_TEXT"], name)
            self.assertEqual(h["RDNAFIX_BTF_PTE_FLAGS_ARG"], -1)
            self.assertEqual(h["RDNAFIX_AMDGPU_ORIGIN"], "in-tree")

    def test_hostile_text_compiles(self):
        kver = 'x"y???=z\\w'  # lands in the reason text: escaped, no trigraph
        h = self.conftest(kver, self.tree(kver))
        self.assertIn(kver, h["RDNAFIX_BTF_PTE_TEXT"])

    def test_garbage_vmlinuz(self):
        """A valid ELF module is not needed to reach the vmlinuz: a garbage image is reported."""
        img = b"MZ" + os.urandom(64 << 10) + b"\x02\x21\x4c\x18" + os.urandom(4096) + b"BZh91AY&SY" + os.urandom(99)
        root = self.tree(self.KVER)
        self.put(root, f"boot/vmlinuz-{self.KVER}", img)
        with self.assertRaises(kelf.NoEvidence) as cm:
            kelf.vmlinux_from_vmlinuz(os.path.join(root, f"boot/vmlinuz-{self.KVER}"))
        self.assertIn("no vmlinux found inside", str(cm.exception))


def cached_kernel():
    try:
        with open(os.path.join(CACHE, "6.12.kver"), encoding="ascii") as f:
            kver = f.read().strip()
    except OSError:
        return None
    return kver if os.path.isfile(os.path.join(CACHE, kver, "boot", "vmlinuz-" + kver)) else None


def btf_offsets(blob):
    """File offset (inside @blob) of every type record of a BTF blob, in id order."""
    _m, _v, _f, hdr_len = struct.unpack_from("<HBBI", blob, 0)
    type_off, type_len = struct.unpack_from("<II", blob, 8)
    pos, end, out = hdr_len + type_off, hdr_len + type_off + type_len, []
    while pos < end:
        _n, info, _st = struct.unpack_from("<III", blob, pos)
        out.append(pos)
        pos += 12 + kelf.extra_bytes((info >> 24) & 0x1F, info & 0xFFFF)
    return out


class Kernel(ConftestCase):
    """Trees made from the cached Debian 6.12 kernel (its real vmlinux and amdgpu.ko)."""

    @classmethod
    def setUpClass(cls):
        cls.kver = cached_kernel()
        cls.src = os.path.join(CACHE, cls.kver)
        cls.vmlinuz = os.path.join(cls.src, "boot", "vmlinuz-" + cls.kver)
        cls.ko = os.path.join(cls.src, "lib/modules", cls.kver, AMDGPU_DIR, "amdgpu.ko.xz")
        cls.vmlinux = kelf.vmlinux_from_vmlinuz(cls.vmlinuz)
        cls.mod = kelf.decompress(cls.ko)
        with open(cls.vmlinuz, "rb") as f:
            img = f.read()
        cls.setup = img[:(img[0x1F1] + 1) * 512]  # the real setup sectors, before the payload
        cls.base = kelf.Btf(kelf.elf_section(cls.vmlinux, ".BTF"))

    def tree_with(self, modules, vmlinuz=None, dep=None):
        """A root with boot/vmlinuz-KVER and {relative path: bytes} under lib/modules/KVER."""
        root = self.tree(self.kver)
        if vmlinuz is None:
            os.symlink(self.vmlinuz, os.path.join(root, "boot", "vmlinuz-" + self.kver))
        else:
            self.put(root, "boot/vmlinuz-" + self.kver, vmlinuz)
        mdir = f"lib/modules/{self.kver}/"
        for rel, data in modules.items():
            if data is None:
                os.makedirs(os.path.dirname(os.path.join(root, mdir, rel)), exist_ok=True)
                os.symlink(self.ko, os.path.join(root, mdir, rel))
            else:
                self.put(root, mdir + rel, data)
        if dep is not None:
            self.put(root, mdir + "modules.dep", dep.encode())
        return root

    def edited_module(self, edit):
        """amdgpu.ko (uncompressed) with its .BTF section edited by @edit(blob, btf, offsets)."""
        blob = bytearray(kelf.elf_section(self.mod, ".BTF"))
        at = self.mod.find(bytes(blob))
        edit(blob, kelf.Btf(bytes(blob), self.base), btf_offsets(blob))
        return self.mod[:at] + bytes(blob) + self.mod[at + len(blob):]

    @staticmethod
    def param_at(btf, offsets, func, i):
        """Offset in the module's blob of parameter @i's (name, type) of @func's FUNC_PROTO."""
        for name_off, kind, _v, st, _x in btf.types:
            if kind == kelf.FUNC_K and btf.name(name_off) == func:
                if st < btf.first_id:
                    raise AssertionError(f"{func}'s FUNC_PROTO is in vmlinux's BTF")
                return offsets[st - btf.first_id] + 12 + 8 * i
        raise AssertionError(f"no FUNC {func}")

    def assert_good(self, h, origin="in-tree"):
        self.assertEqual(h["RDNAFIX_BTF_PTE_FLAGS_ARG"], 2, h)
        self.assertEqual(h["RDNAFIX_BTF_PTE_NARGS"], 3)
        self.assertIn("gmc_v10_0_get_vm_pte(adev, mapping, flags)", h["RDNAFIX_BTF_PTE_TEXT"])
        for key in ("PCI_PROBE", "NORETRY_SET", "VM_ADJUST_SIZE", "GET_VM_PTE"):
            self.assertEqual(h["RDNAFIX_BTF_PROTO_" + key], 1, key)
        self.assertTrue(h["RDNAFIX_BTF_PROTO_TEXT"].startswith("ok: pci_probe(struct pci_dev *pdev"))
        self.assertEqual(h["RDNAFIX_AMDGPU_ORIGIN"], origin)

    def lz4_legacy(self, data):
        p = subprocess.run(["lz4", "-l", "-1", "-c"], input=data, capture_output=True, check=True)
        return p.stdout

    def test_lz4_vmlinuz(self):
        """Ubuntu's format: bzImage setup, an LZ4 legacy stream (lz4 -l), its size, more bytes."""
        size = struct.pack("<I", len(self.vmlinux))
        img = self.setup + self.lz4_legacy(self.vmlinux) + size + os.urandom(512)
        root = self.tree_with({f"{AMDGPU_DIR}/amdgpu.ko.xz": None}, vmlinuz=img)
        self.assert_good(self.conftest(self.kver, root))
        # without the lz4 program: the reason names it
        h = self.conftest(self.kver, root, env=dict(os.environ, PATH=os.path.join(self.tmp, "empty")))
        self.assertEqual(h["RDNAFIX_BTF_PTE_FLAGS_ARG"], -1)
        self.assertRegex(h["RDNAFIX_BTF_PTE_TEXT"], r"no vmlinux found inside .*: lz4(, zstd)? not installed")

    def test_bzip2_vmlinuz(self):
        import bz2
        size = struct.pack("<I", len(self.vmlinux))
        img = self.setup + bz2.compress(self.vmlinux, 1) + size + os.urandom(512)
        h = self.conftest(self.kver, self.tree_with({f"{AMDGPU_DIR}/amdgpu.ko.xz": None}, vmlinuz=img))
        self.assert_good(h)

    def test_truncated_vmlinuz(self):
        with open(self.vmlinuz, "rb") as f:
            img = f.read()
        h = self.conftest(self.kver, self.tree_with({f"{AMDGPU_DIR}/amdgpu.ko.xz": None},
                                                    vmlinuz=img[:len(img) // 2]))
        self.assertEqual(h["RDNAFIX_BTF_PTE_FLAGS_ARG"], -1)
        self.assertTrue(h["RDNAFIX_BTF_PTE_TEXT"].startswith("unknown: "))
        self.assertEqual(h["RDNAFIX_BTF_PROTO_GET_VM_PTE"], -1)

    def test_no_func_record(self):
        def rename(blob, _btf, _off):
            at = blob.find(b"\0gmc_v10_0_get_vm_pte\0")
            self.assertGreater(at, 0)
            blob[at + 1:at + 21] = b"gmc_v10_0_get_vm_pXe"
        ko = self.edited_module(rename)
        h = self.conftest(self.kver, self.tree_with({f"{AMDGPU_DIR}/amdgpu.ko": ko}))
        self.assertEqual(h["RDNAFIX_BTF_PTE_FLAGS_ARG"], -1)
        self.assertIn("no BTF FUNC gmc_v10_0_get_vm_pte", h["RDNAFIX_BTF_PTE_TEXT"])
        self.assertEqual(h["RDNAFIX_BTF_PROTO_GET_VM_PTE"], -1)
        self.assertEqual(h["RDNAFIX_BTF_PROTO_NORETRY_SET"], 1)
        self.assertIn("no BTF FUNC (inlined or removed): get_vm_pte", h["RDNAFIX_BTF_PROTO_TEXT"])
        self.assertEqual(h["RDNAFIX_AUDIT_PTE"], -1)

    def u32_ptr(self):
        for n, (_no, kind, _v, st, _x) in enumerate(self.base.types):
            if kind == kelf.PTR and self.base.describe(st) == "u32":
                return self.base.first_id + n
        raise AssertionError("no 'u32 *' in vmlinux BTF")

    def flags_u32(self, blob, btf, offsets):
        at = self.param_at(btf, offsets, "gmc_v10_0_get_vm_pte", 2)
        struct.pack_into("<I", blob, at + 4, self.u32_ptr())

    def test_flags_u32_ptr(self):
        ko = self.edited_module(self.flags_u32)
        h = self.conftest(self.kver, self.tree_with({f"{AMDGPU_DIR}/amdgpu.ko": ko}))
        self.assertEqual(h["RDNAFIX_BTF_PTE_FLAGS_ARG"], -1)
        self.assertIn("u32 *flags) has no single 'u64 *flags' parameter", h["RDNAFIX_BTF_PTE_TEXT"])
        self.assertEqual(h["RDNAFIX_BTF_PROTO_GET_VM_PTE"], 1)  # arg 0 is still the adev
        self.assertEqual(h["RDNAFIX_AUDIT_PTE_TEXT"], "audit not run: flags argument not proven")

    def test_arg0_mismatch(self):
        def swap(blob, btf, offsets):  # noretry_set's arg 0 becomes amdgpu_pci_probe's (struct pci_dev *)
            pdev = btf.func_params("amdgpu_pci_probe")[0][1]
            struct.pack_into("<I", blob, self.param_at(btf, offsets, "amdgpu_gmc_noretry_set", 0) + 4, pdev)
        ko = self.edited_module(swap)
        h = self.conftest(self.kver, self.tree_with({f"{AMDGPU_DIR}/amdgpu.ko": ko}))
        self.assertEqual(h["RDNAFIX_BTF_PROTO_NORETRY_SET"], 0)
        self.assertEqual(h["RDNAFIX_BTF_PROTO_PCI_PROBE"], 1)
        self.assertTrue(h["RDNAFIX_BTF_PROTO_TEXT"].startswith(
            "MISMATCH noretry_set arg 0 is 'struct pci_dev *adev' (want struct amdgpu_device *)"),
            h["RDNAFIX_BTF_PROTO_TEXT"])

    def dkms_tree(self, dkms_ko, dep_names):
        """The in-tree amdgpu.ko.xz and amdgpu-dkms's updates/dkms/amdgpu.ko.xz; modules.dep as depmod wrote it."""
        dep = None
        if dep_names is not None:
            with open(os.path.join(self.src, "lib/modules", self.kver, "modules.dep"), encoding="ascii") as f:
                lines = f.read().splitlines()
            dep = "\n".join(dep_names + line[line.index(":"):] if line.startswith(f"{AMDGPU_DIR}/amdgpu.ko")
                            else line for line in lines) + "\n"
        return self.tree_with({f"{AMDGPU_DIR}/amdgpu.ko.xz": None,
                               "updates/dkms/amdgpu.ko.xz": lzma.compress(dkms_ko, preset=0)}, dep=dep)

    def test_amdgpu_dkms(self):
        dkms_ko = self.edited_module(self.flags_u32)  # tells the two apart: only the dkms one has u32 *flags
        dkms_path = f"/lib/modules/{self.kver}/updates/dkms/amdgpu.ko.xz"
        for dep in ("updates/dkms/amdgpu.ko.xz", None):  # depmod's choice, and no modules.dep
            h = self.conftest(self.kver, self.dkms_tree(dkms_ko, dep))
            self.assertEqual((h["RDNAFIX_AMDGPU_ORIGIN"], h["RDNAFIX_AMDGPU_PATH"]), ("dkms", dkms_path))
            self.assertEqual(h["RDNAFIX_BTF_PTE_FLAGS_ARG"], -1)
            self.assertIn("u32 *flags", h["RDNAFIX_BTF_PTE_TEXT"])
            shutil.rmtree(os.path.join(self.tmp, "root"))
        # depmod told to prefer the in-tree one (override): the in-tree evidence
        h = self.conftest(self.kver, self.dkms_tree(dkms_ko, f"{AMDGPU_DIR}/amdgpu.ko.xz"))
        self.assert_good(h, origin="in-tree")

    def test_amdgpu_dkms_without_btf(self):
        """amdgpu-dkms built against headers without vmlinux has no .BTF: no evidence, not the in-tree one's."""
        src = os.path.join(self.tmp, "in.ko")
        with open(src, "wb") as f:
            f.write(self.mod)
        subprocess.run(["objcopy", "--remove-section=.BTF", src], check=True)
        with open(src, "rb") as f:
            ko = f.read()
        h = self.conftest(self.kver, self.dkms_tree(ko, "updates/dkms/amdgpu.ko.xz"))
        self.assertEqual(h["RDNAFIX_AMDGPU_ORIGIN"], "dkms")
        self.assertEqual(h["RDNAFIX_BTF_PTE_FLAGS_ARG"], -1)
        self.assertIn("updates/dkms/amdgpu.ko.xz: no .BTF section", h["RDNAFIX_BTF_PTE_TEXT"])
        for key in ("PCI_PROBE", "NORETRY_SET", "VM_ADJUST_SIZE", "GET_VM_PTE"):
            self.assertEqual(h["RDNAFIX_BTF_PROTO_" + key], -1, key)

    def test_audit_contract(self):
        """audit_pte(ko_path, btf, flags_arg) with an uncompressed ELF; its failures never stop the build."""
        spec = importlib.util.spec_from_file_location("pte_conftest", CONFTEST)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        seen = []

        class Stub:
            result = (1, "3 call sites, flags in %rdx = stack slot")

            @staticmethod
            def audit_pte(ko_path, btf, flags_arg):
                with open(ko_path, "rb") as f:
                    seen.append((f.read(4), flags_arg, len(btf.func_params("gmc_v10_0_get_vm_pte"))))
                if isinstance(Stub.result, Exception):
                    raise Stub.result
                return Stub.result
        root = self.tree_with({f"{AMDGPU_DIR}/amdgpu.ko.xz": None})
        out = os.path.join(self.tmp, "h")
        saved = sys.modules.get("amdgpu_audit")
        sys.modules["amdgpu_audit"] = Stub
        tempfile.tempdir = os.path.join(self.tmp, "t")
        os.mkdir(tempfile.tempdir)
        try:
            for result, want in (((1, "3 call sites, flags in %rdx = stack slot"),
                                  (1, "3 call sites, flags in %rdx = stack slot")),
                                 ((0, "x" * 400), (0, "x" * 150)),
                                 (RuntimeError("objdump missing"), (-1, "audit failed: RuntimeError: objdump missing")),
                                 ((2, "?"), (-1, "audit returned (2, '?') (want (1|0|-1, text))"))):
                Stub.result = result
                self.assertEqual(mod.main(["--kver", self.kver, "--root", root, "--out", out]), 0)
                with open(out, encoding="ascii") as f:
                    h = parse_header(f.read())
                self.assertEqual((h["RDNAFIX_AUDIT_PTE"], h["RDNAFIX_AUDIT_PTE_TEXT"]), want)
                self.assertEqual(seen[-1], (b"\x7fELF", 2, 3))
            self.assertEqual(os.listdir(tempfile.tempdir), [])  # the unpacked copy is removed
        finally:
            tempfile.tempdir = None
            if saved is None:
                sys.modules.pop("amdgpu_audit", None)
            else:
                sys.modules["amdgpu_audit"] = saved


def main():
    which = sys.argv[1] if len(sys.argv) > 1 else "crafted"
    if which == "kernel" and not cached_kernel():
        print(f"no cached 6.12 kernel under {CACHE} (tests/vm/fetch-kernels.sh): skipped")
        return 77
    if which == "kernel" and not (shutil.which("lz4") and shutil.which("objcopy")):
        print("lz4 or objcopy missing: skipped")
        return 77
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(Kernel if which == "kernel" else Crafted)
    ok = unittest.TextTestRunner(verbosity=2).run(suite).wasSuccessful()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
