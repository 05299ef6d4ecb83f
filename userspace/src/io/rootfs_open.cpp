// RootFs: open a root-relative path as a descriptor that lies inside the
// root, so that swapping a directory for a symlink while rdnactl reads cannot
// lead it outside (the path is never re-opened as a string).  The kernel
// resolves with openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS) where it has
// it (Linux 5.6 and later: fs/namei.c, fs/open.c: do_sys_openat2); elsewhere,
// or where a seccomp filter refuses the call (ENOSYS, EPERM), the path is
// walked one component at a time with O_PATH | O_NOFOLLOW descriptors and the
// walk follows symlinks itself: ".." stops at the root, absolute targets are
// re-rooted, at most 40 links (MAXSYMLINKS).
#include "io/rootfs_impl.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <deque>

#include <fmt/format.h>

namespace rdnafix::io {

namespace {

constexpr int kMaxSymlinks = 40; // as the kernel (MAXSYMLINKS)

// 1 untried, 2 usable, 0 not usable (ENOSYS, EPERM, EINVAL: old kernel,
// seccomp) or disabled for a test.
std::atomic<int> g_openat2{1};

int sys_openat2(int dirfd, const char *path, int flags)
{
	open_how how{};
	how.flags = static_cast<std::uint64_t>(flags | O_CLOEXEC);
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
	for (int attempt = 0;; ++attempt) {
		long fd = ::syscall(SYS_openat2, dirfd, path, &how, sizeof how);
		// EAGAIN: a rename raced with ".." resolution; the kernel asks to retry.
		if (fd < 0 && (errno == EAGAIN || errno == EINTR) && attempt < 16)
			continue;
		return static_cast<int>(fd);
	}
}

bool same_file(const struct stat &a, const struct stat &b)
{
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

FsError not_regular(const std::string &key, mode_t mode)
{
	FsError e;
	e.kind = FsErrorKind::io_error;
	e.path = key;
	e.detail = fmt::format("not a regular file ({})", to_string(detail::type_of(mode)));
	return e;
}

} // namespace

void set_openat2_enabled_for_tests(bool enabled)
{
	g_openat2 = enabled ? 1 : 0;
}

bool openat2_in_use()
{
	return g_openat2.load() == 2;
}

FsResult<RootFs::Impl::Opened> RootFs::Impl::walk(const std::string &key, bool follow_final)
{
	std::deque<std::string> todo;
	for (auto &c : detail::components(key))
		todo.push_back(std::move(c));
	std::vector<unique_fd> stack;  // the directories above `cur`
	std::vector<std::string> done; // their names, for messages ("at 'sys/module'")
	auto fresh_root = [&]() { return unique_fd(::openat(root_fd.get(), ".", O_PATH | O_DIRECTORY | O_CLOEXEC)); };
	unique_fd cur = fresh_root();
	if (!cur)
		return errno_error(errno, key);
	Opened o;
	int followed = 0;
	while (!todo.empty()) {
		std::string c = std::move(todo.front());
		todo.pop_front();
		if (c == "..") {
			if (!stack.empty()) { // ".." stops at the root
				cur = std::move(stack.back());
				stack.pop_back();
				done.pop_back();
			}
			continue;
		}
		const bool last = todo.empty();
		done.push_back(c);
		const std::string at = detail::join(done);
		unique_fd next(::openat(cur.get(), c.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
		if (!next)
			return errno_error(errno, key, at);
		struct stat st {};
		if (::fstat(next.get(), &st) != 0)
			return errno_error(errno, key, at);
		if (S_ISLNK(st.st_mode) && (!last || follow_final)) {
			if (++followed > kMaxSymlinks)
				return errno_error(ELOOP, key, at);
			std::string target(4096, '\0');
			ssize_t n = ::readlinkat(next.get(), "", target.data(), target.size());
			if (n < 0)
				return errno_error(errno, key, at);
			if (static_cast<std::size_t>(n) >= target.size())
				return errno_error(ENAMETOOLONG, key, at);
			target.resize(static_cast<std::size_t>(n));
			done.pop_back();
			if (!target.empty() && target.front() == '/') { // re-rooted
				stack.clear();
				done.clear();
				cur = fresh_root();
				if (!cur)
					return errno_error(errno, key);
			}
			auto parts = detail::components(target);
			for (auto it = parts.rbegin(); it != parts.rend(); ++it)
				todo.push_front(*it);
			continue;
		}
		if (!last) {
			if (!S_ISDIR(st.st_mode))
				return errno_error(ENOTDIR, key, at);
			stack.push_back(std::move(cur));
			cur = std::move(next);
			continue;
		}
		o.fd = std::move(next);
		o.parent = std::move(cur);
		o.name = c;
		o.st = st;
		return o;
	}
	// The root itself (or a path that ".." reduced to it).
	o.st = {};
	if (::fstat(cur.get(), &o.st) != 0)
		return errno_error(errno, key);
	o.fd = std::move(cur);
	return o;
}

FsResult<RootFs::Impl::Opened> RootFs::Impl::open_path(const std::string &key, bool follow_final)
{
	if (root_error) {
		FsError e = *root_error;
		e.path = key;
		return e;
	}
	Opened o;
	if (live) {
		// Root "/": nothing to escape; the kernel resolves.
		const std::string p = live_path(key);
		o.fd.reset(::open(p.c_str(), O_PATH | O_CLOEXEC | (follow_final ? 0 : O_NOFOLLOW)));
		if (!o.fd || ::fstat(o.fd.get(), &o.st) != 0)
			return errno_error(errno, key);
		return o;
	}
	if (g_openat2.load() != 0) {
		const std::string p = at_path(key);
		int fd = sys_openat2(root_fd.get(), p.c_str(), O_PATH | (follow_final ? 0 : O_NOFOLLOW));
		if (fd >= 0) {
			g_openat2 = 2;
			o.fd.reset(fd);
			if (::fstat(fd, &o.st) != 0)
				return errno_error(errno, key);
			return o;
		}
		const int e = errno;
		if (e == ENOSYS || e == EPERM || e == E2BIG)
			g_openat2 = 0; // never again in this process: walk
				       // Any other failure: the walk finds it again and says where on the
				       // path it happened ("at 'sys/module/amdgpu/parameters'").
	}
	return walk(key, follow_final);
}

FsResult<unique_fd> RootFs::Impl::open_dir(const std::string &key)
{
	auto o = open_path(key, true);
	if (!o)
		return o.error();
	if (!S_ISDIR(o->st.st_mode))
		return errno_error(ENOTDIR, key);
	// "." below an O_PATH directory descriptor: the same directory, no lookup.
	unique_fd fd(::openat(o->fd.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	if (!fd)
		return errno_error(errno, key);
	return fd;
}

FsResult<unique_fd> RootFs::Impl::open_regular(const std::string &key)
{
	auto o = open_path(key, true);
	if (!o)
		return o.error();
	// Never open() a device node, FIFO or socket (opening /dev/kfd has side
	// effects; a FIFO would block).
	if (S_ISDIR(o->st.st_mode))
		return errno_error(EISDIR, key);
	if (!S_ISREG(o->st.st_mode))
		return not_regular(key, o->st.st_mode);
	++counters.file_reads;
	constexpr int kRead = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
	unique_fd fd;
	if (live)
		fd.reset(::open(live_path(key).c_str(), kRead));
	else if (o->parent)
		fd.reset(::openat(o->parent.get(), o->name.c_str(), kRead | O_NOFOLLOW));
	else
		fd.reset(sys_openat2(root_fd.get(), at_path(key).c_str(), kRead));
	if (!fd)
		return errno_error(errno, key);
	// The same file that was checked, or the tree changed under us.
	struct stat fst {};
	if (::fstat(fd.get(), &fst) != 0)
		return errno_error(errno, key);
	if (!S_ISREG(fst.st_mode))
		return not_regular(key, fst.st_mode);
	if (!live && !same_file(fst, o->st)) {
		FsError e;
		e.kind = FsErrorKind::io_error;
		e.path = key;
		e.detail = "the file was replaced while it was opened";
		return e;
	}
	return fd;
}

} // namespace rdnafix::io
