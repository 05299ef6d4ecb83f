#!/bin/sh
# (tests/unit/coverage/data/SOURCE.md: kmany_bundle.hipfb)
# 78 AMDGPU code objects (one per target id) bundled with the host entry.
set -e
echo "define void @f() { ret void }" >e.ll
B="gfx600 gfx601 gfx602 gfx700 gfx701 gfx702 gfx703 gfx704 gfx705 gfx801 gfx802 gfx803 gfx805 gfx810
   gfx900 gfx902 gfx904 gfx906 gfx908 gfx909 gfx90a gfx90c gfx1010 gfx1011 gfx1012 gfx1013
   gfx1030 gfx1031 gfx1032 gfx1033 gfx1034 gfx1035"
X="gfx801 gfx810 gfx900 gfx902 gfx904 gfx906 gfx908 gfx909 gfx90a gfx90c gfx1010 gfx1011 gfx1012 gfx1013"
T=""; for c in $B; do T="$T $c"; done
for c in $X; do T="$T $c:xnack- $c:xnack+"; done
for c in gfx906 gfx908 gfx90a; do T="$T $c:sramecc- $c:sramecc+"; for s in - +; do T="$T $c:sramecc$s:xnack- $c:sramecc$s:xnack+"; done; done
targets=host-x86_64-unknown-linux-gnu; inputs=/dev/null; n=0
for t in $T; do
  cpu=${t%%:*}; attr=""
  attr=$(echo "$t" | cut -s -d: -f2- | sed 's/\([a-z]*\)\([+-]\)/\2\1/g; s/:/,/g')
  f=$(echo "$t" | tr ':+-' '_pm').o
  llc-14 -mtriple=amdgcn-amd-amdhsa -mcpu=$cpu ${attr:+-mattr=$attr} -filetype=obj e.ll -o "$f"
  targets="$targets,hipv4-amdgcn-amd-amdhsa--$t"; inputs="$inputs,$f"; n=$((n+1))
done
echo "$n targets"
clang-offload-bundler-14 --type=o --targets="$targets" --inputs="$inputs" --outputs=kmany_bundle.hipfb
