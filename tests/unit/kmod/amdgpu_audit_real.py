#!/usr/bin/env python3
"""The amdgpu audit on a real cached Debian kernel (ctest kmod_amdgpu_audit_<series>).

  amdgpu_audit_real.py SERIES

The kernel is the one tests/vm/fetch-kernels.sh unpacked under
$RDNAFIX_CACHE/kernels (default /var/cache/rdnafix); exit 77 (skip) without it.
Checks that the command-line audit passes; that with an allow-list lacking
one real reader it fails (exit 1, the reader named) for a tested series and
only warns (exit 0) for an early-warning one; and that audit_pte() called
the way the build-time conftest calls it (an uncompressed module, the
module's split BTF, the flags argument) proves the PTE callers:
(1, "N call site(s) ...").
"""
import os
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))
sys.path.insert(0, os.path.join(TOP, "kmod/scripts"))
import amdgpu_audit as audit  # noqa: E402
import kelf  # noqa: E402


def run_audit(kroot, kver, series, *extra):
    r = subprocess.run([sys.executable, os.path.join(TOP, "kmod/scripts/amdgpu_audit.py"), "--kroot", kroot,
                        "--kver", kver, "--series", series, *extra], capture_output=True, text=True, check=False)
    print(r.stdout + r.stderr, end="")
    return r


def new_reader_found(kroot, kver, series):
    """An allow-list without the series' first noretry reader that is not the hooked one: FAIL / WARN."""
    allow, _early = audit.load_allow(audit.ALLOW, series)
    others = sorted(set(allow["amdgpu_noretry"]) - {"amdgpu_gmc_noretry_set"})
    drop = others[0] if others else "amdgpu_gmc_noretry_set"
    lines = []
    for g in audit.GLOBALS:
        lines.append(f'[series.t.{g}]')
        lines += [f'{fn} = "test"' for fn in allow[g] if fn != drop]
    with tempfile.NamedTemporaryFile("w", suffix=".toml") as f:
        f.write("[series.t]\n" + "\n".join(lines) + '\n[series.w]\nsame_as = "t"\nearly_warning = true\n')
        f.flush()
        want = f"reader of amdgpu_noretry: {drop}: NOT on the allow-list of "
        r = run_audit(kroot, kver, "t", "--allow", f.name)
        if r.returncode != 1 or f"  FAIL {want}t" not in r.stdout or "audit: FAIL t " not in r.stdout:
            print(f"FAIL: without {drop} on the allow-list the audit exited {r.returncode}, not 1 naming it")
            return False
        r = run_audit(kroot, kver, "w", "--allow", f.name)
        if r.returncode != 0 or f"  WARN {want}w" not in r.stdout or "audit: WARN w " not in r.stdout:
            print(f"FAIL: for an early-warning series the audit exited {r.returncode}, not 0 with a WARN")
            return False
    return True


def main():
    series = sys.argv[1]
    cache = os.path.join(os.environ.get("RDNAFIX_CACHE", "/var/cache/rdnafix"), "kernels")
    try:
        with open(os.path.join(cache, series + ".kver"), encoding="ascii") as f:
            kver = f.read().strip()
    except OSError:
        print(f"SKIP: no cached kernel for {series} under {cache}")
        return 77
    kroot = os.path.join(cache, kver)
    if not os.path.isdir(kroot):
        print(f"SKIP: {kroot} missing")
        return 77
    r = run_audit(kroot, kver, series)
    if r.returncode != 0 or f"audit: PASS {series} {kver}" not in r.stdout:
        print(f"FAIL: the audit of {series} exited {r.returncode}")
        return 1
    if not new_reader_found(kroot, kver, series):
        return 1
    mod, vmlinuz = audit.find_files(kroot, kver)
    base = kelf.Btf(kelf.elf_section(kelf.vmlinux_from_vmlinuz(vmlinuz), ".BTF"))
    with tempfile.NamedTemporaryFile(suffix=".ko") as ko:
        ko.write(kelf.decompress(mod))
        ko.flush()
        with open(ko.name, "rb") as f:
            btf = kelf.Btf(kelf.elf_section(f.read(), ".BTF"), base)
        _protos, flags_arg = audit.prototypes(btf)
        v, text = audit.audit_pte(ko.name, btf, flags_arg)
    print(f"audit_pte({mod}, flags_arg={flags_arg}) = ({v}, {text!r})")
    if v != 1 or len(text) > 150 or f"audit_pte: 1 {text}" not in r.stdout:
        print("FAIL: audit_pte() did not prove the callers, or disagrees with the command line")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
