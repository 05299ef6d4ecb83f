// validate --list --json: the cases as one document (see render.hpp).  Apart
// from render.cpp so that what renders results needs no case table.
#include "cases.hpp"
#include "render.hpp"

#include "rdnafix_version.hpp"

namespace rdnafix::validate {

nlohmann::ordered_json render_list_json()
{
	auto list = nlohmann::ordered_json::array();
	for (const auto &c : all_cases()) {
		if (c.hidden)
			continue;
		const bool conv = c.kind == CaseKind::conv2d;
		list.push_back({{"name", c.name},
				{"set", c.kind == CaseKind::torch ? "torch"
					: c.quick                 ? "quick"
								  : "full"},
				{"origin", c.origin},
				{"shape", conv ? nlohmann::ordered_json(c.shape.describe()) : nullptr},
				{"dtype", conv ? nlohmann::ordered_json(dtype_name(c.dtype)) : nullptr}});
	}
	return {{"schema_version", 1},
		{"rdnactl_version", RDNAFIX_VERSION},
		{"count", list.size()},
		{"cases", std::move(list)}};
}

} // namespace rdnafix::validate
