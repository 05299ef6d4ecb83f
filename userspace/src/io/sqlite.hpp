#pragma once
// io::sqlite: SQLite access over SQLiteCpp (Debian libsqlitecpp-dev): opening
// a database the way rdnactl wants it and migrating its schema with
// PRAGMA user_version.  Errors are SQLite::Exception (a std::runtime_error).
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <SQLiteCpp/Column.h>
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

namespace rdnafix::io::sqlite {

// Opens (creating if needed) `path` read-write, with a 5 s busy timeout and
// foreign keys enforced; ":memory:" for an in-memory database.
SQLite::Database open(const std::string &path);
// Opens an existing `path` read-only (never creates it, never writes it), with
// a 5 s busy timeout.
SQLite::Database open_read_only(const std::string &path);
// How far rdnactl trusts a database it only reads (open_untrusted).
struct ReadLimits {
	int max_value_bytes = 1 << 20; // the longest text or blob a query may read (SQLITE_LIMIT_LENGTH)
	int budget_ms = 5000;          // SQLite work, from the open, before every further query is interrupted
	// A symbolic link as the last component: refused (false), or followed to
	// a regular file (true: a path the caller named for its own database).
	bool follow_symlink = false;
	// The file is opened with "immutable=1" (no locks, no journal read) when
	// its owner is not the caller's effective uid: no lock another user holds
	// can block the reader, no journal beside the file is looked at.
};

// A database file that open_untrusted refuses before SQLite sees it: not a
// regular file (a FIFO, a device node, a socket, a directory) or a symbolic
// link.  what() names the path and what it is.
class NotADatabaseFile : public std::runtime_error {
public:
	NotADatabaseFile(const std::string &what, std::string detail, bool missing)
	    : std::runtime_error(what), detail_(std::move(detail)), missing_(missing)
	{
	}
	// What is there, without the path: "is a FIFO, not a database file (...)".
	const std::string &detail() const { return detail_; }
	bool missing() const { return missing_; } // nothing at the path (ENOENT)

private:
	std::string detail_;
	bool missing_;
};

// Opens `path` for reading a database that another user may control (the
// history of the unprivileged validate user, read by root's status).  The
// last component is opened with O_PATH (no open(2) side effects, no FIFO
// wait), and O_NOFOLLOW unless limits.follow_symlink, and must be a regular
// file; SQLite then reads that very inode
// through /proc/self/fd/N, read-only, with trusted_schema off, defensive mode,
// cell size checks, no mmap, `limits` on value length and a progress handler
// that interrupts every query once the budget is spent.  Throws
// NotADatabaseFile, or SQLite::Exception for SQLite's own errors.
SQLite::Database open_untrusted(const std::string &path, const ReadLimits &limits = {});
// The same switches and bounds on a connection rdnactl made itself (the
// in-memory copy of an untrusted file, migrated to read an older schema).
void harden(SQLite::Database &db, const ReadLimits &limits);

// Why a query on a database opened with open_untrusted failed, in words:
// "gave up after 5000 ms of SQLite work (the budget for reading it)" for the
// progress handler's interrupt, "holds a value longer than 1048576 bytes" for
// the length limit, else SQLite's message.
std::string describe(const SQLite::Exception &e, const ReadLimits &limits);

// "" when `path` does not exist or is (through symbolic links) a regular
// file; else what it is ("a FIFO", "a character device", "a directory", ...),
// checked with O_PATH, so nothing is opened.  For a file rdnactl is about to
// create or write with SQLite.
std::string not_regular_file(const std::string &path);

// The type of schema object `name` ("table", "view", "index", "trigger",
// "virtual table"), or "" when the schema has none.
std::string object_type(SQLite::Database &db, const std::string &name);
// The names of the tables and views in the schema, sorted (SQLite's own
// sqlite_* tables left out).
std::vector<std::string> schema_tables(SQLite::Database &db);

// A private in-memory copy of `db` (the SQLite backup API), for reading an old
// schema through a migration without writing the file.
SQLite::Database copy_to_memory(SQLite::Database &db);

int user_version(SQLite::Database &db);
void set_user_version(SQLite::Database &db, int version);

// A user_version outside 0..known: newer than this program, or damaged
// (negative, huge).  Nothing was changed.
class SchemaVersionError : public std::invalid_argument {
public:
	SchemaVersionError(int version, int known);
	int version() const { return version_; }
	int known() const { return known_; }

private:
	int version_, known_;
};

// steps[i] takes the schema from user_version i to i + 1.  Applies every step
// from the current version on, each with its version bump in one
// BEGIN IMMEDIATE transaction that first re-reads the version (so two
// processes migrating a fresh database at once each apply a step at most
// once); returns the version it started at.  Throws SchemaVersionError for a
// version outside 0..steps.size(), before changing anything.
int migrate(SQLite::Database &db, const std::vector<std::string> &steps);

// NULL for an empty optional.
void bind(SQLite::Statement &st, int index, const std::optional<double> &v);
// nullopt for NULL.
std::optional<double> optional_real(const SQLite::Column &c);

} // namespace rdnafix::io::sqlite
