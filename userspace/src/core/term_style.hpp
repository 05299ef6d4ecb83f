// Pure helpers for text meant for a terminal: colour (SGR escapes) and
// wrapping at a width.  The decision whether to colour or wrap is made once
// per run from the facts io/terminal.hpp reads (a TTY, its width, NO_COLOR,
// TERM) and the --color option; renderers only receive a TextStyle.
// JSON and piped output never pass through here with colour or a width.
#pragma once

#include "core/text_wrap.hpp" // display_width, wrap_text: the one wrapper

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace rdnafix::core {

// --color WHEN.
enum class ColourWhen { automatic, always, never };

// "auto" | "always" | "never" -> the value; nullopt for anything else.
std::optional<ColourWhen> parse_colour_when(std::string_view s);

// The one colour decision: always/never as given; auto colours only a
// terminal, with NO_COLOR unset or empty (no-color.org) and TERM not "dumb".
bool colour_wanted(ColourWhen when, bool is_terminal, std::optional<std::string_view> no_color,
		   std::optional<std::string_view> term);

// How a text renderer may style its output: colour on or off; width 0 = do
// not wrap (a pipe, a file, JSON).
struct TextStyle {
	bool colour = false;
	std::size_t width = 0;
};

// What a span of text is; the renderer picks the tone, the colour is here.
enum class Tone { heading, error, warn, info, ok, dim };

// `s` between the SGR codes of `tone` when `on`, else `s` unchanged.
std::string paint(std::string_view s, Tone tone, bool on);

// One line of a unified diff, coloured when `on`: "+++"/"---" headings
// bold, "+" lines green, "-" lines red, "@@" hunk heads cyan; any other line
// unchanged.
std::string paint_diff_line(std::string_view line, bool on);

} // namespace rdnafix::core
