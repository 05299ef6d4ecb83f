#!/usr/bin/env python3
"""Unit tests of kmod/scripts/amdgpu_audit.py and amdgpu_disasm.py (ctest kmod_amdgpu_audit_unit).

The disassembly fixtures in data/audit/ are `objdump -dr -w --no-show-raw-insn`
of Debian's amdgpu.ko, taken verbatim (6.12.117+deb12: amdgpu_vm_bo_update;
7.2.13+deb14: svm_range_validate_and_map) with the `objdump -r` records
that point into them; each negative case alters one or two lines of them.
"""
import os
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))
sys.path.insert(0, os.path.join(TOP, "kmod/scripts"))
import amdgpu_audit as audit  # noqa: E402
import amdgpu_disasm as dis  # noqa: E402
import kelf  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data/audit")
# displacements from the BTF of each kernel (checked on the real modules by kmod_amdgpu_audit_6_12)
K612 = ((0x2cf8, 0x2120), 0x38, "rdx")
K72 = ((0x2d08, 0x2128), 0x30, "r8")


def read(name):
    with open(os.path.join(DATA, name), encoding="ascii") as f:
        return f.read()


def alter(text, old, new):
    assert text.count(old) == 1, f"fixture line not found exactly once: {old!r}"
    return text.replace(old, new)


def analyse(text, rel, k):
    funcs = dis.functions(text)
    sites, stray = dis.get_vm_pte_calls(funcs, dis.code_entries(rel), *k)
    return sites, stray, audit.pte_verdict(sites, stray, k[2])


class VmBoUpdate612(unittest.TestCase):
    def setUp(self):
        self.text, self.rel = read("vm_bo_update-6.12.dis"), read("vm_bo_update-6.12.rel")

    def test_verbatim_is_proven(self):
        sites, stray, (v, why) = analyse(self.text, self.rel, K612)
        self.assertEqual(stray, [])
        self.assertEqual([(s[0], s[2], s[3], s[4]) for s in sites],
                         [("amdgpu_vm_bo_update+0x235", "%rdx", True, "lea 0x48(%rsp)")])
        self.assertEqual(v, 1, why)
        self.assertIn("1 call site(s), flags in %rdx = stack slot", why)

    def test_pointer_loaded_from_memory_is_not_a_local(self):
        t = alter(self.text, "lea    0x48(%rsp),%rdx", "mov    0x48(%rsp),%rdx")
        sites, _s, (v, why) = analyse(t, self.rel, K612)
        self.assertFalse(sites[0][3])
        self.assertIn("mov 0x48(%rsp),%rdx", sites[0][4])
        self.assertEqual(v, 0, why)

    def test_register_clobbered_before_the_call(self):
        t = alter(self.text, "3d08b:\tmov    %r14,%rsi", "3d08b:\tmov    %r14,%rdx")
        sites, _s, (v, _w) = analyse(t, self.rel, K612)
        self.assertIn("%r14 set by `lea -0x8(%rax),%r14`", sites[0][4])  # followed through the mov
        self.assertEqual(v, 0)

    def test_implicit_writes_and_reads(self):
        # rep stos writes %rax (the call target) as well: the loaded get_vm_pte is then never called
        for insn, v_want in (("mul    %r14", 0), ("cqto", 0), ("rep stos %rax,%es:(%rdi)", 0),
                             ("cmp    %rdx,%r14", 1), ("mov    %rax,0x8(%rdx)", 1), ("push   %rdx", 1)):
            t = alter(self.text, "3d08b:\tmov    %r14,%rsi", "3d08b:\t" + insn)
            _sites, _s, (v, why) = analyse(t, self.rel, K612)
            self.assertEqual((insn, v), (insn, v_want), why)

    def test_flags_in_another_register(self):
        _sites, _s, (v, why) = analyse(self.text, self.rel, K612[:2] + ("rcx",))
        self.assertEqual(v, 0, why)
        self.assertIn("%rcx", why)

    def test_jump_into_the_window(self):
        t = alter(self.text, "je     3d04f <amdgpu_vm_bo_update+0x1ef>", "je     3d08b <amdgpu_vm_bo_update+0x22b>")
        sites, _s, (v, _w) = analyse(t, self.rel, K612)
        self.assertFalse(sites[0][3])
        self.assertEqual(v, 0)

    def test_entry_from_a_jump_label(self):
        rel = self.rel + ("\nRELOCATION RECORDS FOR [__jump_table]:\nOFFSET           TYPE              VALUE\n"
                          "0000000000000010 R_X86_64_PC32     .text+0x000000000003d08b\n")
        sites, _s, (v, _w) = analyse(self.text, rel, K612)
        self.assertEqual(sites[0][3:], (False, "target is get_vm_pte on some paths only"))
        self.assertEqual(v, 0)

    def test_bookkeeping_relocations_are_no_entries(self):
        rel = self.rel + ("\nRELOCATION RECORDS FOR [.orc_unwind_ip]:\nOFFSET           TYPE              VALUE\n"
                          "0000000000000010 R_X86_64_PC32     .text+0x000000000003d08b\n")
        self.assertEqual(analyse(self.text, rel, K612)[2][0], 1)

    def test_tail_call(self):
        t = alter(self.text, "3d095:\tcall   3d09a", "3d095:\tjmp    3d09a")
        sites, _s, (v, _w) = analyse(t, self.rel, K612)
        self.assertIn("tail call", sites[0][4])
        self.assertEqual(v, 0)

    def test_pointer_loaded_but_not_called(self):
        line = [ln for ln in self.text.splitlines() if "3d095:" in ln][0]
        t = alter(self.text, line, "   3d095:\tmov    %rax,0x50(%rsp)")
        sites, stray, (v, why) = analyse(t, self.rel, K612)
        self.assertEqual((sites, stray), ([], ["amdgpu_vm_bo_update+0x231"]))
        self.assertEqual(v, 0, why)

    def test_other_call_forms(self):
        line = [ln for ln in self.text.splitlines() if "3d095:" in ln][0]
        for new, how in (("   3d095:\tcall   *%rax", "call *reg %rax"),
                         (line.replace("__x86_indirect_thunk_rax", "__x86_indirect_its_thunk_rax"),
                          "call thunk %rax")):
            sites, _s, (v, why) = analyse(alter(self.text, line, new), self.rel, K612)
            self.assertEqual((sites[0][1], v), (how, 1), why)
        t = alter(self.text, "3d091:\tmov    0x38(%rax),%rax", "3d091:\tnop")
        t = alter(t, line, "   3d095:\tcall   *0x38(%rax)")
        sites, _s, (v, why) = analyse(t, self.rel, K612)
        self.assertEqual((sites[0][1], v), ("call *mem *0x38(%rax)", 1), why)

    def test_no_call_site(self):
        self.assertEqual(analyse(self.text, self.rel, ((0x1234,), 0x38, "rdx"))[2][0], 0)


class SvmRange72(unittest.TestCase):
    def setUp(self):
        self.text, self.rel = read("svm_range_validate_and_map-7.2.dis"), read("svm_range_validate_and_map-7.2.rel")

    def test_verbatim_two_sites_proven(self):
        sites, stray, (v, why) = analyse(self.text, self.rel, K72)
        self.assertEqual(stray, [])
        self.assertEqual([(s[0], s[3]) for s in sites], [("svm_range_validate_and_map+0xf57", True),
                                                         ("svm_range_validate_and_map+0x1481", True)])
        self.assertEqual(v, 1, why)

    def test_one_site_with_a_heap_pointer(self):
        t = alter(self.text, "34d9ee:\tlea    0x110(%rsp),%r8", "34d9ee:\tlea    0x110(%rbx),%r8")
        sites, _s, (v, why) = analyse(t, self.rel, K72)
        self.assertEqual([s[3] for s in sites], [False, True])
        self.assertEqual(v, 0)
        self.assertIn("1 of 2 call site(s)", why)


class CompiledCallers(unittest.TestCase):
    """data/audit/callers.c compiled now with the kernel's code-generation flags: real gcc output."""

    def test_each_caller(self):
        with tempfile.TemporaryDirectory() as tmp:
            obj = os.path.join(tmp, "callers.o")
            subprocess.run(["gcc", "-O2", "-mindirect-branch=thunk-extern", "-mfunction-return=thunk-extern",
                            "-mindirect-branch-register", "-fno-jump-tables", "-mcmodel=kernel", "-fno-pic",
                            "-fno-stack-protector", "-mno-red-zone", "-c", os.path.join(DATA, "callers.c"),
                            "-o", obj], check=True)
            text = audit.objdump(["-dr", "-w", "--no-show-raw-insn"], obj)
            rel = audit.objdump(["-r"], obj)
        sites, stray, (v, why) = analyse(text, rel, K612)
        got = {s[0].split("+")[0]: (s[3], s[4]) for s in sites}
        self.assertEqual(sorted(got), ["fp_caller", "heap_caller", "mixed_caller", "passing_caller", "stack_caller"])
        self.assertEqual(got["stack_caller"][0], True, got)
        self.assertEqual(got["fp_caller"], (True, "lea -0x8(%rbp)"))
        self.assertEqual(got["passing_caller"], (False, "tail call: flags is the caller's argument"))
        for fn in ("heap_caller", "mixed_caller"):
            self.assertFalse(got[fn][0], got[fn])
        self.assertEqual((stray, v), ([], 0), why)
        self.assertIn("3 of 5 call site(s)", why)


class Readers(unittest.TestCase):
    LINE = ("00000000000d1fa0 <gfxhub_v3_0_gart_enable>:\n   d255d:\tmov    0x0(%rip),%edx        # d2563 "
            "<gfxhub_v3_0_gart_enable+0x5c3>\td255f: R_X86_64_PC32\tamdgpu_noretry-0x4\n")

    def test_readers_found(self):
        r = dis.symbol_readers(read("vm_bo_update-6.12.dis") + "\n" + self.LINE, audit.GLOBALS)
        self.assertEqual(r, {"amdgpu_noretry": ["gfxhub_v3_0_gart_enable"], "amdgpu_vm_fragment_size": []})

    def test_base_name(self):
        self.assertEqual([audit.base_name(n) for n in ("amdgpu_device_init.cold", "foo.isra.0", "bar")],
                         ["amdgpu_device_init", "foo", "bar"])


class AllowList(unittest.TestCase):
    def test_every_series_resolves(self):
        for s in ("6.1", "6.12", "7.2", "6.1-rt", "6.12-rt", "7.2-rt", "sid"):
            allow, early = audit.load_allow(audit.ALLOW, s)
            self.assertIn("amdgpu_gmc_noretry_set", allow["amdgpu_noretry"], s)
            self.assertEqual(early, s == "sid")
        self.assertEqual(audit.load_allow(audit.ALLOW, "6.12-rt"), audit.load_allow(audit.ALLOW, "6.12"))

    def test_unknown_series_and_loops(self):
        with self.assertRaisesRegex(kelf.NoEvidence, "no .series.\"5.10\"."):
            audit.load_allow(audit.ALLOW, "5.10")
        with tempfile.NamedTemporaryFile("w", suffix=".toml") as f:
            f.write('[series.a]\nsame_as = "b"\n[series.b]\nsame_as = "a"\n')
            f.flush()
            with self.assertRaisesRegex(kelf.NoEvidence, "loop"):
                audit.load_allow(f.name, "a")


class Contract(unittest.TestCase):
    def test_audit_pte_never_raises(self):
        for args in (("/nonexistent/amdgpu.ko", None, 2), (__file__, None, 2), (os.devnull, object(), 99)):
            v, text = audit.audit_pte(*args)
            self.assertEqual(v, -1)
            self.assertLessEqual(len(text), 150)
            self.assertTrue(text.startswith("audit not run: "), text)

    def test_cli_cannot_run(self):
        r = subprocess.run([sys.executable, os.path.join(TOP, "kmod/scripts/amdgpu_audit.py"), "--kroot",
                            "/nonexistent", "--kver", "0.0", "--series", "6.12"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("audit: CANNOT 6.12 0.0: no amdgpu.ko", r.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
