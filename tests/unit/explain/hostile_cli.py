#!/usr/bin/env python3
"""`rdnactl explain` and `kernel-check` on bytes that are not UTF-8, and
`explain --pid` on processes without a usable environment.

usage: hostile_cli.py RDNACTL TOP

- explain --json on a log line with the byte 0xFF: exit 1 (the GPU reset is
  found), a JSON document python's json module accepts, the byte as U+FFFD
  in the excerpt; the text output shows it escaped.
- kernel-check $'\\xff': exit 2, says it is not valid UTF-8 and what a
  release looks like (not "space or control character").
- explain --pid: a zombie is called one (it has exited), a kernel thread is
  called one (no environment, no memory maps), pid 1 is called init.
"""
import json
import os
import subprocess
import sys


def run(cmd, stdin=b""):
    p = subprocess.run(cmd, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode("utf-8", errors="strict") if p.stdout else "", \
        p.stderr.decode("utf-8", errors="replace")


def main():
    rdnactl, top = sys.argv[1], sys.argv[2]
    root = ["--root", os.path.join(top, "tests/fixtures/rx6750xt-raphael/root")]
    fail = []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            fail.append(what)

    log = b"\xff amdgpu 0000:03:00.0: amdgpu: GPU reset begin!\n"
    rc, out, err = run([rdnactl, "explain", "--json", "--no-coverage", *root, "-"], log)
    check(rc == 1, f"explain --json on 0xFF: exit {rc} (1 expected) {err.strip()[:300]}")
    try:
        doc = json.loads(out)
        ids = [e["id"] for e in doc["explanations"]]
        check(ids == ["RDNA-LOG-009"], f"the GPU reset is explained: {ids}")
        check(doc["explanations"][0]["excerpt"][0].startswith("\ufffd amdgpu"),
              f"the byte is U+FFFD in the excerpt: {doc['explanations'][0]['excerpt']!r}")
    except (ValueError, KeyError, IndexError) as e:
        check(False, f"explain --json prints valid JSON: {e}: {out[:200]!r}")
    # a file name that is not UTF-8 reaches "input"
    bad = os.fsencode(os.environ.get("TMPDIR", "/tmp")) + b"/rdnafix-\xff-%d.log" % os.getpid()
    with open(bad, "wb") as f:
        f.write(log)
    try:
        rc, out, err = run([os.fsencode(rdnactl), b"explain", b"--json", b"--no-coverage", b"--root",
                            os.fsencode(root[1]), bad])
        check(rc == 1 and json.loads(out)["input"].endswith("\ufffd-%d.log" % os.getpid()),
              f"a file name with 0xFF: exit {rc}, input as U+FFFD")
    except ValueError as e:
        check(False, f"a file name with 0xFF gives valid JSON: {e}")
    finally:
        os.unlink(bad)
    rc, out, err = run([rdnactl, "explain", "--no-coverage", *root, "-"], log)
    check(rc == 1 and "\\xff amdgpu" in out, f"explain (text) shows the byte escaped: exit {rc}")

    rc, out, err = run([os.fsencode(rdnactl), b"kernel-check", b"\xff"])
    check(rc == 2 and "not valid UTF-8" in err and "uname -r" in err and "space or control" not in err,
          f"kernel-check $'\\xff': exit {rc}: {err.strip()}")
    rc, out, err = run([rdnactl, "kernel-check", "6.1.0 amd64"])
    check(rc == 2 and "has a space" in err, f"kernel-check '6.1.0 amd64': exit {rc}: {err.strip()}")

    # a zombie: a child that exited and is not waited for
    z = os.fork()
    if z == 0:
        os._exit(0)
    try:
        for _ in range(100):
            with open(f"/proc/{z}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    break
            os.sched_yield()
        rc, out, err = run([rdnactl, "explain", "--no-coverage", *root, "--pid", str(z), "-"])
        check(rc == 0 and "is a zombie" in out and "has exited" in out,
              f"--pid of a zombie: exit {rc}: {[l for l in out.splitlines() if 'environment' in l]}")
    finally:
        os.waitpid(z, 0)

    # a kernel thread (PF_KTHREAD in /proc/PID/stat), when this pid namespace shows one
    kthread = None
    for d in sorted(os.listdir("/proc"), key=lambda s: (len(s), s)):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[6]) & 0x00200000:
                    kthread = d
                    break
            except OSError:
                continue
    if kthread:
        rc, out, err = run([rdnactl, "explain", "--no-coverage", *root, "--pid", kthread, "-"])
        check(rc == 0 and "is a kernel thread" in out and "no memory maps" in out,
              f"--pid {kthread} (a kernel thread): exit {rc}: "
              f"{[l for l in out.splitlines() if 'environment' in l]}")
    else:
        print("skip --pid of a kernel thread: none visible in this pid namespace")

    rc, out, err = run([rdnactl, "explain", "--no-coverage", *root, "--pid", "1", "-"])
    check(rc == 0 and "pid 1 is the init process" in out,
          f"--pid 1: exit {rc}: {[l for l in out.splitlines() if 'environment' in l]}")
    sys.exit(1 if fail else 0)


if __name__ == "__main__":
    main()
