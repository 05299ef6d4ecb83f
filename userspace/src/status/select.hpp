#pragma once
// Which checks `rdnactl status --only/--skip` keeps (pure).  A list names
// check ids ("RDNA-ENV-001") or areas (the id's middle part: "ENV", "GPU",
// "MEM"), comma-separated, in any case.
#include "model.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::status {

// "RDNA-ENV-001" -> "ENV"; "" when the id has no middle part.
std::string_view area_of(std::string_view id);
// Every area of the catalogue, sorted, once each.
std::vector<std::string> check_areas();

struct CheckSelection {
	std::vector<std::string> only; // empty: every check
	std::vector<std::string> skip;
	bool empty() const { return only.empty() && skip.empty(); }
};
// Parses one --only/--skip value into `out` (upper-cased ids and areas).
// Returns "" or the error: "--only: 'FOO' is neither a check id nor an area;
// areas: ACC, CFG, ...; ids: rdnactl status --list-checks".
std::string parse_check_list(std::string_view option, std::string_view list, std::vector<std::string> *out);
// Is `id` kept by the selection?
bool selected(const CheckSelection &sel, std::string_view id);
// The findings the selection keeps, in order.
std::vector<Finding> select_findings(std::vector<Finding> findings, const CheckSelection &sel);

} // namespace rdnafix::status
