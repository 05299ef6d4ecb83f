#!/usr/bin/env bash
# The sanitizer build and the fuzz targets (`make test-fuzz`; tests/README.md "fuzz/").
#
# 1. GCC's sanitizer build ($BUILD/sanitize): -fsanitize=address,undefined -O1
#    under -Werror.  Stage "guard" (default) compiles explain/run.cpp, where
#    GCC 12 once warned (issue N16); stage "sanitize" compiles the sources the
#    fuzz targets read too, and each target, built as a replay program, runs
#    once over its corpus (tests/fuzz/corpus/<target>/).
# 2. The libFuzzer build ($BUILD/fuzz, clang++): each target fuzzes for
#    RDNAFIX_FUZZ_SECONDS, starting from its corpus and what earlier runs in
#    this build directory found ($BUILD/fuzz/corpus/<target>/).
#
# A finding (a sanitizer report, an uncaught exception, a broken invariant,
# an input over 30 s or 2 GiB) keeps its reproducer in
# $BUILD/fuzz/crashes/<target>/ and fails the run; replay it with
#   $BUILD/fuzz/fuzz/fuzz_<target> <reproducer>
#
# Environment: RDNAFIX_FUZZ_STAGES ("guard fuzz" by default; "sanitize fuzz"
# for the whole GCC step), RDNAFIX_FUZZ_SECONDS (per target, default 15),
# RDNAFIX_FUZZ_TARGETS (space-separated names, default all), RDNAFIX_FUZZ_JOBS
# (targets fuzzed at once, default the number of CPUs), BUILD (default build).
# Exit: 0 pass, 1 a finding or a build that failed, 2 cannot run here.
set -uo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
build=${BUILD:-build}
seconds=${RDNAFIX_FUZZ_SECONDS:-15}
jobs=${RDNAFIX_FUZZ_JOBS:-$(nproc)}
all_targets="kernel_log explain_log knowledge_file codeobj fatbin env_file modprobe journal history elf_dynamic text_shape"
targets=${RDNAFIX_FUZZ_TARGETS:-$all_targets}
stages=${RDNAFIX_FUZZ_STAGES:-guard fuzz}

die2() {
	echo "SKIP [fuzz] $*" >&2
	exit 2
}
[[ $seconds =~ ^[1-9][0-9]*$ ]] || die2 "RDNAFIX_FUZZ_SECONDS=$seconds: expected a whole number of seconds (1 or more)"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die2 "RDNAFIX_FUZZ_JOBS=$jobs: expected a whole number (1 or more)"
for s in $stages; do
	[[ $s == guard || $s == sanitize || $s == fuzz ]] ||
		die2 "RDNAFIX_FUZZ_STAGES: unknown stage '$s' (valid: guard sanitize fuzz)"
done
for t in $targets; do
	[[ " $all_targets " == *" $t "* ]] || die2 "RDNAFIX_FUZZ_TARGETS: unknown target '$t' (valid: $all_targets)"
done
for tool in cmake ninja g++ clang++ llvm-symbolizer; do
	command -v "$tool" >/dev/null || die2 "$tool missing (userspace/deps/packages.txt [test]: make deps-test)"
done
# libFuzzer's runtime (libclang-rt-dev): a one-line program must link with it.
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf 'extern "C" int LLVMFuzzerTestOneInput(const char *, unsigned long) { return 0; }\n' >"$probe/p.cpp"
clang++ -fsanitize=fuzzer,address,undefined "$probe/p.cpp" -o "$probe/p" 2>"$probe/err" ||
	die2 "clang++ cannot link a libFuzzer program (libclang-rt-dev missing?): $(head -1 "$probe/err")"

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-$(command -v llvm-symbolizer)}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
start=$SECONDS

# configure_build DIR COMPILER FUZZ-MODE [TARGET]
configure_build() {
	local dir=$1 cxx=$2 mode=$3 target=${4:-fuzz} t0=$SECONDS
	if ! cmake -S userspace -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE= -DCMAKE_CXX_COMPILER="$cxx" \
		-DRDNAFIX_SANITIZE=ON -DRDNAFIX_FUZZ="$mode" -DRDNAFIX_TESTS=OFF "${launcher[@]}" >"$dir.log" 2>&1 ||
		! cmake --build "$dir" --target "$target" >>"$dir.log" 2>&1; then
		grep -E 'error|warning|FAILED' "$dir.log" | head -40
		echo "FAIL [fuzz] build $dir ($cxx, RDNAFIX_FUZZ=$mode): log in $dir.log"
		return 1
	fi
	echo "PASS [fuzz] build $target in $dir ($cxx, RDNAFIX_FUZZ=$mode) in $((SECONDS - t0)) s"
}

mkdir -p "$build"
rc=0
# 1. GCC: compile warning-free with the sanitizers (and replay every corpus).
if [[ " $stages " != *" sanitize "* ]]; then
	if [[ " $stages " == *" guard "* ]]; then
		configure_build "$build/sanitize" g++ REPLAY fuzz_compile_guard || rc=1
	fi
elif configure_build "$build/sanitize" g++ REPLAY; then
	for t in $targets; do
		if out=$("$build/sanitize/fuzz/fuzz_$t" "tests/fuzz/corpus/$t" 2>&1); then
			echo "PASS [sanitize] $t: $(echo "$out" | sed -n 's/^replay: \([0-9]\)/\1/p')"
		else
			echo "$out" | grep -v '^replay: running' | tail -40
			culprit=$(echo "$out" | sed -n 's/^replay: running //p' | tail -1)
			echo "FAIL [sanitize] $t: GCC's ASan/UBSan build failed on ${culprit:-an input of tests/fuzz/corpus/$t}; replay: $build/sanitize/fuzz/fuzz_$t ${culprit:-INPUT}"
			rc=1
		fi
	done
else
	rc=1
fi

# 2. clang + libFuzzer: fuzz each target for $seconds.
fuzz_one() {
	local t=$1 work=$build/fuzz/corpus/$1 crashes=$build/fuzz/crashes/$1 log=$build/fuzz/logs/$1.log
	mkdir -p "$work" "$crashes" "$(dirname "$log")"
	local before execs speed
	before=$(find "$work" -type f | wc -l)
	touch "$crashes/.started"
	"$build/fuzz/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$crashes/" "$work" "tests/fuzz/corpus/$t" >"$log" 2>&1
	local status=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	if [[ $status -ne 0 ]]; then
		grep -E -A30 '^==[0-9]+==|runtime error|fuzz: invariant|terminate called|Test unit written' "$log" | head -60
		local repro
		repro=$(find "$crashes" -type f -newer "$crashes/.started" ! -name '.*' 2>/dev/null | head -1)
		echo "FAIL [fuzz] $t: finding after ${execs:-?} inputs (libFuzzer exit $status); reproducer: ${repro:-none written, see $log}; replay: $build/fuzz/fuzz/fuzz_$t ${repro:-INPUT}"
		return 1
	fi
	echo "PASS [fuzz] $t: ${execs:-?} inputs in ${seconds} s (${speed:-?} exec/s), corpus $before -> $(find "$work" -type f | wc -l) files"
}

if [[ " $stages " != *" fuzz "* ]]; then
	:
elif configure_build "$build/fuzz" clang++ LIBFUZZER; then
	pids=()
	names=()
	for t in $targets; do
		while [[ $(jobs -rp | wc -l) -ge $jobs ]]; do wait -n || true; done
		fuzz_one "$t" >"$build/fuzz/$t.result" 2>&1 &
		pids+=($!)
		names+=("$t")
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || rc=1
		cat "$build/fuzz/${names[$i]}.result"
	done
else
	rc=1
fi

echo "fuzz: $((SECONDS - start)) s in total (${seconds} s per target, $jobs at once)"
exit $rc
