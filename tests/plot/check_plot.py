#!/usr/bin/env python3
"""`rdnactl history --plot`: the real binary, a real history database, the SVG
parsed as XML (ctest history_plot_xml).

Usage: check_plot.py RDNACTL

Records runs with the hidden selftest cases (no GPU needed), makes one case
name and the last run's kernel (kernel_release and the stack's "kernel")
hostile in the database (sqlite3), plots, and checks with xml.etree that the
document is well-formed XML and that its points, failure marks, stack-change
lines and names match the database.
Then: an unwritable --plot path exits 2 naming it and leaves no file, and a
second plot replaces the first with no temporary file left over.
Prints PASS/FAIL lines; exit status 1 on any FAIL.
"""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = "selftest<&>\"'\x01é</svg>"
HOSTILE_SHOWN = "selftest<&>\"'\ufffdé</svg>"  # what XML can carry: the control character replaced
fails = 0


def check(ok, what):
    global fails
    print(("PASS " if ok else "FAIL ") + what)
    if not ok:
        fails += 1


def rdnactl(exe, *args):
    p = subprocess.run([exe, *args], capture_output=True, text=True, errors="replace", timeout=300)
    return p.returncode, p.stdout, p.stderr


def main(exe):
    with tempfile.TemporaryDirectory(prefix="rdnafix-plot-") as tmp:
        db = os.path.join(tmp, "history.db")
        for case in ("selftest.pass", "selftest.pass", "selftest.fail"):
            rc, out, err = rdnactl(exe, "validate", "--case", case, "--history-db", db)
            check(rc in (0, 1), f"validate --case {case} recorded (rc {rc})")
        con = sqlite3.connect(db)
        con.execute("UPDATE results SET case_name = ? WHERE case_name = 'selftest.fail'", (HOSTILE,))
        last = con.execute("SELECT max(id) FROM runs").fetchone()[0]
        hostile_kernel = "6.12.57<&>\x1b[31m"
        con.execute("UPDATE runs SET kernel_release = ? WHERE id = ?", (hostile_kernel, last))
        # The stack of the last run (schema 5: runs.stack, JSON) gets the same
        # kernel, so the plot marks a stack change there.
        row = con.execute("SELECT stack FROM runs WHERE id = ?", (last,)).fetchone()
        stack = json.loads(row[0]) if row and row[0] else {}
        stack["kernel"] = hostile_kernel
        con.execute("UPDATE runs SET stack = ? WHERE id = ?", (json.dumps(stack), last))
        con.commit()
        results = con.execute("SELECT run_id, case_name, status, gflops, gbs FROM results").fetchall()
        con.close()

        svg = os.path.join(tmp, "plot.svg")
        rc, out, err = rdnactl(exe, "history", "--history-db", db, "--plot", svg)
        check(rc in (0, 1) and "wrote " + svg in err, f"history --plot writes the file (rc {rc}): {err.strip()}")
        try:
            root = ET.parse(svg).getroot()
        except (ET.ParseError, OSError) as e:
            check(False, f"the SVG parses as XML: {e}")
            return
        check(root.tag == SVG + "svg", "the root element is <svg> in the SVG namespace")
        cases = {g.get("data-case"): g for g in root.iter(SVG + "g") if g.get("class") == "case"}
        want_cases = {name if name != HOSTILE else HOSTILE_SHOWN for _, name, _, _, _ in results}
        check(set(cases) == want_cases, f"one panel per case: {sorted(cases)}")
        for run_id, name, status, gflops, gbs in results:
            g = cases.get(name if name != HOSTILE else HOSTILE_SHOWN)
            if g is None:
                continue
            points = [c for c in g.iter(SVG + "circle") if c.get("data-run") == str(run_id)]
            crosses = [x for x in g.iter(SVG + "g") if x.get("class") == "failure" and x.get("data-run") == str(run_id)]
            figure = gflops if gflops is not None else gbs
            check(len(points) == (1 if figure is not None and figure >= 0 else 0),
                  f"run {run_id} {name!r}: {len(points)} point(s) for figure {figure}")
            failed = status in ("fail", "crash", "hang", "error")
            check(len(crosses) == (1 if failed else 0), f"run {run_id} {name!r} ({status}): {len(crosses)} failure mark(s)")
        changes = [l for l in root.iter(SVG + "line") if l.get("class") == "change"]
        check([l.get("data-run") for l in changes] == [str(last)],
              f"one stack-change line, at run {last}: {[l.get('data-run') for l in changes]}")
        tip = changes[0].find(SVG + "title").text if changes else ""
        check("kernel " in tip and "\u2192 6.12.57<&>" in tip, f"its tooltip names the kernel change: {tip!r}")
        labels = [t.text for t in root.iter(SVG + "text") if t.get("class") == "kernel-label"]
        check(any(l and l.startswith("6.12.57<&>\ufffd[31m") for l in labels),
              f"the hostile kernel release is text, escape replaced: {labels[-1]!r}")

        # Unwritable destinations: exit 2, the path named, nothing written.
        for bad in (os.path.join(tmp, "no-such-dir", "p.svg"), os.path.join(db, "p.svg")):
            rc, out, err = rdnactl(exe, "history", "--history-db", db, "--plot", bad)
            check(rc == 2 and bad in err and "nothing written" in err and not os.path.exists(bad),
                  f"--plot {bad}: rc {rc}, {err.strip()!r}")
        rc, out, err = rdnactl(exe, "history", "--history-db", db, "--plot", "")
        check(rc == 2 and "--plot" in err, f"--plot '': rc {rc}, {err.strip()!r}")

        # A second plot replaces the first (temp file + rename): no leftovers.
        with open(svg, "w") as f:
            f.write("old")
        rc, out, err = rdnactl(exe, "history", "--history-db", db, "--plot", svg)
        with open(svg) as f:
            replaced = f.read().startswith("<?xml")
        leftovers = [n for n in os.listdir(tmp) if n.startswith(".plot.svg")]
        check(rc in (0, 1) and replaced and not leftovers, f"the plot replaces the old file, leftovers {leftovers}")
    print(f"history --plot: {fails} failed")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: check_plot.py RDNACTL", file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1])
    sys.exit(1 if fails else 0)
