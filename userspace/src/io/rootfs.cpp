// RootFs: every file access of rdnactl, below a root directory.  Reads only;
// no decisions.  See rootfs.hpp for the guarantees; the resolver and the raw
// reads are in rootfs_resolve.cpp.
#include "io/rootfs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>

#include "core/text_util.hpp"
#include "io/rootfs_impl.hpp"

namespace rdnafix::io {

namespace {
struct DirCloser {
	void operator()(DIR *d) const { ::closedir(d); }
};
} // namespace

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
		impl_->root_fd.reset(fd);
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
		++impl_->counters.dir_lists;
		auto opened = impl_->open_dir(*key);
		if (!opened)
			return opened.error();
		unique_fd fd = std::move(opened).value();
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
		++impl_->counters.link_reads;
		auto opened = impl_->open_path(*key, false);
		if (!opened)
			return opened.error();
		std::string target(4096, '\0');
		ssize_t n = -1;
		errno = EINVAL;
		if (S_ISLNK(opened->st.st_mode)) // "" names the O_PATH link itself
			n = ::readlinkat(opened->fd.get(), "", target.data(), target.size());
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
			++impl_->counters.stats;
			auto opened = impl_->open_path(*key, true);
			if (!opened)
				return opened.error();
			const struct stat &st = opened->st;
			FileInfo fi;
			fi.type = detail::type_of(st.st_mode);
			fi.mode = st.st_mode & 07777;
			fi.uid = st.st_uid;
			fi.gid = st.st_gid;
			if (fi.type == FileType::char_device || fi.type == FileType::block_device) {
				fi.dev_major = major(st.st_rdev);
				fi.dev_minor = minor(st.st_rdev);
			}
			fi.size = static_cast<std::uint64_t>(st.st_size);
			fi.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
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
				impl_->manifest = core::parse_devnode_manifest(*text);
			} else {
				impl_->manifest = DevNodeManifest{};
				if (text.error().kind != FsErrorKind::not_found)
					impl_->manifest->problems.push_back(
						text.error().detail); // the caller names the file
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
