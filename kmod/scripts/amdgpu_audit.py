#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-side audit of a kernel's amdgpu.ko: does it still look like what rdnafix hooks?

  amdgpu_audit.py --kroot DIR --kver KVER --series NAME [--allow FILE] [--early-warning]

(a) the BTF prototypes of the four hooked functions: arg 0 of
    amdgpu_pci_probe is a struct pci_dev *, arg 0 of amdgpu_gmc_noretry_set,
    amdgpu_vm_adjust_size and gmc_v10_0_get_vm_pte a struct amdgpu_device *,
    and gmc_v10_0_get_vm_pte has exactly one `u64 *flags`;
(b) every function of amdgpu.ko with a relocation against amdgpu_noretry or
    amdgpu_vm_fragment_size (a reader or writer of the global rdnafix swaps)
    is on the series' allow-list (amdgpu_audit_allow.toml, which says why
    each one is harmless or is a known leak);
(c) every indirect call through adev->gmc.gmc_funcs->get_vm_pte (member
    offsets from BTF; `objdump -dr` of the module) passes a stack local in
    the flags argument's register (x86-64 SysV: rdi rsi rdx rcx r8 r9),
    with no write to that register on any path between it and the call.

Prints one line per finding and a last line `audit: PASS|FAIL|WARN ...`.
Exit 0: pass (or only warnings: --early-warning turns every finding into a
warning, for a kernel nobody tests yet), 1: findings, 2: cannot run.

The build-time conftest calls audit_pte() for (c) alone; it never raises.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import amdgpu_disasm as dis  # noqa: E402
import kelf  # noqa: E402

PTE_FUNC = "gmc_v10_0_get_vm_pte"
HOOKED = (("amdgpu_pci_probe", "struct pci_dev *"),
          ("amdgpu_gmc_noretry_set", "struct amdgpu_device *"),
          ("amdgpu_vm_adjust_size", "struct amdgpu_device *"),
          (PTE_FUNC, "struct amdgpu_device *"))
GLOBALS = ("amdgpu_noretry", "amdgpu_vm_fragment_size")
ALLOW = os.path.join(os.path.dirname(os.path.abspath(__file__)), "amdgpu_audit_allow.toml")
AMDGPU = "kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko"


def objdump(args, path):
    exe = shutil.which("objdump")
    if not exe:
        raise kelf.NoEvidence("objdump not found (binutils)")
    r = subprocess.run([exe, *args, path], capture_output=True, text=True, errors="replace", check=False)
    if r.returncode != 0:
        raise kelf.NoEvidence(f"objdump {' '.join(args)} failed: {r.stderr.strip()[:80]}")
    return r.stdout


def pte_offsets(btf, flags_arg):
    """(displacements of a gmc_funcs load, of get_vm_pte, flags register) from BTF."""
    gmc, _t = kelf.struct_member(btf, "amdgpu_device", "gmc")
    funcs, ft = kelf.struct_member(btf, "amdgpu_gmc", "gmc_funcs")
    pte, pt = kelf.struct_member(btf, "amdgpu_gmc_funcs", "get_vm_pte")
    if btf.type(ft)[1] != kelf.PTR:
        raise kelf.NoEvidence("amdgpu_gmc.gmc_funcs is not a pointer")
    _n, kind, _v, proto, _x = btf.type(pt)
    if kind != kelf.PTR or btf.type(proto)[1] != kelf.FUNC_PROTO:
        raise kelf.NoEvidence("amdgpu_gmc_funcs.get_vm_pte is not a function pointer")
    _n, _k, vlen, _r, extra = btf.type(proto)
    params = [int.from_bytes(extra[8 * i + 4:8 * i + 8], "little") for i in range(vlen)]
    if not 0 <= flags_arg < min(len(params), len(dis.ARG_REGS)) or not btf.is_u64_ptr(params[flags_arg]):
        raise kelf.NoEvidence(f"gmc_funcs->get_vm_pte has {len(params)} args, arg {flags_arg + 1} is no u64 *")
    return (gmc + funcs, funcs), pte, dis.ARG_REGS[flags_arg]


def pte_sites(dis_text, rel_text, btf, flags_arg):
    """(sites, stray, reg, offsets text) of the get_vm_pte calls in a module's disassembly."""
    funcs_disps, pte, reg = pte_offsets(btf, flags_arg)
    needles = tuple(f"{hex(d)}(%r" for d in funcs_disps)
    funcs = dis.functions(dis_text, lambda lines: any(n in ln for ln in lines for n in needles))
    sites, stray = dis.get_vm_pte_calls(funcs, dis.code_entries(rel_text), funcs_disps, pte, reg)
    where = f"gmc_funcs at {hex(funcs_disps[0])}, get_vm_pte at {hex(pte)}"
    return sites, stray, reg, where


def pte_verdict(sites, stray, reg):
    """(1|0, text <= 150) from the call sites."""
    bad = [s for s in sites if not s[3]]
    if stray:
        return 0, f"get_vm_pte loaded but not called at {stray[0]} ({len(stray)} such load(s))"[:150]
    if not sites:
        return 0, "no call through gmc_funcs->get_vm_pte recognised"
    if bad:
        return 0, f"{len(bad)} of {len(sites)} call site(s) not a stack slot in %{reg}: {bad[0][0]}: {bad[0][4]}"[:150]
    return 1, f"{len(sites)} call site(s), flags in %{reg} = stack slot ({', '.join(s[0] for s in sites)})"[:150]


def audit_pte(ko_path, btf, flags_arg):
    """(1|0|-1, text<=150) for the conftest: 1 every call through gmc_funcs->get_vm_pte
    passes a stack local in the flags register, 0 not proven, -1 the audit could not run."""
    try:
        sites, stray, reg, _w = pte_sites(objdump(["-dr", "-w", "--no-show-raw-insn"], ko_path),
                                          objdump(["-r"], ko_path), btf, flags_arg)
        return pte_verdict(sites, stray, reg)
    except Exception as e:  # noqa: BLE001 -- the contract: never raise
        return -1, f"audit not run: {type(e).__name__}: {e}"[:150]


def base_name(fn):
    """amdgpu_device_init.cold / foo.isra.0 / foo.constprop.0 -> the C function's name."""
    return fn.split(".", 1)[0]


def load_allow(path, series):
    """(allow {global: {function: why}}, early_warning) of one series, following same_as."""
    import tomllib  # Python 3.11; imported here so that audit_pte() runs on 3.10 too

    with open(path, "rb") as f:
        data = tomllib.load(f).get("series", {})
    s = data.get(series)
    if s is None:
        raise kelf.NoEvidence(f"{path} has no [series.\"{series}\"] (known: {', '.join(sorted(data))})")
    early = bool(s.get("early_warning", False))
    seen = {series}
    while "same_as" in s:
        nxt = s["same_as"]
        if nxt in seen or nxt not in data:
            raise kelf.NoEvidence(f"{path}: series {series}: same_as {nxt!r} is unknown or a loop")
        seen.add(nxt)
        s = data[nxt]
    return {g: dict(s.get(g, {})) for g in GLOBALS}, early


def find_files(kroot, kver):
    mods, base = None, None
    for d in ("lib/modules", "usr/lib/modules"):
        for ext in ("", ".xz", ".zst", ".gz"):
            p = os.path.join(kroot, d, kver, AMDGPU + ext)
            if mods is None and os.path.isfile(p):
                mods = p
    for c in ("vmlinuz", f"boot/vmlinuz-{kver}", f"usr/lib/modules/{kver}/vmlinuz", f"lib/modules/{kver}/vmlinuz"):
        if base is None and os.path.isfile(os.path.join(kroot, c)):
            base = os.path.join(kroot, c)
    if not mods:
        raise kelf.NoEvidence(f"no amdgpu.ko for {kver} under {kroot}")
    if not base:
        raise kelf.NoEvidence(f"no vmlinuz for {kver} under {kroot}")
    return mods, base


def prototypes(btf):
    """[(ok, line)] for the hooked functions, and the flags argument (-1 unknown)."""
    out, flags_arg = [], -1
    for fn, want in HOOKED:
        try:
            params = btf.func_params(fn)
        except kelf.NoEvidence as e:
            out.append((False, f"prototype {fn}: {e}"))
            continue
        sig = ", ".join(f"{btf.describe(t)} {btf.name(n)}".replace("* ", "*") for n, t in params)
        ok = bool(params) and btf.describe(params[0][1]) == want
        why = "" if ok else f" -- arg 1 must be {want}"
        if fn == PTE_FUNC:
            fl = [i for i, (n, t) in enumerate(params) if btf.name(n) == "flags" and btf.is_u64_ptr(t)]
            if len(fl) == 1:
                flags_arg = fl[0]
                why += f" (flags = arg {flags_arg + 1}, %{dis.ARG_REGS[flags_arg]})" if flags_arg < 6 else ""
            else:
                ok, why = False, why + " -- no single u64 *flags"
        out.append((ok, f"prototype {fn}({sig}){why}"))
    return out, flags_arg


def audit(kroot, kver, series, allow_path):
    """(findings [(ok, line)], early_warning) of one kernel; raises NoEvidence when it cannot run."""
    allow, early = load_allow(allow_path, series)
    mod, vmlinuz = find_files(kroot, kver)
    btf_base = kelf.Btf(kelf.elf_section(kelf.vmlinux_from_vmlinuz(vmlinuz), ".BTF"))
    with tempfile.TemporaryDirectory(prefix="amdgpu-audit-") as tmp:
        ko = os.path.join(tmp, "amdgpu.ko")
        with open(ko, "wb") as f:
            f.write(kelf.decompress(mod))
        with open(ko, "rb") as f:
            btf = kelf.Btf(kelf.elf_section(f.read(), ".BTF"), btf_base)
        text = objdump(["-dr", "-w", "--no-show-raw-insn"], ko)
        rel = objdump(["-r"], ko)
    out = [(True, f"module {mod} ({len(text) >> 20} MiB of disassembly), base BTF {vmlinuz}")]
    protos, flags_arg = prototypes(btf)
    out += protos
    readers = dis.symbol_readers(text, GLOBALS)
    for g in GLOBALS:
        for fn in readers[g]:
            why = allow[g].get(base_name(fn))
            out.append((why is not None, f"reader of {g}: {fn}: " + (why or "NOT on the allow-list of " + series)))
        for fn in sorted(set(allow[g]) - {base_name(f) for f in readers[g]}):
            out.append((True, f"reader of {g}: {fn}: allowed but no longer referenced (info)"))
    if flags_arg < 0 or flags_arg >= len(dis.ARG_REGS):
        out.append((False, "get_vm_pte call sites: not audited, the flags argument is unknown"))
        return out, early
    try:
        sites, stray, reg, where = pte_sites(text, rel, btf, flags_arg)
    except kelf.NoEvidence as e:
        out.append((False, f"get_vm_pte call sites: {e}"))
        return out, early
    out.append((True, f"get_vm_pte call sites ({where}, flags in %{reg}): {len(sites)}"))
    for w, how, r, ok, why in sites:
        out.append((ok, f"call site {w}: {how}, flags {r}: " + ("stack slot" if ok else "NOT a stack slot") +
                    f" ({why})"))
    for w in stray:
        out.append((False, f"get_vm_pte pointer loaded at {w} but not called in a recognised way"))
    v, vtext = pte_verdict(sites, stray, reg)
    out.append((v == 1, f"audit_pte: {v} {vtext}"))
    return out, early


def main():
    ap = argparse.ArgumentParser(description="host-side audit of a kernel's amdgpu.ko for rdnafix")
    ap.add_argument("--kroot", required=True, help="unpacked kernel tree (vmlinuz, lib/modules/KVER)")
    ap.add_argument("--kver", required=True)
    ap.add_argument("--series", required=True, help="allow-list to use, e.g. 6.12, 6.12-rt, sid")
    ap.add_argument("--allow", default=ALLOW)
    ap.add_argument("--early-warning", action="store_true", help="findings are warnings (exit 0)")
    a = ap.parse_args()
    try:
        found, early = audit(a.kroot, a.kver, a.series, a.allow)
    except (kelf.NoEvidence, OSError, ValueError, ImportError) as e:  # TOMLDecodeError is a ValueError
        print(f"audit: CANNOT {a.series} {a.kver}: {e}")
        return 2
    early = early or a.early_warning
    bad = 0
    for ok, line in found:
        tag = "ok  " if ok else ("WARN" if early else "FAIL")
        bad += not ok
        print(f"  {tag} {line}")
    sites = sum(1 for ok, ln in found if re.match(r"call site ", ln))
    readers = sum(1 for ok, ln in found if ln.startswith("reader of") and "(info)" not in ln)
    verdict = "PASS" if not bad else ("WARN" if early else "FAIL")
    print(f"audit: {verdict} {a.series} {a.kver}: {bad} finding(s); 4 prototypes, {readers} reader(s) "
          f"of the globals, {sites} get_vm_pte call site(s)")
    return 1 if bad and not early else 0


if __name__ == "__main__":
    sys.exit(main())
