// io::sqlite for databases rdnactl does not trust (sqlite.hpp:
// open_untrusted): the file is checked on a descriptor before SQLite sees it,
// and SQLite reads that very inode with its hardening switched on and its
// work bounded.
#include "io/sqlite.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "io/errno_text.hpp"
#include "io/unique_fd.hpp"

namespace rdnafix::io::sqlite {

namespace {

std::string kind_of(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISLNK(mode))
		return "a symbolic link";
	return "not a regular file";
}

// SQLite's unix VFS resolves symbolic links in a file name before it opens
// it (unixFullPathname), which would turn /proc/self/fd/N back into the path
// another user can swap.  This VFS is the unix one with the name taken as
// given: open(2) of /proc/self/fd/N reaches the inode the descriptor holds.
int name_as_given(sqlite3_vfs *, const char *path, int n, char *out)
{
	const std::size_t len = std::strlen(path);
	if (len + 1 > std::size_t(n))
		return SQLITE_CANTOPEN;
	std::memcpy(out, path, len + 1);
	return SQLITE_OK;
}

// SQLite's unix layer opens every file with O_NOFOLLOW, which refuses the
// magic link /proc/self/fd/N (ELOOP).  Its open(2) is replaced (the layer's
// xSetSystemCall) by one that drops O_NOFOLLOW for that name alone: the
// kernel then reopens the inode the descriptor holds, resolving no path.
// Every other name is opened exactly as SQLite asks.
constexpr std::string_view kFdPrefix = "/proc/self/fd/";

int open_descriptor_name(const char *path, int flags, int mode)
{
	if (std::string_view(path).starts_with(kFdPrefix))
		flags &= ~O_NOFOLLOW;
	return ::open(path, flags, mode);
}

const char *descriptor_vfs()
{
	static sqlite3_vfs vfs = [] {
		sqlite3_vfs *unix_vfs = sqlite3_vfs_find("unix");
		if (unix_vfs == nullptr)
			throw std::runtime_error("SQLite has no \"unix\" file system layer");
		if (unix_vfs->xSetSystemCall == nullptr ||
		    unix_vfs->xSetSystemCall(unix_vfs, "open",
					     reinterpret_cast<sqlite3_syscall_ptr>(open_descriptor_name)) != SQLITE_OK)
			throw std::runtime_error("cannot set SQLite's open(2)");
		sqlite3_vfs v = *unix_vfs;
		v.pNext = nullptr;
		v.zName = "rdnafix-descriptor";
		v.xFullPathname = name_as_given;
		return v;
	}();
	static const int rc = sqlite3_vfs_register(&vfs, 0);
	if (rc != SQLITE_OK)
		throw std::runtime_error(std::string("cannot register SQLite's file system layer: ") +
					 sqlite3_errstr(rc));
	return vfs.zName;
}

std::int64_t now_ms()
{
	using namespace std::chrono;
	return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

// The progress handler's context is the deadline itself (steady clock, ms):
// nothing to own or free, whatever happens to the connection.
int past_deadline(void *deadline)
{
	return now_ms() > reinterpret_cast<std::intptr_t>(deadline) ? 1 : 0;
}

void config(sqlite3 *h, int op, int value)
{
	if (sqlite3_db_config(h, op, value, nullptr) != SQLITE_OK)
		throw std::runtime_error(std::string("cannot configure SQLite: ") + sqlite3_errmsg(h));
}

} // namespace

SQLite::Database open_untrusted(const std::string &path, const ReadLimits &limits)
{
	// O_PATH: nothing is opened for reading yet, so a FIFO cannot block and a
	// device node's open has no side effect; O_NOFOLLOW: a symbolic link is
	// itself what fstat sees.
	unique_fd fd(::open(path.c_str(), O_PATH | O_CLOEXEC | (limits.follow_symlink ? 0 : O_NOFOLLOW)));
	auto refuse = [&path](const std::string &detail, bool missing) {
		return NotADatabaseFile(path + (detail.starts_with("is ") ? " " : ": ") + detail, detail, missing);
	};
	if (!fd) {
		const int e = errno;
		throw refuse(e == ENOENT ? "no such file" : errno_text(e), e == ENOENT);
	}
	struct stat st {};
	if (::fstat(fd.get(), &st) != 0)
		throw refuse(errno_text(errno), false);
	if (!S_ISREG(st.st_mode))
		throw refuse("is " + kind_of(st.st_mode) +
				     ", not a database file (valid: a regular file that rdnactl validate wrote)",
			     false);
	const bool foreign = st.st_uid != ::geteuid();
	const std::string uri =
		"file:/proc/self/fd/" + std::to_string(fd.get()) + (foreign ? "?mode=ro&immutable=1" : "?mode=ro");
	SQLite::Database db(uri, SQLite::OPEN_READONLY | SQLite::OPEN_URI, foreign ? 0 : 5000, descriptor_vfs());
	harden(db, limits);
	return db;
}

void harden(SQLite::Database &db, const ReadLimits &limits)
{
	sqlite3 *h = db.getHandle();
	sqlite3_progress_handler(h, 1000, past_deadline,
				 reinterpret_cast<void *>(std::intptr_t(now_ms() + limits.budget_ms)));
	sqlite3_limit(h, SQLITE_LIMIT_LENGTH, limits.max_value_bytes);
	sqlite3_limit(h, SQLITE_LIMIT_ATTACHED, 0);
	config(h, SQLITE_DBCONFIG_DEFENSIVE, 1);
	config(h, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0);
	config(h, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0);
	config(h, SQLITE_DBCONFIG_ENABLE_VIEW, 0);
	db.exec("PRAGMA cell_size_check = ON");
	db.exec("PRAGMA mmap_size = 0");
}

std::string not_regular_file(const std::string &path)
{
	unique_fd fd(::open(path.c_str(), O_PATH | O_CLOEXEC));
	struct stat st {};
	if (!fd || ::fstat(fd.get(), &st) != 0 || S_ISREG(st.st_mode))
		return {}; // missing or unreachable: SQLite's own open says why
	return kind_of(st.st_mode);
}

std::string object_type(SQLite::Database &db, const std::string &name)
{
	SQLite::Statement st(db, "SELECT type, sql FROM sqlite_schema WHERE name = ?1 COLLATE NOCASE LIMIT 1");
	st.bind(1, name);
	if (!st.executeStep())
		return {};
	const std::string type = st.getColumn(0).getString();
	const std::string sql = st.getColumn(1).getString();
	if (type == "table" && sqlite3_strnicmp(sql.c_str(), "CREATE VIRTUAL", 14) == 0)
		return "virtual table";
	return type;
}

std::vector<std::string> schema_tables(SQLite::Database &db)
{
	std::vector<std::string> out;
	SQLite::Statement st(db, "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE "
				 "'sqlite\\_%' ESCAPE '\\' ORDER BY name LIMIT 100");
	while (st.executeStep())
		out.push_back(st.getColumn(0).getString());
	return out;
}

std::string describe(const SQLite::Exception &e, const ReadLimits &limits)
{
	if (e.getErrorCode() == SQLITE_INTERRUPT)
		return "gave up after " + std::to_string(limits.budget_ms) +
		       " ms of SQLite work (the budget for reading it)";
	if (e.getErrorCode() == SQLITE_TOOBIG)
		return "holds a value longer than " + std::to_string(limits.max_value_bytes) + " bytes";
	return e.what();
}

} // namespace rdnafix::io::sqlite
