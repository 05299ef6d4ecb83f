#!/usr/bin/env bash
# Build rdnafix-gpu-bench and rtc_check without CMake (for a machine that only
# has g++, e.g. the GPU benchmark host).  Usage: build-standalone.sh OUTDIR
# Sources: the GPU backend (gpu/), the validate model it shares with the host
# half (validate/model.cpp) and the child runner (io/child_runner.cpp, io/child_spawn.cpp).
set -euo pipefail
GPU=$(cd "$(dirname "$0")/.." && pwd)
SRC=$(cd "$GPU/../.." && pwd)
OUT=${1:?usage: build-standalone.sh OUTDIR}
mkdir -p "$OUT"
{
	sed -n '1,/@RDNAFIX_KERNEL_SOURCE@/p' "$GPU/kernel_source.cpp.in" | sed '$d'
	printf '\tstatic const std::string s = R"RDNAFIXKERNEL('
	# the kernel pieces in file-name order, as gpu/CMakeLists.txt embeds them
	LC_ALL=C cat "$GPU"/kernels/*.cu
	printf ')RDNAFIXKERNEL";\n'
	sed -n '/@RDNAFIX_KERNEL_SOURCE@/,$p' "$GPU/kernel_source.cpp.in" | sed '1d'
} >"$OUT/kernel_source.cpp"
CXX=${CXX:-g++}
FLAGS="-std=c++20 -O2 -Wall -Wextra -Werror -I$GPU -I$SRC/validate -I$SRC"
units=(backend loader hip_driver cuda_driver rtc code_object session conv2d stream capacity transfers)
pids=()
for f in "${units[@]}"; do
	$CXX $FLAGS -c -o "$OUT/$f.o" "$GPU/$f.cpp" & pids+=($!)
done
$CXX $FLAGS -c -o "$OUT/model.o" "$SRC/validate/model.cpp" & pids+=($!)
$CXX $FLAGS -c -o "$OUT/child_runner.o" "$SRC/io/child_runner.cpp" & pids+=($!)
$CXX $FLAGS -c -o "$OUT/child_spawn.o" "$SRC/io/child_spawn.cpp" & pids+=($!)
$CXX $FLAGS -c -o "$OUT/kernel_source.o" "$OUT/kernel_source.cpp" & pids+=($!)
$CXX $FLAGS -c -o "$OUT/gpu_bench.o" "$GPU/bench/gpu_bench.cpp" & pids+=($!)
for p in "${pids[@]}"; do wait "$p"; done
objs=()
for f in "${units[@]}" model child_runner child_spawn kernel_source; do objs+=("$OUT/$f.o"); done
$CXX -o "$OUT/rdnafix-gpu-bench" "${objs[@]}" "$OUT/gpu_bench.o" -ldl
if [ -f "$SRC/../../tests/rocm/rtc_check.cpp" ]; then
	$CXX $FLAGS -o "$OUT/rtc_check" "$SRC/../../tests/rocm/rtc_check.cpp" "${objs[@]}" -ldl
fi
echo "built $OUT/rdnafix-gpu-bench"
