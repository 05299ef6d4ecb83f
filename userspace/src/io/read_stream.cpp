// Bounded piece-by-piece reads of a stream (a file or standard input).
#include "io/read_stream.hpp"
#include "io/fs_error.hpp"

#include <cerrno>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace rdnafix::io {

bool stdin_is_terminal()
{
	return ::isatty(0) == 1;
}

StreamReader::StreamReader(const std::string &path, std::size_t max_bytes)
    : name_(path == "-" ? std::string("standard input") : path), buf_(64 * 1024), max_(max_bytes)
{
	if (path == "-")
		return;
	owned_.reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
	if (!owned_) {
		error_ = fmt::format("cannot open {}: {}", path, errno_text(errno));
		done_ = true;
		return;
	}
	struct stat st {};
	if (::fstat(owned_.get(), &st) == 0 && S_ISDIR(st.st_mode)) {
		error_ = fmt::format("{} is a directory, not a log file", path);
		done_ = true;
		return;
	}
	fd_ = owned_.get();
}

std::string_view StreamReader::next()
{
	while (!done_) {
		// at the limit one more byte tells whether the input went on
		const std::size_t want = total_ < max_ ? std::min(buf_.size(), max_ - total_) : 1;
		const ssize_t n = ::read(fd_, buf_.data(), want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			error_ = fmt::format("cannot read {}: {}", name_, errno_text(errno));
			done_ = true;
			break;
		}
		if (n == 0) {
			done_ = true;
			break;
		}
		if (total_ >= max_) {
			truncated_ = true;
			done_ = true;
			break;
		}
		total_ += std::size_t(n);
		return {buf_.data(), std::size_t(n)};
	}
	return {};
}

} // namespace rdnafix::io
