// Internal helpers of rdnafix_core's parsers (not part of the public API).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::core::detail {

inline bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// Printable rendering of untrusted input for messages (at most `max` chars,
// control bytes as \xNN).
std::string shown(std::string_view s, std::size_t max = 60);

// Split on '\n' (a trailing '\r' is removed from each line); the text after
// the last '\n' is a line when it is not empty.
std::vector<std::string_view> split_lines(std::string_view text);

// Split on runs of spaces/tabs.
std::vector<std::string_view> split_words(std::string_view line);

} // namespace rdnafix::core::detail
