// io::make_tar_gz: see archive_write.hpp.
#include "io/archive_write.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <memory>

namespace rdnafix::io {

namespace {

struct ArchiveDeleter {
	void operator()(archive *a) const { archive_write_free(a); }
};
struct EntryDeleter {
	void operator()(archive_entry *e) const { archive_entry_free(e); }
};

la_ssize_t append(archive *, void *client, const void *buf, size_t len)
{
	static_cast<std::string *>(client)->append(static_cast<const char *>(buf), len);
	return static_cast<la_ssize_t>(len);
}

} // namespace

std::string make_tar_gz(const std::vector<ArchiveEntry> &entries, std::int64_t mtime, std::string *error)
{
	std::string out;
	std::unique_ptr<archive, ArchiveDeleter> a(archive_write_new());
	auto failed = [&](const char *what) {
		*error = std::string("libarchive: ") + what + ": " +
			 (archive_error_string(a.get()) ? archive_error_string(a.get()) : "failed");
		return std::string();
	};
	if (!a)
		return failed("out of memory");
	if (archive_write_set_format_pax_restricted(a.get()) != ARCHIVE_OK)
		return failed("tar format");
	if (archive_write_add_filter_gzip(a.get()) != ARCHIVE_OK)
		return failed("gzip filter");
	// No block padding beyond tar's own: the bytes go to memory.
	archive_write_set_bytes_in_last_block(a.get(), 1);
	if (archive_write_open(a.get(), &out, nullptr, append, nullptr) != ARCHIVE_OK)
		return failed("open");
	for (const auto &e : entries) {
		std::unique_ptr<archive_entry, EntryDeleter> h(archive_entry_new());
		archive_entry_set_pathname(h.get(), e.path.c_str());
		archive_entry_set_uid(h.get(), 0);
		archive_entry_set_gid(h.get(), 0);
		archive_entry_set_uname(h.get(), "root");
		archive_entry_set_gname(h.get(), "root");
		archive_entry_set_mtime(h.get(), static_cast<time_t>(mtime), 0);
		switch (e.kind) {
		case ArchiveEntry::Kind::file:
			archive_entry_set_filetype(h.get(), AE_IFREG);
			archive_entry_set_perm(h.get(), 0644);
			archive_entry_set_size(h.get(), static_cast<la_int64_t>(e.data.size()));
			break;
		case ArchiveEntry::Kind::symlink:
			archive_entry_set_filetype(h.get(), AE_IFLNK);
			archive_entry_set_perm(h.get(), 0777);
			archive_entry_set_symlink(h.get(), e.data.c_str());
			break;
		case ArchiveEntry::Kind::directory:
			archive_entry_set_filetype(h.get(), AE_IFDIR);
			archive_entry_set_perm(h.get(), 0755);
			break;
		}
		if (archive_write_header(a.get(), h.get()) != ARCHIVE_OK)
			return failed(e.path.c_str());
		if (e.kind == ArchiveEntry::Kind::file && !e.data.empty() &&
		    archive_write_data(a.get(), e.data.data(), e.data.size()) != static_cast<la_ssize_t>(e.data.size()))
			return failed(e.path.c_str());
	}
	if (archive_write_close(a.get()) != ARCHIVE_OK)
		return failed("close");
	return out;
}

} // namespace rdnafix::io
