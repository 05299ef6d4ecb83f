// RootFs internals: paths resolved one component at a time below the root,
// and raw file reads (memoised).  See rootfs.hpp for the guarantees.
#include "io/rootfs_impl.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <deque>

#include <fmt/format.h>

namespace rdnafix::io {

namespace {
constexpr int kMaxSymlinks = 40; // as the kernel (MAXSYMLINKS)
} // namespace

namespace detail {

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

} // namespace detail

FsResult<std::string> RootFs::Impl::key_of(std::string_view rel)
{
	if (rel.find('\0') != std::string_view::npos) {
		FsError e;
		e.kind = FsErrorKind::bad_path;
		e.path = std::string(rel);
		e.detail = "the path contains a NUL byte";
		return e;
	}
	return detail::join(detail::components(rel));
}

FsResult<std::string> RootFs::Impl::resolve(const std::string &key, bool follow_final)
{
	auto &cache = follow_final ? resolved_follow : resolved_nofollow;
	if (auto it = cache.find(key); it != cache.end())
		return it->second;
	auto r = resolve_uncached(key, follow_final);
	cache.emplace(key, r);
	return r;
}

FsResult<std::string> RootFs::Impl::resolve_uncached(const std::string &key, bool follow_final)
{
	std::deque<std::string> todo;
	for (auto &c : detail::components(key))
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
		std::string cur = detail::join(done);
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
			auto parts = detail::components(target);
			for (auto it = parts.rbegin(); it != parts.rend(); ++it)
				todo.push_front(*it);
			continue;
		}
		if (!last && !S_ISDIR(st.st_mode))
			return errno_error(ENOTDIR, key, cur);
		if (S_ISDIR(st.st_mode))
			known_dirs.insert(cur);
	}
	return detail::join(done);
}

RawRead RootFs::Impl::read_raw(const std::string &key, std::size_t limit)
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

RawRead RootFs::Impl::read_uncached(const std::string &key, std::size_t limit)
{
	RawRead r;
	r.limit = limit;
	auto opened = open_regular(key);
	if (!opened) {
		r.error = opened.error();
		return r;
	}
	unique_fd fd = std::move(opened).value();
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

} // namespace rdnafix::io
