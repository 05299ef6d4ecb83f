#pragma once
// The coverage scan: find the installations (coverage/find_*.cpp), read their
// device code (read_fatbin.cpp, tensile/miopen names), judge per GPU
// (judge.cpp, pure).  Used by `rdnactl coverage`, `status` and `explain`.
#include "coverage/model.hpp"

#include "machine/snapshot.hpp"

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
};

// Devices and the environment (VIRTUAL_ENV, CONDA_PREFIX, PATH, ROCM_PATH,
// HSA_OVERRIDE_GFX_VERSION) come from the snapshot.
Report scan(io::RootFs &fs, const machine::Snapshot &s, const ScanOptions &opts);

// Pure: the verdicts of `devices` for the libraries of `installs`.
std::vector<LibraryJudgement> judge(const std::vector<Install> &installs, const machine::Snapshot &s);

} // namespace rdnafix::coverage
