// rdnafix ISA table: per RDNA target what LLVM compiles for it (feature set,
// register file, instructions and work-arounds not every family member has)
// and the override pairs real reports judge.  Data in userspace/data/
// isa-targets.tsv and override-pairs.tsv, compiled in by gen_isadb.py.  Pure.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

namespace rdnafix::isadb {

struct IsaTarget {
	std::string_view name;          // "gfx1103"
	std::string_view generic;       // "gfx11-generic"
	std::string_view llvm_features; // "FeatureISAVersion11_0_3": same set, same code
	unsigned vgprs_wave32 = 0;      // physical VGPRs per SIMD lane (wave32): 1024 or 1536
	std::string_view instructions;  // comma list, "" for none
	std::string_view workarounds;   // comma list, "" for none
	std::string_view source;        // upstream file and version
};

struct ReportedPair {
	std::string_view native;          // "gfx1103"
	std::string_view override_target; // "gfx1100"
	std::string_view verdict;         // "isa_safe" | "works_not_guaranteed" | "unsafe"
	std::string_view evidence;        // what the reports show, with references
};

std::span<const IsaTarget> targets();
std::span<const ReportedPair> reported_pairs();
const IsaTarget *target(std::string_view name);                                          // nullptr: not in the table
const ReportedPair *reported(std::string_view native, std::string_view override_target); // nullptr: none

// The items of the comma list `need` that the comma list `have` lacks.
std::vector<std::string_view> missing(std::string_view need, std::string_view have);

namespace detail {
extern const IsaTarget kTargets[];
extern const std::size_t kTargetCount;
extern const ReportedPair kPairs[];
extern const std::size_t kPairCount;
} // namespace detail

} // namespace rdnafix::isadb
