#pragma once
// Bounded reads of a stream piece by piece: a file named on the command line,
// or standard input (`rdnactl explain`, which reads logs of any length in the
// memory of one piece).  Never throws: errors are values that name the path
// and the reason.
#include "io/unique_fd.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::io {

class StreamReader {
public:
	// Opens `path` (a host path; "-" is standard input) for at most
	// `max_bytes`; error() says why when it cannot be read.
	StreamReader(const std::string &path, std::size_t max_bytes);
	StreamReader(const StreamReader &) = delete;
	StreamReader &operator=(const StreamReader &) = delete;
	// The next piece (at most 64 KiB, valid until the next call); empty at
	// the end, at max_bytes, or on an error (error() then says which).
	std::string_view next();
	const std::string &error() const { return error_; }
	bool truncated() const { return truncated_; } // more than max_bytes were there
	std::size_t bytes() const { return total_; }

private:
	unique_fd owned_;
	int fd_ = 0;
	std::string name_;
	std::vector<char> buf_;
	std::size_t max_ = 0, total_ = 0;
	bool truncated_ = false, done_ = false;
	std::string error_; // "" while fine: "cannot open x: No such file or directory"
};

// True when standard input is a terminal (isatty(0)).
bool stdin_is_terminal();

} // namespace rdnafix::io
