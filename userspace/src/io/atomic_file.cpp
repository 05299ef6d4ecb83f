// io::RootWriter: rooted path resolution on directory descriptors and the
// atomic replace/remove sequence (see atomic_file.hpp for the guarantees).
#include "io/atomic_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>

#include <fmt/format.h>

#include "io/fs_error.hpp"
#include "io/rootfs_impl.hpp"
#include "io/temp_file.hpp"

namespace rdnafix::io {

namespace {

constexpr int kMaxSymlinks = 40;
constexpr std::size_t kMaxRead = 1024 * 1024;

WriteError fail(std::string_view verb, std::string_view rel, int e, std::string_view what = {})
{
	WriteError w;
	w.path = std::string(rel);
	w.errno_value = e;
	w.reason = what.empty() ? errno_text(e) : std::string(what);
	w.message = fmt::format("cannot {} {}: {}", verb, rel, w.reason);
	return w;
}

// Root-relative path components: the resolver's own splitting (rootfs_impl.hpp).
std::vector<std::string> split(std::string_view rel)
{
	return detail::components(rel);
}

bool fsync_dir(int dirfd)
{
	unique_fd d(::openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	return d && ::fsync(d.get()) == 0;
}

struct DirCloser {
	void operator()(DIR *d) const { ::closedir(d); }
};

// The sorted entry names of the open directory `fd` (not consumed).
std::optional<std::vector<std::string>> entries_of(int fd)
{
	int dup = ::openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dup < 0)
		return std::nullopt;
	std::unique_ptr<DIR, DirCloser> d(::fdopendir(dup));
	if (!d) {
		::close(dup);
		return std::nullopt;
	}
	std::vector<std::string> out;
	while (dirent *e = ::readdir(d.get())) {
		std::string n = e->d_name;
		if (n != "." && n != "..")
			out.push_back(std::move(n));
	}
	std::sort(out.begin(), out.end());
	return out;
}

} // namespace

std::string temp_prefix(std::string_view name)
{
	return fmt::format(".{}.rdnactl-tmp-", name);
}

struct RootWriter::Impl {
	std::string root;
	unique_fd root_fd;
	WriteStatus root_error;

	// The directory `dir` (root-relative components), opened O_PATH.  With
	// `create`, missing components are made (0755) and their parent fsync'd.
	unique_fd open_dir(const std::vector<std::string> &dir, bool create, std::string_view verb,
			   std::string_view rel, WriteError *err) const
	{
		if (root_error) {
			*err = *root_error;
			return {};
		}
		std::vector<unique_fd> stack;
		stack.emplace_back(::openat(root_fd.get(), ".", O_PATH | O_DIRECTORY | O_CLOEXEC));
		if (!stack.back()) {
			*err = fail(verb, rel, errno);
			return {};
		}
		std::deque<std::string> todo(dir.begin(), dir.end());
		int links = 0;
		while (!todo.empty()) {
			std::string c = std::move(todo.front());
			todo.pop_front();
			if (c == "..") {
				if (stack.size() == 1) {
					*err = fail(verb, rel, EXDEV, "a symlink on the way climbs above the root");
					return {};
				}
				stack.pop_back();
				continue;
			}
			struct stat st {};
			if (::fstatat(stack.back().get(), c.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
				if (errno != ENOENT || !create) {
					*err = fail(verb, rel, errno);
					return {};
				}
				if (::mkdirat(stack.back().get(), c.c_str(), 0755) != 0 && errno != EEXIST) {
					*err = fail(verb, rel, errno);
					return {};
				}
				if (!fsync_dir(stack.back().get())) {
					*err = fail(verb, rel, errno);
					return {};
				}
				if (::fstatat(stack.back().get(), c.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
					*err = fail(verb, rel, errno);
					return {};
				}
			}
			if (S_ISLNK(st.st_mode)) {
				if (++links > kMaxSymlinks) {
					*err = fail(verb, rel, ELOOP);
					return {};
				}
				std::string target(4096, '\0');
				ssize_t n = ::readlinkat(stack.back().get(), c.c_str(), target.data(), target.size());
				if (n < 0 || std::size_t(n) >= target.size()) {
					*err = fail(verb, rel, n < 0 ? errno : ENAMETOOLONG);
					return {};
				}
				target.resize(std::size_t(n));
				if (!target.empty() && target.front() == '/')
					stack.resize(1); // re-rooted: the view of `chroot <root>`
				auto parts = split(target);
				for (auto it = parts.rbegin(); it != parts.rend(); ++it)
					todo.push_front(*it);
				continue;
			}
			if (!S_ISDIR(st.st_mode)) {
				*err = fail(verb, rel, ENOTDIR);
				return {};
			}
			unique_fd next(
				::openat(stack.back().get(), c.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
			if (!next) {
				*err = fail(verb, rel, errno);
				return {};
			}
			stack.push_back(std::move(next));
		}
		return std::move(stack.back());
	}

	// The parent directory of `rel` and the final name.
	unique_fd open_parent(std::string_view rel, bool create, std::string_view verb, std::string *name,
			      WriteError *err) const
	{
		auto parts = split(rel);
		if (parts.empty() || std::find(parts.begin(), parts.end(), "..") != parts.end() ||
		    rel.find('\0') != std::string_view::npos) {
			*err = fail(verb, rel, EINVAL, "not a plain root-relative path");
			return {};
		}
		*name = parts.back();
		parts.pop_back();
		return open_dir(parts, create, verb, rel, err);
	}
};

RootWriter::RootWriter(std::string root) : impl_(std::make_unique<Impl>())
{
	impl_->root = std::move(root);
	impl_->root_fd.reset(::open(impl_->root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
	if (!impl_->root_fd)
		impl_->root_error = fail("use", impl_->root, errno);
}

RootWriter::~RootWriter() = default;

const std::string &RootWriter::root() const
{
	return impl_->root;
}

const WriteStatus &RootWriter::root_error() const
{
	return impl_->root_error;
}

std::optional<FileState> RootWriter::read(std::string_view rel, WriteError *error) const
{
	std::string name;
	WriteError err;
	unique_fd dir = impl_->open_parent(rel, false, "read", &name, &err);
	if (!dir) {
		if (err.errno_value == ENOENT) // a missing directory: the file does not exist
			return std::nullopt;
		*error = err;
		return std::nullopt;
	}
	struct stat st {};
	if (::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
		if (errno != ENOENT)
			*error = fail("read", rel, errno);
		return std::nullopt;
	}
	if (S_ISLNK(st.st_mode)) {
		*error = fail("read", rel, ELOOP, "it is a symlink; rdnactl reads and writes only regular files there");
		return std::nullopt;
	}
	if (!S_ISREG(st.st_mode)) {
		*error = fail("read", rel, EINVAL, "not a regular file");
		return std::nullopt;
	}
	unique_fd fd(::openat(dir.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
	if (!fd) {
		*error = fail("read", rel, errno);
		return std::nullopt;
	}
	FileState out;
	out.mode = st.st_mode & 07777;
	char buf[8192];
	for (;;) {
		ssize_t n = ::read(fd.get(), buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*error = fail("read", rel, errno);
			return std::nullopt;
		}
		if (n == 0)
			break;
		out.content.append(buf, std::size_t(n));
		if (out.content.size() > kMaxRead) {
			*error = fail("read", rel, EFBIG, "larger than 1 MiB");
			return std::nullopt;
		}
	}
	return out;
}

WriteStatus RootWriter::replace(std::string_view rel, std::string_view content, std::optional<unsigned> mode,
				const StepHook &hook)
{
	std::string name;
	WriteError err;
	unique_fd dir = impl_->open_parent(rel, true, "write", &name, &err);
	if (!dir)
		return err;
	struct stat old {};
	bool exists = false;
	if (::fstatat(dir.get(), name.c_str(), &old, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(old.st_mode))
			return fail("write", rel, ELOOP,
				    "it is a symlink; rdnactl replaces only regular files (remove the link first)");
		if (!S_ISREG(old.st_mode))
			return fail("write", rel, EINVAL, "not a regular file");
		exists = true;
	} else if (errno != ENOENT) {
		return fail("write", rel, errno);
	}
	const unsigned want = mode ? *mode : exists ? unsigned(old.st_mode & 07777) : 0644u;
	// A temp file a killed run left behind is never the target: drop it
	// (only files no live writer holds: temp_file.hpp).
	const std::string prefix = temp_prefix(name);
	detail::sweep_stale_temps(dir.get(), prefix);
	int create_errno = 0;
	detail::TempFile temp = detail::create_temp(dir.get(), prefix, &create_errno);
	if (!temp.fd)
		return fail("write", rel, create_errno);
	const std::string &tmp = temp.name;
	unique_fd &fd = temp.fd;
	auto step = [&](std::string_view s) {
		if (hook)
			hook(s);
	};
	auto abandon = [&](int e) {
		::unlinkat(dir.get(), tmp.c_str(), 0);
		return fail("write", rel, e);
	};
	step(kStepTempCreated);
	std::size_t off = 0;
	while (off < content.size()) {
		ssize_t n = ::write(fd.get(), content.data() + off, content.size() - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return abandon(errno);
		off += std::size_t(n);
	}
	step(kStepWritten);
	if (exists && ::fchown(fd.get(), old.st_uid, old.st_gid) != 0 && errno != EPERM)
		return abandon(errno);
	if (::fchmod(fd.get(), want) != 0 || ::fsync(fd.get()) != 0)
		return abandon(errno);
	step(kStepSynced);
	// The descriptor (and its lock) is kept until the rename: an unlocked
	// temp file is a dead writer's to any other writer's sweep.
	if (::renameat(dir.get(), tmp.c_str(), dir.get(), name.c_str()) != 0)
		return abandon(errno);
	fd.reset();
	step(kStepRenamed);
	if (!fsync_dir(dir.get()))
		return fail("write", rel, errno);
	step(kStepDirSynced);
	return std::nullopt;
}

WriteStatus RootWriter::remove(std::string_view rel, const StepHook &hook)
{
	std::string name;
	WriteError err;
	unique_fd dir = impl_->open_parent(rel, false, "delete", &name, &err);
	if (!dir)
		return err.errno_value == ENOENT ? WriteStatus{} : WriteStatus{err};
	struct stat st {};
	if (::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? WriteStatus{} : WriteStatus{fail("delete", rel, errno)};
	if (S_ISLNK(st.st_mode))
		return fail("delete", rel, ELOOP, "it is a symlink; rdnactl deletes only regular files it wrote");
	if (!S_ISREG(st.st_mode))
		return fail("delete", rel, EINVAL, "not a regular file");
	if (::unlinkat(dir.get(), name.c_str(), 0) != 0)
		return fail("delete", rel, errno);
	if (hook)
		hook(kStepUnlinked);
	if (!fsync_dir(dir.get()))
		return fail("delete", rel, errno);
	if (hook)
		hook(kStepDirSynced);
	return std::nullopt;
}

WriteStatus RootWriter::make_dirs(std::string_view rel)
{
	WriteError err;
	auto parts = split(rel);
	if (std::find(parts.begin(), parts.end(), "..") != parts.end())
		return fail("create", rel, EINVAL, "not a plain root-relative path");
	unique_fd d = impl_->open_dir(parts, true, "create", rel, &err);
	if (!d)
		return err;
	return std::nullopt;
}

std::optional<std::vector<std::string>> RootWriter::list(std::string_view rel, WriteError *error) const
{
	WriteError err;
	auto parts = split(rel);
	if (std::find(parts.begin(), parts.end(), "..") != parts.end()) {
		*error = fail("list", rel, EINVAL, "not a plain root-relative path");
		return std::nullopt;
	}
	unique_fd d = impl_->open_dir(parts, false, "list", rel, &err);
	if (!d) {
		if (err.errno_value != ENOENT)
			*error = err;
		return std::nullopt;
	}
	auto names = entries_of(d.get());
	if (!names)
		*error = fail("list", rel, errno);
	return names;
}

WriteStatus RootWriter::rename_in(std::string_view dir_rel, std::string_view from, std::string_view to)
{
	WriteError err;
	const std::string what = fmt::format("{}/{}", dir_rel, from);
	auto parts = split(dir_rel);
	if (std::find(parts.begin(), parts.end(), "..") != parts.end() || from.find('/') != std::string_view::npos ||
	    to.find('/') != std::string_view::npos)
		return fail("rename", what, EINVAL, "not a plain name");
	unique_fd d = impl_->open_dir(parts, false, "rename", what, &err);
	if (!d)
		return err;
	if (::renameat(d.get(), std::string(from).c_str(), d.get(), std::string(to).c_str()) != 0)
		return fail("rename", what, errno);
	if (!fsync_dir(d.get()))
		return fail("rename", what, errno);
	return std::nullopt;
}

namespace {

// Empty the open directory `fd` (recursively; links unlinked, not followed).
bool empty_dir(int fd)
{
	auto names = entries_of(fd);
	if (!names)
		return false;
	for (const auto &n : *names) {
		struct stat st {};
		if (::fstatat(fd, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
			return false;
		if (S_ISDIR(st.st_mode)) {
			unique_fd sub(::openat(fd, n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
			if (!sub || !empty_dir(sub.get()) || ::unlinkat(fd, n.c_str(), AT_REMOVEDIR) != 0)
				return false;
		} else if (::unlinkat(fd, n.c_str(), 0) != 0) {
			return false;
		}
	}
	return true;
}

} // namespace

WriteStatus RootWriter::remove_tree(std::string_view rel)
{
	std::string name;
	WriteError err;
	unique_fd dir = impl_->open_parent(rel, false, "delete", &name, &err);
	if (!dir)
		return err.errno_value == ENOENT ? WriteStatus{} : WriteStatus{err};
	struct stat st {};
	if (::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? WriteStatus{} : WriteStatus{fail("delete", rel, errno)};
	if (S_ISDIR(st.st_mode)) {
		unique_fd sub(::openat(dir.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
		if (!sub || !empty_dir(sub.get()) || ::unlinkat(dir.get(), name.c_str(), AT_REMOVEDIR) != 0)
			return fail("delete", rel, errno);
	} else if (::unlinkat(dir.get(), name.c_str(), 0) != 0) {
		return fail("delete", rel, errno);
	}
	if (!fsync_dir(dir.get()))
		return fail("delete", rel, errno);
	return std::nullopt;
}

unique_fd RootWriter::lock(std::string_view rel, WriteError *error)
{
	std::string name;
	WriteError err;
	unique_fd dir = impl_->open_parent(rel, true, "lock", &name, &err);
	if (!dir) {
		*error = err;
		return {};
	}
	unique_fd fd(::openat(dir.get(), name.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
	if (!fd) {
		*error = fail("lock", rel, errno);
		return {};
	}
	if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
		*error = fail("lock", rel, errno,
			      errno == EWOULDBLOCK ? "it is locked by another rdnactl (one config change at a time)"
						   : std::string_view{});
		return {};
	}
	return fd;
}

} // namespace rdnafix::io
