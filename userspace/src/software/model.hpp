#pragma once
// What `rdnactl coverage` found: the installations that carry GPU code, the
// code targets of each library, and per GPU x library the verdict.  Facts and
// verdicts as values; only render_*.cpp turn the enums into words.  status
// and explain read this (through coverage/scan.hpp).
#include "software/read_fatbin.hpp"

#include "core/rules.hpp"

#include <optional>
#include <string>
#include <vector>

namespace rdnafix::coverage {

// What kind of installation a library belongs to.
enum class InstallKind { pytorch, rocm_system, rocm_debian, rocm_bundled, consumer, path_argument };
// How it was found.
enum class FoundBy { python_option, virtual_env, conda_prefix, path_python, rocm_path, opt_rocm, multiarch, argument };

// What kind of evidence a library is.
enum class LibraryKind {
	fatbin,        // an ELF / bundle / code object read with read_fatbin
	tensile_files, // rocBLAS or hipBLASLt per-target library files, by name
	miopen_db,     // MIOpen kernel / find / perf databases, by name
};

struct Library {
	std::string name; // "libtorch_hip.so", "rocBLAS Tensile library", "MIOpen kernel db"
	std::string path; // root-relative file or directory
	LibraryKind kind = LibraryKind::fatbin;
	// The distinct targets found (canonical target ids, sorted).
	std::vector<core::codeobj::TargetId> targets;
	std::optional<FatbinFile> file;    // kind == fatbin
	std::vector<std::string> problems; // unreadable bundles, entry/e_flags disagreements
};

struct Install {
	InstallKind kind = InstallKind::path_argument;
	FoundBy found_by = FoundBy::argument;
	std::string label;   // "PyTorch 2.5.1+rocm6.2", "ROCm 6.4.1", "llama.cpp ggml-hip"
	std::string version; // "" when unknown
	std::string path;    // root-relative directory (site-packages/torch, opt/rocm-6.4.1, ...)
	std::string via;     // the interpreter / variable that led here ("/home/u/venv/bin/python3")
	// The HIP / ROCm version of the runtime that loads this installation's
	// code ("6.2.41133-dd7f95766" from torch.version.hip, "6.4.1" from
	// .info/version); "" when unknown.  Decides whether generic code loads.
	std::string runtime_version;
	std::vector<Library> libraries;
};

// A GPU to judge: an AMD device of the snapshot with a gfx target, or a
// target named with --gfx (device "").
struct Gpu {
	std::string device;          // PCI BDF, "" for --gfx
	std::string gfx;             // "gfx1031"
	bool xnack_on = false;       // the device runs with XNACK on (KFD never on GFX10+ consumer GPUs)
	std::optional<bool> sramecc; // false on RDNA (no SRAM ECC), unknown elsewhere
	std::string note;            // how xnack was decided ("HSA_XNACK=1 on gfx90a")
};

// Per GPU x library.
enum class Verdict {
	native,        // code for the GPU's own target (feature-compatible)
	generic,       // through its generic family (gfx10-3-generic, ...) at a version the runtime loads
	override_only, // only with HSA_OVERRIDE_GFX_VERSION=<override>
	missing,       // none, or only feature-incompatible code (xnack/sramecc)
	no_code,       // the library holds no device code at all (host-only): not a judgement
};
// "native", "generic", "override_only", "missing", "no_code".
std::string_view to_string(Verdict v);

struct DeviceVerdict {
	std::string device; // PCI BDF ("" for a device given with --gfx)
	std::string gfx;    // native target of the device ("gfx1031")
	Verdict verdict = Verdict::missing;
	std::string via;            // matching target id: "gfx1031", "gfx10-3-generic", "gfx1030" (override)
	std::string override_value; // override_only: "10.3.0"
	std::optional<rules::OverrideVerdict> override_safety; // override_only: ISA safety of that value
	std::string override_reason; // override_only: why that safety (core::rules' one line, with its source)
	std::string reason;          // one line with the evidence ("only gfx90a:xnack+; the GPU runs xnack off")
};

struct LibraryJudgement {
	std::size_t install = 0; // index into Report::installs
	std::size_t library = 0; // index into Install::libraries
	std::vector<DeviceVerdict> devices;
};

// Per GPU x installation: the worst verdict over its libraries that carry
// code (a PyTorch install needs its rocBLAS as much as libtorch_hip).
struct InstallVerdict {
	std::size_t install = 0;
	DeviceVerdict verdict;
	std::string library; // the library that decided it ("" when all are native)
};

struct Report {
	std::vector<Gpu> gpus;
	std::vector<Install> installs;
	std::vector<LibraryJudgement> judgements;
	std::vector<InstallVerdict> summary; // per install with code x GPU, in install order
	std::vector<std::string> searched;   // root-relative places looked at, in order
	std::vector<std::string> notes;      // "no python3 on PATH", "--python X: not an interpreter"
	double seconds = 0;                  // wall time of the scan
	std::uint64_t bytes_read = 0;
	std::uint64_t bytes_inflated = 0; // output of inflating compressed bundles (the decompression budget)
};

} // namespace rdnafix::coverage
