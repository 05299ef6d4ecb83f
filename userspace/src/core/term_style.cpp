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

} // namespace rdnafix::core
