#include "core/text_safe.hpp"

#include <catch2/catch_test_macros.hpp>

#include <string>

using rdnafix::core::terminal_safe;
using rdnafix::core::terminal_safe_lines;
using rdnafix::core::utf8_prefix_len;
using rdnafix::core::utf8_valid;

TEST_CASE("terminal_safe escapes controls, DEL, C1 and broken UTF-8 and keeps printable UTF-8")
{
	CHECK(terminal_safe("plain gfx1030") == "plain gfx1030");
	CHECK(terminal_safe("a\nb\tc\rd") == "a\\nb\\tc\\rd");
	CHECK(terminal_safe("\x1b[31mred\x1b[0m") == "\\e[31mred\\e[0m");
	CHECK(terminal_safe(std::string("nul\0x", 5)) == "nul\\x00x");
	CHECK(terminal_safe("del\x7f") == "del\\x7f");
	CHECK(terminal_safe("back\\slash") == "back\\\\slash");
	CHECK(terminal_safe("Gr\xc3\xbc\xc3\x9f \xe2\x9c\x93") == "Gr\xc3\xbc\xc3\x9f \xe2\x9c\x93");
	// U+009B (CSI in C1) encoded in UTF-8
	CHECK(terminal_safe("x\xc2\x9b"
			    "2J") == "x\\xc2\\x9b2J");
	// invalid: lone continuation, truncated sequence, overlong, surrogate
	CHECK(terminal_safe("\x80") == "\\x80");
	CHECK(terminal_safe("\xe2\x9c") == "\\xe2\\x9c");
	CHECK(terminal_safe("\xc0\xaf") == "\\xc0\\xaf");
	CHECK(terminal_safe("\xed\xa0\x80") == "\\xed\\xa0\\x80");
}

TEST_CASE("utf8_prefix_len never cuts inside a sequence")
{
	std::string s = "ab\xe2\x9c\x93z"; // a b ✓ z
	CHECK(utf8_prefix_len(s, 100) == s.size());
	CHECK(utf8_prefix_len(s, 2) == 2);
	CHECK(utf8_prefix_len(s, 3) == 2);
	CHECK(utf8_prefix_len(s, 4) == 2);
	CHECK(utf8_prefix_len(s, 5) == 5);
	CHECK(utf8_prefix_len(s, 0) == 0);
	// a run of continuation bytes (not UTF-8): cut where asked
	std::string junk(10, '\x80');
	CHECK(utf8_prefix_len(junk, 6) == 6);
}

TEST_CASE("utf8_valid replaces every invalid byte with U+FFFD")
{
	CHECK(utf8_valid("ok \xe2\x9c\x93") == "ok \xe2\x9c\x93");
	CHECK(utf8_valid("a\xffz") == "a\xef\xbf\xbdz");
	CHECK(utf8_valid("\xe2\x9c") == "\xef\xbf\xbd\xef\xbf\xbd");
}

TEST_CASE("terminal_safe_lines keeps line breaks and escapes inside lines")
{
	CHECK(terminal_safe_lines("a\x1b[2J\nb\n") == "a\\e[2J\nb\n");
	CHECK(terminal_safe_lines("one\ntwo") == "one\ntwo");
	CHECK(terminal_safe_lines("") == "");
	CHECK(terminal_safe_lines("\n\n") == "\n\n");
}
