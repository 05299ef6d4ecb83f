#!/usr/bin/env python3
"""json_same.py EXPECTED ACTUAL: print each difference between two JSON files
(path: expected vs actual), nothing when they are equal.  The paths the fixture
tests ignore (tests/unit/status/test_fixtures.cpp) are ignored here too: /root,
/rdnactl_version, /environment/source."""
import json
import sys

IGNORE = {"/root", "/rdnactl_version", "/environment/source"}


def diff(e, a, path, out):
    if path in IGNORE:
        return
    if isinstance(e, dict) and isinstance(a, dict):
        for k in sorted(set(e) | set(a)):
            p = f"{path}/{k}"
            if k not in a:
                out.append(f"{p}: missing")
            elif k not in e:
                if p not in IGNORE:
                    out.append(f"{p}: unexpected {json.dumps(a[k])[:120]}")
            else:
                diff(e[k], a[k], p, out)
    elif isinstance(e, list) and isinstance(a, list):
        if len(e) != len(a):
            out.append(f"{path}: {len(e)} elements expected, {len(a)} found")
        for i, (x, y) in enumerate(zip(e, a)):
            diff(x, y, f"{path}/{i}", out)
    elif e != a or type(e) is not type(a):
        out.append(f"{path}: {json.dumps(e)[:120]} expected, {json.dumps(a)[:120]} found")


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        expected = json.load(f)
    try:
        with open(sys.argv[2], encoding="utf-8") as f:
            actual = json.load(f)
    except (OSError, ValueError) as err:
        print(f"{sys.argv[2]}: not JSON: {err}")
        return 1
    out = []
    diff(expected, actual, "", out)
    for line in out:
        print(line)
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main())
