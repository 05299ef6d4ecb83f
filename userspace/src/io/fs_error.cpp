// FsError: names, reasons and the errno mapping.
#include "io/fs_error.hpp"

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace rdnafix::io {

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

std::string FsError::reason() const
{
	return "unreadable: " + detail;
}

FsError errno_error(int e, std::string_view rel, std::string_view at)
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
		err.detail = fmt::format("{}{} ({})", errno_description(e), where, errno_name(e));
		break;
	}
	return err;
}

} // namespace rdnafix::io
