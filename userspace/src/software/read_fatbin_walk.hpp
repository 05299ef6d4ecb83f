#pragma once
// The bundle walker behind read_fatbin: reads the offload bundles lying in
// one byte range of a file (an ELF's .hip_fatbin section, or a whole bundle
// file).  Included only by read_fatbin*.cpp.
#include "software/read_fatbin.hpp"
#include "io/file_reader.hpp"

namespace rdnafix::coverage::detail {

// Bundles one after the other from `start` for `len` bytes.  Plain bundles
// end at their last entry's end and the next starts at the next 4096-byte
// boundary (the alignment of each object's .hip_fatbin section, which the
// linker concatenates); CCOB v2/v3 bundles end after their stored size.  A
// bundle that cannot be read is kept with its reason and ends the walk.
// Inflating CCOB bundles is charged to `budget`.
std::vector<FatbinBundle> walk_bundles(io::FileReader &r, std::uint64_t start, std::uint64_t len, const ReadLimits &lim,
				       io::InflateBudget &budget);

// One AMDGPU entry's header: its ElfTarget, or the disagreement text.
void check_entry(FatbinEntry &e, std::string_view header);

} // namespace rdnafix::coverage::detail
