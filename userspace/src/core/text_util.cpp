#include "core/text_util.hpp"

#include <fmt/format.h>

namespace rdnafix::core::detail {

std::string shown(std::string_view s, std::size_t max)
{
	std::string out;
	for (char c : s.substr(0, max)) {
		auto u = static_cast<unsigned char>(c);
		if (u < 0x20 || u == 0x7f)
			out += fmt::format("\\x{:02x}", u);
		else
			out += c;
	}
	if (s.size() > max)
		out += "...";
	return out;
}

std::vector<std::string_view> split_lines(std::string_view text)
{
	std::vector<std::string_view> lines;
	std::size_t pos = 0;
	while (pos < text.size()) {
		std::size_t end = text.find('\n', pos);
		if (end == std::string_view::npos)
			end = text.size();
		std::string_view line = text.substr(pos, end - pos);
		if (!line.empty() && line.back() == '\r')
			line.remove_suffix(1);
		lines.push_back(line);
		pos = end + 1;
	}
	return lines;
}

std::vector<std::string_view> split_words(std::string_view line)
{
	std::vector<std::string_view> words;
	std::size_t i = 0;
	while (i < line.size()) {
		while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
			++i;
		std::size_t start = i;
		while (i < line.size() && line[i] != ' ' && line[i] != '\t')
			++i;
		if (i > start)
			words.push_back(line.substr(start, i - start));
	}
	return words;
}

} // namespace rdnafix::core::detail
