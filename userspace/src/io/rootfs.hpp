// rdnafix io: read a machine's files below a root directory.
//
// RootFs is the ONLY place in rdnactl that touches /sys, /proc, /dev, /etc,
// /lib/modules and /usr/share.  It reads; it never decides.  With root "/" it
// reads the live machine, with any other directory it reads a captured tree
// (tests/fixtures/<machine>/root, `rdnactl status --root DIR`).
//
// Guarantees:
//  * Paths never escape the root, even while another process swaps a
//    directory for a symlink: every read opens a descriptor that the kernel
//    resolved inside the root (openat2 RESOLVE_IN_ROOT|RESOLVE_NO_MAGICLINKS,
//    Linux 5.6+) or that a walk of O_PATH|O_NOFOLLOW descriptors reached one
//    component at a time; a string path is never re-opened.  ".." stops at
//    the root, absolute symlink targets are re-rooted ("/sys/x" means
//    "<root>/sys/x"), relative targets are resolved from the link's
//    directory.  More than 40 symlinks on one path is a loop (ELOOP), as in
//    the kernel.  canonical() and host_path() are names for messages and
//    the manifest, not used to open anything.
//  * Every failure is a value: FsError with a kind and a one-line reason
//    ("unreadable: no such file (ENOENT)"), never an exception or a crash.
//  * Memoised: each file / directory / link / stat is looked up at most once
//    per RootFs object (counters below make this testable).
//  * Every fd is owned by an RAII holder.
// Not thread-safe (rdnactl is single-threaded).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/parse.hpp"
#include "core/types.hpp"
#include "io/fs_error.hpp"

namespace rdnafix::io {

class FileReader; // io/file_reader.hpp

// The pure half lives in core/ (types, the manifest parser); the names are
// used here as io's own.
using core::DevNodeEntry;
using core::DevNodeManifest;
using core::FileType;

// What read_text accepts.
struct ReadOptions {
	std::size_t max_bytes = 1024 * 1024; // larger files -> FsErrorKind::too_large
	bool allow_empty = false;            // false: a 0-byte file -> FsErrorKind::empty
};

// stat() of a path (symlinks followed inside the root).  For device nodes in a
// captured tree (regular files in git) the values come from the manifest
// `dev/.devnodes` (format: tests/fixtures/README.md; parsed by
// core::parse_devnode_manifest), flagged by from_manifest.
struct FileInfo {
	FileType type = FileType::other;
	unsigned mode = 0;                // permission bits only (07777)
	std::optional<uid_t> uid;         // from stat(); absent when from the manifest
	std::optional<gid_t> gid;         // from stat(); absent when from the manifest
	std::optional<std::string> owner; // from the manifest (a name); absent from stat()
	std::optional<std::string> group; // from the manifest (a name); absent from stat()
	unsigned dev_major = 0;           // char/block devices only
	unsigned dev_minor = 0;
	std::uint64_t size = 0;    // st_size (sysfs reports 4096, procfs 0)
	std::int64_t mtime_ns = 0; // st_mtim in ns since the epoch (0 from the manifest)
	bool from_manifest = false;
};

class RootFs {
public:
	// `root` is a host directory; "/" reads the live machine.  The root is
	// opened once (O_PATH|O_DIRECTORY); if that fails, root_error() says why
	// and every read returns that error (rdnactl then exits 2).
	explicit RootFs(std::string root);
	~RootFs();
	RootFs(const RootFs &) = delete;
	RootFs &operator=(const RootFs &) = delete;
	RootFs(RootFs &&) noexcept;
	RootFs &operator=(RootFs &&) noexcept;

	[[nodiscard]] const std::string &root() const;
	[[nodiscard]] bool is_live() const; // root is "/"
	[[nodiscard]] const std::optional<FsError> &root_error() const;

	// The whole file as text.  `rel` is relative to the root ("sys/module/
	// amdgpu/parameters/noretry"; a leading '/' is accepted and ignored).
	// Errors: not_found, permission_denied, symlink_loop, is_directory, empty
	// (unless allowed), binary (a NUL byte), too_large, io_error.
	// The content is returned verbatim (trailing "\n" kept).
	[[nodiscard]] FsResult<std::string> read_text(std::string_view rel, ReadOptions opts = {});

	// read_text, then trailing whitespace/newlines removed: the sysfs "value".
	// An all-whitespace file is `empty`.
	[[nodiscard]] FsResult<std::string> read_value(std::string_view rel, ReadOptions opts = {});

	// The whole file as bytes, NULs allowed (for /proc/<pid>/environ, cmdline).
	// Errors as read_text except binary/empty never happen.
	[[nodiscard]] FsResult<std::string> read_bytes(std::string_view rel, std::size_t max_bytes = 1024 * 1024);

	// The regular file `rel` resolves to, opened for random-access reads
	// (io/file_reader.hpp); for files too large to read whole.  Not
	// memoised; each call opens the file (counted in file_reads).  Errors as
	// read_bytes, plus io_error for a device node, FIFO or socket.
	[[nodiscard]] FsResult<FileReader> open_read(std::string_view rel);

	// Entry names of a directory, sorted, without "." and "..".
	[[nodiscard]] FsResult<std::vector<std::string>> list_dir(std::string_view rel);

	// The target text of the symlink `rel` (its parent directories resolved
	// inside the root; the link itself not followed), e.g.
	// "../../../bus/pci/drivers/amdgpu".  Not a symlink -> io_error (EINVAL).
	[[nodiscard]] FsResult<std::string> read_link(std::string_view rel);

	// The root-relative canonical path with every symlink resolved inside the
	// root, without a leading '/': "sys/class/drm/card0" ->
	// "sys/devices/pci0000:00/0000:00:01.0/0000:03:00.0/drm/card0".  The root
	// itself is "".  The final component must exist.
	[[nodiscard]] FsResult<std::string> canonical(std::string_view rel);

	// stat() with symlinks followed inside the root.  When the target is a
	// regular file and dev/.devnodes lists the path (as asked, or as its
	// canonical path), the manifest entry is returned instead
	// (from_manifest = true).
	[[nodiscard]] FsResult<FileInfo> stat(std::string_view rel);

	// True when `rel` resolves (inside the root) to something that exists.
	[[nodiscard]] bool exists(std::string_view rel);

	// The parsed dev/.devnodes (empty when absent); its problems are kept.
	[[nodiscard]] const DevNodeManifest &devnode_manifest();

	// The host path that `rel` resolves to (for diagnostics and for the
	// access check, which must open() the real node).  Guaranteed to lie
	// inside root().
	[[nodiscard]] FsResult<std::string> host_path(std::string_view rel);

	// Counters: how many times each kind of syscall-backed lookup actually
	// hit the file system (memoised hits are not counted).
	struct Counters {
		std::size_t file_reads = 0; // files opened and read
		std::size_t dir_lists = 0;
		std::size_t link_reads = 0;
		std::size_t stats = 0;
	};
	[[nodiscard]] const Counters &counters() const;

private:
	struct Impl;
	std::unique_ptr<Impl> impl_;
};

// Tests: false makes RootFs walk paths itself (O_PATH | O_NOFOLLOW) as on a
// kernel without openat2; true tries openat2 again.  openat2_in_use() says
// whether the last resolution used it.
void set_openat2_enabled_for_tests(bool enabled);
bool openat2_in_use();

} // namespace rdnafix::io
