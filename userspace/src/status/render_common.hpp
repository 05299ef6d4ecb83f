#pragma once
// Internal to the renderers: small values both the text and the JSON output show.
#include "findings.hpp"

#include <string>
#include <vector>

namespace rdnafix::status::detail {

// "1002:73df", "" when unknown.
std::string pci_id(const Device &d);

struct Counts {
	int errors = 0, warnings = 0, info = 0;
};
Counts count(const std::vector<Finding> &f);

} // namespace rdnafix::status::detail
