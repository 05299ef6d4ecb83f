#pragma once
// Per-target kernel files of the math libraries, judged by their names only
// (docs/rocm-facts.md §4 "Per-target kernel files"): rocBLAS / hipBLASLt
// Tensile libraries (TensileLibrary_lazy_gfx1030.dat, Kernels.so-000-
// gfx90a-xnack-.hsaco, ...) and MIOpen databases (gfx1030_36.HIP.fdb.txt,
// gfx90a68.db.txt, gfx1030.kdb, ...).  Every name is hostile input: a name
// that does not spell a known target is skipped, never trusted.
#include "software/model.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::io {
class RootFs;
}

namespace rdnafix::coverage {

// Pure: the target a file name names, nullopt when it names none.  The
// processor is "gfx" + 3 characters (gfx9xx, gfx90a) or 4 (gfx10xx..gfx12xx)
// accepted only when core's gfx parser knows the spelling, or a generic name
// (gfx10-3-generic); then optional ":xnack-" / "-xnack+" / "-sramecc+" items.
// It must start the name or follow one of "_-.:/" ("libMIOpenCKGroupedConv_
// gfx1100.so", "Kernels.so-000-gfx1030.hsaco").  Characters after the target
// are allowed (MIOpen appends the CU count: "gfx90a68.db.txt").
std::optional<core::codeobj::TargetId> target_in_file_name(std::string_view name);

// The canonical spelling of a target id ("gfx90a:sramecc+:xnack-"): the
// processor, then the features in alphabetical order.
std::string spelled(const core::codeobj::TargetId &t);

// Order of targets for display: by GFX version (gfx900 < gfx90a < gfx1030),
// a generic target after the members of its family, then by features.
bool target_less(const core::codeobj::TargetId &a, const core::codeobj::TargetId &b);

// Pure: the distinct targets (sorted with target_less) named by `names`, and how many names
// named one.
struct NamedTargets {
	std::vector<core::codeobj::TargetId> targets;
	std::size_t files_with_target = 0;
	std::size_t files = 0;
};
NamedTargets targets_in_names(const std::vector<std::string> &names);

// A Tensile library directory ("torch/lib/rocblas/library") as a Library of
// kind tensile_files; nullopt when the directory does not exist.
std::optional<Library> read_tensile_dir(io::RootFs &fs, const std::string &rel, std::string name);
// A MIOpen system database directory ("opt/rocm/share/miopen/db").
std::optional<Library> read_miopen_dir(io::RootFs &fs, const std::string &rel);

} // namespace rdnafix::coverage
