#!/usr/bin/env python3
"""`rdnactl explain` at any size: N distinct VM fault blocks (gen_faults.py)
must be read in linear time and bounded memory.

usage: scaling.py RDNACTL TOP N MAX_CPU_S MAX_RSS_MIB

Checks: exit 1, valid JSON, every fault counted (summary.errors == N), the
first and last 10 explained and the rest in `omitted`, the CPU seconds
(user + system) and the peak RSS of rdnactl under the bounds.  Prints the
figures.  The log goes through a file (the generator's memory is not
rdnactl's).
"""
import json
import os
import subprocess
import sys
import tempfile


def main():
    if len(sys.argv) != 6:
        sys.exit("usage: scaling.py RDNACTL TOP N MAX_CPU_S MAX_RSS_MIB")
    rdnactl, top, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    max_cpu, max_rss = float(sys.argv[4]), float(sys.argv[5])
    gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen_faults.py")
    root = os.path.join(top, "tests/fixtures/rx6750xt-raphael/root")
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "faults.log")
        with open(log, "w") as f:
            subprocess.run([sys.executable, gen, str(n)], stdout=f, check=True)
        size = os.path.getsize(log)
        with open(log, "rb") as f, open(os.path.join(tmp, "out.json"), "wb") as out:
            p = subprocess.Popen([rdnactl, "explain", "--json", "--no-coverage", "--root", root, "-"],
                                 stdin=f, stdout=out, stderr=subprocess.PIPE)
            _, status, ru = os.wait4(p.pid, 0)
            p.returncode = os.waitstatus_to_exitcode(status)
            err = p.stderr.read().decode(errors="replace")
        cpu = ru.ru_utime + ru.ru_stime
        rss = ru.ru_maxrss / 1024.0
        print(f"{n} distinct faults, {size / 2**20:.1f} MiB of log: exit {p.returncode}, "
              f"{cpu:.2f} s CPU (bound {max_cpu}), {rss:.1f} MiB peak RSS (bound {max_rss})")
        fail = []
        if p.returncode != 1:
            fail.append(f"exit {p.returncode}, expected 1 (known failures found); stderr: {err[-2000:]}")
        else:
            with open(os.path.join(tmp, "out.json"), "rb") as out:
                doc = json.load(out)
            ids = [e["id"] for e in doc["explanations"]]
            omitted = doc["omitted"]
            if doc["summary"]["errors"] != n:
                fail.append(f"summary.errors {doc['summary']['errors']}, expected {n}")
            if ids != ["RDNA-LOG-007"] * min(n, 20):
                fail.append(f"explanations {len(ids)}: {sorted(set(ids))}, expected 20 of RDNA-LOG-007")
            if n > 20 and (len(omitted) != 1 or omitted[0]["matches"] != n - 20 or
                           omitted[0]["occurrences"] != n - 20):
                fail.append(f"omitted {omitted}, expected {n - 20} distinct RDNA-LOG-007 matches")
            expl = doc["explanations"]
            if n > 20 and (expl[0]["first_line"] != 1 or expl[-1]["last_line"] != 10 * n or
                           expl[-1]["first_line"] != 10 * n - 9):
                fail.append(f"first/last explained lines {expl[0]['first_line']} .. "
                            f"{expl[-1]['first_line']}-{expl[-1]['last_line']}, expected 1 .. "
                            f"{10 * n - 9}-{10 * n}")
        if cpu > max_cpu:
            fail.append(f"{cpu:.2f} s CPU > {max_cpu} s")
        if rss > max_rss:
            fail.append(f"{rss:.1f} MiB peak RSS > {max_rss} MiB")
        for f in fail:
            print("FAIL:", f)
        sys.exit(1 if fail else 0)


if __name__ == "__main__":
    main()
