// Bounded whole-stream reads (a file or standard input).
#include "io/read_stream.hpp"
#include "io/fs_error.hpp"

#include "io/unique_fd.hpp"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace rdnafix::io {

bool stdin_is_terminal()
{
	return ::isatty(0) == 1;
}

StreamText read_stream(const std::string &path, std::size_t max_bytes)
{
	StreamText r;
	unique_fd owned;
	int fd = 0;
	const std::string name = path == "-" ? std::string("standard input") : path;
	if (path != "-") {
		owned.reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
		if (!owned) {
			r.error = fmt::format("cannot open {}: {}", path, errno_text(errno));
			return r;
		}
		struct stat st {};
		if (::fstat(owned.get(), &st) == 0 && S_ISDIR(st.st_mode)) {
			r.error = fmt::format("{} is a directory, not a log file", path);
			return r;
		}
		fd = owned.get();
	}
	char buf[65536];
	for (;;) {
		const ssize_t n = ::read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r.error = fmt::format("cannot read {}: {}", name, errno_text(errno));
			return r;
		}
		if (n == 0)
			break;
		const std::size_t room = max_bytes - r.text.size();
		if (std::size_t(n) > room) {
			r.text.append(buf, room);
			r.truncated = true;
			break;
		}
		r.text.append(buf, std::size_t(n));
	}
	return r;
}

} // namespace rdnafix::io
