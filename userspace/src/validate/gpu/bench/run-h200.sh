#!/usr/bin/env bash
# Build and run the GPU backend benchmark plus the PyTorch/cuDNN baseline in
# one job on an NVIDIA machine (needs g++, libcuda, NVRTC, python3 + torch).
# Figures go to stdout and, if $OUT is set, to $OUT/{bench,torch,build}.txt.
#   run-h200.sh [--skip-capacity] [--quick]
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUTDIR=${OUT:-$(mktemp -d)}
BUILD=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
(time bash "$HERE/build-standalone.sh" "$BUILD") >"$OUTDIR/build.txt" 2>&1 || { cat "$OUTDIR/build.txt"; exit 2; }
export XDG_CACHE_HOME=$BUILD/xdg # cold compile first, then the warm (cached) open
timeout 400 "$BUILD/rdnafix-gpu-bench" "$@" 2>&1 | tee "$OUTDIR/bench.txt"
rc=${PIPESTATUS[0]}
PYTHONUNBUFFERED=1 timeout 150 python3 "$HERE/torch_compare.py" "$OUTDIR/bench.txt" 2>&1 | tee "$OUTDIR/torch.txt"
exit "$rc"
