#include "sqlite.hpp"

#include <sqlite3.h>

#include <fmt/format.h>

namespace rdnafix::validate::sql {

Db::Db(const std::string &path)
{
	const int rc = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
	if (rc != SQLITE_OK) {
		std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
		sqlite3_close(db_);
		db_ = nullptr;
		throw SqliteError(fmt::format("cannot open history database {}: {}", path, msg));
	}
	sqlite3_busy_timeout(db_, 5000);
	exec("PRAGMA foreign_keys = ON");
}

Db::~Db()
{
	sqlite3_close(db_);
}

void Db::exec(const std::string &sql)
{
	char *err = nullptr;
	if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
		std::string msg = err ? err : "unknown error";
		sqlite3_free(err);
		throw SqliteError(fmt::format("sqlite: {} (in: {})", msg, sql.substr(0, 120)));
	}
}

int Db::user_version()
{
	Stmt st(*this, "PRAGMA user_version");
	st.step();
	return int(st.int64(0));
}

void Db::set_user_version(int v)
{
	exec(fmt::format("PRAGMA user_version = {}", v));
}

std::int64_t Db::last_insert_rowid()
{
	return sqlite3_last_insert_rowid(db_);
}

Stmt::Stmt(Db &db, const std::string &sql) : db_(db.raw()), sql_(sql)
{
	if (sqlite3_prepare_v2(db_, sql.c_str(), int(sql.size()), &st_, nullptr) != SQLITE_OK)
		throw SqliteError(fmt::format("sqlite: {} (preparing: {})", sqlite3_errmsg(db_), sql.substr(0, 120)));
}

Stmt::~Stmt()
{
	sqlite3_finalize(st_);
}

Stmt &Stmt::bind(int i, const std::string &v)
{
	if (sqlite3_bind_text(st_, i, v.c_str(), int(v.size()), SQLITE_TRANSIENT) != SQLITE_OK)
		throw SqliteError(fmt::format("sqlite: bind {}: {}", i, sqlite3_errmsg(db_)));
	return *this;
}

Stmt &Stmt::bind(int i, std::int64_t v)
{
	if (sqlite3_bind_int64(st_, i, v) != SQLITE_OK)
		throw SqliteError(fmt::format("sqlite: bind {}: {}", i, sqlite3_errmsg(db_)));
	return *this;
}

Stmt &Stmt::bind(int i, const std::optional<double> &v)
{
	const int rc = v ? sqlite3_bind_double(st_, i, *v) : sqlite3_bind_null(st_, i);
	if (rc != SQLITE_OK)
		throw SqliteError(fmt::format("sqlite: bind {}: {}", i, sqlite3_errmsg(db_)));
	return *this;
}

bool Stmt::step()
{
	const int rc = sqlite3_step(st_);
	if (rc == SQLITE_ROW)
		return true;
	if (rc == SQLITE_DONE)
		return false;
	throw SqliteError(fmt::format("sqlite: {} (running: {})", sqlite3_errmsg(db_), sql_.substr(0, 120)));
}

void Stmt::run()
{
	step();
	reset();
}

void Stmt::reset()
{
	sqlite3_reset(st_);
	sqlite3_clear_bindings(st_);
}

bool Stmt::is_null(int col)
{
	return sqlite3_column_type(st_, col) == SQLITE_NULL;
}

std::string Stmt::text(int col)
{
	const auto *p = sqlite3_column_text(st_, col);
	return p ? std::string(reinterpret_cast<const char *>(p), std::size_t(sqlite3_column_bytes(st_, col)))
		 : std::string();
}

std::int64_t Stmt::int64(int col)
{
	return sqlite3_column_int64(st_, col);
}

std::optional<double> Stmt::real(int col)
{
	if (is_null(col))
		return std::nullopt;
	return sqlite3_column_double(st_, col);
}

Transaction::Transaction(Db &db) : db_(db)
{
	db_.exec("BEGIN IMMEDIATE");
}

Transaction::~Transaction()
{
	if (!done_) {
		try {
			db_.exec("ROLLBACK");
		} catch (...) {
		}
	}
}

void Transaction::commit()
{
	db_.exec("COMMIT");
	done_ = true;
}

} // namespace rdnafix::validate::sql
