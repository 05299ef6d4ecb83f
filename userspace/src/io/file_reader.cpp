// FileReader::read_at (pread) and RootFs::open_read.
#include "io/file_reader.hpp"
#include "io/rootfs_impl.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fmt/format.h>

namespace rdnafix::io {

FsResult<std::string> FileReader::read_at(std::uint64_t offset, std::uint64_t len)
{
	if (len > max_read) {
		FsError e;
		e.kind = FsErrorKind::too_large;
		e.path = path_;
		e.detail =
			fmt::format("a read of {} bytes at offset {} is over the {}-byte limit", len, offset, max_read);
		return e;
	}
	if (offset >= size_)
		return std::string();
	len = std::min<std::uint64_t>(len, size_ - offset);
	std::string out(len, '\0');
	std::size_t got = 0;
	while (got < len) {
		ssize_t n = ::pread(fd_.get(), out.data() + got, len - got, static_cast<off_t>(offset + got));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno_error(errno, path_);
		}
		if (n == 0)
			break; // the file shrank since open
		got += static_cast<std::size_t>(n);
	}
	out.resize(got);
	bytes_read_ += got;
	return out;
}

FsResult<FileReader> RootFs::open_read(std::string_view rel)
{
	if (impl_->root_error) {
		FsError e = *impl_->root_error;
		e.path = std::string(rel);
		return e;
	}
	auto key = Impl::key_of(rel);
	if (!key)
		return key.error();
	auto fd = impl_->open_regular(*key);
	if (!fd)
		return fd.error();
	struct stat st {};
	if (::fstat(fd->get(), &st) != 0)
		return errno_error(errno, *key);
	return FileReader(std::move(fd).value(), std::string(rel), static_cast<std::uint64_t>(st.st_size));
}

} // namespace rdnafix::io
