#pragma once
// Minimal RAII wrappers over libsqlite3: a connection and a prepared statement.
// Every failure throws SqliteError with the statement and sqlite's message.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace rdnafix::validate::sql {

class SqliteError : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

class Db {
public:
	// Opens (creating if needed) `path`; ":memory:" for an in-memory database.
	explicit Db(const std::string &path);
	~Db();
	Db(const Db &) = delete;
	Db &operator=(const Db &) = delete;

	void exec(const std::string &sql); // one or more statements, no results
	int user_version();
	void set_user_version(int v);
	std::int64_t last_insert_rowid();
	sqlite3 *raw() { return db_; }

private:
	sqlite3 *db_ = nullptr;
};

class Stmt {
public:
	Stmt(Db &db, const std::string &sql);
	~Stmt();
	Stmt(const Stmt &) = delete;
	Stmt &operator=(const Stmt &) = delete;

	Stmt &bind(int i, const std::string &v);
	Stmt &bind(int i, std::int64_t v);
	Stmt &bind(int i, const std::optional<double> &v); // NULL when empty
	bool step();                                       // true: a row is available
	void run();                                        // step() expecting no row, then reset()
	void reset();
	bool is_null(int col);
	std::string text(int col);
	std::int64_t int64(int col);
	std::optional<double> real(int col);

private:
	sqlite3 *db_;
	sqlite3_stmt *st_ = nullptr;
	std::string sql_;
};

// BEGIN on construction; ROLLBACK in the destructor unless commit() was called.
class Transaction {
public:
	explicit Transaction(Db &db);
	~Transaction();
	Transaction(const Transaction &) = delete;
	Transaction &operator=(const Transaction &) = delete;
	void commit();

private:
	Db &db_;
	bool done_ = false;
};

} // namespace rdnafix::validate::sql
