// Temporary files of the atomic writer: unique names, a lock held while the
// writer lives, and a sweep that removes only dead writers' files (see
// temp_file.hpp).
#include "io/temp_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include <fmt/format.h>

namespace rdnafix::io::detail {

namespace {

std::uint64_t random_u64()
{
	std::uint64_t v = 0;
	if (::getrandom(&v, sizeof v, GRND_NONBLOCK) == ssize_t(sizeof v))
		return v;
	// No entropy yet (early boot): time and address bits; O_EXCL still
	// guarantees the name is this writer's alone.
	static std::uint64_t counter = 0;
	const auto t = std::uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
	return t ^ (std::uint64_t(reinterpret_cast<std::uintptr_t>(&v)) << 17) ^ (++counter * 0x9e3779b97f4a7c15ull);
}

bool flock_retry(int fd, int op)
{
	while (::flock(fd, op) != 0)
		if (errno != EINTR)
			return false;
	return true;
}

// `name` in `dirfd` is the inode `fd` has open.
bool same_file(int dirfd, const std::string &name, int fd)
{
	struct stat a {
	}, b{};
	return ::fstat(fd, &a) == 0 && ::fstatat(dirfd, name.c_str(), &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

struct DirCloser {
	void operator()(DIR *d) const { ::closedir(d); }
};

std::vector<std::string> names_with_prefix(int dirfd, const std::string &prefix)
{
	std::vector<std::string> out;
	int dup = ::openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dup < 0)
		return out;
	std::unique_ptr<DIR, DirCloser> d(::fdopendir(dup));
	if (!d) {
		::close(dup);
		return out;
	}
	while (dirent *e = ::readdir(d.get()))
		if (std::string_view(e->d_name).rfind(prefix, 0) == 0)
			out.emplace_back(e->d_name);
	return out;
}

} // namespace

TempFile create_temp(int dirfd, const std::string &prefix, int *err)
{
	TempFile t;
	for (int tries = 0; tries < 100; ++tries) {
		t.name = fmt::format("{}{}-{:016x}", prefix, ::getpid(), random_u64());
		t.fd.reset(::openat(dirfd, t.name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
		if (!t.fd) {
			if (errno == EEXIST)
				continue;
			*err = errno;
			return {};
		}
		// Between the create and the lock a sweep may have taken the
		// unlocked file for a dead writer's and removed it: then take
		// another name.  A file system without flock (ENOLCK, EOPNOTSUPP)
		// has no sweep either (it cannot lock), so the file is safe.
		const bool locked = flock_retry(t.fd.get(), LOCK_EX);
		if (!locked || same_file(dirfd, t.name, t.fd.get()))
			return t;
		t.fd.reset();
	}
	*err = EEXIST;
	return {};
}

void sweep_stale_temps(int dirfd, const std::string &prefix)
{
	for (const auto &name : names_with_prefix(dirfd, prefix)) {
		unique_fd fd(::openat(dirfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
		struct stat st {};
		if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		// Locked: a live writer's.  Another error: the lock cannot tell, keep it.
		if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0)
			continue;
		// Still the file that was locked (names are never reused: a
		// rename by its writer in the meantime leaves nothing to remove).
		if (same_file(dirfd, name, fd.get()))
			::unlinkat(dirfd, name.c_str(), 0);
	}
}

} // namespace rdnafix::io::detail
