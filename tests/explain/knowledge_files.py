#!/usr/bin/env python3
"""The knowledge files as a user or packager meets them (docs/knowledge.md):

  1. the build step refuses a malformed entry with FILE:LINE and writes nothing;
  2. rdnactl explain --check-knowledge FILE: 0 for a valid contributed entry, 1 with FILE:LINE;
  3. the overlay directories: a later directory's file hides the earlier one of the same name, an
     entry replaces the built-in one of its id, a broken overlay entry is a note and is not used;
  4. a log nothing matches: exit 0 and the lines that look like errors;
  5. explain --list --json: every entry with its id, kind and example lines.

usage: knowledge_files.py RDNACTL KNOWLEDGE_EMBED TOP
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

FAIL = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAIL.append(what)


ENTRY = '''[[signature]]
id = "{id}"
kind = "application"
severity = "error"
title = "{title}"
patterns = ['frobnicator (?P<part>widget|gadget) failed']
meaning = "The frobnicator failed on {{part}}."
fix = "Replace the {{part}}."
sources = ["https://example.org/frobnicator/issues/1"]
example = \'\'\'
frobnicator widget failed
\'\'\'
[signature.decode]
part = "{decoder}"
[[signature.cause]]
when = "always"
text = "A worn {{part}}."
'''


def run(args, env=None, stdin=None):
    return subprocess.run(args, capture_output=True, text=True, env=env, input=stdin)


def main():
    rdnactl, embed, top = sys.argv[1:4]
    builtin = sorted(glob.glob(os.path.join(top, "userspace/data/knowledge/*.toml")))
    with tempfile.TemporaryDirectory() as tmp:
        # 1. the build step
        bad = os.path.join(tmp, "bad.toml")
        with open(bad, "w") as f:
            f.write("# a contributed file\n\n" + ENTRY.format(id="RDNA-LOG-900", title="frobnicator", decoder="hexx"))
        out = os.path.join(tmp, "builtin.cpp")
        p = run([embed, out] + builtin + [bad])
        check(p.returncode == 1, f"embed: a bad decoder fails the build (exit {p.returncode})")
        with open(bad) as f:
            line = 1 + next(i for i, l in enumerate(f) if l.startswith('part = "hexx"'))
        check(f"{bad}:{line}: RDNA-LOG-900: decoder of `part` must be one of" in p.stderr,
              f"embed: the problem names FILE:LINE (line {line}, the bad value): "
              + p.stderr.strip().splitlines()[0][:160])
        check(not os.path.exists(out), "embed: nothing written")
        dup = os.path.join(tmp, "dup.toml")
        with open(dup, "w") as f:
            f.write(ENTRY.format(id="RDNA-LOG-001", title="frobnicator", decoder="text"))
        p = run([embed, out] + builtin + [dup])
        check(p.returncode == 1 and "RDNA-LOG-001 is already defined at" in p.stderr,
              "embed: an id defined in two built-in files fails the build")
        nomatch = os.path.join(tmp, "nomatch.toml")
        with open(nomatch, "w") as f:
            f.write(ENTRY.format(id="RDNA-LOG-901", title="frobnicator", decoder="text")
                    .replace("frobnicator widget failed\n'''", "frobnicator spanner failed\n'''"))
        p = run([embed, out] + builtin + [nomatch])
        check(p.returncode == 1 and "RDNA-LOG-901: its example is not recognised as RDNA-LOG-901" in p.stderr,
              "embed: an entry that does not recognise its own example fails the build")
        p = run([embed, out] + builtin)
        check(p.returncode == 0 and os.path.exists(out), "embed: the repository's files pass: " + p.stdout.strip())

        # 2. --check-knowledge
        good = os.path.join(tmp, "good.toml")
        with open(good, "w") as f:
            f.write(ENTRY.format(id="RDNA-LOG-900", title="frobnicator", decoder="text"))
        p = run([rdnactl, "explain", "--check-knowledge", good])
        check(p.returncode == 0 and "1 entry valid, each recognises its example" in p.stdout,
              f"--check-knowledge good: exit {p.returncode}: {p.stdout.strip()}")
        p = run([rdnactl, "explain", "--check-knowledge", bad])
        check(p.returncode == 1 and p.stderr.count(f"{bad}:{line}:") == 1,
              f"--check-knowledge bad: exit {p.returncode}, the problem printed once")
        p = run([rdnactl, "explain", "--check-knowledge", os.path.join(tmp, "missing.toml")])
        check(p.returncode == 2 and "missing.toml" in p.stderr, f"--check-knowledge missing file: exit {p.returncode}")

        # 3. overlays
        usr, etc = os.path.join(tmp, "usr"), os.path.join(tmp, "etc")
        os.makedirs(usr)
        os.makedirs(etc)
        with open(os.path.join(usr, "local.toml"), "w") as f:
            f.write(ENTRY.format(id="RDNA-LOG-900", title="frobnicator from usr", decoder="text"))
        with open(os.path.join(etc, "local.toml"), "w") as f:
            f.write(ENTRY.format(id="RDNA-LOG-900", title="frobnicator from etc", decoder="text"))
        with open(os.path.join(etc, "override.toml"), "w") as f:
            f.write(ENTRY.format(id="RDNA-LOG-001", title="invalid device function, local words", decoder="text")
                    .replace("frobnicator (?P<part>widget|gadget) failed",
                             "(?i)invalid device function(?P<part>)")
                    .replace("frobnicator widget failed", "HIP error: invalid device function"))
        with open(os.path.join(etc, "broken.toml"), "w") as f:
            f.write(ENTRY.format(id="RDNA-LOG-902", title="broken", decoder="nonsense"))
        env = dict(os.environ, RDNAFIX_KNOWLEDGE_DIRS=f"{usr}:{etc}")
        log = "frobnicator gadget failed\nRuntimeError: HIP error: invalid device function\n"
        root = os.path.join(top, "tests/fixtures/no-amd-gpu/root")
        p = run([rdnactl, "explain", "--json", "--no-coverage", "--root", root, "-"], env=env, stdin=log)
        doc = json.loads(p.stdout) if p.stdout else {"explanations": []}
        titles = {e["id"]: e["title"] for e in doc["explanations"]}
        check(titles.get("RDNA-LOG-900") == "frobnicator from etc",
              f"overlay: /etc's local.toml hides /usr's: {titles.get('RDNA-LOG-900')}")
        check(titles.get("RDNA-LOG-001") == "invalid device function, local words",
              f"overlay: an entry replaces the built-in one of its id: {titles.get('RDNA-LOG-001')}")
        check("broken.toml" in p.stderr and "RDNA-LOG-902" in p.stderr and "not used" in p.stderr,
              "overlay: a broken entry is a note on stderr: " + p.stderr.strip()[:160])
        facts = [e["facts"] for e in doc["explanations"] if e["id"] == "RDNA-LOG-900"]
        check(facts and facts[0].get("part", {}).get("value") == "gadget", "overlay: its captures are decoded")
        p = run([rdnactl, "explain", "--json", "--no-coverage", "--no-overlays", "--root", root, "-"], env=env,
                stdin=log)
        ids = sorted(e["id"] for e in json.loads(p.stdout)["explanations"])
        check(ids == ["RDNA-LOG-001"], f"--no-overlays: built-in knowledge only: {ids}")

        # 4. a log nothing matches
        unknown = "starting\nRuntimeError: frobnication of the flux capacitor failed\nall done\n"
        p = run([rdnactl, "explain", "--no-coverage", "--no-overlays", "--root", root, "-"], stdin=unknown)
        check(p.returncode == 0 and "No known failure signature found" in p.stdout
              and "2 | RuntimeError: frobnication" in p.stdout and "rdnactl status" in p.stdout,
              f"unknown log: exit {p.returncode}, the error-looking line and what to check next")
        p = run([rdnactl, "explain", "--json", "--no-coverage", "--no-overlays", "--root", root, "-"], stdin=unknown)
        u = json.loads(p.stdout)["unrecognised"]
        check(u["count"] == 1 and u["lines"][0]["line"] == 2, f"unknown log --json: {u}")

        # 5. known-bad versions (known-bad.toml format): --check-knowledge, and an overlay that
        # status matches on a fixture (Strix Point, kernel 6.14.0-29-generic, MES 0x83)
        kb = os.path.join(tmp, "kb.toml")
        kb_entry = """[[known_bad]]
id = "site-kernel-614"
kind = "kernel"
severity = "warning"
title = "site: kernel 6.14 is under test here"
when = ["kernel >= 6.14", "kernel < 6.15"]
symptom = "s"
workaround = "w"
sources = ["https://example.org/site-report"]
"""
        with open(kb, "w") as f:
            f.write(kb_entry)
        p = run([rdnactl, "explain", "--check-knowledge", kb])
        check(p.returncode == 0 and "1 known-bad version entry valid" in p.stdout,
              f"--check-knowledge known-bad: exit {p.returncode}: {p.stdout.strip()}")
        kbbad = os.path.join(tmp, "kbbad.toml")
        with open(kbbad, "w") as f:
            f.write(kb_entry.replace('kind = "kernel"', 'kind = "bios"'))
        p = run([rdnactl, "explain", "--check-knowledge", kbbad])
        check(p.returncode == 1 and f"{kbbad}:3:" in p.stderr and "kind `bios`" in p.stderr,
              f"--check-knowledge known-bad with a bad kind: exit {p.returncode}: {p.stderr.strip()[:160]}")
        kbdir = os.path.join(tmp, "kbdir")
        os.makedirs(kbdir)
        with open(os.path.join(kbdir, "site.toml"), "w") as f:
            f.write(kb_entry)
        fx = os.path.join(top, "tests/fixtures/strix-point-mes83")
        argv = [rdnactl, "status", "--json", "--no-coverage", "--root", os.path.join(fx, "root"),
                "--env", os.path.join(fx, "env"), "--user", "carol"]
        ids = lambda q: [f["id"] for f in json.loads(q.stdout)["findings"]]
        p = run(argv, env=dict(os.environ, RDNAFIX_KNOWLEDGE_DIRS=kbdir))
        check("RDNA-VER-002" in ids(p) and "RDNA-VER-001" in ids(p),
              f"status: an overlay's known-bad kernel entry is matched next to the built-in ones: {ids(p)}")
        p = run(argv, env=dict(os.environ, RDNAFIX_KNOWLEDGE_DIRS=os.path.join(tmp, "none")))
        check("RDNA-VER-002" not in ids(p), f"status: without the overlay no RDNA-VER-002: {ids(p)}")

        # 6. --list --json
        p = run([rdnactl, "explain", "--list", "--json", "--no-overlays"])
        doc = json.loads(p.stdout)
        entries = doc["entries"]
        check(doc["schema_version"] == 1 and doc["count"] == len(entries), f"--list --json: schema_version 1, count {doc['count']}")
        check(len(entries) >= 60 and all(e["example_lines"] >= 1 and e["kind"] and e["id"] for e in entries),
              f"--list --json: {len(entries)} entries, each with id, kind and example lines")
    print(f"{len(FAIL)} failure(s)")
    sys.exit(1 if FAIL else 0)


if __name__ == "__main__":
    main()
