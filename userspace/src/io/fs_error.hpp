#pragma once
// Errors of file-system reads as values: what went wrong (a kind), on which
// path, and the one-line reason rdnactl prints.
#include <string>
#include <string_view>

#include "core/result.hpp"
#include "io/errno_text.hpp" // errno_name, errno_text

namespace rdnafix::io {

enum class FsErrorKind {
	not_found,         // ENOENT (also a missing directory on the way)
	permission_denied, // EACCES / EPERM
	symlink_loop,      // ELOOP: too many symlinks while resolving
	is_directory,      // EISDIR: read_text on a directory
	not_directory,     // ENOTDIR: list_dir on a file, or a file in the middle of a path
	empty,             // the file exists and is readable but has 0 bytes
	binary,            // read_text found a NUL byte or invalid control bytes
	too_large,         // more than max_bytes
	bad_path,          // the relative path itself is invalid (e.g. contains a NUL)
	io_error,          // any other errno (EIO, ENODEV from sysfs, ...)
};

// "not_found", "permission_denied", ...
std::string_view to_string(FsErrorKind kind);

struct FsError {
	FsErrorKind kind = FsErrorKind::io_error;
	std::string path;    // the root-relative path asked for, e.g. "sys/module/amdgpu/initstate"
	std::string detail;  // e.g. "no such file (ENOENT)", "larger than the 1048576-byte limit"
	int errno_value = 0; // 0 when not from a syscall (empty, binary, too_large)

	// "unreadable: <detail>"  -- the per-item text that rdnactl prints.
	[[nodiscard]] std::string reason() const;
};

template <class T> using FsResult = core::Result<T, FsError>;

// The error for errno `e` while reading `rel` (`at`: the component being
// resolved when it is not `rel` itself), e.g. kind not_found, detail "no such
// file or directory at 'sys/x' (ENOENT)".
FsError errno_error(int e, std::string_view rel, std::string_view at = {});

} // namespace rdnafix::io
