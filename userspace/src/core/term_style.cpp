// Colour and wrapping for terminal text (see term_style.hpp).  Pure.
#include "core/term_style.hpp"

namespace rdnafix::core {

std::optional<ColourWhen> parse_colour_when(std::string_view s)
{
	if (s == "auto")
		return ColourWhen::automatic;
	if (s == "always")
		return ColourWhen::always;
	if (s == "never")
		return ColourWhen::never;
	return std::nullopt;
}

bool colour_wanted(ColourWhen when, bool is_terminal, std::optional<std::string_view> no_color,
		   std::optional<std::string_view> term)
{
	if (when != ColourWhen::automatic)
		return when == ColourWhen::always;
	if (no_color && !no_color->empty())
		return false;
	if (term && *term == "dumb")
		return false;
	return is_terminal;
}

std::string paint(std::string_view s, Tone tone, bool on)
{
	if (!on || s.empty())
		return std::string(s);
	const char *code = "1";
	switch (tone) {
	case Tone::heading:
		code = "1";
		break;
	case Tone::error:
		code = "1;31";
		break;
	case Tone::warn:
		code = "1;33";
		break;
	case Tone::info:
		code = "36";
		break;
	case Tone::ok:
		code = "32";
		break;
	case Tone::dim:
		code = "2";
		break;
	}
	return "\033[" + std::string(code) + "m" + std::string(s) + "\033[0m";
}

std::string paint_diff_line(std::string_view line, bool on)
{
	if (line.starts_with("+++") || line.starts_with("---"))
		return paint(line, Tone::heading, on);
	if (line.starts_with("+"))
		return paint(line, Tone::ok, on);
	if (line.starts_with("-"))
		return paint(line, Tone::error, on);
	if (line.starts_with("@@"))
		return paint(line, Tone::info, on);
	return std::string(line);
}

namespace {

// The length of the SGR sequence starting at `i` ("\033[" digits/';' "m"), 0 when none.
std::size_t sgr_len(std::string_view s, std::size_t i)
{
	if (i + 1 >= s.size() || s[i] != '\033' || s[i + 1] != '[')
		return 0;
	std::size_t j = i + 2;
	while (j < s.size() && ((s[j] >= '0' && s[j] <= '9') || s[j] == ';'))
		++j;
	return j < s.size() && s[j] == 'm' ? j + 1 - i : 0;
}

// The indent of a continuation of `line`: its leading spaces, a "- " or
// "| " marker after them, plus `hang`.
std::size_t continuation_indent(std::string_view line, std::size_t hang)
{
	std::size_t n = 0;
	while (n < line.size() && line[n] == ' ')
		++n;
	if (n + 1 < line.size() && (line[n] == '-' || line[n] == '|') && line[n + 1] == ' ')
		return n + 2;
	return n + hang;
}

void wrap_one(std::string_view line, std::size_t width, std::size_t hang, std::string &out)
{
	if (display_width(line) <= width) {
		out.append(line);
		return;
	}
	const std::size_t indent = continuation_indent(line, hang);
	std::size_t lead = 0;
	while (lead < line.size() && line[lead] == ' ')
		++lead;
	out.append(line.substr(0, lead));
	std::size_t col = lead;
	bool has_word = false; // a word is on the current output line
	std::size_t i = lead;
	while (i <= line.size()) {
		std::size_t sp = line.find(' ', i);
		if (sp == std::string_view::npos)
			sp = line.size();
		const std::string_view word = line.substr(i, sp - i);
		const std::size_t w = display_width(word);
		if (has_word && col + 1 + w > width) {
			out += '\n';
			out.append(indent, ' ');
			col = indent;
			has_word = false;
		} else if (i > lead) {
			out += ' ';
			++col;
		}
		out.append(word);
		col += w;
		has_word = has_word || !word.empty();
		i = sp + 1;
	}
}

} // namespace

std::size_t display_width(std::string_view s)
{
	std::size_t w = 0;
	for (std::size_t i = 0; i < s.size();) {
		if (const std::size_t n = sgr_len(s, i)) {
			i += n;
			continue;
		}
		if ((static_cast<unsigned char>(s[i]) & 0xc0) != 0x80)
			++w;
		++i;
	}
	return w;
}

std::string wrap_lines(std::string_view text, std::size_t width, std::size_t hang)
{
	if (width == 0)
		return std::string(text);
	std::string out;
	out.reserve(text.size() + text.size() / 16);
	while (!text.empty()) {
		const std::size_t nl = text.find('\n');
		wrap_one(text.substr(0, nl), width, hang, out);
		if (nl == std::string_view::npos)
			break;
		out += '\n';
		text = text.substr(nl + 1);
	}
	return out;
}

} // namespace rdnafix::core
