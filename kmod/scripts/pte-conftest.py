#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Build-time evidence about the amdgpu rdnafix will hook (a conftest).

  pte-conftest.py --kver KVER [--root DIR] --out rdnafix_conftest.h

Which amdgpu: the one modprobe will load for KVER, not always the in-tree
one.  In order: DIR/lib/modules/KVER/modules.builtin names amdgpu.ko (the
driver is built into the kernel: nothing to read); the amdgpu path in
modules.dep (what depmod resolved, /etc/depmod.d overrides included); without
modules.dep (or when the file it names is gone) the first amdgpu.ko[.xz|.zst|
.gz] under updates/dkms/, updates/, extra/, kernel/ (depmod's default search:
"updates" before the rest).  ROCm's amdgpu-dkms installs updates/dkms/amdgpu.ko*.

What is read from that amdgpu.ko: its .BTF section, split BTF whose type ids
and string offsets continue those of vmlinux, read with vmlinux's BTF as the
base: /sys/kernel/btf/vmlinux when KVER is the running kernel (and DIR is /),
else the .BTF section of the vmlinux inside DIR/boot/vmlinuz-KVER or
DIR/lib/modules/KVER/vmlinuz (xz, zstd, gzip, LZ4 legacy or bzip2 stream, as
the kernel's scripts/extract-vmlinux finds it; LZ4 needs the lz4 program).
From it: the flags argument of gmc_v10_0_get_vm_pte, and for each hooked
function whether argument 0 has the type the handler reads through.  Then,
when amdgpu_audit.py is present, the host-side audit of the get_vm_pte
callers in that amdgpu.ko.

The header always gets written: without evidence it says so (-1 and the
reason); the module then decides from its table of tested kernel versions
(rdnafix_proto.c).
"""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kelf import Btf, NoEvidence, decompress, elf_section, vmlinux_from_vmlinuz  # noqa: E402

FUNC = "gmc_v10_0_get_vm_pte"
MOD_EXTS = (".ko", ".ko.xz", ".ko.zst", ".ko.gz")
SEARCH = ("updates/dkms", "updates", "extra", "kernel")  # depmod's default order
TEXT_MAX = 150
# define suffix, hooked function, short name, the struct argument 0 points to
HOOKS = (
    ("PCI_PROBE", "amdgpu_pci_probe", "pci_probe", "pci_dev"),
    ("NORETRY_SET", "amdgpu_gmc_noretry_set", "noretry_set", "amdgpu_device"),
    ("VM_ADJUST_SIZE", "amdgpu_vm_adjust_size", "vm_adjust_size", "amdgpu_device"),
    ("GET_VM_PTE", FUNC, "get_vm_pte", "amdgpu_device"),
)


def is_amdgpu(path):
    base = os.path.basename(path)
    return any(base == "amdgpu" + e for e in MOD_EXTS)


def origin_of(rel):
    """The contract's word for a path relative to /lib/modules/KVER."""
    if rel.startswith("kernel/"):
        return "in-tree"
    if rel.startswith("updates/dkms/"):
        return "dkms"
    if rel.startswith(("updates/", "weak-updates/")):
        return "updates"
    return "extra"


def read_lines(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().splitlines()
    except OSError:
        return None


def module_dir(kver, root):
    """ROOT/lib/modules/KVER, or ROOT/usr/lib/modules/KVER in a merged /usr without the /lib link."""
    moddir = os.path.join(root, "lib/modules", kver)
    usr = os.path.join(root, "usr/lib/modules", kver)
    return usr if not os.path.isdir(moddir) and os.path.isdir(usr) else moddir


def locate_amdgpu(kver, root):
    """(origin, path on the target system, path here, how it was found)."""
    tgt_dir, moddir = "/lib/modules/" + kver, module_dir(kver, root)
    builtin = read_lines(os.path.join(moddir, "modules.builtin")) or []
    if any(is_amdgpu(line.strip()) for line in builtin):
        return "built-in", "", None, "modules.builtin"
    dep = read_lines(os.path.join(moddir, "modules.dep"))
    note = "no modules.dep, depmod's search order"
    for line in dep or []:
        name = line.split(":", 1)[0].strip()
        if not is_amdgpu(name):
            continue
        tgt = name if name.startswith("/") else tgt_dir + "/" + name
        here = os.path.join(root, name.lstrip("/")) if name.startswith("/") else os.path.join(moddir, name)
        if os.path.isfile(here):
            rel = os.path.relpath(tgt, tgt_dir)
            return origin_of(rel), tgt, here, "modules.dep"
        note = f"modules.dep names {tgt}, which is missing; depmod's search order"
        break
    else:
        if dep is not None:
            note = "modules.dep has no amdgpu; depmod's search order"
    for sub in SEARCH:
        top = os.path.join(moddir, sub)
        for dirpath, dirs, files in os.walk(top):
            dirs.sort()
            if sub == "updates" and dirpath == top and "dkms" in dirs:
                dirs.remove("dkms")  # searched before
            for f in sorted(files):
                if is_amdgpu(f):
                    here = os.path.join(dirpath, f)
                    rel = os.path.relpath(here, moddir)
                    return origin_of(rel), tgt_dir + "/" + rel, here, note
    return "none", "", None, note


def base_btf(kver, root):
    if root == "/" and os.uname().release == kver and os.access("/sys/kernel/btf/vmlinux", os.R_OK):
        with open("/sys/kernel/btf/vmlinux", "rb") as f:
            return f.read(), "/sys/kernel/btf/vmlinux"
    # Debian up to 13: /boot/vmlinuz-KVER; newer: /usr/lib/modules/KVER/vmlinuz
    cands = [os.path.join(root, "boot", "vmlinuz-" + kver), os.path.join(module_dir(kver, root), "vmlinuz")]
    z = next((c for c in cands if os.path.isfile(c)), None)
    if not z:
        raise NoEvidence(f"no vmlinux BTF for {kver} (not running, no /boot/vmlinuz-{kver})")
    return elf_section(vmlinux_from_vmlinuz(z), ".BTF"), z


def pte_flags(btf):
    """(flags argument, number of arguments, text) of get_vm_pte; NoEvidence if unproven."""
    params = btf.func_params(FUNC)
    names = [btf.name(n) for n, _t in params]
    sig = ", ".join(f"{btf.describe(t)} {btf.name(n)}".replace("* ", "*") for n, t in params)
    flags = [i for i, (n, t) in enumerate(params) if btf.name(n) == "flags" and btf.is_u64_ptr(t)]
    if len(flags) != 1:
        raise NoEvidence(f"{FUNC}({sig}) has no single 'u64 *flags' parameter")
    return flags[0], len(params), f"btf: {FUNC}({', '.join(names)}), flags is argument {flags[0] + 1}"


def prototypes(btf):
    """({define suffix: 1|0|-1}, text): argument 0 of each hooked function."""
    verdict, bad, missing, ok, shown = {}, [], [], [], set()
    for key, func, short, want in HOOKS:
        try:
            params = btf.func_params(func)
        except NoEvidence:
            verdict[key] = -1
            missing.append(short)
            continue
        if not params:
            verdict[key] = 0
            bad.append(f"{short}() has no argument (want struct {want} *)")
            continue
        name, tid = btf.name(params[0][0]), params[0][1]
        if btf.ptr_struct(tid) != want:
            verdict[key] = 0
            bad.append(f"{short} arg 0 is '{btf.describe(tid)}{name}' (want struct {want} *)")
            continue
        verdict[key] = 1
        more = f", +{len(params) - 1}" if len(params) > 1 else ""
        ok.append(f"{short}({name}{more})" if want in shown else f"{short}(struct {want} *{name}{more})")
        shown.add(want)
    parts = []
    if bad:
        parts.append("MISMATCH " + "; ".join(bad))
    if missing:
        parts.append("no BTF FUNC (inlined or removed): " + ", ".join(missing))
    if ok:
        parts.append("ok: " + " ".join(ok))
    return verdict, "; ".join(parts)


def run_audit(ko_here, mod_bytes, btf, flags_arg):
    """(1|0|-1, text) from amdgpu_audit.audit_pte on an uncompressed copy of the module."""
    try:
        import amdgpu_audit  # noqa: PLC0415 (lazy: the conftest works without it)
    except ImportError as e:
        return -1, f"audit not available: {e}"
    tmp = None
    try:
        if ko_here.endswith(".ko"):
            path = ko_here
        else:
            fd, tmp = tempfile.mkstemp(suffix=".ko", prefix="rdnafix-amdgpu-")
            with os.fdopen(fd, "wb") as f:
                f.write(mod_bytes)
            path = tmp
        res = amdgpu_audit.audit_pte(path, btf, flags_arg)
        if (not isinstance(res, tuple) or len(res) != 2 or res[0] not in (1, 0, -1)
                or isinstance(res[0], bool) or not isinstance(res[1], str)):
            return -1, f"audit returned {res!r:.80} (want (1|0|-1, text))"
        return res
    except Exception as e:  # noqa: BLE001 (the contract: the audit never stops the build)
        return -1, f"audit failed: {type(e).__name__}: {e}"
    finally:
        if tmp:
            os.unlink(tmp)


class Evidence:
    def __init__(self):
        self.flags_arg, self.nargs, self.pte_text = -1, 0, "unknown: no evidence"
        self.protos = {key: -1 for key, *_r in HOOKS}
        self.proto_text = "no evidence"
        self.origin, self.path = "none", ""
        self.audit, self.audit_text = -1, "audit not run"

    def no_evidence(self, why):
        self.pte_text = f"unknown: {why}"
        self.proto_text = f"unknown: {why}"


def gather(ev, kver, root, log):
    ev.origin, ev.path, here, how = locate_amdgpu(kver, root)
    if ev.origin == "built-in":
        ev.no_evidence(f"amdgpu is built into {kver} (modules.builtin): no module to hook")
        ev.audit_text = "audit not run: amdgpu is built in"
        return ev
    if ev.origin == "none":
        ev.no_evidence(f"no amdgpu.ko for {kver} under {root} ({how})")
        ev.audit_text = "audit not run: no amdgpu.ko"
        return ev
    log(f"amdgpu: {ev.origin} {ev.path} ({how})")
    try:
        mod = decompress(here)
        try:
            mod_btf = elf_section(mod, ".BTF")
        except NoEvidence as e:
            raise NoEvidence(f"{ev.path}: {e} (a module built without vmlinux has no BTF)") from e
        base, base_src = base_btf(kver, root)
        btf = Btf(mod_btf, Btf(base))
        log(f"BTF base {base_src}")
    except NoEvidence as e:
        ev.no_evidence(str(e))
        ev.audit_text = "audit not run: no BTF"
        return ev
    ev.protos, ev.proto_text = prototypes(btf)
    try:
        ev.flags_arg, ev.nargs, ev.pte_text = pte_flags(btf)
    except NoEvidence as e:
        ev.pte_text = f"unknown: {e}"
        ev.audit_text = "audit not run: flags argument not proven"
        return ev
    ev.audit, ev.audit_text = run_audit(here, mod, btf, ev.flags_arg)
    return ev


def c_str(s):
    """A C string literal: one printable ASCII line, at most 150 characters, no trigraph."""
    s = "".join(c if " " <= c <= "~" else "?" for c in " ".join(str(s).split()))[:TEXT_MAX]
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("?", "\\?") + '"'


def header(kver, ev):
    lines = [f"/* Generated by kmod/scripts/pte-conftest.py for {kver}: do not edit. */",
             f"#define RDNAFIX_BTF_PTE_FLAGS_ARG {ev.flags_arg}",
             f"#define RDNAFIX_BTF_PTE_NARGS {ev.nargs}",
             f"#define RDNAFIX_BTF_PTE_TEXT {c_str(ev.pte_text)}"]
    lines += [f"#define RDNAFIX_BTF_PROTO_{key} {ev.protos[key]}" for key, *_r in HOOKS]
    lines += [f"#define RDNAFIX_BTF_PROTO_TEXT {c_str(ev.proto_text)}",
              f"#define RDNAFIX_AMDGPU_ORIGIN {c_str(ev.origin)}",
              f"#define RDNAFIX_AMDGPU_PATH {c_str(ev.path)}",
              f"#define RDNAFIX_AUDIT_PTE {ev.audit}",
              f"#define RDNAFIX_AUDIT_PTE_TEXT {c_str(ev.audit_text)}"]
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description="BTF evidence about the amdgpu rdnafix hooks")
    ap.add_argument("--kver", required=True)
    ap.add_argument("--root", default="/")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)

    def log(msg):
        print(f"pte-conftest: {a.kver}: {msg}", file=sys.stderr)

    ev = Evidence()
    try:
        gather(ev, a.kver, a.root, log)
    except Exception as e:  # noqa: BLE001 (hostile input must never stop the build)
        origin, path = ev.origin, ev.path
        ev = Evidence()
        ev.origin, ev.path = origin, path
        ev.no_evidence(f"cannot read the evidence: {type(e).__name__}: {e}")
        ev.audit_text = "audit not run: no evidence"
    log(f"{ev.pte_text}; prototypes {ev.proto_text}; audit {ev.audit} {ev.audit_text}")
    with open(a.out + ".tmp", "w", encoding="ascii") as f:
        f.write(header(a.kver, ev))
    os.replace(a.out + ".tmp", a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
