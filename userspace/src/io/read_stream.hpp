#pragma once
// Bounded reads of a whole stream: a file named on the command line, or
// standard input (`rdnactl explain`).  Never throws: errors are values that
// name the path and the reason.
#include <cstddef>
#include <string>

namespace rdnafix::io {

struct StreamText {
	std::string text;
	bool truncated = false; // more than max_bytes were there: only the first max_bytes are in text
	std::string error;      // "" on success: "cannot open x: No such file or directory"
};

// At most max_bytes of `path` (a host path; "-" is standard input).
StreamText read_stream(const std::string &path, std::size_t max_bytes);
// True when standard input is a terminal (isatty(0)).
bool stdin_is_terminal();

} // namespace rdnafix::io
