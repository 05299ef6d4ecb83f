#pragma once
// io::sqlite: SQLite access over SQLiteCpp (Debian libsqlitecpp-dev): opening
// a database the way rdnactl wants it and migrating its schema with
// PRAGMA user_version.  Errors are SQLite::Exception (a std::runtime_error).
#include <optional>
#include <string>
#include <vector>

#include <SQLiteCpp/Column.h>
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

namespace rdnafix::io::sqlite {

// Opens (creating if needed) `path` read-write, with a 5 s busy timeout and
// foreign keys enforced; ":memory:" for an in-memory database.
SQLite::Database open(const std::string &path);

int user_version(SQLite::Database &db);
void set_user_version(SQLite::Database &db, int version);

// steps[i] takes the schema from user_version i to i + 1.  Applies every step
// from the current version on, each with its version bump in one
// BEGIN IMMEDIATE transaction; returns the version it started at.  The caller
// refuses a database newer than steps.size() before calling this (throws
// std::invalid_argument if it did not).
int migrate(SQLite::Database &db, const std::vector<std::string> &steps);

// NULL for an empty optional.
void bind(SQLite::Statement &st, int index, const std::optional<double> &v);
// nullopt for NULL.
std::optional<double> optional_real(const SQLite::Column &c);

} // namespace rdnafix::io::sqlite
