// The ISA table's accessors (the rows are generated: gen_isadb.py).
#include "core/isadb.hpp"

#include <algorithm>

namespace rdnafix::isadb {

namespace {

std::vector<std::string_view> split(std::string_view list)
{
	std::vector<std::string_view> out;
	while (!list.empty()) {
		const auto comma = list.find(',');
		out.push_back(list.substr(0, comma));
		list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
	}
	return out;
}

} // namespace

std::span<const IsaTarget> targets()
{
	return {detail::kTargets, detail::kTargetCount};
}

std::span<const ReportedPair> reported_pairs()
{
	return {detail::kPairs, detail::kPairCount};
}

const IsaTarget *target(std::string_view name)
{
	for (const auto &t : targets())
		if (t.name == name)
			return &t;
	return nullptr;
}

const ReportedPair *reported(std::string_view native, std::string_view override_target)
{
	for (const auto &p : reported_pairs())
		if (p.native == native && p.override_target == override_target)
			return &p;
	return nullptr;
}

std::vector<std::string_view> missing(std::string_view need, std::string_view have)
{
	const auto h = split(have);
	std::vector<std::string_view> out;
	for (auto n : split(need))
		if (std::find(h.begin(), h.end(), n) == h.end())
			out.push_back(n);
	return out;
}

} // namespace rdnafix::isadb
