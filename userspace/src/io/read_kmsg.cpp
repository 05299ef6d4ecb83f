// Reads every record of /dev/kmsg without blocking (see read_kmsg.hpp).
#include "io/read_kmsg.hpp"
#include "io/fs_error.hpp"

#include "io/unique_fd.hpp"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

namespace rdnafix::io {

KmsgDump read_kmsg(const char *path, std::size_t max_bytes)
{
	KmsgDump d;
	unique_fd fd(::open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC));
	if (!fd) {
		const int e = errno;
		d.error = fmt::format(
			"cannot open {}: {}{}", path, errno_text(e),
			e == EPERM || e == EACCES ? "; kernel.dmesg_restrict: run as root or add CAP_SYSLOG" : "");
		return d;
	}
	char buf[8192]; // one record per read(); records are shorter
	for (std::size_t records = 0; records < 1000000; ++records) {
		const ssize_t n = ::read(fd.get(), buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EPIPE) // overwritten while reading: go on with the next record
			continue;
		if (n <= 0)
			break; // EAGAIN: the end of the buffer
		std::string_view rec(buf, std::size_t(n));
		if (const auto nl = rec.find('\n'); nl != std::string_view::npos)
			rec = rec.substr(0, nl); // continuation lines (" KEY=value") dropped
		if (d.text.size() + rec.size() + 1 > max_bytes) {
			d.truncated = true;
			break;
		}
		d.text.append(rec);
		d.text.push_back('\n');
	}
	return d;
}

} // namespace rdnafix::io
