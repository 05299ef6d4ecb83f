#!/usr/bin/env bash
# Fails when a source file under userspace/src includes a room it may not
# depend on (userspace/README.md "Rooms"): no verb folder includes another
# verb folder, and the rooms below the verbs include nothing above them.
#
#   core                      core
#   io                        io core
#   knowledge                 knowledge core
#   machine                   machine knowledge io core
#   software                  software machine knowledge io core
#   history                   history software machine knowledge io core
#   status explain coverage   themselves and the rooms above (core io knowledge
#   validate config report    machine software history)
#   app                       anything
#
# A quoted include "room/file.hpp" names its room; a bare one ("model.hpp")
# must be a file of the including file's own room (found anywhere in that
# folder) or a generated header of the build (rdnafix_version.hpp,
# knowledge_builtin.hpp, gpudb_table.hpp) or a header of the kernel module
# that userspace shares (kmod/*.h).  The one known exception is listed in
# `exceptions` below with its reason.
#
# usage: check-layers.sh [--root DIR]
# Exit 0 clean, 1 violations (one "path:line: includes ROOM/..." per line), 2 cannot run.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
while [ $# -gt 0 ]; do
	case $1 in
	--root) root=${2:?}; shift 2 ;;
	*) echo "usage: check-layers.sh [--root DIR]" >&2; exit 2 ;;
	esac
done
command -v python3 >/dev/null || { echo "check-layers: python3 not installed" >&2; exit 2; }
[ -d "$root/userspace/src" ] || { echo "check-layers: $root/userspace/src: no such directory" >&2; exit 2; }
exec python3 - "$root/userspace/src" <<'EOF'
import os, re, sys

src = sys.argv[1]
below = ["core", "io", "knowledge", "machine", "software", "history"]
verbs = ["status", "explain", "coverage", "validate", "config", "report"]
allowed = {
    "core": {"core"},
    "io": {"io", "core"},
    "knowledge": {"knowledge", "core"},
    "machine": {"machine", "knowledge", "io", "core"},
    "software": {"software", "machine", "knowledge", "io", "core"},
    "history": {"history", "software", "machine", "knowledge", "io", "core"},
}
for v in verbs:
    allowed[v] = {v, *below}
generated = {"rdnafix_version.hpp", "knowledge_builtin.hpp", "gpudb_table.hpp"}
kmod = os.path.join(os.path.dirname(os.path.dirname(src)), "kmod")
if os.path.isdir(kmod):
    generated |= {f for f in os.listdir(kmod) if f.endswith(".h")}
# (file, included name): why it is allowed.
exceptions = {
    # The stack's "hip"/"cuda" facts follow the validate loader's pure candidate
    # search (validate/gpu is the GPU backend, a library of libc, libdl and io/).
    ("software/collect_stack.cpp", "loader.hpp"): "validate/gpu/loader.hpp",
}
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
names = {}  # room -> set of file names in it
bad = 0
checked = 0
for room in sorted(os.listdir(src)):
    d = os.path.join(src, room)
    if not os.path.isdir(d):
        continue
    names[room] = {f for _, _, fs in os.walk(d) for f in fs}
for room in sorted(names):
    if room == "app":
        continue
    if room not in allowed:
        print(f"check-layers: userspace/src/{room}: a room this check does not know; add it to "
              "check-layers.sh and userspace/README.md")
        bad += 1
        continue
    for dirpath, _, files in os.walk(os.path.join(src, room)):
        for f in sorted(files):
            if not f.endswith((".cpp", ".hpp", ".h", ".cpp.in")):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, src)
            checked += 1
            with open(path, encoding="utf-8", errors="replace") as fh:
                for n, line in enumerate(fh, 1):
                    m = inc.match(line)
                    if not m:
                        continue
                    name = m.group(1)
                    if (rel, name) in exceptions:
                        continue
                    if "/" in name:
                        top = name.split("/", 1)[0]
                        if top in names and top not in allowed[room]:
                            print(f"userspace/src/{rel}:{n}: includes {name}: {room}/ may include only "
                                  f"{', '.join(sorted(allowed[room]))}")
                            bad += 1
                        continue
                    if name in generated or name in names[room]:
                        continue
                    owner = [r for r in names if name in names[r]]
                    print(f"userspace/src/{rel}:{n}: includes \"{name}\", which is not a file of {room}/"
                          + (f" (it is in {', '.join(owner)}/)" if owner else ""))
                    bad += 1
print(f"check-layers: {checked} files, {bad} violation(s)", file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
