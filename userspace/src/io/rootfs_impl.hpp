#pragma once
// RootFs's private state: the opened root, the memo tables and the resolver.
// Included only by rootfs.cpp and rootfs_resolve.cpp.
#include "io/rootfs.hpp"
#include "io/unique_fd.hpp"

#include <sys/stat.h>
#include <sys/types.h>

#include <map>
#include <set>

namespace rdnafix::io {

namespace detail {
// Split a root-relative path into components; "" and "." dropped, ".." kept.
std::vector<std::string> components(std::string_view rel);
std::string join(const std::vector<std::string> &parts);
FileType type_of(mode_t m);
} // namespace detail

// Cached raw read of one file.
struct RawRead {
	bool ok = false;
	FsError error;
	std::string data;
	bool truncated = false; // stopped at limit + 1 bytes
	std::size_t limit = 0;
};

struct RootFs::Impl {
	std::string root;
	bool live = false;
	unique_fd root_fd;
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
	static FsResult<std::string> key_of(std::string_view rel);

	// The canonical name of `rel` below the root (for canonical(), host_path()
	// and the manifest; nothing is opened by it), component by component.  With
	// follow_final=false a final symlink is not followed.  Returns the
	// canonical root-relative path ("" for the root).
	FsResult<std::string> resolve(const std::string &key, bool follow_final);
	FsResult<std::string> resolve_uncached(const std::string &key, bool follow_final);

	// The path to pass to openat2(root_fd, ...) for a root-relative key.
	static std::string at_path(const std::string &canon) { return canon.empty() ? std::string(".") : canon; }

	// Live machine: the kernel resolves (root is "/", nothing can escape).
	static std::string live_path(const std::string &key) { return "/" + key; }

	// What open_path found: an O_PATH descriptor inside the root and its
	// fstat(); from the walk also the directory it is in and its name there
	// (for the O_NOFOLLOW re-open of a regular file).
	struct Opened {
		unique_fd fd;
		unique_fd parent;
		std::string name;
		struct stat st {};
	};
	// rootfs_open.cpp: `key` as an O_PATH descriptor that lies inside the
	// root (openat2 RESOLVE_IN_ROOT, else walk()); with follow_final=false a
	// final symlink is itself opened.  No string path is ever re-opened.
	FsResult<Opened> open_path(const std::string &key, bool follow_final);
	FsResult<Opened> walk(const std::string &key, bool follow_final);
	// The directory `key` resolves to, open for reading (ENOTDIR otherwise).
	FsResult<unique_fd> open_dir(const std::string &key);
	// Opens the regular file `key` resolves to (stat first: never a device
	// node, FIFO or socket).  Counted in counters.file_reads.
	FsResult<unique_fd> open_regular(const std::string &key);
	RawRead read_raw(const std::string &key, std::size_t limit);
	RawRead read_uncached(const std::string &key, std::size_t limit);
};

} // namespace rdnafix::io
