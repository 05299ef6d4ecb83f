#pragma once
// io::unique_fd: the one owner of a file descriptor in rdnactl.  Closes on
// destruction; movable, not copyable.  Every open(2), pipe(2), memfd and
// accept(2) result that outlives one statement is held in one of these.
#include <unistd.h>

#include <utility>

namespace rdnafix::io {

class unique_fd {
public:
	unique_fd() = default;
	explicit unique_fd(int fd) : fd_(fd) {}
	unique_fd(unique_fd &&o) noexcept : fd_(o.release()) {}
	unique_fd &operator=(unique_fd &&o) noexcept
	{
		reset(o.release());
		return *this;
	}
	unique_fd(const unique_fd &) = delete;
	unique_fd &operator=(const unique_fd &) = delete;
	~unique_fd() { reset(); }

	int get() const { return fd_; }
	explicit operator bool() const { return fd_ >= 0; }
	// Gives up ownership: the caller closes the returned descriptor.
	int release() { return std::exchange(fd_, -1); }
	// Closes the held descriptor (if any) and takes `fd`.
	void reset(int fd = -1)
	{
		if (fd_ >= 0)
			::close(fd_);
		fd_ = fd;
	}

private:
	int fd_ = -1;
};

} // namespace rdnafix::io
