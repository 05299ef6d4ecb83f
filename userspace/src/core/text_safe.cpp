#include "core/text_safe.hpp"

#include <cstdint>

namespace rdnafix::core {

namespace {

// The length of the valid UTF-8 sequence at s[i], or 0 when it is not one
// (overlong forms, surrogates and code points above U+10FFFF are invalid).
std::size_t utf8_seq_len(std::string_view s, std::size_t i, std::uint32_t &cp)
{
	auto b = static_cast<unsigned char>(s[i]);
	if (b < 0x80) {
		cp = b;
		return 1;
	}
	std::size_t n = 0;
	std::uint32_t min = 0;
	if ((b & 0xe0) == 0xc0) {
		n = 2;
		cp = b & 0x1f;
		min = 0x80;
	} else if ((b & 0xf0) == 0xe0) {
		n = 3;
		cp = b & 0x0f;
		min = 0x800;
	} else if ((b & 0xf8) == 0xf0) {
		n = 4;
		cp = b & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	if (i + n > s.size())
		return 0;
	for (std::size_t k = 1; k < n; ++k) {
		auto c = static_cast<unsigned char>(s[i + k]);
		if ((c & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (c & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void append_hex(std::string &out, unsigned char b)
{
	static constexpr char digits[] = "0123456789abcdef";
	out += "\\x";
	out += digits[b >> 4];
	out += digits[b & 0xf];
}

} // namespace

std::string terminal_safe(std::string_view s)
{
	std::string out;
	out.reserve(s.size());
	for (std::size_t i = 0; i < s.size();) {
		std::uint32_t cp = 0;
		std::size_t n = utf8_seq_len(s, i, cp);
		if (n == 0) {
			append_hex(out, static_cast<unsigned char>(s[i]));
			i += 1;
			continue;
		}
		if (cp == '\\')
			out += "\\\\";
		else if (cp == '\n')
			out += "\\n";
		else if (cp == '\t')
			out += "\\t";
		else if (cp == '\r')
			out += "\\r";
		else if (cp == 0x1b)
			out += "\\e";
		else if (cp < 0x20 || cp == 0x7f)
			append_hex(out, static_cast<unsigned char>(cp));
		else if (cp >= 0x80 && cp <= 0x9f)
			for (std::size_t k = 0; k < n; ++k)
				append_hex(out, static_cast<unsigned char>(s[i + k]));
		else
			out.append(s.substr(i, n));
		i += n;
	}
	return out;
}

std::string expand_tabs(std::string_view s)
{
	std::string out;
	out.reserve(s.size());
	std::size_t col = 0;
	for (const char c : s) {
		if (c == '\t') {
			const std::size_t pad = 8 - col % 8;
			out.append(pad, ' ');
			col += pad;
			continue;
		}
		out += c;
		if (c == '\n')
			col = 0;
		else if ((static_cast<unsigned char>(c) & 0xc0) != 0x80)
			++col;
	}
	return out;
}

std::string terminal_safe_quoted(std::string_view s)
{
	return terminal_safe(expand_tabs(s));
}

std::string terminal_safe_lines(std::string_view s)
{
	std::string out;
	while (!s.empty()) {
		const std::size_t nl = s.find('\n');
		out += terminal_safe(s.substr(0, nl));
		if (nl == std::string_view::npos)
			break;
		out += '\n';
		s = s.substr(nl + 1);
	}
	return out;
}

std::size_t utf8_prefix_len(std::string_view s, std::size_t max)
{
	if (s.size() <= max)
		return s.size();
	std::size_t n = max;
	// step back over at most 3 continuation bytes to the start of the
	// sequence that the cut would split
	std::size_t back = 0;
	while (n > 0 && back < 3 && (static_cast<unsigned char>(s[n]) & 0xc0) == 0x80) {
		--n;
		++back;
	}
	if (back == 3 && (static_cast<unsigned char>(s[n]) & 0xc0) == 0x80)
		return max; // not UTF-8 here: nothing to keep whole
	return n;
}

std::string utf8_valid(std::string_view s)
{
	std::string out;
	out.reserve(s.size());
	for (std::size_t i = 0; i < s.size();) {
		std::uint32_t cp = 0;
		std::size_t n = utf8_seq_len(s, i, cp);
		if (n == 0) {
			out += "\xef\xbf\xbd";
			i += 1;
		} else {
			out.append(s.substr(i, n));
			i += n;
		}
	}
	return out;
}

} // namespace rdnafix::core
