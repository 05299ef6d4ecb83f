#pragma once
// Line-level recognisers of the signatures (match_lines.cpp), used by
// match.cpp.  Pure.
#include "explain/model.hpp"

#include <optional>
#include <string_view>

namespace rdnafix::explain {

// The signature a single line shows, nullopt for none (VM fault blocks are
// recognised by core/amdgpu_fault, not here).
std::optional<Sig> classify(std::string_view line);
// Facts of a single-line match (node, address, ring, firmware file, reason) into m.
void fill_facts(Match *m, std::string_view line);
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
