#include "io/sqlite.hpp"

#include <stdexcept>

#include <SQLiteCpp/Backup.h>
#include <SQLiteCpp/Transaction.h>

namespace rdnafix::io::sqlite {

SQLite::Database open(const std::string &path)
{
	SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE, 5000);
	db.exec("PRAGMA foreign_keys = ON");
	return db;
}

SQLite::Database open_read_only(const std::string &path)
{
	return SQLite::Database(path, SQLite::OPEN_READONLY, 5000);
}

SQLite::Database copy_to_memory(SQLite::Database &db)
{
	SQLite::Database mem(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
	SQLite::Backup backup(mem, db);
	backup.executeStep(); // all pages
	return mem;
}

SchemaVersionError::SchemaVersionError(int version, int known)
    : std::invalid_argument("database schema version " + std::to_string(version) + " is outside 0.." +
			    std::to_string(known)),
      version_(version), known_(known)
{
}

int user_version(SQLite::Database &db)
{
	return db.execAndGet("PRAGMA user_version").getInt();
}

void set_user_version(SQLite::Database &db, int version)
{
	db.exec("PRAGMA user_version = " + std::to_string(version));
}

int migrate(SQLite::Database &db, const std::vector<std::string> &steps)
{
	const int known = int(steps.size());
	const int from = user_version(db);
	if (from < 0 || from > known)
		throw SchemaVersionError(from, known);
	if (from == known)
		return from;
	for (;;) {
		SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
		// Re-read under the write lock: another connection may have migrated since.
		const int v = user_version(db);
		if (v < 0 || v > known)
			throw SchemaVersionError(v, known);
		if (v == known)
			break;
		db.exec(steps[std::size_t(v)]);
		set_user_version(db, v + 1);
		tx.commit();
	}
	return from;
}

void bind(SQLite::Statement &st, int index, const std::optional<double> &v)
{
	if (v)
		st.bind(index, *v);
	else
		st.bind(index);
}

std::optional<double> optional_real(const SQLite::Column &c)
{
	if (c.isNull())
		return std::nullopt;
	return c.getDouble();
}

} // namespace rdnafix::io::sqlite
