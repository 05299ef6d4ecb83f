#!/usr/bin/python3
"""Rows and longest line of text on stdin, as a terminal of WIDTH columns shows it.

    measure.py WIDTH  <  text      prints: lines=N rows=N longest=N

A line of W columns (UTF-8 code points, ANSI SGR sequences take none) takes
max(1, ceil(W / WIDTH)) rows.
"""
import re
import sys

width = int(sys.argv[1])
sgr = re.compile(r"\x1b\[[0-9;]*m")
lines = rows = longest = 0
for raw in sys.stdin.buffer.read().decode("utf-8", "replace").split("\n")[:-1]:
    w = len(sgr.sub("", raw))
    lines += 1
    rows += max(1, -(-w // width))
    longest = max(longest, w)
print(f"lines={lines} rows={rows} longest={longest}")
