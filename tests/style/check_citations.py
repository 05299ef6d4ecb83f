#!/usr/bin/env python3
"""Fail on any tracked file that cites a file the repository does not have.

Usage: check_citations.py [--root DIR] [--paths PATH...]

  --root DIR      the checkout to check (default: the one holding this script)
  --paths P...    only scan the tracked files under these paths (git pathspecs);
                  references are still resolved against the whole checkout

Every tracked text file is scanned (symlinks and binary files are skipped).
A line is reported as "file:line: what" when it
  1. names one of the reference notes that were never part of the repository
     (the old internal notes on amdgpu internals, ROCm userspace, team
     interfaces, prior art and architecture, also the short form "internals"
     followed by a section sign), a raw capture of theirs, or a path into a
     sibling "shared" folder; or
  2. refers to a Markdown file under a top-level folder (docs/, kmod/, tests/,
     userspace/, udev/) or to any file under docs/sources/ that does not
     exist in the checkout; or
  3. cites a numbered section (§N or §N.M) of such a Markdown file that has
     no heading with that number; or
  4. (Markdown files only) links to a relative target that does not exist.

Prints one summary line with counts.  Exit 0: clean; 1: violations;
2: cannot run (no git, not a checkout).
"""
import os
import re
import subprocess
import sys

# The retired note names are assembled from parts so that this file does not
# cite them itself.
_MD = r"\.md"
RETIRED = ["amdgpu" + "-internals", "rocm" + "-userspace", "team" + "-interfaces", "prior" + "-art"]
FORBIDDEN = [
    (re.compile(r"(?<![\w-])(?:%s)(?:%s)?(?![\w-])" % ("|".join(RETIRED), _MD)),
     "cites a reference note that is not in the repository"),
    (re.compile(r"(?<![\w/-])" + "architecture" + _MD),
     "cites a reference note that is not in the repository"),
    (re.compile(r"(?<![\w-])" + "internals" + r"\s*§"),
     "cites a reference note that is not in the repository (short form)"),
    (re.compile(r"\.\./" + "shared" + r"/|(?<![\w.-])" + "shared" + r"/(?:docs|data)\b|/work/" + "shared"),
     "cites a file outside the checkout (shared folder)"),
    (re.compile(r"(?<![\w/.-])" + "raw" + r"/(?:kernel|rocm)-"),
     "cites a raw capture outside the checkout (copy it to docs/sources/)"),
]

TOP_DIRS = "docs|kmod|tests|userspace|udev"
# a path token: optional ../ or ./ prefixes, a top folder, then path characters;
# {a,b} brace groups are expanded.
PATH_TOKEN = re.compile(r"(?<![\w.+/-])((?:\.\./|\./)*(?:%s)/(?:[\w.+-]|/|\{[\w.,+-]*\})*)" % TOP_DIRS)
SECTION = re.compile(r"^`?\)?\s*(?:§\s*|section\s+)(\d+(?:\.\d+)?)")
MD_LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(?:Appendix\s+)?(\d+(?:\.\d+)*)[.\s:]")


def expand_braces(tok):
    m = re.search(r"\{([^{}]*)\}", tok)
    if not m:
        return [tok]
    out = []
    for alt in m.group(1).split(","):
        out.extend(expand_braces(tok[:m.start()] + alt + tok[m.end():]))
    return out


class Checker:
    def __init__(self, root):
        self.root = root
        self.headings = {}
        self.refs = 0
        self.bad = []

    def exists(self, rel_dir, target):
        target = target.rstrip(".,;:")
        cands = [os.path.normpath(os.path.join(rel_dir, target))]
        stripped = target
        while stripped.startswith("../") or stripped.startswith("./"):
            stripped = stripped.split("/", 1)[1]
        cands.append(os.path.normpath(stripped))
        for c in cands:
            if not c.startswith("..") and os.path.exists(os.path.join(self.root, c)):
                return c
        return None

    def sections_of(self, rel):
        if rel not in self.headings:
            nums = set()
            try:
                with open(os.path.join(self.root, rel), encoding="utf-8", errors="replace") as f:
                    in_fence = False
                    for line in f:
                        if line.startswith("```"):
                            in_fence = not in_fence
                        m = None if in_fence else HEADING.match(line)
                        if m:
                            nums.add(m.group(1))
            except OSError:
                pass
            self.headings[rel] = nums
        return self.headings[rel]

    def report(self, path, no, what):
        self.bad.append(f"{path}:{no}: {what}")

    def check_path_token(self, path, rel_dir, no, line, m):
        raw = m.group(1)
        for tok in expand_braces(raw):
            tok = tok.rstrip(".,;:")
            is_md = tok.endswith(".md")
            in_sources = "docs/sources/" in tok and not tok.endswith("/")
            if not (is_md or in_sources):
                continue
            self.refs += 1
            found = self.exists(rel_dir, tok)
            if not found:
                self.report(path, no, f"cites {tok}, which does not exist in the checkout")
                continue
            if is_md:
                sm = SECTION.match(line[m.end():])
                if sm and sm.group(1) not in self.sections_of(found):
                    self.report(path, no, f"cites {tok} §{sm.group(1)}, which has no heading numbered "
                                f"{sm.group(1)}")

    def check_file(self, path):
        full = os.path.join(self.root, path)
        if os.path.islink(full) or not os.path.isfile(full):
            return False
        with open(full, "rb") as f:
            data = f.read()
        if b"\0" in data[:8192]:
            return False
        text = data.decode("utf-8", errors="replace")
        rel_dir = os.path.dirname(path)
        is_md = path.endswith(".md")
        for no, line in enumerate(text.split("\n"), 1):
            for rx, what in FORBIDDEN:
                fm = rx.search(line)
                if fm:
                    self.refs += 1
                    self.report(path, no, f"'{fm.group(0)}': {what}")
            for m in PATH_TOKEN.finditer(line):
                self.check_path_token(path, rel_dir, no, line, m)
            if is_md:
                for m in MD_LINK.finditer(line):
                    target = m.group(1).strip("<>")
                    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("#"):
                        continue
                    target = target.split("#", 1)[0]
                    if not target:
                        continue
                    self.refs += 1
                    if not os.path.exists(os.path.normpath(os.path.join(self.root, rel_dir, target))):
                        self.report(path, no, f"links to {target}, which does not exist")
        return True


def main(argv):
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    paths = []
    args = argv[1:]
    while args:
        a = args.pop(0)
        if a == "--root" and args:
            root = args.pop(0)
        elif a == "--paths":
            while args and not args[0].startswith("--"):
                paths.append(args.pop(0))
        else:
            print(f"usage: {os.path.basename(argv[0])} [--root DIR] [--paths PATH...]", file=sys.stderr)
            return 2
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--"] + paths,
                             capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"check-citations: cannot list the tracked files of {root}: {e}", file=sys.stderr)
        return 2
    files = sorted(p for p in out.decode("utf-8", errors="surrogateescape").split("\0") if p)
    c = Checker(root)
    scanned = sum(1 for p in files if c.check_file(p))
    for b in c.bad:
        print(b)
    nfiles = len({b.split(":", 1)[0] for b in c.bad})
    print(f"check-citations: {scanned} files, {c.refs} citations checked, {len(c.bad)} bad in {nfiles} files")
    return 1 if c.bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
