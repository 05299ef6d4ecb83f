#pragma once
// The library-load check of the software picture: the dependency tree of the
// HIP runtime and of the installations' GPU libraries (libtorch_hip.so,
// libggml-hip.so), resolved the way the dynamic loader would for the audited
// environment — DT_RPATH, LD_LIBRARY_PATH, DT_RUNPATH with $ORIGIN,
// /etc/ld.so.cache, the default directories — by reading ELF dynamic
// sections (core/elf_dynamic.hpp), never by dlopen (docs/library-load.md).
// Facts only: what would be loaded from where, what is missing, which
// needed versions the chosen provider does not define.  status judges.
#include "software/model.hpp"

#include "core/elf_dynamic.hpp"
#include "machine/snapshot.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace rdnafix::io {
class RootFs;
}

namespace rdnafix::software::libload {

// Where the loader found a library.
enum class Origin { start, rpath, ld_library_path, runpath, ld_cache, default_dir };

inline constexpr std::size_t kNone = static_cast<std::size_t>(-1);

struct Object {
	std::string name;           // as asked for ("libstdc++.so.6"; the start: its file name)
	std::string path;           // absolute path as the loader opens it ("/opt/rocm-6.2.4/lib/libamdhip64.so.6")
	std::string real;           // the same with every symlink resolved
	std::size_t parent = kNone; // the object that needed it first
	Origin origin = Origin::start;
	std::string via;          // the LD_LIBRARY_PATH / RPATH / RUNPATH entry it was found in ("" otherwise)
	std::string rocm_release; // "6.2.4" when it lies in /opt/rocm-6.2.4 (or a tree whose .info/version says so)
	core::elfdyn::Info elf;
};

struct Missing {
	std::string name;
	std::size_t needed_by = 0;
	std::vector<std::string> searched; // the directories tried, in order
};

// `needer` needs `versions` of `file`, which `provider` does not define.
struct VersionGap {
	std::size_t needer = 0, provider = 0;
	std::vector<std::string> versions;
};

struct Tree {
	std::string label;           // "HIP runtime", or the installation's label and library
	std::vector<Object> objects; // in load order (breadth first), objects[0] the start
	std::vector<Missing> missing;
	std::vector<VersionGap> gaps;
	std::vector<machine::Unreadable> unreadable;
	bool truncated = false; // stopped at Limits::max_objects
};

struct Limits {
	std::size_t max_objects = 256; // per tree
	std::size_t max_trees = 16;
	std::uint64_t max_cache_bytes = 4ull << 20; // /etc/ld.so.cache
};

struct Report {
	std::string ld_library_path; // as audited ("" unset)
	bool ld_library_path_set = false;
	std::vector<Tree> trees;
	std::string cache_problem; // "" when /etc/ld.so.cache was read (or is absent)
	// false: the root has no libc.so.6 the loader would find (a partial
	// capture under --root): nothing is judged, `not_judged` says why.
	bool judged = true;
	std::string not_judged;
};

// The roots: the HIP runtime the loader would find for a bare
// libamdhip64.so.{7,6,5} (else ROCM_PATH's, /opt/rocm's lib), then each
// installation's libtorch_hip.so / libggml-hip.so of `coverage` (may be null).
Report check(io::RootFs &fs, const machine::Snapshot &snap, const coverage::Report *coverage, const Limits &lim = {});

} // namespace rdnafix::software::libload
