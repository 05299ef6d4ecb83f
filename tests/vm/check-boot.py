#!/usr/bin/env python3
"""Judge one VM boot of the rdnafix suite.

check-boot.py --console F --results F --label L --expect NAME... [--allow-skip NAME...]

Prints one line per check, "PASS <label> <name> <detail>" or "FAIL ...",
and exits with the number of failures (capped at 100).  Fails on a FAIL
result, on an expected result that is missing or repeated, on a missing
first line (RDNAFIX-VM-START on the result channel: the guest never ran) or
end marker (crash, panic or timeout), and on any kernel problem pattern in
the console log.  RESULT-HOST lines are checks done here: rdnactl_status_json
compares `rdnactl status --json` with the /sys/kernel/rdnafix dump.
"""
import argparse
import json
import re
import sys

BAD = re.compile(r"BUG:|WARNING:|Oops|Call Trace|general protection|Kernel panic|UBSAN")


def rdnactl_check(lines):
    """Compare the rdnactl JSON with the sysfs dump; returns (ok, detail)."""
    try:
        rc = next(int(l.split()[1]) for l in lines if l.startswith("RDNACTL-RC "))
        b = lines.index("RDNACTL-JSON-BEGIN")
        e = lines.index("RDNACTL-JSON-END")
    except (StopIteration, ValueError):
        return False, "no rdnactl output on the result channel"
    if rc not in (0, 1):
        return False, f"rdnactl status --json exited {rc} (0 or 1 expected)"
    try:
        doc = json.loads("\n".join(lines[b + 1:e]))
    except json.JSONDecodeError as err:
        return False, f"output is not JSON: {err}"
    sysfs = {}
    for l in lines[e + 1:]:
        if l == "SYSFS-END":
            break
        if l.startswith("SYSFS "):
            parts = l.split(" ", 2)
            sysfs[parts[1]] = parts[2] if len(parts) > 2 else ""
    r = doc.get("rdnafix") if isinstance(doc, dict) else None
    if not isinstance(r, dict):
        return False, "no 'rdnafix' object in the JSON"
    bad = []

    def same(what, got, want):
        g = "" if got is None else (str(got).lower() if isinstance(got, bool) else str(got))
        if g != want:
            bad.append(f"{what}: json={got!r} sysfs={want!r}")

    if r.get("loaded") is not True:
        bad.append(f"loaded={r.get('loaded')!r}")
    same("version", r.get("version"), sysfs.get("version"))
    same("abi_version", r.get("abi_version"), sysfs.get("abi_version"))
    same("amdgpu_state", r.get("amdgpu_state"), sysfs.get("amdgpu"))
    same("dry_run", r.get("dry_run"), sysfs.get("dry_run"))
    hooks = r.get("hooks") or {}
    for k, v in sysfs.items():
        if k.startswith("hooks/"):
            same(k, hooks.get(k[6:]) if isinstance(hooks, dict) else None, v)
    devs = {d.get("pci_bdf"): d for d in (r.get("devices") or []) if isinstance(d, dict)}
    ndev = 0
    for k, v in sysfs.items():
        m = re.match(r"devices/([^/]+)/([^/]+)$", k)
        if not m:
            continue
        bdf, attr = m.groups()
        if bdf not in devs:
            bad.append(f"device {bdf} missing from JSON")
            devs[bdf] = {}
            continue
        if devs[bdf]:
            ndev += 1
            same(f"{bdf}/{attr}", devs[bdf].get(attr), v)
    if not any(k.startswith("devices/") for k in sysfs):
        bad.append("no devices in sysfs to compare (mock suite failed?)")
    if bad:
        return False, "; ".join(bad[:8])
    return True, f"rc={rc}, version/amdgpu/hooks and {len(devs)} devices ({ndev} values) match sysfs"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--console", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--label", required=True)
    ap.add_argument("--expect", nargs="*", default=[])
    ap.add_argument("--allow-skip", nargs="*", default=[])
    a = ap.parse_args()

    def read(p):
        with open(p, "r", errors="replace") as f:
            return [l.rstrip("\r\n").replace("\r", "") for l in f]

    console = read(a.console)
    chan = read(a.results)
    fails = 0

    def out(ok, name, detail=""):
        nonlocal fails
        if not ok:
            fails += 1
        print(f"{'PASS' if ok else 'FAIL'} [{a.label}] {name} {detail}".rstrip())

    seen = {}
    for l in chan:
        m = re.match(r"RESULT (\S+) (PASS|FAIL|SKIP) ?(.*)$", l)
        if m:
            seen.setdefault(m.group(1), []).append((m.group(2), m.group(3)))
        m = re.match(r"RESULT-HOST (\S+)$", l)
        if m and m.group(1) == "rdnactl_status_json":
            ok, detail = rdnactl_check(chan)
            seen.setdefault(m.group(1), []).append(("PASS" if ok else "FAIL", detail))
    for name in a.expect:
        r = seen.get(name)
        if not r:
            out(False, name, "missing result")
        elif len(r) > 1:
            out(False, name, f"reported {len(r)} times")
        else:
            st, detail = r[0]
            if st == "SKIP":
                if name in a.allow_skip:
                    print(f"SKIP [{a.label}] {name} {detail}")
                else:
                    out(False, name, f"skipped: {detail}")
            else:
                out(st == "PASS", name, detail)
    for name, r in seen.items():
        if name not in a.expect:
            for st, detail in r:
                out(st != "FAIL", name, f"(unexpected result) {detail}")
    started = any(l.startswith("RDNAFIX-VM-START") for l in chan)
    out(started, "vm_started", "the guest's first line (RDNAFIX-VM-START) is on the result channel" if started
        else "no RDNAFIX-VM-START on the result channel: the guest died before its first line (retried once)")
    done = any(l.startswith("RDNAFIX-VM-DONE") for l in console)
    out(done, "vm_completed", "end marker seen" if done else "no end marker: crash, panic or timeout")
    bad = [l for l in console if BAD.search(l)]
    out(not bad, "console_clean", "no BUG/WARNING/Oops/Call Trace/GP fault" if not bad
        else " | ".join(bad[:3]))
    return min(fails, 100)


if __name__ == "__main__":
    sys.exit(main())
