#!/usr/bin/env python3
"""The corpus of real logs against `rdnactl explain` (docs/knowledge.md, "The corpus").

usage: corpus.py RDNACTL TOP [ID...]

For every tests/explain/corpus/<id>/<name>.log: rdnactl explain --json (built-in
knowledge only, the no-AMD-GPU fixture as the machine) must report exactly the
ids of <name>.expect, each with the decoded facts listed there (capture=value,
the value up to the next capture=; a fact is found when any match of that id
decoded it).  Also: every entry of
the knowledge base has at least one log, every log has a .expect and is named in
its directory's SOURCE.md.  Prints one line per failure and the figures.
"""
import json
import os
import re
import subprocess
import sys


def expected(path):
    ids = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            words = line.split()
            facts = []
            for w in words[1:]:
                # a value may hold spaces: a word without "=" continues the value before it
                if "=" not in w or not w.split("=", 1)[0].replace("_", "").isalnum():
                    if not facts:
                        raise SystemExit(f"{path}:{n}: `{w}` is not capture=value")
                    facts[-1] = (facts[-1][0], facts[-1][1] + " " + w)
                else:
                    facts.append(tuple(w.split("=", 1)))
            ids.setdefault(words[0], []).extend(facts)
    return ids


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: corpus.py RDNACTL TOP [ID...]")
    rdnactl, top, only = sys.argv[1], sys.argv[2], set(sys.argv[3:])
    corpus = os.path.join(top, "tests/explain/corpus")
    root = os.path.join(top, "tests/fixtures/no-amd-gpu/root")
    env = dict(os.environ, RDNAFIX_KNOWLEDGE_DIRS="")
    listed = json.loads(subprocess.run([rdnactl, "explain", "--list", "--json", "--no-overlays"], check=True,
                                       capture_output=True, env=env).stdout)["entries"]
    entry_ids = [e["id"] for e in listed]
    fail, logs, threads = [], 0, set()
    with_log = set()
    for d in sorted(os.listdir(corpus)):
        if only and d not in only:
            continue
        dpath = os.path.join(corpus, d)
        if not os.path.isdir(dpath):
            continue
        if d not in entry_ids:
            fail.append(f"{d}: a corpus directory for an id the knowledge base does not have")
        source = ""
        try:
            with open(os.path.join(dpath, "SOURCE.md"), encoding="utf-8") as f:
                source = f.read()
        except OSError:
            fail.append(f"{d}: no SOURCE.md")
        # the public threads the logs come from (issue and pull-request pages)
        for m in re.finditer(r"https://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull|discussions)/\d+", source):
            threads.add(m.group(0).lower())
        for name in sorted(os.listdir(dpath)):
            if not name.endswith(".log"):
                continue
            logs += 1
            with_log.add(d)
            stem = name[:-4]
            if name not in source:
                fail.append(f"{d}/{name}: not named in {d}/SOURCE.md")
            exp_path = os.path.join(dpath, stem + ".expect")
            if not os.path.exists(exp_path):
                fail.append(f"{d}/{name}: no {stem}.expect")
                continue
            want = expected(exp_path)
            p = subprocess.run([rdnactl, "explain", "--json", "--no-coverage", "--no-overlays", "--root", root,
                                os.path.join(dpath, name)], capture_output=True, env=env)
            if p.returncode not in (0, 1):
                fail.append(f"{d}/{name}: exit {p.returncode}: {p.stderr.decode(errors='replace')[-300:]}")
                continue
            doc = json.loads(p.stdout)
            got = {}
            for e in doc["explanations"]:
                got.setdefault(e["id"], []).append({k: v["value"] for k, v in e["facts"].items()})
            for o in doc["omitted"]:
                got.setdefault(o["id"], [])
            if set(got) != set(want):
                missing = sorted(set(want) - set(got))
                extra = sorted(set(got) - set(want))
                fail.append(f"{d}/{name}: ids differ: missing {missing or '-'}, unexpected {extra or '-'}")
            for i, facts in want.items():
                for k, v in facts:
                    if not any(m.get(k) == v for m in got.get(i, [])):
                        seen = sorted({m.get(k) for m in got.get(i, []) if k in m})
                        fail.append(f"{d}/{name}: {i} {k}={v} not decoded (decoded: {seen or 'nothing'})")
    if not only:
        for i in entry_ids:
            if i not in with_log:
                fail.append(f"{i}: no corpus log (tests/explain/corpus/{i}/*.log)")
    for f in fail:
        print("FAIL", f)
    print(f"corpus: {logs} logs, {len(threads)} distinct threads, {len(with_log)} of {len(entry_ids)} entries "
          f"with a log; {len(fail)} failure(s)")
    sys.exit(1 if fail else 0)


if __name__ == "__main__":
    main()
