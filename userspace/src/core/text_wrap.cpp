// Wrapping, citation stripping and headline splitting (see text_wrap.hpp).
#include "core/text_wrap.hpp"

#include <algorithm>
#include <cctype>
#include <array>
#include <vector>

namespace rdnafix::core {

namespace {

bool continuation(unsigned char c)
{
	return (c & 0xC0) == 0x80;
}

// Length in bytes of an SGR sequence starting at s[i] ("\033[" digits/';' 'm'), 0 if none.
std::size_t sgr_len(std::string_view s, std::size_t i)
{
	if (i + 1 >= s.size() || s[i] != '\033' || s[i + 1] != '[')
		return 0;
	std::size_t j = i + 2;
	while (j < s.size() && ((s[j] >= '0' && s[j] <= '9') || s[j] == ';'))
		++j;
	return j < s.size() && s[j] == 'm' ? j + 1 - i : 0;
}

// The byte offset in `s` after `cols` columns (or s.size()).
std::size_t byte_at_column(std::string_view s, std::size_t cols)
{
	std::size_t i = 0, w = 0;
	while (i < s.size()) {
		if (auto n = sgr_len(s, i)) {
			i += n;
			continue;
		}
		if (w == cols)
			break;
		++i;
		while (i < s.size() && continuation((unsigned char)s[i]))
			++i;
		++w;
	}
	return i;
}

void wrap_line(std::string_view line, std::size_t width, std::size_t hang, std::string &out)
{
	if (display_width(line) <= width) {
		out += line;
		return;
	}
	const std::size_t lead =
		line.find_first_not_of(' ') == std::string_view::npos ? 0 : line.find_first_not_of(' ');
	// A "- " or "| " marker after the indentation: continuations align with its text.
	const bool marker = lead + 1 < line.size() && (line[lead] == '-' || line[lead] == '|') && line[lead + 1] == ' ';
	const std::size_t indent = std::min(marker ? lead + 2 : lead + hang, width / 2);
	std::string_view rest = line;
	bool first = true;
	while (true) {
		const std::size_t room = first ? width : width - indent;
		if (display_width(rest) <= room) {
			out += rest;
			return;
		}
		// The last space at or before the room's end (not in the leading indentation).
		std::size_t cut = byte_at_column(rest, room);
		std::size_t sp = rest.rfind(' ', cut);
		const std::size_t min = first ? lead : 0;
		std::size_t next;
		if (sp != std::string_view::npos && sp > min && (sp < cut || cut < rest.size())) {
			next = sp + 1;
			cut = sp;
		} else {
			next = cut; // no space: cut the word
		}
		std::string_view piece = rest.substr(0, cut);
		while (!piece.empty() && piece.back() == ' ')
			piece.remove_suffix(1);
		out += piece;
		out += '\n';
		out.append(indent, ' ');
		rest = rest.substr(next);
		while (!rest.empty() && rest.front() == ' ')
			rest.remove_prefix(1);
		first = false;
	}
}

bool has_source_word(std::string_view inner)
{
	static constexpr std::array<std::string_view, 11> exts{".c",  ".h",  ".cpp", ".hpp", ".cc",  ".rst",
							       ".md", ".py", ".td",  ".txt", ".toml"};
	std::size_t i = 0;
	while (i < inner.size()) {
		std::size_t j = inner.find_first_of(" ,;", i);
		if (j == std::string_view::npos)
			j = inner.size();
		std::string_view w = inner.substr(i, j - i);
		while (!w.empty() && (w.back() == ':' || w.back() == ')' || w.back() == '.'))
			w.remove_suffix(1);
		i = j + 1;
		if (w.empty())
			continue;
		if (auto h = w.find('#'); h != std::string_view::npos && h + 1 < w.size() &&
					  std::isdigit((unsigned char)w[h + 1]) && (h == 0 || w.find('/') < h))
			return true;
		for (auto e : exts)
			if (w.size() > e.size() && w.substr(w.size() - e.size()) == e)
				return true;
	}
	return false;
}

// Does the '(' at s[open] close at the end of s (a trailing parenthetical)?
bool closes_at_end(std::string_view s, std::size_t open)
{
	int depth = 0;
	for (std::size_t j = open; j < s.size(); ++j) {
		depth += s[j] == '(' ? 1 : s[j] == ')' ? -1 : 0;
		if (depth == 0)
			return j + 1 == s.size();
	}
	return false;
}

} // namespace

std::size_t display_width(std::string_view s)
{
	std::size_t w = 0;
	for (std::size_t i = 0; i < s.size();) {
		if (auto n = sgr_len(s, i)) {
			i += n;
			continue;
		}
		if (!continuation((unsigned char)s[i]))
			++w;
		++i;
	}
	return w;
}

std::string wrap_text(std::string_view text, std::size_t width, std::size_t hang)
{
	if (width == 0)
		return std::string(text);
	std::string out;
	std::size_t i = 0;
	while (i < text.size()) {
		std::size_t nl = text.find('\n', i);
		std::string_view line = text.substr(i, nl == std::string_view::npos ? std::string_view::npos : nl - i);
		wrap_line(line, width, hang, out);
		if (nl == std::string_view::npos)
			break;
		out += '\n';
		i = nl + 1;
	}
	return out;
}

std::string strip_citations(std::string_view s)
{
	std::string out;
	std::size_t i = 0;
	while (i < s.size()) {
		if (s[i] == ' ' && i + 1 < s.size() && s[i + 1] == '(') {
			// The matching ')'.
			int depth = 0;
			std::size_t j = i + 1;
			for (; j < s.size(); ++j) {
				depth += s[j] == '(' ? 1 : s[j] == ')' ? -1 : 0;
				if (depth == 0)
					break;
			}
			if (j < s.size() && has_source_word(s.substr(i + 2, j - i - 2))) {
				i = j + 1;
				continue;
			}
		}
		out += s[i++];
	}
	return out;
}

std::pair<std::string, std::string> split_headline(std::string_view s)
{
	int depth = 0;
	for (std::size_t i = 0; i + 1 < s.size(); ++i) {
		const char c = s[i];
		if (c == ')' && depth > 0)
			--depth;
		if (depth == 0 && i >= 24) {
			if ((c == ':' || c == ';') && s[i + 1] == ' ')
				return {std::string(s.substr(0, i)), std::string(s.substr(i + 2))};
			if (c == ' ' && s[i + 1] == '(' && s.size() - i > 40 && closes_at_end(s, i + 1))
				return {std::string(s.substr(0, i)), std::string(s.substr(i + 1))};
		}
		if (c == '(')
			++depth;
	}
	return {std::string(s), ""};
}

} // namespace rdnafix::core
