#!/usr/bin/env python3
"""Judge one boot of the rdnafix end-to-end test.

check-e2e.py --console F --results F --label L --phase P --qemu-rc N [--initrd PATH]

Reads the guest's result channel (tests/e2e/guest/e2e-guest.sh): its
"E2E PASS|FAIL name detail" lines must be exactly the ones the phase expects,
and the raw blocks it printed ("E2E-BEGIN tag" ... "E2E-END tag rc=N": the
`rdnactl status --json` and `rdnactl fix` output, the kernel log) are judged
here.  Prints "PASS|FAIL [label] name detail" lines; exits with the number of
failures (capped at 100).  Kernel problems (check-boot.py's patterns) in the
console or the guest's kernel log, a missing end marker and an unclean
power-off fail the boot.
"""
import argparse
import importlib.util
import json
import os
import re
import sys

_spec = importlib.util.spec_from_file_location(
    "check_boot", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vm", "check-boot.py"))
check_boot = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_boot)
BAD = check_boot.BAD  # the kernel suite's BUG/WARNING/Oops/... patterns
ANSI = re.compile(r"\x1b(\[[0-9;?]*[a-zA-Z]|c)")  # SeaBIOS' terminal escapes on the console

# what the guest asserts, per phase
GUEST = {
    "config": ["rdnafix_loaded", "amdgpu_loaded", "rdnafix_before_amdgpu", "rdnafix_from_initramfs",
               "rdnafix_params"],
    "undo": ["rdnafix_not_loaded", "amdgpu_loaded", "modprobe_conf_gone"],
    "stale": ["rdnafix_not_loaded", "amdgpu_loaded", "modprobe_conf_present"],
    "cmdline-fix": ["cmdline_has_noretry0", "grub_cfg_written"],
    "cmdline-grub": ["cmdline_noretry1", "amdgpu_param_noretry"],
    "upgrade-6.1": ["packages_installed", "kernel_booted", "rdnafix_loaded", "amdgpu_loaded",
                    "rdnafix_before_amdgpu", "rdnafix_from_initramfs", "rdnafix_params", "validate_journal",
                    "validate_user"],
}
GUEST["upgrade-6.12"] = GUEST["upgrade-6.1"] + ["dkms_removed"]
CONFIG_PARAMS = {"noretry": "1", "targets": "rdna1,rdna2", "mtype_sysmem": "nc"}


def blocks(chan):
    """{tag: (lines, rc)} of the E2E-BEGIN/E2E-END blocks."""
    out, cur, buf = {}, None, []
    for l in chan:
        m = re.match(r"E2E-BEGIN (\S+)$", l)
        if m:
            cur, buf = m.group(1), []
            continue
        m = re.match(r"E2E-END (\S+) rc=(-?\d+)$", l)
        if m and cur == m.group(1):
            out[cur] = (buf, int(m.group(2)))
            cur = None
            continue
        if cur is not None:
            buf.append(l)
    return out


def status_doc(blk, tag):
    """(doc, error) of a status --json block."""
    if tag not in blk:
        return None, f"no {tag} block on the result channel"
    lines, rc = blk[tag]
    if rc not in (0, 1):
        return None, f"rdnactl status --json exited {rc}: {' | '.join(lines[-3:])}"
    try:
        return json.loads("\n".join(lines)), None
    except json.JSONDecodeError as err:
        return None, f"rdnactl status --json printed no JSON ({err}): {' | '.join(lines[:3])}"


def findings(doc, fid):
    return [f for f in doc.get("findings") or [] if isinstance(f, dict) and f.get("id") == fid]


def settings(doc):
    conf = doc.get("configuration")
    if not isinstance(conf, dict):
        return None
    return [s for s in conf.get("settings") or [] if isinstance(s, dict)]


def block_text(blk, tag):
    """(text, rc) of a raw block; ("", None) when the guest printed none."""
    if tag not in blk:
        return "", None
    return "\n".join(blk[tag][0]), blk[tag][1]


def history_doc(blk):
    """(runs, comparisons, error) of `rdnactl history --json` ({"runs": [...],
    "comparisons": [...]}), runs oldest first."""
    text, rc = block_text(blk, "history-json")
    if rc is None:
        return None, None, "no history-json block on the result channel"
    if rc not in (0, 1):
        return None, None, f"rdnactl history --json exited {rc}: {text[-300:]}"
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as err:
        return None, None, f"rdnactl history --json printed no JSON ({err}): {text[:200]}"
    runs = doc.get("runs") if isinstance(doc, dict) else None
    if not isinstance(runs, list):
        return None, None, f"no list of runs in rdnactl history --json: {text[:200]}"
    runs = sorted((r for r in runs if isinstance(r, dict) and isinstance(r.get("id"), int)), key=lambda r: r["id"])
    comps = [c for c in doc.get("comparisons") or [] if isinstance(c, dict)]
    return runs, comps, None


def run_kernel(run):
    """The "kernel" fact of a run's stack."""
    stack = run.get("stack")
    return stack.get("kernel") if isinstance(stack, dict) else None


def run_changes(comps, run_id):
    """[(name, from, to)] of the stack changes history names for run RUN_ID."""
    return [(c.get("name"), c.get("from"), c.get("to"))
            for cmp in comps if cmp.get("run") == run_id
            for c in cmp.get("changes") or [] if isinstance(c, dict)]


def kernel_builds(doc):
    """{release: entry} of status --json's configuration.kernels (rdnafix_built, ...)."""
    conf = doc.get("configuration") if isinstance(doc.get("configuration"), dict) else {}
    return {k.get("release"): k for k in conf.get("kernels") or [] if isinstance(k, dict)}


def upgrade_checks(phase, blk, kver, kver_old):
    """[(ok, name, detail)] of the upgrade phase, judged on the raw blocks."""
    res = []
    want = 1 if phase == "upgrade-6.1" else 2
    runs, comps, err = history_doc(blk)
    if err:
        res.append((False, "history_recorded", err))
    else:
        last = runs[-1] if runs else {}
        ok = len(runs) == want and run_kernel(last) == kver and bool(last.get("not_run")) \
            and last.get("verdict") == "not_run"
        res.append((ok, "history_recorded", f"{len(runs)} run(s) (want {want}); run {last.get('id')}: stack kernel "
                    f"{run_kernel(last)!r} (want {kver!r}), verdict {last.get('verdict')!r}, "
                    f"not_run {last.get('not_run')!r}, stack_key {last.get('stack_key')!r}"))
    if phase == "upgrade-6.12":
        text, rc = block_text(blk, "history-text")
        arrow = f"kernel {kver_old} \u2192 {kver}"
        named = [l.strip() for l in text.splitlines() if arrow in l]
        jch = [c for c in run_changes(comps, runs[-1].get("id")) if c[0] == "kernel"] if runs else []
        ok = bool(named) and jch == [("kernel", kver_old, kver)]
        res.append((ok, "history_names_kernel_change",
                    f"rdnactl history: {named[0] if named else f'no line with {arrow!r}'}; "
                    f"--json changes of the last run: {jch or 'no kernel change'}"))
    # status: the validation line and rdnafix built per installed kernel
    text, rc = block_text(blk, "status-text")
    vline = [l.strip() for l in text.splitlines() if "last validation on this stack:" in l]
    ok = bool(vline) and re.search(rf"last validation on this stack: not run\b.*\brun {want}\b", vline[0]) is not None
    res.append((ok, "status_validation", vline[0] if vline else f"no 'last validation on this stack:' line "
                f"(rdnactl status rc={rc})"))
    kernels = [kver] if phase == "upgrade-6.1" else [kver_old, kver]
    doc, err = status_doc(blk, "status-json")
    if err:
        res.append((False, "status_built_for_kernels", err))
    else:
        got = kernel_builds(doc)
        ok = all(got.get(k, {}).get("rdnafix_built") is True for k in kernels)
        res.append((ok, "status_built_for_kernels", "; ".join(
            f"{k}: rdnafix_built={got.get(k, {}).get('rdnafix_built')!r} "
            f"version={got.get(k, {}).get('rdnafix_version')!r}" for k in kernels) +
            f" (installed kernels in status: {', '.join(got) or 'none'})"))
    if phase == "upgrade-6.12":
        text, rc = block_text(blk, "hook-after-remove")
        said = [l.strip() for l in text.splitlines() if kver in l]
        ktext, krc = block_text(blk, "kernel-check-removed")
        ok = rc is not None and bool(said) and re.search(r"not built|missing", text, re.I) is not None and krc == 1
        res.append((ok, "hook_reports_missing", f"zz-rdnafix {kver} rc={rc}: {' | '.join(said)[:400] or text[-300:]}"
                    f"; rdnactl kernel-check rc={krc} (1 expected): {ktext.strip()[:300]}"))
        doc, err = status_doc(blk, "status-json-removed")
        if err:
            res.append((False, "status_reports_missing", err))
        else:
            before, _ = status_doc(blk, "status-json")
            seen = {(f.get("id"), f.get("subject")) for f in (before or {}).get("findings") or [] if isinstance(f, dict)}
            # findings naming the kernel that were not there before the removal
            hits = [f for f in doc.get("findings") or [] if isinstance(f, dict) and kver in json.dumps(f)
                    and (f.get("id"), f.get("subject")) not in seen]
            kb = kernel_builds(doc).get(kver, {})
            ok = bool(hits) and kb.get("rdnafix_built") is False
            res.append((ok, "status_reports_missing",
                        (f"{hits[0].get('id')} ({hits[0].get('severity')}): {hits[0].get('finding')}" if hits
                         else f"no finding names {kver}") + f"; configuration.kernels[{kver}].rdnafix_built="
                        f"{kb.get('rdnafix_built')!r}, problem {kb.get('rdnafix_problem')!r}"))
    return res


def host_checks(phase, blk, initrd):
    """[(ok, name, detail)] judged on the guest's raw output."""
    res = []
    if phase == "config":
        doc, err = status_doc(blk, "status-json")
        if err:
            return [(False, "status_in_effect", err), (False, "status_no_cfg_findings", err)]
        sts = settings(doc)
        if sts is None:
            res.append((False, "status_in_effect", "no 'configuration' object in status --json"))
        else:
            got = {s.get("name"): s for s in sts if s.get("module") == "rdnafix"}
            bad = [f"{k}: configured={got.get(k, {}).get('configured')!r} state={got.get(k, {}).get('state')!r}"
                   for k, v in CONFIG_PARAMS.items()
                   if got.get(k, {}).get("configured") != v or got.get(k, {}).get("state") != "in-effect"]
            bad += [f"{s.get('module')}.{s.get('name')}: state={s.get('state')!r}"
                    for s in sts if s.get("state") != "in-effect"]
            res.append((not bad, "status_in_effect", "; ".join(bad) if bad else
                        f"{len(sts)} settings, all in-effect: " +
                        ", ".join(f"{s.get('module')}.{s.get('name')}={s.get('configured')}" for s in sts)))
        ids = [f.get("id") for f in doc.get("findings") or [] if isinstance(f, dict)]
        cfg = [i for i in ids if i in ("RDNA-CFG-001", "RDNA-CFG-002")]
        res.append((not cfg, "status_no_cfg_findings",
                    f"reported {', '.join(cfg)}" if cfg else f"no RDNA-CFG-001/002 (findings: {', '.join(ids) or 'none'})"))
    elif phase == "undo":
        doc, err = status_doc(blk, "status-json")
        if err:
            return [(False, "status_not_configured", err)]
        sts = settings(doc)
        rf = doc.get("rdnafix") if isinstance(doc.get("rdnafix"), dict) else {}
        ok = sts == [] and rf.get("loaded") is False
        res.append((ok, "status_not_configured",
                    f"configuration.settings={'absent' if sts is None else len(sts)}, rdnafix.loaded={rf.get('loaded')!r}"))
    elif phase == "stale":
        doc, err = status_doc(blk, "status-json")
        if err:
            return [(False, "status_cfg002", err)]
        hits = findings(doc, "RDNA-CFG-002")
        named = [f for f in hits if initrd and any(initrd in str(f.get(k, "")) for k in ("subject", "finding", "why", "fix"))]
        rf = doc.get("rdnafix") if isinstance(doc.get("rdnafix"), dict) else {}
        if named and rf.get("loaded") is False:
            res.append((True, "status_cfg002", f"RDNA-CFG-002: {named[0].get('finding')}"))
        else:
            res.append((False, "status_cfg002", f"{len(hits)} RDNA-CFG-002 finding(s), {len(named)} naming {initrd}; "
                        f"rdnafix.loaded={rf.get('loaded')!r}; " + " | ".join(str(f.get("finding")) for f in hits)))
    elif phase == "cmdline-fix":
        doc, err = status_doc(blk, "status-json-before")
        if err:
            res.append((False, "status_drv006", err))
        else:
            hits = [f for f in findings(doc, "RDNA-DRV-006") if "noretry" in str(f.get("subject", ""))]
            res.append((bool(hits), "status_drv006", f"RDNA-DRV-006: {hits[0].get('finding')}" if hits
                        else "no RDNA-DRV-006 finding on amdgpu.noretry"))
        if "fix" not in blk:
            res.append((False, "fix_ran", "no rdnactl fix output on the result channel"))
        else:
            lines, rc = blk["fix"]
            # what it did, without the diff of the files it wrote
            said = [l for l in lines if l.strip() and not re.match(r"(\+\+\+|---|@@|[+\- ])", l)]
            res.append((rc in (0, 1), "fix_ran", f"rdnactl fix rc={rc}: {' | '.join(said)[:400]}"))
    elif phase == "cmdline-grub":
        doc, err = status_doc(blk, "status-json-after")
        if err:
            res.append((False, "status_no_drv006", err))
        else:
            hits = findings(doc, "RDNA-DRV-006")
            res.append((not hits, "status_no_drv006", "no RDNA-DRV-006 after the fix" if not hits
                        else f"still reported: {hits[0].get('finding')}"))
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--console", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--label", required=True)
    ap.add_argument("--phase", required=True, choices=sorted(GUEST))
    ap.add_argument("--qemu-rc", type=int, required=True)
    ap.add_argument("--initrd", default="", help="the initramfs path status must name (stale phase)")
    ap.add_argument("--kver", default="", help="the kernel booted (upgrade phase)")
    ap.add_argument("--kver-old", default="", help="the kernel of the previous boot (upgrade-6.12)")
    a = ap.parse_args()

    def read(p):
        with open(p, "r", errors="replace") as f:
            return [ANSI.sub("", l.rstrip("\r\n").replace("\r", "")) for l in f]

    console = read(a.console)
    chan = read(a.results)
    fails = 0

    def out(ok, name, detail=""):
        nonlocal fails
        if not ok:
            fails += 1
        print(f"{'PASS' if ok else 'FAIL'} [{a.label}] {name} {detail}".rstrip())

    started = [l for l in chan if l.startswith("E2E START ")]
    if not started:
        tail = [l for l in console if l.strip() and not l.startswith("qemu-system")][-1:]
        out(False, "guest_started", f"no 'E2E START' line: the guest never ran, so none of its "
            f"{len(GUEST[a.phase])} results exist (qemu rc={a.qemu_rc}; last console line: {' '.join(tail)[:200]})")
        return min(fails, 100)
    out(len(started) == 1, "guest_started", " | ".join(started))
    seen = {}
    for l in chan:
        m = re.match(r"E2E (PASS|FAIL) (\S+) ?(.*)$", l)
        if m:
            seen.setdefault(m.group(2), []).append((m.group(1), m.group(3)))
    for name in GUEST[a.phase]:
        r = seen.get(name)
        if not r:
            out(False, name, "missing result")
        elif len(r) > 1:
            out(False, name, f"reported {len(r)} times")
        else:
            out(r[0][0] == "PASS", name, r[0][1])
    for name, r in seen.items():
        if name not in GUEST[a.phase]:
            for st, detail in r:
                out(False, name, f"(unexpected result {st}) {detail}")
    blk = blocks(chan)
    checks = upgrade_checks(a.phase, blk, a.kver, a.kver_old) if a.phase.startswith("upgrade-") else \
        host_checks(a.phase, blk, a.initrd)
    for ok, name, detail in checks:
        out(ok, name, detail)
    done = [l for l in chan if l.startswith("E2E DONE ")]
    out(bool(done) and a.qemu_rc == 0, "vm_completed",
        f"{done[-1]}, clean power-off" if done and a.qemu_rc == 0 else
        f"end marker {'seen' if done else 'missing'}, qemu rc={a.qemu_rc} (124/137: timeout; crash, panic or hang)")
    kernel_log = blk.get("dmesg", ([], 0))[0]
    bad = [l for l in console + kernel_log if BAD.search(l)]
    out(not bad and "dmesg" in blk, "kernel_clean",
        "no BUG/WARNING/Oops/Call Trace/GP fault in the console and the kernel log" if not bad and "dmesg" in blk
        else (" | ".join(bad[:3]) if bad else "no kernel log on the result channel"))
    return min(fails, 100)


if __name__ == "__main__":
    sys.exit(main())
