#pragma once
// Line-level recognisers of the signatures (match_lines.cpp), used by
// match.cpp.  Pure.
#include "explain/model.hpp"

#include <optional>
#include <string_view>

namespace rdnafix::explain {

// One line of the hipErrorNoBinaryForGpu report ("Devices:", "Bundled Code
// Objects:" and their entries); false when the line is not part of it.
// `section` carries the list being read between calls (start with 0).
bool parse_nobinary_line(std::string_view line, NoBinaryDecode *d, int *section);
// Computes d->missing from the lists (the [Not Found] devices, and devices
// whose processor no bundled code object names).
void finish_nobinary(NoBinaryDecode *d);
// "amdgcn-amd-amdhsa--gfx1100" / "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-" -> "gfx1100" / "gfx90a:xnack-";
// "" when the text names no amdgcn target.
std::string target_of(std::string_view bundle_or_isa);

} // namespace rdnafix::explain
