// uid_map/gid_map and /run/.containerenv (core/parse_platform.hpp).
#include "core/parse_platform.hpp"

#include "core/parse.hpp"
#include "core/text_util.hpp"

#include <fmt/format.h>

namespace rdnafix::core {

Result<std::vector<IdRange>> parse_id_map(std::string_view text)
{
	std::vector<IdRange> out;
	int lineno = 0;
	for (std::string_view line : detail::split_lines(text)) {
		++lineno;
		std::vector<std::string_view> w;
		for (std::size_t i = 0; i < line.size();) {
			while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
				++i;
			std::size_t j = i;
			while (j < line.size() && line[j] != ' ' && line[j] != '\t')
				++j;
			if (j > i)
				w.push_back(line.substr(i, j - i));
			i = j;
		}
		if (w.empty())
			continue;
		auto bad = [&](std::string_view why) {
			return Error{fmt::format("line {}: {} (expected '<inside> <outside> <count>', three "
						 "decimal numbers), got '{}'",
						 lineno, why, line)};
		};
		if (w.size() != 3)
			return bad(fmt::format("{} fields", w.size()));
		auto a = parse_u64(w[0]), b = parse_u64(w[1]), c = parse_u64(w[2]);
		if (!a || !b || !c || *a > 0xffffffffu || *b > 0xffffffffu || *c > 0x100000000u)
			return bad("not a 32-bit id range");
		out.push_back({*a, *b, *c});
	}
	return out;
}

std::map<std::string, std::string> parse_containerenv(std::string_view text)
{
	std::map<std::string, std::string> out;
	for (std::string_view line : detail::split_lines(text)) {
		if (line.empty() || line.front() == '#')
			continue;
		auto eq = line.find('=');
		if (eq == std::string_view::npos || eq == 0)
			continue;
		std::string_view v = line.substr(eq + 1);
		if (v.size() >= 2 && v.front() == '"' && v.back() == '"')
			v = v.substr(1, v.size() - 2);
		out[std::string(line.substr(0, eq))] = std::string(v);
	}
	return out;
}

} // namespace rdnafix::core
