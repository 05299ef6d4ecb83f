#include "render_common.hpp"

#include <fmt/format.h>

namespace rdnafix::status {

namespace detail {

std::string pci_id(const Device &d)
{
	if (!d.vendor_id || !d.device_id)
		return "";
	return fmt::format("{:04x}:{:04x}", *d.vendor_id, *d.device_id);
}

Counts count(const std::vector<Finding> &f)
{
	Counts c;
	for (const auto &x : f)
		(x.severity == Severity::error ? c.errors : x.severity == Severity::warn ? c.warnings : c.info)++;
	return c;
}

} // namespace detail

} // namespace rdnafix::status
