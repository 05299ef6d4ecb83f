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
