// RootFs: every file access of rdnactl, below a root directory.  Reads only;
// no decisions.  See rootfs.hpp for the guarantees.
#include "io/rootfs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <deque>
#include <set>

#include <fmt/format.h>

#include "core/parse.hpp"
#include "core/text_util.hpp"

namespace rdnafix::io {

// ------------------------------------------------------------------ names ---

std::string_view to_string(FsErrorKind kind)
{
	switch (kind) {
	case FsErrorKind::not_found:
		return "not_found";
	case FsErrorKind::permission_denied:
		return "permission_denied";
	case FsErrorKind::symlink_loop:
		return "symlink_loop";
	case FsErrorKind::is_directory:
		return "is_directory";
	case FsErrorKind::not_directory:
		return "not_directory";
	case FsErrorKind::empty:
		return "empty";
	case FsErrorKind::binary:
		return "binary";
	case FsErrorKind::too_large:
		return "too_large";
	case FsErrorKind::bad_path:
		return "bad_path";
	case FsErrorKind::io_error:
		return "io_error";
	}
	return "io_error";
}

std::string_view to_string(FileType type)
{
	switch (type) {
	case FileType::regular:
		return "regular";
	case FileType::directory:
		return "directory";
	case FileType::symlink:
		return "symlink";
	case FileType::char_device:
		return "char_device";
	case FileType::block_device:
		return "block_device";
	case FileType::fifo:
		return "fifo";
	case FileType::socket:
		return "socket";
	case FileType::other:
		return "other";
	}
	return "other";
}

std::string FsError::reason() const
{
	return "unreadable: " + detail;
}

// ------------------------------------------------------------- manifest ---

DevNodeManifest parse_devnode_manifest(std::string_view text)
{
	DevNodeManifest m;
	unsigned no = 0;
	for (std::string_view line : core::detail::split_lines(text)) {
		++no;
		std::string_view t = core::trim(line);
		if (t.empty() || t.front() == '#')
			continue;
		auto w = core::detail::split_words(t);
		auto bad = [&](std::string_view why) {
			m.problems.push_back(
				fmt::format("dev/.devnodes line {}: {} (valid: '<path> <c|b> <major>:<minor> "
					    "<octal mode> <owner> <group>'), got '{}'",
					    no, why, core::detail::shown(t)));
		};
		if (w.size() != 6) {
			bad(fmt::format("{} fields instead of 6", w.size()));
			continue;
		}
		DevNodeEntry e;
		std::string_view path = w[0];
		while (!path.empty() && path.front() == '/')
			path.remove_prefix(1);
		if (path.empty()) {
			bad("empty path");
			continue;
		}
		e.path = std::string(path);
		if (w[1] == "c")
			e.type = FileType::char_device;
		else if (w[1] == "b")
			e.type = FileType::block_device;
		else {
			bad("type must be 'c' or 'b'");
			continue;
		}
		std::string_view mm = w[2];
		auto colon = mm.find(':');
		unsigned mj = 0, mn = 0;
		bool ok = colon != std::string_view::npos;
		if (ok) {
			auto [p1, e1] = std::from_chars(mm.data(), mm.data() + colon, mj);
			auto [p2, e2] = std::from_chars(mm.data() + colon + 1, mm.data() + mm.size(), mn);
			ok = e1 == std::errc{} && e2 == std::errc{} && p1 == mm.data() + colon &&
			     p2 == mm.data() + mm.size();
		}
		if (!ok) {
			bad("major:minor must be two decimal numbers");
			continue;
		}
		e.major = mj;
		e.minor = mn;
		unsigned mode = 0;
		auto [pm, em] = std::from_chars(w[3].data(), w[3].data() + w[3].size(), mode, 8);
		if (em != std::errc{} || pm != w[3].data() + w[3].size() || mode > 07777) {
			bad("mode must be octal, at most 7777");
			continue;
		}
		e.mode = mode;
		e.owner = std::string(w[4]);
		e.group = std::string(w[5]);
		m.entries.push_back(std::move(e));
	}
	return m;
}

// ------------------------------------------------------------ internals ---

namespace {

// RAII file descriptor.
class Fd {
public:
	Fd() = default;
	explicit Fd(int fd) : fd_(fd) {}
	~Fd() { reset(); }
	Fd(const Fd &) = delete;
	Fd &operator=(const Fd &) = delete;
	Fd(Fd &&o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
	Fd &operator=(Fd &&o) noexcept
	{
		if (this != &o) {
			reset();
			fd_ = o.fd_;
			o.fd_ = -1;
		}
		return *this;
	}
	[[nodiscard]] int get() const { return fd_; }
	[[nodiscard]] bool valid() const { return fd_ >= 0; }
	int release()
	{
		int f = fd_;
		fd_ = -1;
		return f;
	}

private:
	void reset()
	{
		if (fd_ >= 0)
			::close(fd_);
		fd_ = -1;
	}
	int fd_ = -1;
};

struct DirCloser {
	void operator()(DIR *d) const { ::closedir(d); }
};

constexpr int kMaxSymlinks = 40; // as the kernel (MAXSYMLINKS)

std::string errno_name(int e)
{
	switch (e) {
	case ENOENT:
		return "ENOENT";
	case EACCES:
		return "EACCES";
	case EPERM:
		return "EPERM";
	case ELOOP:
		return "ELOOP";
	case EISDIR:
		return "EISDIR";
	case ENOTDIR:
		return "ENOTDIR";
	case EINVAL:
		return "EINVAL";
	case EIO:
		return "EIO";
	case ENODEV:
		return "ENODEV";
	case ENXIO:
		return "ENXIO";
	case ENAMETOOLONG:
		return "ENAMETOOLONG";
	case EBUSY:
		return "EBUSY";
	case EAGAIN:
		return "EAGAIN";
	case EOPNOTSUPP:
		return "EOPNOTSUPP";
	default:
		return fmt::format("errno {}", e);
	}
}

FsError errno_error(int e, std::string_view rel, std::string_view at = {})
{
	FsError err;
	err.path = std::string(rel);
	err.errno_value = e;
	std::string where = (!at.empty() && at != rel) ? fmt::format(" at '{}'", at) : std::string();
	switch (e) {
	case ENOENT:
		err.kind = FsErrorKind::not_found;
		err.detail = fmt::format("no such file or directory{} (ENOENT)", where);
		break;
	case EACCES:
	case EPERM:
		err.kind = FsErrorKind::permission_denied;
		err.detail = fmt::format("permission denied{} ({})", where, errno_name(e));
		break;
	case ELOOP:
		err.kind = FsErrorKind::symlink_loop;
		err.detail = fmt::format("too many levels of symbolic links{} (ELOOP)", where);
		break;
	case EISDIR:
		err.kind = FsErrorKind::is_directory;
		err.detail = "is a directory (EISDIR)";
		break;
	case ENOTDIR:
		err.kind = FsErrorKind::not_directory;
		err.detail = fmt::format("not a directory{} (ENOTDIR)", where);
		break;
	default:
		err.kind = FsErrorKind::io_error;
		err.detail = fmt::format("{}{} ({})", std::strerror(e), where, errno_name(e));
		break;
	}
	return err;
}

FileType type_of(mode_t m)
{
	if (S_ISREG(m))
		return FileType::regular;
	if (S_ISDIR(m))
		return FileType::directory;
	if (S_ISLNK(m))
		return FileType::symlink;
	if (S_ISCHR(m))
		return FileType::char_device;
	if (S_ISBLK(m))
		return FileType::block_device;
	if (S_ISFIFO(m))
		return FileType::fifo;
	if (S_ISSOCK(m))
		return FileType::socket;
	return FileType::other;
}

// Split a root-relative path into components; "" and "." dropped, ".." kept.
std::vector<std::string> components(std::string_view rel)
{
	std::vector<std::string> out;
	std::size_t pos = 0;
	while (pos <= rel.size()) {
		std::size_t e = rel.find('/', pos);
		if (e == std::string_view::npos)
			e = rel.size();
		std::string_view c = rel.substr(pos, e - pos);
		if (!c.empty() && c != ".")
			out.emplace_back(c);
		pos = e + 1;
	}
	return out;
}

std::string join(const std::vector<std::string> &parts)
{
	std::string out;
	for (const auto &p : parts) {
		if (!out.empty())
			out += '/';
		out += p;
	}
	return out;
}

// Cached raw read of one file.
struct RawRead {
	bool ok = false;
	FsError error;
	std::string data;
	bool truncated = false; // stopped at limit + 1 bytes
	std::size_t limit = 0;
};

} // namespace

// ----------------------------------------------------------------- Impl ---

struct RootFs::Impl {
	std::string root;
	bool live = false;
	Fd root_fd;
	std::optional<FsError> root_error;
	Counters counters;
	std::map<std::string, FsResult<std::string>> resolved_follow;   // rel -> canonical rel
	std::map<std::string, FsResult<std::string>> resolved_nofollow; // rel -> canonical parent + name
	std::set<std::string> known_dirs;                               // canonical paths verified to be directories
	std::map<std::string, RawRead> reads;
	std::map<std::string, FsResult<std::vector<std::string>>> dirs;
	std::map<std::string, FsResult<std::string>> links;
	std::map<std::string, FsResult<FileInfo>> stats;
	std::optional<DevNodeManifest> manifest;

	// The normalized key of a user path, or an error for an invalid one.
	static FsResult<std::string> key_of(std::string_view rel)
	{
		if (rel.find('\0') != std::string_view::npos) {
			FsError e;
			e.kind = FsErrorKind::bad_path;
			e.path = std::string(rel);
			e.detail = "the path contains a NUL byte";
			return e;
		}
		return join(components(rel));
	}

	// Resolve `rel` below the root, component by component.  With
	// follow_final=false a final symlink is not followed.  Returns the
	// canonical root-relative path ("" for the root).
	FsResult<std::string> resolve(const std::string &key, bool follow_final)
	{
		auto &cache = follow_final ? resolved_follow : resolved_nofollow;
		if (auto it = cache.find(key); it != cache.end())
			return it->second;
		auto r = resolve_uncached(key, follow_final);
		cache.emplace(key, r);
		return r;
	}

	FsResult<std::string> resolve_uncached(const std::string &key, bool follow_final)
	{
		std::deque<std::string> todo;
		for (auto &c : components(key))
			todo.push_back(std::move(c));
		std::vector<std::string> done;
		int followed = 0;
		while (!todo.empty()) {
			std::string c = std::move(todo.front());
			todo.pop_front();
			if (c == "..") {
				if (!done.empty())
					done.pop_back(); // ".." stops at the root
				continue;
			}
			done.push_back(std::move(c));
			const bool last = todo.empty();
			std::string cur = join(done);
			// A canonical prefix already seen to be a directory needs no new lstat.
			if (!last && known_dirs.count(cur) != 0)
				continue;
			struct stat st {};
			if (::fstatat(root_fd.get(), cur.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
				return errno_error(errno, key, cur);
			if (S_ISLNK(st.st_mode) && (!last || follow_final)) {
				if (++followed > kMaxSymlinks)
					return errno_error(ELOOP, key, cur);
				std::string target(4096, '\0');
				ssize_t n = ::readlinkat(root_fd.get(), cur.c_str(), target.data(), target.size());
				if (n < 0)
					return errno_error(errno, key, cur);
				if (static_cast<std::size_t>(n) >= target.size())
					return errno_error(ENAMETOOLONG, key, cur);
				target.resize(static_cast<std::size_t>(n));
				done.pop_back();
				if (!target.empty() && target.front() == '/')
					done.clear(); // re-rooted
				auto parts = components(target);
				for (auto it = parts.rbegin(); it != parts.rend(); ++it)
					todo.push_front(*it);
				continue;
			}
			if (!last && !S_ISDIR(st.st_mode))
				return errno_error(ENOTDIR, key, cur);
			if (S_ISDIR(st.st_mode))
				known_dirs.insert(cur);
		}
		return join(done);
	}

	// The path to pass to *at(root_fd, ...) for a canonical path.
	static std::string at_path(const std::string &canon) { return canon.empty() ? std::string(".") : canon; }

	// Live machine: the kernel resolves (root is "/", nothing can escape).
	static std::string live_path(const std::string &key) { return "/" + key; }

	FsResult<std::string> target_path(const std::string &key, bool follow_final)
	{
		if (root_error) {
			FsError e = *root_error;
			e.path = key;
			return e;
		}
		if (live)
			return live_path(key);
		return resolve(key, follow_final);
	}

	int dirfd() const { return live ? AT_FDCWD : root_fd.get(); }
	std::string sys_path(const std::string &p) const { return live ? p : at_path(p); }

	RawRead read_raw(const std::string &key, std::size_t limit)
	{
		if (auto it = reads.find(key); it != reads.end()) {
			const RawRead &c = it->second;
			if (!c.ok || !c.truncated || c.limit >= limit)
				return c;
		}
		RawRead r = read_uncached(key, limit);
		reads[key] = r;
		return r;
	}

	RawRead read_uncached(const std::string &key, std::size_t limit)
	{
		RawRead r;
		r.limit = limit;
		auto path = target_path(key, true);
		if (!path) {
			r.error = path.error();
			return r;
		}
		const std::string p = sys_path(*path);
		// stat first: never open() a device node, FIFO or socket (opening
		// /dev/kfd has side effects; a FIFO would block).
		struct stat st {};
		if (::fstatat(dirfd(), p.c_str(), &st, 0) != 0) {
			r.error = errno_error(errno, key);
			return r;
		}
		if (S_ISDIR(st.st_mode)) {
			r.error = errno_error(EISDIR, key);
			return r;
		}
		if (!S_ISREG(st.st_mode)) {
			r.error.kind = FsErrorKind::io_error;
			r.error.path = key;
			r.error.detail = fmt::format("not a regular file ({})", to_string(type_of(st.st_mode)));
			return r;
		}
		++counters.file_reads;
		Fd fd(::openat(dirfd(), p.c_str(),
			       O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (live ? 0 : O_NOFOLLOW)));
		if (!fd.valid()) {
			r.error = errno_error(errno, key);
			return r;
		}
		struct stat fst {};
		if (::fstat(fd.get(), &fst) != 0 || !S_ISREG(fst.st_mode)) {
			r.error = errno_error(fst.st_mode == 0 ? errno : EINVAL, key);
			return r;
		}
		std::string data;
		char buf[8192];
		while (data.size() <= limit) {
			ssize_t n = ::read(fd.get(), buf, sizeof buf);
			if (n < 0) {
				if (errno == EINTR)
					continue;
				r.error = errno_error(errno, key);
				return r;
			}
			if (n == 0)
				break;
			data.append(buf, static_cast<std::size_t>(n));
		}
		if (data.size() > limit) {
			r.truncated = true;
			data.resize(limit + 1);
		}
		r.ok = true;
		r.data = std::move(data);
		return r;
	}
};

// ---------------------------------------------------------------- RootFs ---

RootFs::RootFs(std::string root) : impl_(std::make_unique<Impl>())
{
	while (root.size() > 1 && root.back() == '/')
		root.pop_back();
	if (root.empty())
		root = ".";
	impl_->root = root;
	impl_->live = root == "/";
	int fd = ::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		FsError err = errno_error(e, "");
		err.detail = fmt::format("root directory '{}': {}", root, err.detail);
		impl_->root_error = err;
	} else {
		impl_->root_fd = Fd(fd);
	}
}

RootFs::~RootFs() = default;
RootFs::RootFs(RootFs &&) noexcept = default;
RootFs &RootFs::operator=(RootFs &&) noexcept = default;

const std::string &RootFs::root() const
{
	return impl_->root;
}
bool RootFs::is_live() const
{
	return impl_->live;
}
const std::optional<FsError> &RootFs::root_error() const
{
	return impl_->root_error;
}
const RootFs::Counters &RootFs::counters() const
{
	return impl_->counters;
}

FsResult<std::string> RootFs::read_text(std::string_view rel, ReadOptions opts)
{
	auto key = Impl::key_of(rel);
	if (!key)
		return key.error();
	RawRead r = impl_->read_raw(*key, opts.max_bytes);
	if (!r.ok)
		return r.error;
	FsError e;
	e.path = *key;
	if (r.data.size() > opts.max_bytes) {
		e.kind = FsErrorKind::too_large;
		e.detail = fmt::format("larger than the {}-byte limit", opts.max_bytes);
		return e;
	}
	if (r.data.empty() && !opts.allow_empty) {
		e.kind = FsErrorKind::empty;
		e.detail = "empty file";
		return e;
	}
	if (auto nul = r.data.find('\0'); nul != std::string::npos) {
		e.kind = FsErrorKind::binary;
		e.detail = fmt::format("binary content (NUL byte at offset {})", nul);
		return e;
	}
	return r.data;
}

FsResult<std::string> RootFs::read_value(std::string_view rel, ReadOptions opts)
{
	opts.allow_empty = true;
	auto t = read_text(rel, opts);
	if (!t)
		return t;
	std::string v = std::move(t).value();
	while (!v.empty() && core::detail::is_space(v.back()))
		v.pop_back();
	if (core::trim(v).empty()) {
		FsError e;
		e.kind = FsErrorKind::empty;
		e.path = *Impl::key_of(rel);
		e.detail = "empty file";
		return e;
	}
	return v;
}

FsResult<std::string> RootFs::read_bytes(std::string_view rel, std::size_t max_bytes)
{
	auto key = Impl::key_of(rel);
	if (!key)
		return key.error();
	RawRead r = impl_->read_raw(*key, max_bytes);
	if (!r.ok)
		return r.error;
	if (r.data.size() > max_bytes) {
		FsError e;
		e.kind = FsErrorKind::too_large;
		e.path = *key;
		e.detail = fmt::format("larger than the {}-byte limit", max_bytes);
		return e;
	}
	return r.data;
}

FsResult<std::vector<std::string>> RootFs::list_dir(std::string_view rel)
{
	auto key = Impl::key_of(rel);
	if (!key)
		return key.error();
	if (auto it = impl_->dirs.find(*key); it != impl_->dirs.end())
		return it->second;
	auto compute = [&]() -> FsResult<std::vector<std::string>> {
		auto path = impl_->target_path(*key, true);
		if (!path)
			return path.error();
		++impl_->counters.dir_lists;
		const std::string p = impl_->sys_path(*path);
		Fd fd(::openat(impl_->dirfd(), p.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
		if (!fd.valid())
			return errno_error(errno, *key);
		std::unique_ptr<DIR, DirCloser> dir(::fdopendir(fd.get()));
		if (!dir)
			return errno_error(errno, *key);
		fd.release(); // owned by the DIR now
		std::vector<std::string> names;
		errno = 0;
		while (dirent *de = ::readdir(dir.get())) {
			std::string_view n = de->d_name;
			if (n == "." || n == "..")
				continue;
			names.emplace_back(n);
		}
		if (errno != 0)
			return errno_error(errno, *key);
		std::sort(names.begin(), names.end());
		return names;
	};
	auto res = compute();
	impl_->dirs.emplace(*key, res);
	return res;
}

FsResult<std::string> RootFs::read_link(std::string_view rel)
{
	auto key = Impl::key_of(rel);
	if (!key)
		return key.error();
	if (auto it = impl_->links.find(*key); it != impl_->links.end())
		return it->second;
	auto compute = [&]() -> FsResult<std::string> {
		if (key->empty())
			return errno_error(EINVAL, *key);
		auto path = impl_->target_path(*key, false);
		if (!path)
			return path.error();
		++impl_->counters.link_reads;
		const std::string p = impl_->sys_path(*path);
		std::string target(4096, '\0');
		ssize_t n = ::readlinkat(impl_->dirfd(), p.c_str(), target.data(), target.size());
		if (n < 0) {
			int e = errno;
			FsError err = errno_error(e, *key);
			if (e == EINVAL)
				err.detail = "not a symbolic link (EINVAL)";
			return err;
		}
		target.resize(static_cast<std::size_t>(n));
		return target;
	};
	auto res = compute();
	impl_->links.emplace(*key, res);
	return res;
}

FsResult<std::string> RootFs::canonical(std::string_view rel)
{
	auto key = Impl::key_of(rel);
	if (!key)
		return key.error();
	if (impl_->root_error) {
		FsError e = *impl_->root_error;
		e.path = *key;
		return e;
	}
	if (!impl_->live)
		return impl_->resolve(*key, true);
	// Live: realpath() resolves with the kernel.
	if (auto it = impl_->resolved_follow.find(*key); it != impl_->resolved_follow.end())
		return it->second;
	FsResult<std::string> res = std::string();
	std::unique_ptr<char, decltype(&::free)> rp(::realpath(Impl::live_path(*key).c_str(), nullptr), &::free);
	if (!rp)
		res = errno_error(errno, *key);
	else {
		std::string s = rp.get();
		res = s.size() > 1 ? s.substr(1) : std::string();
	}
	impl_->resolved_follow.emplace(*key, res);
	return res;
}

FsResult<FileInfo> RootFs::stat(std::string_view rel)
{
	auto key = Impl::key_of(rel);
	if (!key)
		return key.error();
	auto it = impl_->stats.find(*key);
	if (it == impl_->stats.end()) {
		auto compute = [&]() -> FsResult<FileInfo> {
			auto path = impl_->target_path(*key, true);
			if (!path)
				return path.error();
			++impl_->counters.stats;
			struct stat st {};
			const std::string p = impl_->sys_path(*path);
			if (::fstatat(impl_->dirfd(), p.c_str(), &st, 0) != 0)
				return errno_error(errno, *key);
			FileInfo fi;
			fi.type = type_of(st.st_mode);
			fi.mode = st.st_mode & 07777;
			fi.uid = st.st_uid;
			fi.gid = st.st_gid;
			if (fi.type == FileType::char_device || fi.type == FileType::block_device) {
				fi.dev_major = major(st.st_rdev);
				fi.dev_minor = minor(st.st_rdev);
			}
			fi.size = static_cast<std::uint64_t>(st.st_size);
			return fi;
		};
		it = impl_->stats.emplace(*key, compute()).first;
	}
	const FsResult<FileInfo> &real = it->second;
	if (!real || impl_->live || real->type != FileType::regular)
		return real;
	// A captured tree: device nodes are regular files; the manifest has the truth.
	const DevNodeManifest &m = devnode_manifest();
	auto canon = canonical(*key);
	for (const auto &e : m.entries) {
		if (e.path == *key || (canon && e.path == *canon)) {
			FileInfo fi;
			fi.type = e.type;
			fi.mode = e.mode;
			fi.owner = e.owner;
			fi.group = e.group;
			fi.dev_major = e.major;
			fi.dev_minor = e.minor;
			fi.size = 0;
			fi.from_manifest = true;
			return fi;
		}
	}
	return real;
}

bool RootFs::exists(std::string_view rel)
{
	return canonical(rel).ok();
}

const DevNodeManifest &RootFs::devnode_manifest()
{
	if (!impl_->manifest) {
		if (impl_->live) {
			impl_->manifest = DevNodeManifest{};
		} else {
			auto text = read_text("dev/.devnodes", ReadOptions{256 * 1024, true});
			if (text) {
				impl_->manifest = parse_devnode_manifest(*text);
			} else {
				impl_->manifest = DevNodeManifest{};
				if (text.error().kind != FsErrorKind::not_found)
					impl_->manifest->problems.push_back("dev/.devnodes: " + text.error().reason());
			}
		}
	}
	return *impl_->manifest;
}

FsResult<std::string> RootFs::host_path(std::string_view rel)
{
	auto key = Impl::key_of(rel);
	if (!key)
		return key.error();
	if (impl_->live) {
		if (impl_->root_error)
			return *impl_->root_error;
		return Impl::live_path(*key);
	}
	auto canon = canonical(*key);
	if (!canon)
		return canon.error();
	return canon->empty() ? impl_->root : impl_->root + "/" + *canon;
}

} // namespace rdnafix::io
