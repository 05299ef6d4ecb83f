#!/usr/bin/python3
"""The fix loop (issue 21, Deliver 5): every boot-configuration remedy, once applied, clears its
finding.

    run.py RDNACTL [FIXTURE...]      (default: every machine of tests/fixtures)

For each machine, on a copy of its tree:
  0. the copy gets a systemd-boot loader (boot/efi/loader/loader.conf) when it has no boot loader
     rdnactl can edit, so that command-line remedies are applied too, not refused;
  1. simulate-reboot.py on the unchanged copy must leave `status` as it was (the simulator is
     faithful to the tree);
  2. `rdnactl fix --dry-run --json` names the findings with a boot-configuration remedy
     (applied_findings);
  3. `rdnactl fix` applies them (needs root, as on a real machine), then simulate-reboot.py;
  4. `rdnactl status --json`: none of those findings may be left, and a second
     `rdnactl fix --dry-run` must say "Boot configuration: nothing to change.".
Derived machines (DERIVED) start from a fixture and change what the loop needs, e.g. the stock TTM
limit and a kernel log with amdgpu's -ENOMEM, which makes RDNA-MEM-001 appear on strix-halo.

Exit: 0 pass, 1 a failure (one line per problem), 2 cannot run (77 without root: `fix` refuses).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(TOP, "tests/fixtures")
REBOOT = os.path.join(HERE, "simulate-reboot.py")
LOADERS = ("etc/default/grub", "etc/kernel/cmdline", "boot/efi/loader/loader.conf", "efi/loader/loader.conf",
           "boot/loader/loader.conf")


def stock_ttm_with_enomem(root):
    """strix-halo as shipped: no modprobe.d TTM options, and this boot's kernel log has amdgpu's
    'Not enough memory for command submission' (tests/fixtures/logs/xserver-2093-cs-enomem.txt)."""
    os.remove(os.path.join(root, "etc/modprobe.d/amdgpu-ai.conf"))
    os.makedirs(os.path.join(root, "var/log"), exist_ok=True)
    shutil.copy(os.path.join(FIXTURES, "logs/xserver-2093-cs-enomem.txt"), os.path.join(root, "var/log/rdnafix-dmesg"))


# name -> (fixture, prepare(root), finding that must be there before the fix, keep the kernel log)
DERIVED = {
    "strix-halo-stock-ttm": ("strix-halo", stock_ttm_with_enomem, "RDNA-MEM-001", True),
}


def rdnactl(exe, fx, root, *args):
    env = dict(os.environ, RDNAFIX_KNOWLEDGE_DIRS="", NO_COLOR="1")
    extra = open(os.path.join(FIXTURES, fx, "args"), encoding="utf-8").read().split()
    cmd = [exe, *args, "--root", root, "--env", os.path.join(FIXTURES, fx, "env"), *extra]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)


def findings(exe, fx, root):
    r = rdnactl(exe, fx, root, "status", "--json")
    if r.returncode not in (0, 1):
        raise RuntimeError(f"status exited {r.returncode}: {r.stderr.strip()}")
    return sorted((f["id"], f["subject"]) for f in json.loads(r.stdout)["findings"])


def reboot(root, keep_log):
    r = subprocess.run([REBOOT, root] + (["--keep-kernel-log"] if keep_log else []), capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise RuntimeError(f"simulate-reboot exited {r.returncode}: {r.stderr.strip()}")


def loop(exe, name, fx, prepare, must_have, keep_log, tmp):
    root = os.path.join(tmp, name)
    shutil.copytree(os.path.join(FIXTURES, fx, "root"), root, symlinks=True)
    if not any(os.path.exists(os.path.join(root, p)) for p in LOADERS):
        os.makedirs(os.path.join(root, "boot/efi/loader"))
        open(os.path.join(root, "boot/efi/loader/loader.conf"), "w", encoding="utf-8").write("timeout 3\n")
    if prepare:
        prepare(root)
        reboot(root, keep_log)
    before = findings(exe, fx, root)
    if must_have and must_have not in {i for i, _ in before}:
        return [f"{name}: {must_have} is not among the findings before the fix: {before}"]
    reboot(root, keep_log)
    if findings(exe, fx, root) != before:
        return [f"{name}: simulate-reboot.py changed the findings of an unchanged tree: {before} -> "
                f"{findings(exe, fx, root)}"]
    plan = rdnactl(exe, fx, root, "fix", "--dry-run", "--json")
    applied = set(json.loads(plan.stdout)["applied_findings"])
    r = rdnactl(exe, fx, root, "fix")
    if r.returncode not in (0, 1):
        return [f"{name}: fix exited {r.returncode}: {(r.stdout + r.stderr).strip()}"]
    reboot(root, keep_log)
    after = findings(exe, fx, root)
    problems = [f"{name}: {i} {s} is still there after fix and reboot" for i, s in after if i in applied]
    again = rdnactl(exe, fx, root, "fix", "--dry-run")
    if "Boot configuration: nothing to change." not in again.stdout:
        problems.append(f"{name}: the second fix --dry-run does not say 'nothing to change':\n{again.stdout}")
    print(f"{name}: {len(before)} finding(s) before, {len(after)} after; boot-config remedies applied for "
          f"{', '.join(sorted(applied)) or 'none'}: {'FAIL' if problems else 'ok'}")
    return problems


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    if os.geteuid() != 0:
        print("fix-loop: rdnactl fix writes only as root: skipped", file=sys.stderr)
        return 77
    exe = os.path.abspath(argv[1])
    names = argv[2:] or sorted(d for d in os.listdir(FIXTURES) if os.path.isdir(os.path.join(FIXTURES, d, "root")))
    names += [] if argv[2:] else sorted(DERIVED)
    problems = []
    with tempfile.TemporaryDirectory(prefix="rdnafix-fixloop.") as tmp:
        for name in names:
            fx, prepare, must_have, keep_log = DERIVED.get(name, (name, None, None, False))
            try:
                problems += loop(exe, name, fx, prepare, must_have, keep_log, tmp)
            except (RuntimeError, OSError, ValueError, subprocess.TimeoutExpired) as e:
                problems.append(f"{name}: {e}")
    for p in problems:
        print(f"FAIL {p}")
    print(f"fix-loop: {len(names)} machine(s), {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
