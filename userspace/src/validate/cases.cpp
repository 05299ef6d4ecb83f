#include "cases.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "cases/kinds.hpp"

namespace rdnafix::validate {

namespace {

// The registry's order is the order of `validate --list` and of a run.
std::vector<CaseDef> build()
{
	std::vector<CaseDef> v;
	for (auto part :
	     {conv2d_cases(), stream_cases(), capacity_cases(), transfer_cases(), torch_cases(), selftest_cases()})
		v.insert(v.end(), part.begin(), part.end());
	return v;
}

} // namespace

bool needs_gpu(CaseKind k)
{
	return k == CaseKind::conv2d || k == CaseKind::stream || k == CaseKind::capacity || k == CaseKind::transfers;
}

const std::vector<CaseDef> &all_cases()
{
	static const std::vector<CaseDef> cases = build();
	return cases;
}

const CaseDef *find_case(std::string_view name)
{
	for (const auto &c : all_cases())
		if (c.name == name)
			return &c;
	return nullptr;
}

std::vector<const CaseDef *> select_cases(Selection s)
{
	std::vector<const CaseDef *> out;
	for (const auto &c : all_cases())
		if (!c.hidden && c.kind != CaseKind::torch && (s == Selection::full || c.quick))
			out.push_back(&c);
	return out;
}

std::vector<const CaseDef *> select_named(const std::vector<std::string> &names)
{
	std::vector<const CaseDef *> out;
	for (const auto &n : names) {
		const CaseDef *c = find_case(n);
		if (!c)
			throw std::invalid_argument(
				fmt::format("unknown case '{}'; `rdnactl validate --list` shows the "
					    "valid names",
					    n));
		out.push_back(c);
	}
	return out;
}

} // namespace rdnafix::validate
