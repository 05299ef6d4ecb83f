#pragma once
// io::FileReader: random-access reads of one regular file opened through
// RootFs::open_read (so below the --root, symlinks resolved inside it).  The
// reader for files too large to read whole: an ELF's section table, an
// offload bundle's header, a few bytes of each code object.
#include "io/fs_error.hpp"
#include "io/unique_fd.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace rdnafix::io {

class FileReader {
public:
	FileReader(unique_fd fd, std::string path, std::uint64_t size)
	    : fd_(std::move(fd)), path_(std::move(path)), size_(size)
	{
	}
	[[nodiscard]] const std::string &path() const { return path_; } // root-relative, as asked
	[[nodiscard]] std::uint64_t size() const { return size_; }      // st_size at open
	// Bytes handed out by read_at so far (the cost of a scan).
	[[nodiscard]] std::uint64_t bytes_read() const { return bytes_read_; }

	// Up to `len` bytes at `offset` (fewer only at the end of the file; none
	// past it).  `len` above max_read (16 MiB) is an error: callers read
	// headers, never whole sections.
	[[nodiscard]] FsResult<std::string> read_at(std::uint64_t offset, std::uint64_t len);
	static constexpr std::uint64_t max_read = 16ull << 20;

private:
	unique_fd fd_;
	std::string path_;
	std::uint64_t size_ = 0;
	std::uint64_t bytes_read_ = 0;
};

} // namespace rdnafix::io
