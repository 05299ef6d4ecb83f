#pragma once
// Parsers of the files that describe where a process runs: the user
// namespace maps (/proc/<pid>/uid_map, gid_map) and Podman's
// /run/.containerenv.  Pure: text in, values out.
#include "core/result.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::core {

// One line of uid_map/gid_map: "<inside> <outside> <count>" (the kernel
// right-aligns the numbers with spaces).
struct IdRange {
	std::uint64_t inside = 0, outside = 0, count = 0;
};
// Every line; an error names the line and what was expected.  An empty map
// (no line) is valid: a namespace whose map was never written.
Result<std::vector<IdRange>> parse_id_map(std::string_view text);

// /run/.containerenv: `key="value"` (or key=value) lines, as Podman writes
// them (engine, name, id, image, imageid, rootless, graphRootMounted).  Lines
// without '=' and comments are skipped; a quoted value loses its quotes.
std::map<std::string, std::string> parse_containerenv(std::string_view text);

} // namespace rdnafix::core
