#pragma once
// io::make_tar_gz: a gzip-compressed POSIX tar archive built in memory by
// libarchive (Debian libarchive-dev), for `rdnactl report`.  Nothing is read
// or written here: the caller writes the bytes atomically (io::RootWriter),
// so a report killed half way never leaves half an archive.
//
// Entries keep their order; paths are relative ("rdnafix-report/MANIFEST");
// owner root:root (uid/gid 0), mode 0644 files, 0755 directories, 0777
// symlinks; every entry carries `mtime` (seconds since the epoch).
#include <cstdint>
#include <string>
#include <vector>

namespace rdnafix::io {

struct ArchiveEntry {
	enum class Kind { file, symlink, directory };
	std::string path;
	Kind kind = Kind::file;
	std::string data; // file: the content; symlink: the target text
};

// The archive's bytes; "" with *error set ("libarchive: ...") when
// libarchive refused an entry.
std::string make_tar_gz(const std::vector<ArchiveEntry> &entries, std::int64_t mtime, std::string *error);

} // namespace rdnafix::io
