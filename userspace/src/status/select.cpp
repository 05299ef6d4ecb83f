// --only / --skip over the check catalogue (see select.hpp).
#include "select.hpp"

#include <algorithm>
#include <cctype>

namespace rdnafix::status {

namespace {

std::string upper(std::string_view s)
{
	std::string out;
	for (char c : s)
		out += char(std::toupper((unsigned char)c));
	return out;
}

std::string_view trim(std::string_view s)
{
	while (!s.empty() && std::isspace((unsigned char)s.front()))
		s.remove_prefix(1);
	while (!s.empty() && std::isspace((unsigned char)s.back()))
		s.remove_suffix(1);
	return s;
}

bool matches(const std::vector<std::string> &names, std::string_view id)
{
	const std::string_view area = area_of(id);
	return std::any_of(names.begin(), names.end(), [&](const std::string &n) { return n == id || n == area; });
}

} // namespace

std::string_view area_of(std::string_view id)
{
	const auto a = id.find('-');
	const auto b = a == std::string_view::npos ? a : id.find('-', a + 1);
	if (b == std::string_view::npos)
		return {};
	return id.substr(a + 1, b - a - 1);
}

std::vector<std::string> check_areas()
{
	std::vector<std::string> out;
	for (const auto &c : catalogue())
		if (auto a = std::string(area_of(c.id)); std::find(out.begin(), out.end(), a) == out.end())
			out.push_back(a);
	std::sort(out.begin(), out.end());
	return out;
}

std::string parse_check_list(std::string_view option, std::string_view list, std::vector<std::string> *out)
{
	const auto areas = check_areas();
	std::size_t i = 0;
	while (i <= list.size()) {
		std::size_t j = list.find(',', i);
		if (j == std::string_view::npos)
			j = list.size();
		const std::string_view raw = trim(list.substr(i, j - i));
		const std::string name = upper(raw);
		i = j + 1;
		const bool is_area = std::find(areas.begin(), areas.end(), name) != areas.end();
		const bool is_id = std::any_of(catalogue().begin(), catalogue().end(),
					       [&](const CheckInfo &c) { return c.id == name; });
		if (!is_area && !is_id) {
			std::string valid;
			for (const auto &a : areas)
				valid += (valid.empty() ? "" : ", ") + a;
			return std::string(option) + ": " +
			       (raw.empty() ? std::string("an empty name") : "'" + std::string(raw) + "'") +
			       " is neither a check id nor an area (valid areas: " + valid +
			       "; every id: rdnactl status --list-checks)";
		}
		out->push_back(name);
	}
	return "";
}

bool selected(const CheckSelection &sel, std::string_view id)
{
	if (!sel.only.empty() && !matches(sel.only, id))
		return false;
	return !matches(sel.skip, id);
}

std::vector<Finding> select_findings(std::vector<Finding> findings, const CheckSelection &sel)
{
	if (sel.empty())
		return findings;
	findings.erase(std::remove_if(findings.begin(), findings.end(),
				      [&](const Finding &f) { return !selected(sel, f.id); }),
		       findings.end());
	return findings;
}

} // namespace rdnafix::status
