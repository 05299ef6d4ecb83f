#pragma once
// The coverage scan: find the installations (coverage/find_*.cpp), read their
// device code (read_fatbin.cpp, tensile/miopen names), judge per GPU
// (judge.cpp, pure).  Used by `rdnactl coverage`, `status` and `explain`.
#include "software/model.hpp"

#include "machine/snapshot.hpp"

#include "core/result.hpp"

#include <string>
#include <vector>

namespace rdnafix::io {
class RootFs;
}

namespace rdnafix::coverage {

struct ScanOptions {
	std::vector<std::string> paths;   // PATH arguments: scan only these (files or directories)
	std::vector<std::string> pythons; // --python PATH (repeatable)
	bool system = true;               // ROCM_PATH, /opt/rocm*, multiarch, consumers
	std::vector<std::string> gfx;     // --gfx TARGET: judge these targets too (no GPU needed)
	bool devices = true;              // judge the AMD devices of the snapshot
	// What inflating compressed (CCOB) bundles may cost in the whole scan,
	// and per file (ReadLimits::max_inflate_file): a 2 KB bundle can declare
	// 64 MiB, a file can hold thousands.  Only the code-object headers are
	// kept, so this bounds time, not memory; real libraries with compressed
	// bundles inflate to GBs.  Files past it are "not read: decompression
	// budget".
	std::uint64_t max_inflate_total = 8ull << 30;
	double max_inflate_seconds = 10;
	ReadLimits limits;
};

// Devices and the environment (VIRTUAL_ENV, CONDA_PREFIX, PATH, ROCM_PATH,
// HSA_OVERRIDE_GFX_VERSION) come from the snapshot.
Report scan(io::RootFs &fs, const machine::Snapshot &s, const ScanOptions &opts);

// Pure: the verdicts of `devices` for the libraries of `installs`.
std::vector<LibraryJudgement> judge(const std::vector<Install> &installs, const machine::Snapshot &s);

// Pure: the GPUs to judge: the AMD devices of the snapshot with a gfx target
// (xnack from the kernel, GC version and HSA_XNACK), then `extra` targets
// ("gfx1031", "gfx90a:xnack+").  Errors name the bad target and what is valid.
core::Result<std::vector<Gpu>> gpus_of(const machine::Snapshot &s, const std::vector<std::string> &extra,
				       bool devices = true);
std::vector<LibraryJudgement> judge(const std::vector<Install> &installs, const std::vector<Gpu> &gpus);
// One library for one GPU (runtime_version: the install's, for generic code).
DeviceVerdict judge_library(const Library &lib, const std::string &runtime_version, const Gpu &gpu);
// Per install with code x GPU: the worst library verdict.
std::vector<InstallVerdict> summarize(const std::vector<Install> &installs, const std::vector<Gpu> &gpus,
				      const std::vector<LibraryJudgement> &judgements);
// 0 every GPU native or generic in every installation that has code, else 1.
int exit_code_for(const Report &r);

} // namespace rdnafix::coverage

namespace rdnafix::coverage {
// The targets of a library that read_fatbin read (entries whose id and
// e_flags agree; the others become problems).  Used by scan, public for tests.
void fill_targets(Library &lib);
} // namespace rdnafix::coverage
