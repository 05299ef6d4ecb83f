// core/term_style: the colour decision and painting, with core/text_wrap's display width and wrapping;
// core/text_safe: tabs of quoted lines as spaces.
#include "core/term_style.hpp"
#include "core/text_safe.hpp"

#include <catch2/catch_test_macros.hpp>

#include <sstream>

using namespace rdnafix::core;

TEST_CASE("colour_wanted: always/never win, auto needs a terminal, NO_COLOR empty or unset, TERM not dumb")
{
	CHECK(colour_wanted(ColourWhen::always, false, "1", "dumb"));
	CHECK_FALSE(colour_wanted(ColourWhen::never, true, std::nullopt, "xterm"));
	CHECK(colour_wanted(ColourWhen::automatic, true, std::nullopt, "xterm"));
	CHECK(colour_wanted(ColourWhen::automatic, true, "", "xterm")); // no-color.org: empty means unset
	CHECK_FALSE(colour_wanted(ColourWhen::automatic, true, "1", "xterm"));
	CHECK_FALSE(colour_wanted(ColourWhen::automatic, true, std::nullopt, "dumb"));
	CHECK_FALSE(colour_wanted(ColourWhen::automatic, false, std::nullopt, "xterm")); // a pipe
	CHECK(parse_colour_when("auto") == ColourWhen::automatic);
	CHECK_FALSE(parse_colour_when("yes").has_value());
}

TEST_CASE("paint: SGR codes only when on; display_width skips them and counts code points")
{
	CHECK(paint("x", Tone::error, false) == "x");
	CHECK(paint("x", Tone::error, true) == "\033[1;31mx\033[0m");
	CHECK(display_width(paint("abc", Tone::warn, true)) == 3);
	CHECK(display_width("gfx1031 — ok") == 12);
	CHECK(paint_diff_line("+options ttm", true) == "\033[32m+options ttm\033[0m");
	CHECK(paint_diff_line("-old", true) == "\033[1;31m-old\033[0m");
	CHECK(paint_diff_line("+++ b/etc/x", true).starts_with("\033[1m"));
	CHECK(paint_diff_line(" context", true) == " context");
	CHECK(paint_diff_line("+x", false) == "+x");
}

TEST_CASE("wrap_text with hang 2: no line wider than the width, continuation indented, markers aligned")
{
	const std::string text = "  means: the quick brown fox jumps over the lazy dog and runs far away\n"
				 "    - a bullet item that is long enough to wrap around once\nshort\n";
	const std::string w = wrap_text(text, 30, 2);
	std::istringstream in(w);
	std::string line;
	int lines = 0;
	while (std::getline(in, line)) {
		++lines;
		CHECK(display_width(line) <= 30);
	}
	CHECK(lines > 3);
	CHECK(w.find("\n    ") != std::string::npos);   // "  means:" continues at 2 + 2
	CHECK(w.find("\n      ") != std::string::npos); // "    - " continues under the text
	CHECK(w.ends_with("short\n"));
	CHECK(wrap_text(text, 0, 2) == text);
	// a word longer than the width is cut: no line is wider than the width
	CHECK(wrap_text("a /very/long/path b", 10, 2) == "a\n  /very/lo\n  ng/path\n  b");
	// colour codes do not count
	const std::string red = paint("0123456789", Tone::error, true);
	CHECK(wrap_text(red + " " + red, 21, 2) == red + " " + red);
}

TEST_CASE("terminal_safe_quoted: a tab is spaces to the next tab stop, other controls stay escaped")
{
	CHECK(terminal_safe_quoted("a\tb") == "a       b");
	CHECK(terminal_safe_quoted("12345678\tx") == "12345678        x");
	CHECK(terminal_safe_quoted("\x1b[31m\tx") == "\\e[31m   x"); // columns of the raw text
	CHECK(expand_tabs("ab\tc\n\td") == "ab      c\n        d");
	CHECK(terminal_safe("a\tb") == "a\\tb"); // the plain escape keeps showing it (values, names)
}
