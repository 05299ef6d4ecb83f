#!/usr/bin/env python3
"""Turn userspace/data/gpu-database.tsv into a C++ table (build step).

Usage: gen_gpudb.py IN.tsv OUT.cpp
Every row is validated; on the first malformed row the script prints
"<file>:<line>: <what is wrong> (valid: <what is valid>)" and exits 1, which
fails the build.  The output is only replaced when its content changes.
"""
import os
import re
import sys

COLUMNS = ["pci_device", "pci_revision", "gc_version", "gfx_target", "codename",
           "generation", "apu", "source"]
GENERATIONS = {"gcn5": "gcn5", "cdna1": "cdna1", "cdna2": "cdna2", "cdna3": "cdna3",
               "rdna1": "rdna1", "rdna2": "rdna2", "rdna3": "rdna3", "rdna3.5": "rdna3_5",
               "rdna4": "rdna4"}
GC_RE = re.compile(r"^(\d{1,2})\.(\d{1,2})\.(\d{1,2})$")
GFX_RE = re.compile(r"^gfx(\d{1,2})([0-9a-f])([0-9a-f])$")


class RowError(Exception):
    pass


def cxx_string(s):
    out = ['"']
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20:
            raise RowError(f"control character {ord(ch):#x} in a text column")
        else:
            out.append(ch)
    out.append('"')
    # UTF-8 text (e.g. '§') is fine in a narrow string literal.
    return "".join(out)


def parse_gc(text):
    m = GC_RE.match(text)
    if not m:
        raise RowError(f"gc_version '{text}' is invalid (valid: major.minor.revision like 10.3.2, "
                       "or two of them joined by '|')")
    return tuple(int(x) for x in m.groups())


def convert(row):
    if len(row) != len(COLUMNS):
        raise RowError(f"{len(row)} tab-separated columns, expected {len(COLUMNS)}: "
                       + " ".join(COLUMNS))
    dev, rev, gc, gfx, code, gen, apu, src = (c.strip() for c in row)
    if not re.fullmatch(r"[0-9A-Fa-f]{4}", dev):
        raise RowError(f"pci_device '{dev}' is invalid (valid: 4 hex digits like 73DF)")
    if rev == "*":
        rev_cxx = "std::nullopt"
    elif re.fullmatch(r"[0-9A-Fa-f]{2}", rev):
        rev_cxx = f"std::uint8_t{{0x{rev.lower()}}}"
    else:
        raise RowError(f"pci_revision '{rev}' is invalid (valid: 2 hex digits like C1, or *)")
    gcs = gc.split("|")
    if len(gcs) > 2:
        raise RowError(f"gc_version '{gc}' lists more than two versions")
    gc1 = parse_gc(gcs[0])
    gc2 = parse_gc(gcs[1]) if len(gcs) == 2 else None
    m = GFX_RE.match(gfx)
    if not m:
        raise RowError(f"gfx_target '{gfx}' is invalid (valid: gfx + decimal major + hex minor + "
                       "hex stepping, lower case, like gfx1031 or gfx90a)")
    t = (int(m.group(1)), int(m.group(2), 16), int(m.group(3), 16))
    if not code:
        raise RowError("codename is empty")
    if gen not in GENERATIONS:
        raise RowError(f"generation '{gen}' is invalid (valid: {'|'.join(GENERATIONS)})")
    if apu not in ("0", "1"):
        raise RowError(f"apu '{apu}' is invalid (valid: 0 or 1)")
    if not src:
        raise RowError("source is empty: every row must say where it comes from")
    gc2_cxx = f"GcVersion{{{gc2[0]}, {gc2[1]}, {gc2[2]}}}" if gc2 else "std::nullopt"
    return (f"    {{0x{dev.lower()}, {rev_cxx}, GcVersion{{{gc1[0]}, {gc1[1]}, {gc1[2]}}}, {gc2_cxx}, "
            f"GfxTarget{{{t[0]}, {t[1]}, {t[2]}}}, {cxx_string(code)}, Generation::{GENERATIONS[gen]}, "
            f"{'true' if apu == '1' else 'false'}, {cxx_string(src)}}},")


class DatabaseError(Exception):
    """A message naming the file (and line) of what is wrong."""


def read_rows(src):
    """Read and validate the TSV.  Returns [(line number, {column: stripped text}, C++ initialiser)].
    Raises DatabaseError("<file>:<line>: <what is wrong>") on the first bad row; other
    generators (udev/gen_hwdb.py) import this so that the TSV has one reader."""
    try:
        with open(src, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except (OSError, UnicodeDecodeError) as e:
        raise DatabaseError(f"{src}: cannot read the GPU database: {e}")
    rows = []
    seen_header = False
    seen_keys = {}
    for no, line in enumerate(lines, 1):
        line = line.rstrip("\r")
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        try:
            if not seen_header:
                if [c.strip() for c in cols] != COLUMNS:
                    raise RowError("the first non-comment line must be the header: "
                                   + "\\t".join(COLUMNS))
                seen_header = True
                continue
            cxx = convert(cols)
            key = (cols[0].strip().lower(), cols[1].strip().lower())
            if key in seen_keys:
                raise RowError(f"duplicate (pci_device, pci_revision) {key[0]} {key[1]}, "
                               f"first on line {seen_keys[key]}")
            seen_keys[key] = no
            rows.append((no, dict(zip(COLUMNS, (c.strip() for c in cols))), cxx))
        except RowError as e:
            raise DatabaseError(f"{src}:{no}: {e}")
    if not rows:
        raise DatabaseError(f"{src}: no rows")
    return rows


def write_if_changed(dst, text):
    """Replace dst (temp file + rename) only when its content changes."""
    try:
        with open(dst, encoding="utf-8") as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(dst + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(dst + ".tmp", dst)


def main(argv):
    if len(argv) != 3:
        print("usage: gen_gpudb.py IN.tsv OUT.cpp", file=sys.stderr)
        return 2
    src, dst = argv[1], argv[2]
    try:
        entries = [cxx for _, _, cxx in read_rows(src)]
    except DatabaseError as e:
        print(e, file=sys.stderr)
        return 1
    text = ("// GENERATED by userspace/src/core/gen_gpudb.py from userspace/data/gpu-database.tsv.\n"
            "// Do not edit.\n"
            "#include \"core/gpudb_table.hpp\"\n\n"
            "namespace rdnafix::gpudb::detail {\n\n"
            "using core::GcVersion;\nusing core::GfxTarget;\n\n"
            f"const Entry kTable[] = {{\n" + "\n".join(entries) + "\n};\n"
            f"const std::size_t kTableSize = {len(entries)};\n\n"
            "}  // namespace rdnafix::gpudb::detail\n")
    write_if_changed(dst, text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
