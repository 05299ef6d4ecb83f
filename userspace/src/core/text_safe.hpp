// Text that came from the machine (sysfs, file names, environment values,
// logs a child printed) is hostile input for a terminal, a shell and a JSON
// encoder.  These three functions are the one place that makes it safe; every
// renderer uses them instead of its own escaping.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace rdnafix::core {

// For a terminal: C0 controls (except none), DEL, the C1 range U+0080..U+009F
// and bytes that are not valid UTF-8 become visible escapes ("\n", "\t",
// "\e", "\xNN"); a backslash becomes "\\".  Valid printable UTF-8 is kept.
std::string terminal_safe(std::string_view s);

// terminal_safe for a quoted line (a log excerpt, a diff line): a tab
// becomes spaces up to the next multiple of 8 columns, as a terminal shows
// it, instead of a visible "\t"; everything else as terminal_safe.
std::string terminal_safe_quoted(std::string_view s);

// `s` with each tab replaced by the spaces up to the next multiple of 8
// columns (a column per UTF-8 code point, counted from the last line break);
// nothing else changes.  For quoted text that is escaped later.
std::string expand_tabs(std::string_view s);

// terminal_safe applied to each line of a multi-line text; the line breaks
// are kept ("\n" between lines, and after the last one only when `s` ends
// with one).
std::string terminal_safe_lines(std::string_view s);

// The length of the longest prefix of `s` that is at most `max` bytes and
// does not end inside a UTF-8 sequence (cut tails with it).
std::size_t utf8_prefix_len(std::string_view s, std::size_t max);

// `s` with every byte that is not part of a valid UTF-8 sequence replaced by
// U+FFFD (what a JSON encoder can always serialise).
std::string utf8_valid(std::string_view s);

} // namespace rdnafix::core
